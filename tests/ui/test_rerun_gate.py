"""A session's reruns are bounded to what a person causes, and none is lost (issue 24 item 3), without a server.

- ``Gate``: a burst, then a steady rate; a request over the bound is held and later ones merge into it;
  a run that interrupted another is not interrupted in turn.
- ``merged_client_state``: the latest widget values, the earlier button presses and component events.
- ``FairSlots``: a bounded number of runs at once; a freed slot goes to the session that used the least.
"""
from __future__ import annotations

import threading
import time

import pytest
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.WidgetStates_pb2 import WidgetState

from lucid.session.script_slots import FairSlots
from lucid.ui.runtime import rerun_gate
from lucid.ui.runtime.rerun_gate import Gate, TokenBucket, merged_client_state

HANG_GUARD = 120.0
"""Seconds a test waits for its threads to queue before it reports a hang: a guard, never a bound on speed (the
shared 5 s these waits had could run out on a busy machine and start the next thread before the first queued)."""


def until_waiting(slots: FairSlots, count: int) -> None:
    """Return once ``count`` threads wait for a slot (polled: ``FairSlots`` has no event for it)."""
    end = time.monotonic() + HANG_GUARD
    while slots.waiting() < count:
        if time.monotonic() > end:
            pytest.fail(f"{slots.waiting()} threads wait for a slot after {HANG_GUARD:.0f} s, not {count}")
        time.sleep(0.01)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def gate(clock: Clock, **kw) -> Gate:
    return Gate(burst=5, rate=2.0, max_defer=4.0, clock=clock, **kw)


def test_the_bucket_gives_its_burst_then_one_token_per_rate_interval():
    clock = Clock()
    bucket = TokenBucket(5, 2.0, clock())
    assert [bucket.take(clock()) for _ in range(6)] == [True] * 5 + [False]
    assert bucket.wait(clock()) == 0.5
    clock.advance(0.5)
    assert bucket.take(clock()) and not bucket.take(clock())
    clock.advance(60)
    assert bucket.available(clock()) == 5  # never more than the burst, however long the quiet


def test_a_person_s_clicks_all_run_at_once():
    clock = Clock()
    g = gate(clock)
    for k in range(5):  # five clicks within a second, each after the previous run ended
        assert g.offer(f"click {k}") == f"click {k}"
        g.ended()
        clock.advance(0.2)
    assert g.held == 0 and g.started == 5


def test_a_storm_is_held_to_one_pending_request_that_ends_up_the_latest():
    clock = Clock()
    g = gate(clock)
    passed = []
    for k in range(5):  # the burst, each run ending at once
        passed.append(g.offer(f"r{k}"))
        g.ended()
    assert passed == [f"r{k}" for k in range(5)]
    for k in range(5, 25):  # 20 more in the same instant
        assert g.offer(f"r{k}") is None
    assert g.held == 1 and g.merged == 19 and g.pending == "r24"
    assert g.next_check() == 0.5
    clock.advance(0.5)
    assert g.release() == "r24" and g.pending is None and g.started == 6


def test_a_storm_starts_at_most_burst_plus_rate_times_seconds_runs():
    clock = Clock()
    g = gate(clock)
    for _ in range(20 * 15):  # 20 requests a second for 15 seconds, every run ending before the next request
        g.offer("r")
        g.ended()
        g.release()
        clock.advance(0.05)
    assert g.started <= 5 + 2.0 * 15 + 1
    assert g.started >= 2.0 * 15  # and the session is not shut out: it runs at the steady rate


def test_a_held_request_waits_for_an_interrupting_run_to_finish():
    clock = Clock()
    g = gate(clock)
    assert g.offer("first") == "first"  # running
    assert g.offer("second") == "second"  # interrupts the first: allowed once
    assert g.interrupted
    assert g.offer("third") is None  # would interrupt the interrupting run: held though tokens remain
    clock.advance(1.0)
    assert g.release() is None and g.next_check() == 3.0
    g.ended()  # the second run finished
    assert g.release() == "third"
    assert not g.interrupted  # it started on an idle session


def test_a_held_request_interrupts_anyway_once_it_waited_max_defer():
    clock = Clock()
    g = gate(clock)
    g.offer("first")
    g.offer("second")
    assert g.offer("third") is None
    clock.advance(4.0)
    assert g.release() == "third"


def test_a_fragment_rerun_does_not_wait_for_a_full_run_since_it_interrupts_nothing():
    clock = Clock()
    g = gate(clock, preempts=lambda r: not r.startswith("fragment"))
    g.offer("first")
    g.offer("second")
    assert g.offer("fragment tick") == "fragment tick"


def test_a_merge_keeps_the_held_request_and_the_new_one_in_order():
    clock = Clock()
    g = gate(clock, merge=lambda older, newer: f"{older}+{newer}")
    for _ in range(5):
        g.offer("x")
        g.ended()
    assert g.offer("a") is None
    assert g.offer("b") is None
    clock.advance(0.5)
    assert g.release() == "a+b"


