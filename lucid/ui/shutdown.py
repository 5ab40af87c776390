"""A class server stops within seconds of SIGTERM, even while script threads are inside long computations.

On SIGTERM Streamlit stops its runtime and asks every session's script to stop,
but a script thread notices only at its next ``st`` call; Python then waits for
every such (non-daemon) thread before the process may exit. A thread inside a long
NumPy computation or a loop that polls nothing keeps a stopped server alive until
it finishes: seconds to minutes, until someone sends SIGKILL.

``install()`` (called by ``app.py`` on every run, acting once per process) starts a
daemon thread that watches the Streamlit runtime. Once the runtime is stopping, the
process has ``GRACE_SECONDS`` to end the normal way (scripts that reach an ``st``
call or poll ``should_stop`` end at once); then the watchdog stops its ``dot``
children and ends it with ``os._exit``. Nothing a stopping server computes is worth keeping: results live in
memory only. ``stopping()`` is the same signal as a flag for long loops.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path

GRACE_SECONDS = 2.0
"""How long a stopping server waits for its script threads before it ends anyway (well under 5 s in all)."""

POLL_SECONDS = 0.2
"""How often the watchdog looks at the runtime's state (a few attribute reads: no measurable cost)."""

_lock = threading.Lock()
_watchdog: threading.Thread | None = None
_stopping = threading.Event()


def stopping() -> bool:
    """True once the server this process runs has begun to stop (for loops that can end early)."""
    return _stopping.is_set()


def _streamlit_runtime_stopping() -> Callable[[], bool] | None:
    """A check of the real Streamlit runtime serving this process, or None when there is none.

    None in bare mode and under ``AppTest``, whose stand-in runtime is a mock: a watchdog there could end
    the test process itself.
    """
    try:
        from streamlit.runtime import Runtime
        from streamlit.runtime.runtime import RuntimeState
    except ImportError:
        return None
    runtime = Runtime._instance if Runtime.exists() else None
    if type(runtime) is not Runtime:
        return None
    done = {RuntimeState.STOPPING, RuntimeState.STOPPED}
    return lambda: runtime.state in done


def children_of_this_process() -> list[int]:
    """Process ids of this process's children (``dot`` layouts still running), from Linux's ``/proc``;
    empty where that is not available."""
    pids: list[int] = []
    for listing in Path("/proc/self/task").glob("*/children"):
        try:
            pids.extend(int(pid) for pid in listing.read_text().split())
        except (OSError, ValueError):
            continue
    return pids


def _end_process() -> None:
    print("Lucid Graph Lab: script threads were still busy after the server stopped; ending the process.",
          file=sys.stderr, flush=True)
    try:
        for pid in children_of_this_process():  # a `dot` layout would otherwise run on, orphaned, to its timeout
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)
        sys.stdout.flush()
    finally:
        os._exit(0)


def watch(is_stopping: Callable[[], bool], *, grace: float = GRACE_SECONDS, poll: float = POLL_SECONDS,
          end: Callable[[], None] = _end_process) -> threading.Thread:
    """Start a daemon thread that calls ``end()`` ``grace`` seconds after ``is_stopping()`` turns true.

    If the process exits normally within the grace period the daemon thread simply dies with it.
    """
    def run() -> None:
        ticker = threading.Event()
        while not is_stopping():
            ticker.wait(poll)
        _stopping.set()
        ticker.wait(grace)
        end()

    thread = threading.Thread(target=run, name="lucid-shutdown-watchdog", daemon=True)
    thread.start()
    return thread


def install() -> bool:
    """Start the watchdog for this process's Streamlit server (once); False when it runs already or there is
    no real server to watch (bare mode, ``AppTest``)."""
    global _watchdog
    with _lock:
        if _watchdog is not None and _watchdog.is_alive():
            return False
        is_stopping = _streamlit_runtime_stopping()
        if is_stopping is None:
            return False
        _watchdog = watch(is_stopping)
        return True
