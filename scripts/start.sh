#!/usr/bin/env bash
# Install the app's dependencies into the project's .venv and start it (open the printed URL).
set -euo pipefail
cd "$(dirname "$0")/.."
# Keep compiled bytecode (some machines set PYTHONDONTWRITEBYTECODE for every shell): without it the server
# compiles the project again on every start, and its first visitors wait for it.
unset PYTHONDONTWRITEBYTECODE
bash scripts/setup_system.sh
PYTHON="$(bash scripts/venv.sh)"
"$PYTHON" -m pip install -q -r requirements.txt
exec "$PYTHON" -m streamlit run app.py --browser.gatherUsageStats false "$@"
