#!/usr/bin/env bash
# Debian packages the tests use: the real XBoard under Xvfb and the peer engines
# (fairymax, sjaakii, fairy-stockfish), screenshot tools, and Chromium with its driver (the board test). Skips what is already there.
set -euo pipefail
need=()
for pkg in xboard xvfb fairymax sjaakii fairy-stockfish x11-utils xdotool imagemagick bc chromium chromium-driver; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
[ ${#need[@]} -eq 0 ] && exit 0
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
