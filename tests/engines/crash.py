#!/usr/bin/env python3
"""CECP test engine that exits with code 3 at its 5th move of every game (mid-game)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from randommover import main  # noqa: E402

main(proto="xboard", crash_at=5)
