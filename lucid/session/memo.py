"""Memos: a small per-session LRU, and a bounded process-wide cache that computes each key once.

``LRUMemo`` lives in one browser session (the page keeps it in session state).
``SharedCache`` lives in the server process: the same (program, seed, options)
asked for by many sessions is computed once and shared by reference. Streamlit's
``st.cache_data`` would pickle results (graphs hold closures) and copy them per
session, and any websocket client can empty it for everyone (its ``clear_cache``
message); here values are shared read-only, bounded by entries, bytes and age,
and only the server's own code can clear them.

Nothing one session does reaches another through a ``SharedCache``: a computation
that fails or is stopped in one session's thread is retried for the sessions that
wait on it (never handed to them as their error), and a session that wants to stop
stops its own wait, not the shared work (see ``SharedCache.get_cancellable``).
No Streamlit import, so both are tested without a server.
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from lucid.session.script_slots import RUNS

V = TypeVar("V")
StopCheck = Callable[[], bool]
"""True once whoever asked no longer wants the answer (``lucid.ui.runtime.cancel.session_should_stop``)."""


class WaitCancelled(Exception):
    """The caller's own ``should_stop`` turned true while it waited for a shared computation (nothing to show).

    Only the caller that asked to stop sees it; the computation goes on for everyone else who wants it.
    """


def _never() -> bool:
    return False


class LRUMemo(Generic[V]):
    """``get(key, compute)`` returns the stored value or computes, stores and returns it."""

    def __init__(self, capacity: int = 64) -> None:
        self.capacity = capacity
        self._store: OrderedDict[Hashable, V] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable, compute: Callable[[], V]) -> V:
        if key in self._store:
            self._store.move_to_end(key)
            self.hits += 1
            return self._store[key]
        self.misses += 1
        value = compute()
        self._store[key] = value
        if len(self._store) > self.capacity:
            self._store.popitem(last=False)
        return value

    def __contains__(self, key: Hashable) -> bool:
        return key in self._store

    def __len__(self) -> int:
        return len(self._store)


class SharedCache(Generic[V]):
    """A process-wide memo shared by every session: bounded in entries, bytes and age, computed once per key.

    Thirty students opening the teacher's link ask for the same key at once: the first computes, the
    other 29 wait for that one result (never 30 computations). ``max_concurrent`` bounds how many
    different keys compute at the same time, so many large programs at once cannot stack their peak
    memory. Values are shared, never copied: callers must treat them as read-only. ``sizeof`` tells the
    bytes a value keeps alive; the least recently used entries go when the total passes ``max_bytes``.
    A value larger than ``max_bytes`` on its own is returned but not kept.

    Failures belong to the session that had them. The computation runs in the thread of the first
    caller (the owner); if it raises (a ``MemoryError``, Streamlit stopping that session's script, the
    owner's own cancellation), the owner gets the exception and every waiter tries again (one of them
    becomes the new owner). Errors that are properties of the input, not of the moment (a program that
    does not parse, a graph too large to draw), are listed in ``shared_errors``: they are kept like a
    value and each caller raises its own copy, so a bad program is run once, not once per waiting session.
    """

    def __init__(self, *, max_entries: int = 64, max_bytes: int | None = None, ttl_seconds: float | None = None,
                 sizeof: Callable[[V], int] | None = None, max_concurrent: int | None = None,
                 shared_errors: tuple[type[BaseException], ...] = (), poll_seconds: float = 0.05,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.ttl_seconds = ttl_seconds
        self.shared_errors = shared_errors
        self.poll_seconds = poll_seconds
        """How often a waiting caller with a ``should_stop`` asks it (a click is noticed this fast)."""
        self._sizeof = sizeof or (lambda _: 0)
        self._clock = clock
        self._lock = threading.Lock()
        self._store: OrderedDict[Hashable, tuple[V | _Raised, int, float]] = OrderedDict()
        self._inflight: dict[Hashable, _Flight] = {}
        self._slots = threading.BoundedSemaphore(max_concurrent) if max_concurrent else None
        self.bytes = 0
        self.hits = 0
        self.computations = 0

    def get(self, key: Hashable, compute: Callable[[], V], *, should_stop: StopCheck | None = None,
            slots: threading.BoundedSemaphore | None = None) -> V:
        """The value for ``key``, computed by ``compute()`` once for every session asking at the same time.

        ``should_stop``: this caller's own wish to stop; while it waits for another session's computation it
        then leaves with ``WaitCancelled`` as soon as the wish turns true. ``compute`` itself is not stopped:
        use ``get_cancellable`` for work that can stop early. ``slots``: the compute slots this key takes
        instead of the cache's own (``max_concurrent``): a lane chosen by the work's predicted cost.
        """
        return self.get_cancellable(key, lambda _everyone_stopped: compute(), should_stop=should_stop, slots=slots)

    def get_cancellable(self, key: Hashable, compute: Callable[[StopCheck], V], *,
                        should_stop: StopCheck | None = None, slots: threading.BoundedSemaphore | None = None) -> V:
        """Like ``get`` for long work that polls a stop callback: ``compute(stop)`` gets one that is true only
        once every caller waiting for this key (the owner and each waiter) wants to stop.

        So one student clicking while thirty wait for the same inputs table does not cancel the table: the
        work goes on while anyone still wants it. If ``compute`` does stop (everyone left), the owner gets
        ``compute``'s exception and nothing is kept. A waiter whose ``should_stop`` turns true leaves at once
        with ``WaitCancelled``; the others keep waiting.
        """
        mine = should_stop or _never
        while True:
            with self._lock:
                found = self._lookup(key)
                if found is not None:
                    self.hits += 1
                    return _deliver(found[0])
                flight = self._inflight.get(key)
                owner = flight is None
                if owner:
                    flight = self._inflight[key] = _Flight(mine)
                else:
                    flight.join(mine)
            if owner:
                return _deliver(self._compute(key, flight, compute, slots or self._slots))
            try:
                with RUNS.set_aside():  # waiting for another session's work is not computing: free the run slot
                    outcome = flight.wait(mine, self.poll_seconds)
            finally:
                flight.leave(mine)
            if outcome is not _ABANDONED:
                return _deliver(outcome)
            if mine():  # the owner failed or stopped, and this caller no longer wants the answer either
                raise WaitCancelled()
            # the owner failed or stopped: ask again (this caller may become the owner)

    def in_flight(self, key: Hashable) -> bool:
        """Whether a caller is computing ``key`` (or queued for a compute slot to do so) right now."""
        with self._lock:
            return key in self._inflight

    def waiting(self, key: Hashable) -> int:
        """How many callers wait for another's computation of ``key`` right now (0 when none runs)."""
        with self._lock:
            flight = self._inflight.get(key)
            return 0 if flight is None else flight.waiters()

    def _compute(self, key: Hashable, flight: _Flight, compute: Callable[[StopCheck], V],
                 slots: threading.BoundedSemaphore | None) -> V | _Raised:
        try:
            self._acquire_slot(flight, slots)  # raises before holding a slot, so the finally below never over-releases
            try:
                with self._lock:
                    self.computations += 1
                try:
                    outcome: V | _Raised = compute(flight.everyone_wants_to_stop)
                except self.shared_errors as err:
                    outcome = _Raised(err)
            finally:
                if slots is not None:
                    slots.release()
        except BaseException:  # this owner's failure is its own: the waiters ask again
            with self._lock:
                self._inflight.pop(key, None)
            flight.done(_ABANDONED)
            raise
        try:
            size = _Raised.BYTES if isinstance(outcome, _Raised) else int(self._sizeof(outcome))
            with self._lock:
                if self.max_bytes is None or size <= self.max_bytes:
                    self._store[key] = (outcome, size, self._clock())
                    self.bytes += size
                    self._evict()
        finally:  # kept or not, the waiters get the outcome
            with self._lock:
                self._inflight.pop(key, None)
            flight.done(outcome)
        return outcome

    def _acquire_slot(self, flight: _Flight, slots: threading.BoundedSemaphore | None) -> None:
        """Wait for a compute slot; give up with ``WaitCancelled`` once nobody wants this key any more."""
        if slots is None or slots.acquire(blocking=False):
            return
        with RUNS.set_aside():  # queued for a lane, this run computes nothing: its run slot serves another
            while not slots.acquire(timeout=self.poll_seconds):
                if flight.everyone_wants_to_stop():
                    raise WaitCancelled()

    def _lookup(self, key: Hashable) -> tuple[V | _Raised, int, float] | None:
        entry = self._store.get(key)
        if entry is None:
            return None
        if self.ttl_seconds is not None and self._clock() - entry[2] > self.ttl_seconds:
            self._drop(key)
            return None
        self._store.move_to_end(key)
        return entry

    def _drop(self, key: Hashable) -> None:
        _, size, _ = self._store.pop(key)
        self.bytes -= size

    def _evict(self) -> None:
        now = self._clock()
        if self.ttl_seconds is not None:
            for key in [k for k, (_, _, at) in self._store.items() if now - at > self.ttl_seconds]:
                self._drop(key)
        while len(self._store) > self.max_entries or (self.max_bytes is not None and self.bytes > self.max_bytes
                                                      and len(self._store) > 1):
            self._drop(next(iter(self._store)))

    def clear(self) -> None:
        with self._lock:
            self._store.clear()
            self.bytes = 0

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return self._lookup(key) is not None

    def __len__(self) -> int:
        return len(self._store)


