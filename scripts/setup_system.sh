#!/usr/bin/env bash
# Debian packages the project needs: graphviz (`dot`, for SVG/PNG/GIF export and DOT
# validation in tests) and chromium (the browser tests). Skipped when already present.
set -euo pipefail
if command -v dot >/dev/null && command -v chromium >/dev/null; then
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq graphviz chromium fonts-dejavu-core >/dev/null
