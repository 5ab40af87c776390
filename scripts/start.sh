#!/usr/bin/env bash
# Install the app's dependencies into the project's .venv and start it (open the printed URL).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_system.sh
PYTHON="$(bash scripts/venv.sh)"
"$PYTHON" -m pip install -q -r requirements.txt
exec "$PYTHON" -m streamlit run app.py --browser.gatherUsageStats false "$@"
