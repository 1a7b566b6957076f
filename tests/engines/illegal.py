#!/usr/bin/env python3
"""CECP test engine that plays an illegal move as its 3rd move of every game."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from randommover import main  # noqa: E402

main(proto="xboard", illegal_at=3)
