"""A class server stops within seconds of SIGTERM, even while script threads are inside long computations.

On SIGTERM Streamlit stops its runtime and asks every session's script to stop,
but a script thread notices only at its next ``st`` call, and Python waits for
every non-daemon thread (the GIF export's ``dot`` workers) before the process may
exit. A thread inside a long computation keeps a stopped server alive until it
finishes: seconds to minutes, until someone sends SIGKILL.

Worse, the runtime itself is stopped last: Streamlit's SIGTERM handler only tells
its web server (uvicorn) to exit, and uvicorn first waits, without a time limit,
for every open connection to close; only then does its shutdown stop the runtime.
A tab that stops reading its websocket (a stalled laptop, a script that never
reads) keeps its connection open for as long as its unsent messages wait, so a
watchdog that waited for the runtime to stop never started its clock (measured:
still running 30 s after SIGTERM, with one such client).

``install()`` (called by ``app.py`` on every run, acting once per process) starts a
daemon thread, and puts a handler in front of Streamlit's SIGTERM/SIGINT handler
(on the main thread, through the runtime's event loop). The signal itself starts
the clock, as does the runtime stopping for any other reason: the process then has
``GRACE_SECONDS`` to end the normal way (scripts that reach an ``st`` call or poll
``should_stop`` end at once); then the watchdog stops its ``dot`` children and ends
it with ``os._exit``. If even the watchdog cannot run then (a C call holding the
GIL, or the interpreter already finalizing, when daemon threads are frozen),
``faulthandler``'s own C thread, armed by the signal, ends the process a second
later, after writing every thread's traceback to stderr (what was still busy).

Nothing a stopping server computes is worth keeping: results live in memory only.
Class rooms kept in a SQLite file (WAL mode) are safe too: a committed transaction
survives the process dying at any instant (it is in the database or its WAL file),
and one not committed is rolled back when the file is next opened, so ``os._exit``
cannot corrupt it. ``stopping()`` is the same signal as a flag for long loops.
"""
from __future__ import annotations

import contextlib
import faulthandler
import os
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from lucid.ui.runtime import streamlit_internals

GRACE_SECONDS = 2.0
"""How long a stopping server waits for its script threads before it ends anyway (well under 5 s in all)."""

POLL_SECONDS = 0.2
"""How often the watchdog looks at the runtime's state (a few attribute reads: no measurable cost)."""

BACKSTOP_SECONDS = 1.0
"""How long after the watchdog's deadline ``faulthandler``'s C thread ends the process if the watchdog could not."""

SIGNALS = (signal.SIGTERM, signal.SIGINT)
"""The signals Streamlit stops on and this module starts its clock on."""

_lock = threading.Lock()
_watchdog: threading.Thread | None = None
_stopping = threading.Event()
_signalled = threading.Event()
"""Set by the signal handler: wakes the watchdog at once, whatever the web server is still waiting for."""


def stopping() -> bool:
    """True once the server this process runs has begun to stop (for loops that can end early)."""
    return _stopping.is_set()


def _streamlit_runtime_stopping() -> Callable[[], bool] | None:
    """A check of the real Streamlit runtime serving this process, or None when there is none.

    None in bare mode and under ``AppTest``, whose stand-in runtime is a mock: a watchdog there could end
    the test process itself.
    """
    classes = streamlit_internals.runtime_classes()
    if classes is None:
        return None
    Runtime, RuntimeState = classes
    runtime = Runtime._instance if Runtime.exists() else None
    if type(runtime) is not Runtime:
        return None
    done = {RuntimeState.STOPPING, RuntimeState.STOPPED}
    return lambda: runtime.state in done


def chain_handler(previous: Callable | int | None, *, grace: float = GRACE_SECONDS,
                  backstop: float = BACKSTOP_SECONDS) -> Callable[[int, object], None]:
    """A signal handler that starts the shutdown clock, then hands the signal to ``previous`` (Streamlit's).

    Arms ``faulthandler``'s timer (a C thread that needs no GIL) to end the process ``grace + backstop``
    seconds from now, should the watchdog itself be unable to run by then.
    """
    def handler(signum: int, frame: object) -> None:
        first = not _signalled.is_set()
        _signalled.set()
        if first:
            with contextlib.suppress(Exception):  # no usable stderr (a daemonized server): the watchdog remains
                faulthandler.dump_traceback_later(grace + backstop, exit=True)
        if callable(previous):
            previous(signum, frame)
        elif previous == signal.SIG_DFL:
            signal.signal(signum, signal.SIG_DFL)
            signal.raise_signal(signum)
    handler.lucid_chained = True  # type: ignore[attr-defined]
    return handler


def _chain_signals() -> None:
    """Put ``chain_handler`` in front of the current SIGTERM/SIGINT handlers (main thread only, once each)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for number in SIGNALS:
        current = signal.getsignal(number)
        if getattr(current, "lucid_chained", False) or current == signal.SIG_IGN:
            continue  # already chained, or deliberately ignored
        signal.signal(number, chain_handler(current))


def _on_main_thread(runtime: object, call: Callable[[], None]) -> bool:
    """Run ``call`` on the thread of the runtime's event loop (the main thread, where signal handlers are set)."""
    try:
        loop = runtime._get_async_objs().eventloop  # type: ignore[attr-defined]
        loop.call_soon_threadsafe(call)
    except Exception:  # noqa: BLE001 - a Streamlit without this internal: the runtime's state still starts the clock
        return False
    return True


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
    print(f"Lucid Graph Lab: the server had not ended {GRACE_SECONDS:g} s after it was told to stop (script threads "
          "still busy, or connections not closing); ending the process.", file=sys.stderr, flush=True)
    try:
        for pid in children_of_this_process():  # a `dot` layout would otherwise run on, orphaned, to its timeout
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)
        sys.stdout.flush()
    finally:
        os._exit(0)


def watch(is_stopping: Callable[[], bool], *, grace: float = GRACE_SECONDS, poll: float = POLL_SECONDS,
          end: Callable[[], None] = _end_process) -> threading.Thread:
    """Start a daemon thread that calls ``end()`` ``grace`` seconds after ``is_stopping()`` turns true, or after
    a SIGTERM/SIGINT reached ``chain_handler``, whichever comes first.

    If the process exits normally within the grace period the daemon thread simply dies with it.
    """
    def run() -> None:
        while not (_signalled.is_set() or is_stopping()):
            _signalled.wait(poll)  # a signal wakes it at once; the runtime's state is polled
        _stopping.set()
        threading.Event().wait(grace)
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
        runtime = streamlit_internals.runtime_classes()[0]._instance
        _on_main_thread(runtime, _chain_signals)
        _watchdog = watch(is_stopping)
        return True
