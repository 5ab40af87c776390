"""Test launcher: ``python tests/serve_runs_counted.py LOG run app.py [streamlit options]``.

Runs the real Streamlit server in this process, exactly as ``streamlit run`` would, after wrapping
``ScriptRunner._run_script`` (where every script thread starts running the page) so that each start appends
its session's id to ``LOG``. A test then counts the script runs each session cost the server from outside
it, where the messages a client receives undercount them (a run replaced before it reported its start sends
nothing). The app itself is unchanged.
"""
from __future__ import annotations

import collections
import sys
import threading
from pathlib import Path


def count_runs(log: Path) -> None:
    from streamlit.runtime.scriptrunner.script_runner import ScriptRunner

    lock = threading.Lock()
    real = ScriptRunner._run_script

    def counted(self, rerun_data):
        with lock, open(log, "a", encoding="utf-8") as out:
            out.write(f"{self._session_id}\n")
        return real(self, rerun_data)

    ScriptRunner._run_script = counted


def launcher(log: Path) -> list[str]:
    """What runs ``streamlit`` through this file, counting into ``log`` (``bench.streamlit_client.server``)."""
    return [sys.executable, str(Path(__file__).resolve()), str(log)]


def runs_per_session(log: Path) -> dict[str, int]:
    """Script runs started so far, by session id."""
    return dict(collections.Counter(log.read_text(encoding="utf-8").split() if log.exists() else []))


if __name__ == "__main__":
    sys.path[0] = str(Path(__file__).resolve().parents[1])  # the project, not tests/, as `streamlit run` has it
    count_runs(Path(sys.argv[1]))
    from streamlit.web import cli

    sys.argv = ["streamlit", *sys.argv[2:]]
    sys.exit(cli.main())