def state(*widgets: WidgetState, fragment: str = "", page: str = "p1", auto: bool = False) -> ClientState:
    cs = ClientState(page_script_hash=page, fragment_id=fragment, is_auto_rerun=auto)
    cs.widget_states.widgets.extend(widgets)
    return cs


def values(cs: ClientState) -> dict[str, object]:
    return {w.id: getattr(w, w.WhichOneof("value")) for w in cs.widget_states.widgets}


def test_merging_keeps_the_latest_values_and_the_earlier_press_and_events():
    older = state(WidgetState(id="program", string_value="x = 1"), WidgetState(id="run", trigger_value=True),
                  WidgetState(id="player__events", json_trigger_value='[{"event":"node"}]'))
    newer = state(WidgetState(id="program", string_value="x = 2"), WidgetState(id="slider", int_value=3))
    merged = merged_client_state(older, newer)
    assert values(merged) == {"program": "x = 2", "slider": 3, "run": True, "player__events": '[{"event":"node"}]'}


def test_merging_keeps_a_newer_event_over_an_older_one_and_never_carries_a_press_to_another_page():
    older = state(WidgetState(id="e", json_trigger_value="[1]"), WidgetState(id="run", trigger_value=True))
    newer = state(WidgetState(id="e", json_trigger_value="[2]"))
    assert values(merged_client_state(older, newer)) == {"e": "[2]", "run": True}
    elsewhere = state(page="p2")
    assert values(merged_client_state(older, elsewhere)) == {}


def test_merging_a_fragment_s_rerun_with_anything_else_is_a_full_rerun():
    tick = state(fragment="f1", auto=True)
    assert merged_client_state(tick, state(fragment="f1", auto=True)).fragment_id == "f1"
    assert merged_client_state(tick, state(fragment="f1", auto=True)).is_auto_rerun
    assert merged_client_state(tick, state()).fragment_id == ""
    assert merged_client_state(state(), tick).fragment_id == ""
    assert merged_client_state(tick, state(fragment="f2")).fragment_id == ""
    assert not merged_client_state(tick, state(fragment="f2")).is_auto_rerun


def test_the_installed_sizes_leave_a_person_unthrottled():
    # a teacher's question refreshing once a second plus a click every half second fits the steady rate
    assert rerun_gate.RATE >= 1 + 2
    assert rerun_gate.BURST >= 5


