#!/usr/bin/env bash
# Install everything the tests need into the project's .venv, then lint and run the whole suite with it
# (unit, app, browser).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_system.sh
bash scripts/axe_setup.sh  # axe-core for the accessibility browser test (needs node and npm)
PYTHON="$(bash scripts/venv.sh)"
"$PYTHON" -m pip install -q -r requirements-dev.txt
"$PYTHON" -m ruff check .
"$PYTHON" -m pytest -q
