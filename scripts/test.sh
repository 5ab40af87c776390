#!/usr/bin/env bash
# Install everything the tests need into the project's .venv, then lint and run the whole suite with it
# (unit, app, browser).
set -euo pipefail
cd "$(dirname "$0")/.."
# Keep compiled bytecode. With PYTHONDONTWRITEBYTECODE set (some machines set it for every shell), every process the
# suite starts (each pytest-xdist worker, each `streamlit run`, each notebook kernel) compiles the project again, and
# each worker rewrites the asserts of every test module again: about 35 s of CPU per worker before the first test.
unset PYTHONDONTWRITEBYTECODE
bash scripts/setup_system.sh
bash scripts/axe_setup.sh  # axe-core for the accessibility browser test (needs node and npm)
PYTHON="$(bash scripts/venv.sh)"
"$PYTHON" -m pip install -q -r requirements-dev.txt
"$PYTHON" -m ruff check .
"$PYTHON" -m pytest -q