def test_slots_bound_the_runs_at_once():
    slots = FairSlots(2)
    assert slots.acquire("a") and slots.free == 1
    got: list[bool] = []
    threads = [threading.Thread(target=lambda o=o: got.append(slots.acquire(o, timeout=0.2))) for o in "bc"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(got) == [False, True]  # one more slot, not two
    slots.release()


def test_a_freed_slot_goes_to_the_session_that_used_the_least():
    clock = Clock()
    slots = FairSlots(1, clock=clock)
    for _ in range(10):  # the stormer ran ten times, a second each
        assert slots.acquire("stormer")
        clock.advance(1.0)
        slots.release()
    assert slots.use("stormer") > 5 and slots.use("newcomer") == 0
    assert slots.acquire("holder")
    order: list[str] = []

    def wait(owner: str) -> None:
        assert slots.acquire(owner, timeout=5)
        order.append(owner)
        slots.release()

    stormer = threading.Thread(target=wait, args=("stormer",))
    stormer.start()
    until_waiting(slots, 1)
    newcomer = threading.Thread(target=wait, args=("newcomer",))  # came later, used nothing
    newcomer.start()
    until_waiting(slots, 2)
    slots.release()
    stormer.join()
    newcomer.join()
    assert order == ["newcomer", "stormer"]


def test_a_favoured_session_the_class_s_teacher_goes_before_sessions_that_used_less_until_its_favour_ends():
    clock = Clock()
    slots = FairSlots(1, clock=clock)
    for _ in range(10):  # the teacher ran ten times (the answer count, every step)
        assert slots.acquire("teacher")
        clock.advance(1.0)
        slots.release()
    slots.favour("teacher", seconds=60)
    assert slots.favoured("teacher") and not slots.favoured("student")
    assert slots.acquire("holder")
    order: list[str] = []

    def wait(owner: str) -> None:
        assert slots.acquire(owner, timeout=5)
        order.append(owner)
        slots.release()

    student = threading.Thread(target=wait, args=("student",))  # came first, used nothing
    student.start()
    until_waiting(slots, 1)
    teacher = threading.Thread(target=wait, args=("teacher",))
    teacher.start()
    until_waiting(slots, 2)
    slots.release()
    student.join()
    teacher.join()
    assert order == ["teacher", "student"]
    clock.advance(61.0)
    assert not slots.favoured("teacher")  # the favour ended: the teacher is one session among the others again


def test_a_fragment_s_run_goes_before_a_whole_page_run_and_a_favoured_one_before_both():
    slots = FairSlots(1)
    assert slots.acquire("holder")
    order: list[str] = []

    def wait(owner: str, **how: bool) -> None:
        assert slots.acquire(owner, timeout=5, **how)
        order.append(owner)
        slots.release()

    slots.favour("teacher")
    threads = [threading.Thread(target=wait, args=("page",)),  # a student's page, sent again by a question
               threading.Thread(target=wait, args=("submit",), kwargs={"quick": True}),  # a classmate's Submit
               threading.Thread(target=wait, args=("teacher",))]  # the teacher's answer count
    for k, thread in enumerate(threads, start=1):
        thread.start()
        until_waiting(slots, k)
    slots.release()
    for thread in threads:
        thread.join()
    assert order == ["teacher", "submit", "page"]


def test_a_session_s_use_is_forgotten_with_its_half_life():
    clock = Clock()
    slots = FairSlots(1, half_life=30.0, run_charge=0.0, clock=clock)
    slots.acquire("s")
    clock.advance(8.0)
    slots.release()
    clock.advance(30.0)
    assert abs(slots.use("s") - 4.0) < 1e-9


def test_a_waiting_run_leaves_when_its_session_stops_it():
    slots = FairSlots(1)
    slots.acquire("a")
    stop = threading.Event()
    got: list[bool] = []
    t = threading.Thread(target=lambda: got.append(slots.acquire("b", should_stop=stop.is_set)))
    t.start()
    stop.set()
    t.join(5)
    assert got == [False] and slots.waiting() == 0
    slots.release()
    assert slots.free == 1


def test_a_run_that_waits_for_other_work_frees_its_slot_meanwhile_and_takes_it_back_first():
    slots = FairSlots(1)
    assert slots.acquire("waiter")
    during: list[int] = []
    with slots.set_aside():
        during.append(slots.free)
        assert slots.acquire("other", timeout=1)  # another run computes while this one waits
        slots.release()
    assert during == [1] and slots.holds() and slots.free == 0 and slots.borrowed == 0
    slots.release()
    assert slots.free == 1
    with slots.set_aside():  # a thread holding no slot: nothing to set aside
        assert slots.free == 1


def test_slots_remember_a_crowd_for_a_moment_after_it_left():
    clock = Clock()
    slots = FairSlots(1, clock=clock)
    assert not slots.crowded_within(3.0)  # nobody ever came
    assert slots.acquire("a") and not slots.crowded_within(3.0)  # one run for one slot is no crowd
    waiter = threading.Thread(target=lambda: (slots.acquire("b", timeout=HANG_GUARD), slots.release()))
    waiter.start()
    until_waiting(slots, 1)
    assert slots.crowded_within(0.0)  # two runs for one slot
    slots.release()
    waiter.join()
    assert slots.crowded_within(3.0)  # between two waves of a class: no run under way, but a crowd just was
    clock.advance(3.5)
    assert not slots.crowded_within(3.0)


def test_runs_waiting_for_another_run_s_work_are_still_a_crowd_with_every_slot_free():
    clock = Clock()
    slots = FairSlots(1, clock=clock)
    shared_work = threading.Event()
    aside = threading.Barrier(3, timeout=HANG_GUARD)

    def run(owner: str) -> None:
        assert slots.acquire(owner, timeout=HANG_GUARD)
        with slots.set_aside():  # waits for a computation another session owns
            aside.wait()
            assert shared_work.wait(HANG_GUARD)
        slots.release()

    runs = [threading.Thread(target=run, args=(o,)) for o in "ab"]
    for t in runs:
        t.start()
    aside.wait()
    assert slots.free == 1 and slots.waiting() == 0 and slots.crowded_within(0.0)
    shared_work.set()
    for t in runs:
        t.join()
    clock.advance(3.5)
    assert slots.free == 1 and not slots.crowded_within(3.0) and slots.borrowed == 0


def test_a_run_started_before_the_gate_was_installed_takes_a_slot_for_its_page(monkeypatch):
    from types import SimpleNamespace

    from lucid.session import script_slots

    slots = FairSlots(1)
    monkeypatch.setattr(rerun_gate, "RUNS", slots)
    monkeypatch.setattr(script_slots, "RUNS", slots)
    ctx = SimpleNamespace(session_id="first-wave", script_requests=None, fragment_ids_this_run=[])
    monkeypatch.setattr(rerun_gate.streamlit_internals, "script_run_context", lambda: ctx)
    seen = []
    assert rerun_gate.in_a_slot(lambda: seen.append((slots.free, slots.holds())) or "drawn") == "drawn"
    assert seen == [(0, True)] and slots.free == 1 and not slots.holds()  # held for the page, given back after
    with pytest.raises(ZeroDivisionError):
        rerun_gate.in_a_slot(lambda: 1 / 0)
    assert slots.free == 1  # a run that raised (an st.stop, an error) gives it back too
    assert slots.acquire("gated run")
    assert rerun_gate.in_a_slot(lambda: slots.free) == 0  # a run the gate already put in a slot just runs
    slots.release()
    monkeypatch.setattr(rerun_gate.streamlit_internals, "script_run_context", lambda: None)
    assert rerun_gate.in_a_slot(lambda: slots.free) == 1  # bare mode: no session, no slot
