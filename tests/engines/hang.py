#!/usr/bin/env python3
"""CECP test engine that stops answering for good at its 2nd move of every game."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from randommover import main  # noqa: E402

main(proto="xboard", hang_at=2)
