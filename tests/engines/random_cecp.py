#!/usr/bin/env python3
"""Random legal mover speaking CECP v2 (XBoard), every jitfish variant."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from randommover import main  # noqa: E402

main(proto="xboard")
