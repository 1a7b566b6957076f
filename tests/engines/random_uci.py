#!/usr/bin/env python3
"""Random legal mover speaking UCI (UCI_Variant), every jitfish variant."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from randommover import main  # noqa: E402

main(proto="uci")
