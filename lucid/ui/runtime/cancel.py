"""A ``should_stop`` callback for long pure-Python work in a Streamlit script run.

Streamlit stops or restarts a script only inside ``st`` calls: a click or a
closed tab while the script sits in a long loop of NumPy work (finite
differences re-run a program thousands of times) is noticed only when the loop
ends, so the server keeps a core busy for work nobody will see. The loop in
``lucid`` polls a plain ``Callable[[], bool]`` instead; this module builds one
from the script run's pending requests, so ``lucid`` itself never imports
Streamlit.

The check reads the same state Streamlit reads at its own yield points
(``ScriptRequests.on_scriptrunner_yield``) without consuming it: a STOP (the
session left) or a full rerun (a widget changed) means stop; a rerun queued
only for a fragment that does not preempt the script (an autoplay tick) does
not.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lucid.ui.runtime import streamlit_internals


def _never() -> bool:
    return False


def requests_want_stop(requests: Any) -> bool:
    """Whether a ``ScriptRequests`` holds a request that will end the current run at its next yield point."""
    ScriptRequestType = streamlit_internals.script_request_type()
    state = getattr(requests, "_state", None)
    if state == ScriptRequestType.STOP:
        return True
    if state != ScriptRequestType.RERUN:
        return False
    rerun = getattr(requests, "_rerun_data", None)
    queue = getattr(rerun, "fragment_id_queue", None) or []
    fragment_scoped = bool(getattr(rerun, "is_fragment_scoped_rerun", False))
    return not (queue and not fragment_scoped)  # fragment reruns that don't preempt the script: keep going


def session_should_stop() -> Callable[[], bool]:
    """A callback that is true once this session's current script run is about to be stopped or rerun.

    Call it in the script thread (it captures that run's context). Outside a
    Streamlit run (tests, bare mode) the callback is always false.
    """
    ctx = streamlit_internals.script_run_context()  # None also where a Streamlit moved it: never stop early
    requests = getattr(ctx, "script_requests", None) if ctx is not None else None
    if requests is None:
        return _never

    def should_stop() -> bool:
        try:
            return requests_want_stop(requests)
        except Exception:  # private internals changed shape: keep working, just not cancellable
            return False

    return should_stop
