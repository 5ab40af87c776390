"""A gate in front of every session's script runs: no group of scripted tabs can stall the class with reruns.

What a ``rerun_script`` message does in Streamlit (``AppSession.request_rerun``, ``runner.fastReruns``
on): it asks the running script to stop and starts a new script thread at once. The old thread runs on
to its next stop point (the next ``st.`` call, or the end of a computation), so a tab sending twenty
reruns a second starts twenty threads a second; one tab alone mostly cancels itself, but eight together
kept dozens of threads busy, and a classmate's page got no message in two minutes while the room feed
(a static file) took 52 s: the event loop that serves it got a sliver of the GIL.

Each session's reruns therefore pass a ``Gate``:

- a token bucket (``BURST`` at once, then ``RATE`` a second) bounds how often its script starts: more
  than a person causes (a text area commits on Ctrl+Enter, the player steps without rerunning, a click
  is one run, the teacher's question refreshes once a second);
- a request over the bound is held, never dropped: at most one per session, and a later request is
  merged into it (``merged_client_state``: the latest widget values, the earlier request's button
  presses and component events kept), then run as soon as the bucket allows;
- a run that was started by interrupting another is not interrupted in turn: a request arriving then
  waits for it to finish (at most ``MAX_DEFER_SECONDS``), so every interrupted run is followed by one
  that completes and a storm cannot keep a session restarting forever.

And every script run computes only while it holds one of the server's run slots
(``lucid.session.script_slots``), handed out fairly across sessions, so the tabs that rerun all the time
wait behind a classmate who just opened the page.

``install()`` is called first thing by every page (``lucid.ui.runtime.entry``), like ``browser_gate``; the
first page run of the process installs it, every later request passes it. The ``Gate`` itself has no
Streamlit import (tested with an injected clock); the installed part runs on the server's event loop only.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from lucid.session.script_slots import RUNS
from lucid.ui.runtime import streamlit_internals

R = TypeVar("R")

BURST = 6
"""Runs a session may start back to back (a quick run of clicks)."""
RATE = 3.0
"""Runs a second a session may start once its burst is spent."""
MAX_DEFER_SECONDS = 5.0
"""Longest a held request waits for an interrupting run to finish before it interrupts that run too."""
_TRIGGERS = ("trigger_value", "string_trigger_value", "chat_input_value", "json_trigger_value")
"""Widget values that fire once (a button press, a component's events): the browser sends each only once."""


class TokenBucket:
    """``capacity`` tokens, refilled at ``rate`` a second; a run takes one."""

    def __init__(self, capacity: float, rate: float, now: float) -> None:
        self.capacity = capacity
        self.rate = rate
        self._tokens = float(capacity)
        self._at = now

    def available(self, now: float) -> float:
        self._tokens = min(self.capacity, self._tokens + max(0.0, now - self._at) * self.rate)
        self._at = now
        return self._tokens

    def take(self, now: float) -> bool:
        if self.available(now) < 1:
            return False
        self._tokens -= 1
        return True

    def wait(self, now: float) -> float:
        """Seconds until a token is there (0 when one is)."""
        return max(0.0, (1 - self.available(now)) / self.rate)


def keep_latest(_older: R, newer: R) -> R:
    return newer


class Gate(Generic[R]):
    """One session's rerun requests: ``offer`` each; it says which to run now and keeps the one to run later.

    Not thread-safe: the server calls it from its event loop only. ``merge(older, newer)`` folds a
    request into the held one; ``preempts(request)`` says whether it stops the running script (a full
    rerun does; a fragment's rerun is queued behind the script by Streamlit).
    """

    def __init__(self, *, burst: int = BURST, rate: float = RATE, max_defer: float = MAX_DEFER_SECONDS,
                 merge: Callable[[R, R], R] = keep_latest, preempts: Callable[[R], bool] = lambda _r: True,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.bucket = TokenBucket(burst, rate, clock())
        self.max_defer = max_defer
        self.merge = merge
        self.preempts = preempts
        self.running = False
        """A run this gate let through has not been seen to end."""
        self.interrupted = False
        """The running run was started by stopping another."""
        self.pending: R | None = None
        self.pending_since: float | None = None
        self.started = 0
        """Requests let through (script runs started)."""
        self.held = 0
        """Requests held for later."""
        self.merged = 0
        """Requests folded into a held one."""

    def offer(self, request: R) -> R | None:
        """The request to run now (``request``, or the held one it was merged into), or None: it is held."""
        if self.pending is not None:
            self.pending = self.merge(self.pending, request)
            self.merged += 1
            return self.release()
        now = self._clock()
        if self._may_start(request, now, overdue=False):
            return self._start(request, now)
        self.pending, self.pending_since = request, now
        self.held += 1
        return None

    def release(self) -> R | None:
        """The held request if it may run now (asked on a timer, ``next_check``, and when a run ends)."""
        if self.pending is None or self.pending_since is None:
            return None
        now = self._clock()
        if not self._may_start(self.pending, now, overdue=now - self.pending_since >= self.max_defer):
            return None
        request, self.pending, self.pending_since = self.pending, None, None
        return self._start(request, now)

    def ended(self) -> None:
        """The session's script is not running any more."""
        self.running = self.interrupted = False

    def next_check(self) -> float | None:
        """Seconds until the held request may run if nothing else changes (None: nothing held)."""
        if self.pending is None or self.pending_since is None:
            return None
        now = self._clock()
        wait = self.bucket.wait(now)
        if self.running and self.interrupted and self.preempts(self.pending):
            wait = max(wait, self.pending_since + self.max_defer - now)
        return max(wait, 0.0)

    def drop(self) -> None:
        """Forget the held request (the session is closing)."""
        self.pending = self.pending_since = None

    def _may_start(self, request: R, now: float, *, overdue: bool) -> bool:
        if self.bucket.available(now) < 1:
            return False
        return overdue or not (self.running and self.interrupted and self.preempts(request))

    def _start(self, request: R, now: float) -> R:
        self.bucket.take(now)
        if self.preempts(request):
            self.interrupted = self.running
        self.running = True
        self.started += 1
        return request


def _fires(state: Any) -> bool:
    """Whether a widget state is a trigger that fired (a press, events), not its reset."""
    field = state.WhichOneof("value")
    if field not in _TRIGGERS:
        return False
    value = getattr(state, field)
    if field in ("string_trigger_value", "chat_input_value"):
        return value.HasField("data")
    return bool(value)


def merged_client_state(older: Any, newer: Any) -> Any:
    """One rerun request (``ClientState``) standing for ``older`` then ``newer``: what the browser would have
    ended with had it sent both.

    ``newer``'s widget values win (the browser sends all of them every time); a trigger that fired in
    ``older`` and that ``newer`` does not carry (the browser sends each press once) is kept, on the same
    page only. Two reruns of the same fragment stay that fragment's rerun; anything else is a full rerun,
    which draws every fragment too.
    """
    out = streamlit_internals.client_state_class()()
    out.CopyFrom(newer)
    if older.fragment_id != newer.fragment_id:
        out.fragment_id = ""
    out.is_auto_rerun = older.is_auto_rerun and newer.is_auto_rerun
    if not newer.HasField("context_info") and older.HasField("context_info"):
        out.context_info.CopyFrom(older.context_info)
    if older.page_script_hash == newer.page_script_hash:
        present = {w.id for w in newer.widget_states.widgets}
        for state in older.widget_states.widgets:
            if _fires(state) and state.id not in present:
                out.widget_states.widgets.append(state)
    return out


def _full_rerun(client_state: Any) -> bool:
    return not client_state.fragment_id


_installed = threading.Lock()
_done: list[bool] = []


def install() -> None:
    """Put a ``Gate`` in front of every session's reruns and a run slot around every script run (once per
    process; later calls do nothing)."""
    with _installed:
        if _done:
            return
        _install()
        _done.append(True)


def _install() -> None:
    AppSession, AppSessionState = streamlit_internals.app_session()
    script_runner = streamlit_internals.script_runner_module()
    ScriptRunnerEvent = streamlit_internals.script_runner_event()

    handle = AppSession._handle_rerun_script_request
    on_event = AppSession._handle_scriptrunner_event_on_event_loop
    run_with_errors = script_runner.exec_func_with_error_handling
    ends = {ScriptRunnerEvent.SCRIPT_STOPPED_WITH_SUCCESS, ScriptRunnerEvent.SCRIPT_STOPPED_WITH_COMPILE_ERROR,
            ScriptRunnerEvent.FRAGMENT_STOPPED_WITH_SUCCESS, ScriptRunnerEvent.SHUTDOWN}

    def gate_of(session: Any) -> Gate:
        gate = getattr(session, "_lucid_rerun_gate", None)
        if gate is None:
            gate = Gate(merge=merged_client_state, preempts=_full_rerun)
            session._lucid_rerun_gate = gate
            session._lucid_rerun_timer = None
        if session._scriptrunner is None:
            gate.ended()
        return gate

    def flush(session: Any) -> None:
        """Run the session's held request if it may run now; otherwise look again when it may."""
        gate = gate_of(session)
        timer = session._lucid_rerun_timer
        if timer is not None:
            timer.cancel()
            session._lucid_rerun_timer = None
        if session._state == AppSessionState.SHUTDOWN_REQUESTED:
            gate.drop()
            return
        request = gate.release()
        if request is not None:
            try:
                handle(session, request)
            except Exception as err:  # noqa: BLE001 - what handle_backmsg would do with it
                session.handle_backmsg_exception(err)
        delay = gate.next_check()
        if delay is not None:
            session._lucid_rerun_timer = session._event_loop.call_later(delay + 0.005, flush, session)

    def gated_request(self: Any, client_state: Any = None) -> None:
        if client_state is None:  # not a browser's request: Streamlit's own rerun with the last state
            handle(self, client_state)
            return
        gate = gate_of(self)
        request = gate.offer(client_state)
        if request is not None:
            handle(self, request)
        if gate.pending is not None and self._lucid_rerun_timer is None:
            flush(self)

    def observed(self: Any, sender: Any, event: Any, *args: Any, **kwargs: Any) -> None:
        current = sender is not None and sender is self._scriptrunner
        on_event(self, sender, event, *args, **kwargs)
        if current and event in ends:
            gate_of(self).ended()
            if gate_of(self).pending is not None:
                flush(self)

    def run_in_a_slot(func: Callable[[], Any], ctx: Any) -> Any:
        return run_with_errors(lambda: _holding_a_slot(func, ctx), ctx)

    gated_request.__doc__ = handle.__doc__
    AppSession._handle_rerun_script_request = gated_request  # type: ignore[method-assign]
    AppSession._handle_scriptrunner_event_on_event_loop = observed  # type: ignore[method-assign]
    script_runner.exec_func_with_error_handling = run_in_a_slot


def in_a_slot(run: Callable[[], R]) -> R:
    """``run()`` holding a run slot, for a script run that started before ``install`` put a slot around every run.

    On a fresh server the gate is installed by the first run's page, about 0.2 s after that run began (its imports):
    every session whose first run started meanwhile ran without a slot. A class of 60 opening the link at once is
    exactly that: measured with ``bench/bench_load.py -n 60``, all 60 first runs computed at once, none counted by
    the run slots (so the page warm-up saw no crowd and went on in the middle of them). ``app.py`` runs its page
    through this; a run that already holds a slot (every later one) just runs.
    """
    if RUNS.holds():
        return run()
    ctx = streamlit_internals.script_run_context()
    if ctx is None:  # bare mode: no session to queue for
        return run()
    return _holding_a_slot(run, ctx)


def _holding_a_slot(run: Callable[[], R], ctx: Any) -> R:
    """``run()`` once this session's run holds one of ``RUNS``' slots (a fragment's short run goes first); a run
    replaced while it waited (its session asked to stop) never starts."""
    stop = streamlit_internals.script_request_type().STOP

    def stopping() -> bool:
        requests = getattr(ctx, "script_requests", None)
        return requests is not None and getattr(requests, "_state", None) == stop

    quick = bool(getattr(ctx, "fragment_ids_this_run", None))
    if not RUNS.acquire(ctx.session_id, should_stop=stopping, quick=quick):
        raise streamlit_internals.stop_exception()()
    try:
        return run()
    finally:
        RUNS.release()
