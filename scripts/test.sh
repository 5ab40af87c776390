#!/usr/bin/env bash
# Install everything the tests need, then lint and run the whole suite (unit, app, browser).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_system.sh
python3 -m pip install -q -r requirements-dev.txt
python3 -m ruff check .
python3 -m pytest -q
