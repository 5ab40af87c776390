#!/usr/bin/env bash
# Debian packages the project needs: graphviz (`dot`, for SVG/PNG/GIF export and DOT
# validation in tests), chromium (the browser tests) and a CJK font, so names written in
# Hangul (가중치) or Han are drawn as letters, not empty boxes, in PNG and GIF exports.
# python3-venv lets scripts/venv.sh create the project's .venv (Debian leaves `venv` without pip otherwise).
# nodejs checks that the player's JavaScript module parses (tests/viz/test_player_files.py); npm installs axe-core
# for the accessibility browser test (scripts/axe_setup.sh; some nodejs builds carry npm themselves).
# packages.txt lists the same runtime packages for Streamlit Community Cloud.
# redis-server: class mode's shared room store (two Streamlit processes, and its tests).
# Skipped when already present.
set -euo pipefail
if command -v dot >/dev/null && command -v chromium >/dev/null && command -v node >/dev/null \
   && command -v npm >/dev/null && command -v redis-server >/dev/null && python3 -c 'import ensurepip, venv' 2>/dev/null \
   && fc-list :lang=ko | grep -q .; then
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq graphviz chromium fonts-dejavu-core fonts-noto-cjk nodejs python3-venv redis-server \
  >/dev/null
command -v npm >/dev/null || $SUDO apt-get install -y -qq npm >/dev/null
