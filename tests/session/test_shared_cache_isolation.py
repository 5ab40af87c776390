"""Nothing one session does reaches another through the shared cache (issue 16, item 4).

The computation of a shared key runs in the first asking session's thread. Its failure or its
cancellation is that session's own: the sessions waiting for the same key compute again (one becomes
the new owner) instead of receiving the exception. Stopping belongs to a session's wait: shared work
stops only when every session that wants it has gone. Errors that belong to the input (a program that
does not parse) are kept and shared like values. Threads are ordered with events, never with sleeps.
"""
from __future__ import annotations

import threading

import pytest
from streamlit.runtime.scriptrunner_utils.exceptions import StopException

from lucid.autograd.gradcheck import GradcheckCancelled
from lucid.expr import ExprError
from lucid.session.inputs_table import input_rows
from lucid.session.memo import SharedCache, WaitCancelled

WAIT = 30.0  # seconds a test waits for an event that must come; reaching it is a failure, not a timing


def until(condition, what: str) -> None:
    """Block until ``condition()`` holds (checked every few ms), failing the test if it never does."""
    tick = threading.Event()
    for _ in range(int(WAIT / 0.005)):
        if condition():
            return
        tick.wait(0.005)
    pytest.fail(f"never happened: {what}")


class Session(threading.Thread):
    """One browser session asking the cache for ``key``; keeps its answer or its exception."""

    def __init__(self, cache: SharedCache, key, compute, *, should_stop=None, cancellable: bool = False) -> None:
        super().__init__(daemon=True)
        self.cache, self.key, self.compute, self.should_stop = cache, key, compute, should_stop
        self.cancellable = cancellable
        self.value = self.error = None

    def run(self) -> None:
        try:
            get = self.cache.get_cancellable if self.cancellable else self.cache.get
            self.value = get(self.key, self.compute, should_stop=self.should_stop)
        except BaseException as err:  # noqa: BLE001 - the test inspects what this session got
            self.error = err

    def result(self):
        self.join(WAIT)
        assert not self.is_alive(), "the session never got an answer"
        return self.value, self.error


def blocking(started: threading.Event, release: threading.Event, then):
    """A computation that says it started, waits to be released, then does ``then()``."""
    def compute(*_stop):
        started.set()
        assert release.wait(WAIT)
        return then()
    return compute


def fail(error: BaseException):
    def raise_it():
        raise error
    return raise_it


@pytest.mark.parametrize("error", [MemoryError(), GradcheckCancelled(), RuntimeError("owner's bad luck"),
                                   StopException()],
                         ids=["MemoryError", "GradcheckCancelled", "RuntimeError", "Streamlit stopped the owner"])
def test_a_failed_owner_keeps_its_error_and_its_waiter_computes_again(error):
    cache: SharedCache[int] = SharedCache(max_entries=4)
    started, release = threading.Event(), threading.Event()
    owner = Session(cache, "table", blocking(started, release, fail(error)))
    owner.start()
    assert started.wait(WAIT)
    waiter = Session(cache, "table", lambda: 7)
    waiter.start()
    until(lambda: cache.waiting("table") == 1, "the second session waits for the first one's computation")
    release.set()
    assert owner.result() == (None, error)
    assert waiter.result() == (7, None)  # computed again for the waiter, never handed the owner's error
    assert cache.computations == 2 and "table" in cache


def test_of_many_waiters_one_becomes_the_new_owner_when_the_first_fails():
    cache: SharedCache[int] = SharedCache(max_entries=4)
    started, release = threading.Event(), threading.Event()
    owner = Session(cache, "k", blocking(started, release, fail(MemoryError())))
    owner.start()
    assert started.wait(WAIT)
    calls = []
    waiters = [Session(cache, "k", lambda: calls.append(1) or 42) for _ in range(5)]
    for w in waiters:
        w.start()
    until(lambda: cache.waiting("k") == 5, "five sessions wait")
    release.set()
    assert [w.result() for w in waiters] == [(42, None)] * 5
    assert len(calls) == 1 and cache.computations == 2  # the failed one, then one retry for all five
    assert isinstance(owner.result()[1], MemoryError)


def test_one_session_clicking_does_not_stop_work_another_session_waits_for():
    cache: SharedCache[str] = SharedCache(max_entries=4)
    owner_clicked, started, release = threading.Event(), threading.Event(), threading.Event()
    seen = []

    def compute(everyone_left):
        started.set()
        assert release.wait(WAIT)
        seen.append(everyone_left())
        return "table"

    owner = Session(cache, "k", compute, should_stop=owner_clicked.is_set, cancellable=True)
    owner.start()
    assert started.wait(WAIT)
    waiter = Session(cache, "k", compute, should_stop=lambda: False, cancellable=True)
    waiter.start()
    until(lambda: cache.waiting("k") == 1, "the second session waits")
    owner_clicked.set()
    release.set()
    assert owner.result() == ("table", None) and waiter.result() == ("table", None)
    assert seen == [False] and cache.computations == 1  # the work went on: someone still wanted it