class _Raised:
    """A shared error kept in place of a value: every caller raises its own copy."""

    BYTES = 1024

    def __init__(self, error: BaseException) -> None:
        self.error = error.with_traceback(None)


_ABANDONED = object()
"""The outcome of a flight whose owner failed or stopped: waiters ask again."""


def _copy_error(error: BaseException) -> BaseException:
    """A copy of ``error`` (same class, args and attributes) made without calling its ``__init__``, whose
    signature may differ from its args; the instance itself if even that fails."""
    try:
        clone = type(error).__new__(type(error), *error.args)
        clone.args = error.args
        clone.__dict__.update(vars(error))
        return clone
    except Exception:  # an exotic exception class: share the instance rather than fail
        return error


def _deliver(outcome):
    if isinstance(outcome, _Raised):
        raise _copy_error(outcome.error)  # each session raises (and stores a traceback in) its own copy
    return outcome


class _Flight:
    """One computation in progress, and the stop wishes of everyone who wants its result."""

    def __init__(self, owner_stop: StopCheck) -> None:
        self._event = threading.Event()
        self._outcome: object = _ABANDONED
        self._lock = threading.Lock()
        self._parties: list[StopCheck] = [owner_stop]

    def join(self, should_stop: StopCheck) -> None:
        with self._lock:
            self._parties.append(should_stop)

    def leave(self, should_stop: StopCheck) -> None:
        with self._lock:
            self._parties.remove(should_stop)

    def waiters(self) -> int:
        with self._lock:
            return len(self._parties) - 1

    def everyone_wants_to_stop(self) -> bool:
        """The stop callback the computation polls: true only when the owner and every waiter want to stop."""
        with self._lock:
            parties = list(self._parties)
        for wants_to_stop in parties:
            try:
                if not wants_to_stop():
                    return False
            except Exception:  # a broken callback counts as someone who still wants the answer
                return False
        return True

    def done(self, outcome: object) -> None:
        self._outcome = outcome
        self._event.set()

    def wait(self, should_stop: StopCheck, poll_seconds: float) -> object:
        """The outcome (``_ABANDONED`` when the owner failed); ``WaitCancelled`` once ``should_stop()`` is true."""
        if should_stop is _never:
            self._event.wait()
        else:
            while not self._event.wait(poll_seconds):
                if should_stop():
                    raise WaitCancelled()
        return self._outcome
