#!/usr/bin/env bash
# Install the app's dependencies and start it (open the printed URL).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_system.sh
python3 -m pip install -q -r requirements.txt
exec python3 -m streamlit run app.py --browser.gatherUsageStats false "$@"
