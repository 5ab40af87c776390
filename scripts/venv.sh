#!/usr/bin/env bash
# The project's own Python environment, .venv: created with `python3 -m venv` when missing (or when a
# failed creation left it without pip), and its interpreter printed. Current Debian and Ubuntu refuse
# `pip install` into the system Python (PEP 668, "externally-managed-environment"), so start.sh and
# test.sh install the pinned requirements into this environment and run everything with it (tests that
# start servers use sys.executable, so they run in it too). Debian's python3-venv, which `venv` needs,
# is installed by scripts/setup_system.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! .venv/bin/python -m pip --version >/dev/null 2>&1; then
  python3 -m venv --clear .venv >&2
fi
echo "$PWD/.venv/bin/python"
