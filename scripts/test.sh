#!/usr/bin/env bash
# Install everything the tests need (Python packages; Debian's graphviz and chromium
# must be present: see README) and run lint plus the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q -r requirements-dev.txt
python3 -m ruff check .
python3 -m pytest -q
