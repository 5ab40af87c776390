"""Test launcher: ``python tests/serve_counted.py LOG run app.py [streamlit options]``.

Runs the real Streamlit server in this process, exactly as ``streamlit run`` would, after wrapping the
functions that do the app's shared heavy work so that each call appends its name to ``LOG``. A test then
reads work counts from outside the server (how many times the Train page's dataset, scalar graph and
comparison were computed), instead of guessing them from response times. The app itself is unchanged.

With ``LUCID_TEST_BUSY=<name>`` each call of that function first spins for ``BUSY_SECONDS`` in pure
Python, polling nothing (logging ``<name> busy``, and ``<name> busy done`` if it got to the end): a stand-in
for any long computation a script thread can be inside when the server is told to stop. With
``LUCID_TEST_BUSY_IN=worker`` the spinning runs in a ``ThreadPoolExecutor`` worker the script thread waits for,
as the GIF export runs its ``dot`` layouts: Python joins such workers before the process may exit.
"""
from __future__ import annotations

import functools
import importlib
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

COUNTED = {
    "lucid.data": "load",
    "lucid.lessons.training": "compare_tensor_scalar",
    "lucid.lessons.graph_sizes": "step_graphs",
    "lucid.session.jacobian_build": "shared_comparison",
}
"""module -> function: the pages import these by name, so replacing the module attribute before the
app's first run is enough."""


BUSY_SECONDS = 60.0


def spin(seconds: float) -> None:
    """Pure-Python work that never looks at a stop request."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        sum(range(10_000))


def busy(seconds: float, where: str) -> None:
    if where != "worker":
        spin(seconds)
        return
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(spin, seconds).result()


def count_calls(log: Path, busy_name: str | None = None, busy_in: str = "script") -> None:
    lock = threading.Lock()

    def note(line: str) -> None:
        with lock, open(log, "a", encoding="utf-8") as out:
            out.write(f"{line}\n")

    for module_name, name in COUNTED.items():
        module = importlib.import_module(module_name)
        real = getattr(module, name)

        def counted(*args, __real=real, __name=name, **kwargs):
            note(__name)
            if __name == busy_name:
                note(f"{__name} busy")
                busy(BUSY_SECONDS, busy_in)
                note(f"{__name} busy done")  # never written by a server that was ended while it spun
            return __real(*args, **kwargs)

        setattr(module, name, functools.wraps(real)(counted))


def launcher(log: Path) -> list[str]:
    """What runs ``streamlit`` through this file, counting into ``log`` (``bench.streamlit_client.server``)."""
    return [sys.executable, str(Path(__file__).resolve()), str(log)]


def counts(log: Path) -> dict[str, int]:
    """How many times each counted function ran so far."""
    found = {name: 0 for name in COUNTED.values()}
    for line in (log.read_text(encoding="utf-8").splitlines() if log.exists() else []):
        found[line] = found.get(line, 0) + 1
    return found


if __name__ == "__main__":
    sys.path[0] = str(Path(__file__).resolve().parents[1])  # the project, not tests/, as `streamlit run` has it
    # A data folder of this server's own, beside its log: what the disk cache kept from another test's server in
    # the same worker (the Train page's comparison, say) would be read back instead of computed, and not counted.
    os.environ["LUCID_DATA_DIR"] = str(Path(sys.argv[1]).resolve().parent / "counted-server-data")
    count_calls(Path(sys.argv[1]), os.environ.get("LUCID_TEST_BUSY"), os.environ.get("LUCID_TEST_BUSY_IN", "script"))
    from streamlit.web import cli

    sys.argv = ["streamlit", *sys.argv[2:]]
    sys.exit(cli.main())