def test_a_waiter_who_stops_leaves_alone_and_the_work_goes_on_for_the_owner():
    cache: SharedCache[str] = SharedCache(max_entries=4, poll_seconds=0.005)
    waiter_clicked, started, release = threading.Event(), threading.Event(), threading.Event()
    seen = []

    def compute(everyone_left):
        started.set()
        assert release.wait(WAIT)
        seen.append(everyone_left())
        return "table"

    owner = Session(cache, "k", compute, should_stop=lambda: False, cancellable=True)
    owner.start()
    assert started.wait(WAIT)
    waiter = Session(cache, "k", compute, should_stop=waiter_clicked.is_set, cancellable=True)
    waiter.start()
    until(lambda: cache.waiting("k") == 1, "the second session waits")
    waiter_clicked.set()
    value, error = waiter.result()  # it leaves while the computation is still held back
    assert value is None and isinstance(error, WaitCancelled)
    assert cache.waiting("k") == 0
    release.set()
    assert owner.result() == ("table", None)
    assert seen == [False] and "k" in cache and cache.computations == 1


def test_when_every_session_wants_to_stop_the_work_stops_and_nothing_is_kept():
    cache: SharedCache[str] = SharedCache(max_entries=4, poll_seconds=0.005)
    owner_clicked, waiter_clicked, started, release = (threading.Event() for _ in range(4))

    def compute(everyone_left):
        started.set()
        assert release.wait(WAIT)
        if everyone_left():
            raise GradcheckCancelled()
        return "table"

    owner = Session(cache, "k", compute, should_stop=owner_clicked.is_set, cancellable=True)
    owner.start()
    assert started.wait(WAIT)
    waiter = Session(cache, "k", compute, should_stop=waiter_clicked.is_set, cancellable=True)
    waiter.start()
    until(lambda: cache.waiting("k") == 1, "the second session waits")
    owner_clicked.set()
    waiter_clicked.set()
    assert isinstance(waiter.result()[1], WaitCancelled)
    release.set()
    assert isinstance(owner.result()[1], GradcheckCancelled)
    assert "k" not in cache and cache.computations == 1


def test_an_error_of_the_program_is_computed_once_and_every_session_raises_its_own_copy():
    cache: SharedCache[int] = SharedCache(max_entries=4, shared_errors=(ExprError,))
    started, release = threading.Event(), threading.Event()
    bad = ExprError("unknown name 'y'", line=2, col=3, source_line="x = y", kind="name")
    owner = Session(cache, "bad program", blocking(started, release, fail(bad)))
    owner.start()
    assert started.wait(WAIT)
    waiter = Session(cache, "bad program", fail(AssertionError("the waiter must not run the program again")))
    waiter.start()
    until(lambda: cache.waiting("bad program") == 1, "the second session waits")
    release.set()
    errors = [owner.result()[1], waiter.result()[1]]
    with pytest.raises(ExprError) as third:
        cache.get("bad program", fail(AssertionError("kept, not run again")))
    errors.append(third.value)
    assert cache.computations == 1
    assert all(isinstance(e, ExprError) and (e.message, e.line, e.col, e.kind) == ("unknown name 'y'", 2, 3, "name")
               for e in errors)
    assert len({id(e) for e in errors}) == 3  # one copy each: no session's traceback lands in another's


def test_a_session_queued_for_a_compute_slot_leaves_when_it_stops_without_computing():
    cache: SharedCache[int] = SharedCache(max_entries=4, max_concurrent=1, poll_seconds=0.005)
    started, release, clicked = threading.Event(), threading.Event(), threading.Event()
    busy = Session(cache, "big program", blocking(started, release, lambda: 1))
    busy.start()
    assert started.wait(WAIT)  # holds the only slot
    queued = Session(cache, "other program", fail(AssertionError("never computed")), should_stop=clicked.is_set)
    queued.start()
    until(lambda: cache.in_flight("other program"), "the second program waits for a slot")
    clicked.set()
    assert isinstance(queued.result()[1], WaitCancelled)
    release.set()
    assert busy.result() == (1, None)
    assert cache.computations == 1 and not cache.in_flight("other program")


def test_the_inputs_table_a_clicking_owner_computes_reaches_the_waiting_session_complete():
    """The real finite differences, shared: the owner's session reruns mid-way, the other one still waits."""
    cache: SharedCache = SharedCache(max_entries=4)
    source = "x = randn(5)\nw = randn(5)\nout = sum(tanh(x * w))"
    owner_clicked, started, joined = threading.Event(), threading.Event(), threading.Event()

    def compute(everyone_left):
        started.set()
        assert joined.wait(WAIT)
        owner_clicked.set()  # the owner's student clicks before the finite differences begin
        return input_rows(source, 0, should_stop=everyone_left)

    owner = Session(cache, ("inputs", source, 0), compute, should_stop=owner_clicked.is_set, cancellable=True)
    owner.start()
    assert started.wait(WAIT)
    waiter = Session(cache, ("inputs", source, 0), compute, should_stop=lambda: False, cancellable=True)
    waiter.start()
    until(lambda: cache.waiting(("inputs", source, 0)) == 1, "a classmate waits for the same table")
    joined.set()
    rows, error = waiter.result()
    assert error is None and [r.name for r in rows] == ["x", "w"]
    assert all(r.numerical is not None and r.max_rel_error < 1e-6 for r in rows)
    assert owner.result()[0] is rows and cache.computations == 1
