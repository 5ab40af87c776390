"""Attacks on class mode by a student with a script (issue 24), and the checks a real class makes meanwhile.

Every client here is a raw websocket tab (``bench.streamlit_client.Session``): what a browser sends, or what a
script sends in its place. The attackers connect from their own loopback address (``ATTACKER_HOST``: a laptop
of its own), the real class from ``VICTIM_HOST``; the server reads ``st.context.ip_address`` off the socket, so
the per-address bounds see two addresses, as they would on a network.

Attacks, each ``async (target, stop, seconds) -> Outcome``, running until ``stop`` is set (or ``seconds``):

- ``room_flood``: one scripted tab pressing *Start a class* over and over, and fresh sessions doing the same
  each round (refusals "already runs" are recorded);
- ``fake_students``: a real room; one tab reruns with hundreds of invented ``me=`` ids, fresh tabs come with
  invented ids, and answers of ``-1.7976e308`` and ``1e308`` are submitted;
- ``lesson_bomb``: the 100 KB dotted-key plan and the 10,000-deep plans (``bench.attack_lesson_plan``) pasted
  into the Playground's *Lesson plan* box, then *Start lesson*;
- ``hung_redis``: a server on Redis whose ``redis-server`` is stopped (SIGSTOP, always SIGCONT after) while
  a student's page reruns.

Checks a real class makes (``teacher_can_start``, ``student_can_answer``, ``FeedPoll``, and the classmate's
time to graph of ``bench.hostile_class.victim``) are reusable: the bench runs them with and without each
attack, the test asserts their outcomes. Every wait is bounded; an attacker's own failure is recorded.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import signal
import string
import time
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import attack_lesson_plan
from bench.streamlit_client import Run, Session
from lucid.live_class.codes import STUDENT_RANDOM_CHARS, STUDENT_SIGNATURE_CHARS, address_key
from lucid.ui.live_class import room_feed, room_view

ATTACKER_HOST = "127.0.0.66"
"""The attacking script's address (any 127.x address reaches a server listening on 127.0.0.1)."""
VICTIM_HOST = "127.0.0.1"
"""The real class's address (the page sees no address for 127.0.0.1: one "unknown" address, like a NAT)."""
HUGE_ANSWERS = ("-1.7976e308", "1e308")
"""Answers at the edge of a float: refused (beyond 1e15), never counted."""
TIMEOUT = 60.0


@dataclass
class Target:
    """The server under attack: its port and PID, its data folder (the rooms' SQLite file) and, on Redis,
    the ``redis-server``'s PID."""

    port: int
    pid: int | None = None
    data_dir: Path | None = None
    redis_pid: int | None = None

    def store(self) -> Any:
        """The server's rooms file, opened here too (SQLite in WAL mode: readers never block the server)."""
        from lucid.live_class import SQLiteStore

        assert self.data_dir is not None, "this server keeps its rooms in Redis"
        return SQLiteStore(self.data_dir / "rooms.sqlite3")


@dataclass
class Outcome:
    """What one attack saw over its rounds."""

    name: str
    rounds: int = 0
    exceptions: list[str] = field(default_factory=list)  # tracebacks on an attacker's page: there must be none
    alerts: list[str] = field(default_factory=list)  # warnings / errors its pages showed
    failure: str | None = None  # the attacker itself failed (a timeout: the server stopped answering it)
    notes: dict[str, Any] = field(default_factory=dict)  # what the attack checked (counts, refusals, times)

    def saw(self, run: Run) -> Run:
        self.exceptions += run.exceptions
        self.alerts += run.alerts
        return run

    def count(self, fragment: str) -> int:
        return sum(fragment in a for a in self.alerts)


Attack = Callable[[Target, asyncio.Event, float], Awaitable[Any]]
"""One attack: (server, stop, seconds) -> what it saw (an ``Outcome``, or whatever the attack reports)."""


# -- tabs --------------------------------------------------------------------------------------------------
@contextlib.asynccontextmanager
async def tab(port: int, *, host: str = VICTIM_HOST, query: str = "", timeout: float = TIMEOUT,
              page: str = "playground") -> AsyncIterator[Session]:
    """A tab's websocket from ``host`` (a loopback address of the caller's choosing)."""
    import websockets

    async with websockets.connect(f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit"],
                                  max_size=None, open_timeout=timeout, ping_interval=None,
                                  local_addr=(host, 0)) as ws:
        yield Session(ws, page=page, query=query)


def button(s: Session, label: str) -> Any:
    """A press of the button labelled ``label`` in the last run (a form's submit button too)."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    found = [b.id for b in s.last.of_type("button") if b.label == label] if s.last else []
    if not found:
        raise LookupError(f"no button {label!r} on the page")
    return WidgetState(id=found[-1], trigger_value=True)


def has_button(run: Run | None, label: str) -> bool:
    return run is not None and any(b.label == label for b in run.of_type("button"))


async def press(s: Session, label: str, *extra: Any, timeout: float = TIMEOUT) -> Run:
    """Press ``label`` (with ``extra`` widget states, e.g. typed text), as the browser does: a button drawn by a
    fragment reruns only that fragment."""
    state = button(s, label)
    fragment = s.fragment_of.get(state.id)
    if fragment is None:
        return await s.run(*extra, state, timeout=timeout)
    await s.ws.send(s.fragment_message(fragment, *extra, state, auto=False))
    return await s.finish(timeout)


def room_of(s: Session) -> str | None:
    return dict(urllib.parse.parse_qsl(s.query)).get(room_view.ROOM)


_PANEL = re.compile(r"Class \*\*([A-Z0-9]{6})\*\* · (\d+) students?")
_ANSWERED = re.compile(r"\*\*(\d+) / (\d+)\*\* answered")


def panel(run: Run) -> tuple[str, int] | None:
    """The teacher's panel in ``run``: (code, students connected now), or None when it is not drawn."""
    found = [m for text in run.markdown if (m := _PANEL.search(text))]
    return (found[-1].group(1), int(found[-1].group(2))) if found else None


def answered(run: Run) -> tuple[int, int] | None:
    """The teacher's "N / M answered", or None."""
    found = [m for text in run.markdown if (m := _ANSWERED.search(text))]
    return (int(found[-1].group(1)), int(found[-1].group(2))) if found else None


def invented_id(rng: random.Random) -> str:
    """A student id of the right form that the server never issued (its signature is made up)."""
    alphabet = string.ascii_letters + string.digits + "-_"
    return "".join(rng.choice(alphabet) for _ in range(STUDENT_RANDOM_CHARS + STUDENT_SIGNATURE_CHARS))


async def start_class(s: Session, timeout: float = TIMEOUT) -> Run:
    """Open the Playground (if not yet) and press *Start a class*; returns the run after the press."""
    if s.last is None:
        await s.run(timeout=timeout)
    return await press(s, "Start a class", timeout=timeout)


async def end_class(s: Session, timeout: float = TIMEOUT) -> None:
    """The teacher presses *End class* (victim checks leave no room behind: an address holds a few)."""
    with contextlib.suppress(LookupError, TimeoutError):
        await press(s, "End class", timeout=timeout)


@contextlib.asynccontextmanager
async def teacher(port: int, *, host: str = VICTIM_HOST, timeout: float = TIMEOUT) -> AsyncIterator[
        tuple[Session, str]]:
    """A real teacher's tab holding an open class (ended on exit); yields (tab, code)."""
    async with tab(port, host=host, timeout=timeout) as s:
        shown = await start_class(s, timeout)
        found = panel(shown)
        if found is None:
            raise RuntimeError(f"the teacher's class did not start: {shown.alerts or shown.exceptions}")
        try:
            yield s, found[0]
        finally:
            await end_class(s, timeout)


# -- the real class's checks -------------------------------------------------------------------------------
@dataclass
class Check:
    """A real user's attempt: did it work, what the page said, how long it took."""

    ok: bool
    detail: str = ""
    seconds: float = 0.0
    exceptions: list[str] = field(default_factory=list)


async def teacher_can_start(port: int, *, host: str = VICTIM_HOST, timeout: float = TIMEOUT) -> Check:
    """A fresh tab presses *Start a class*; it worked if its panel shows "Class **CODE**" (the class is then
    ended again)."""
    t0 = time.perf_counter()
    try:
        async with tab(port, host=host, timeout=timeout) as s:
            shown = await start_class(s, timeout)
            found = panel(shown)
            check = Check(found is not None, found[0] if found else " | ".join(shown.alerts)[:200],
                          time.perf_counter() - t0, shown.exceptions)
            if found is not None:
                await end_class(s, timeout)
            return check
    except Exception as err:  # noqa: BLE001 - a failed check is a finding
        return Check(False, f"{type(err).__name__}: {err}"[:200], time.perf_counter() - t0)


async def submit_answer(s: Session, answer: str, timeout: float = TIMEOUT) -> Run:
    """Type ``answer`` in the question's box and press *Submit* (the question's fragment reruns)."""
    box = s.widget_id("text_input", "Your answer")
    return await press(s, "Submit", s.set_text(box, answer), timeout=timeout)


async def ask(s: Session, timeout: float = TIMEOUT) -> Run:
    """The teacher presses *Ask the class*."""
    return await press(s, "Ask the class", timeout=timeout)


async def student_can_answer(port: int, *, host: str = VICTIM_HOST, timeout: float = TIMEOUT,
                             answer: str = "0.5") -> Check:
    """A real teacher starts a class and asks; a fresh student opens the join link and submits ``answer``;
    it worked if the student's page says "Answer received"."""
    t0 = time.perf_counter()
    try:
        async with teacher(port, host=host, timeout=timeout) as (t, code):
            await ask(t, timeout)
            async with tab(port, host=host, query=f"{room_view.ROOM}={code}", timeout=timeout) as s:
                joined = await s.run(timeout=timeout)
                if not has_button(joined, "Submit"):
                    return Check(False, "no question on the student's page: " + " | ".join(joined.alerts)[:200],
                                 time.perf_counter() - t0, joined.exceptions)
                done = await submit_answer(s, answer, timeout)
                ok = any("Answer received" in a for a in done.alerts)
                return Check(ok, " | ".join(done.alerts)[:200], time.perf_counter() - t0,
                             joined.exceptions + done.exceptions)
    except Exception as err:  # noqa: BLE001 - a failed check is a finding
        return Check(False, f"{type(err).__name__}: {err}"[:200], time.perf_counter() - t0)


class FeedPoll:
    """A student's player reading the room's feed: plain GETs at the player's interval (``room_view.POLL_MS``)
    over one keep-alive connection, each timed."""

    def __init__(self, port: int, code: str) -> None:
        from bench.bench_class import Poller

        self.poller = Poller(port, "/" + f"{room_feed.ROUTE}/{code}.json")
        self.seconds: list[float] = []
        self.failures = 0

    async def run(self, stop: asyncio.Event) -> FeedPoll:
        interval = room_view.POLL_MS / 1000
        while not stop.is_set():
            t0 = time.perf_counter()
            try:
                feed = await asyncio.wait_for(self.poller.get(), 10)
            except Exception:  # noqa: BLE001 - a dropped connection: the browser opens another
                self.failures += 1
                if self.poller.writer is not None:
                    self.poller.writer.close()
                self.poller.reader = self.poller.writer = None
            else:
                self.seconds.append(time.perf_counter() - t0)
                self.failures += feed is None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval)
        if self.poller.writer is not None:
            self.poller.writer.close()
        return self

    def p95(self) -> float:
        return percentile(self.seconds, 0.95)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


async def feed_poll_p95(port: int, code: str, seconds: float) -> float:
    """The p95 of a student's feed reads over ``seconds``."""
    stop = asyncio.Event()
    poll = FeedPoll(port, code)
    task = asyncio.ensure_future(poll.run(stop))
    await asyncio.sleep(seconds)
    stop.set()
    await task
    return poll.p95()


# -- the attacks -------------------------------------------------------------------------------------------
async def _until(stop: asyncio.Event, seconds: float, t0: float, done: int = 1) -> bool:
    """Whether the attack should stop: ``stop`` set, or ``seconds`` since ``t0``, once it has done a round
    (``done``: rounds so far; an attack always does one, however slow the server)."""
    await asyncio.sleep(0)
    return done > 0 and (stop.is_set() or time.perf_counter() - t0 > seconds)


def _record_failure(outcome: Outcome, err: BaseException, where: str) -> None:
    outcome.failure = outcome.failure or f"{where}: {type(err).__name__}: {err}"[:300]


async def room_flood(target: Target, stop: asyncio.Event, seconds: float = 1e9, *, fresh_per_round: int = 3,
                     timeout: float = TIMEOUT) -> Outcome:
    """One scripted tab presses *Start a class* over and over (leaving each class by dropping ``room=`` from its
    address), while each round ``fresh_per_round`` fresh tabs press it once; all from ``ATTACKER_HOST``.
    Notes: classes started and refused, and the attacker address's open rooms at the end (from the store)."""
    out = Outcome("room_flood")
    started, refused, codes = [0], [0], set()
    t0 = time.perf_counter()

    def tally(shown: Run) -> None:
        found = panel(shown)
        if found is not None:
            started[0] += 1
            codes.add(found[0])
        refused[0] += sum("already runs" in a for a in shown.alerts)

    async def scripted() -> None:
        async with tab(target.port, host=ATTACKER_HOST, timeout=timeout) as s:
            out.saw(await s.run(timeout=timeout))
            while not await _until(stop, seconds, t0, out.rounds):
                if not has_button(s.last, "Start a class"):
                    s.query = ""  # leave the class: the Playground offers Start a class again
                    out.saw(await s.run(timeout=timeout))
                tally(out.saw(await press(s, "Start a class", timeout=timeout)))
                out.rounds += 1

    async def fresh() -> None:
        async with tab(target.port, host=ATTACKER_HOST, timeout=timeout) as s:
            tally(out.saw(await start_class(s, timeout)))

    async def fresh_rounds() -> None:
        rounds = 0
        while not await _until(stop, seconds, t0, rounds):
            rounds += 1
            await asyncio.gather(*(fresh() for _ in range(fresh_per_round)))

    results = await asyncio.gather(scripted(), fresh_rounds(), return_exceptions=True)
    for where, result in zip(("scripted tab", "fresh tabs"), results, strict=True):
        if isinstance(result, BaseException):
            _record_failure(out, result, where)
    out.notes.update(started=started[0], refused=refused[0], distinct_codes=len(codes))
    if target.data_dir is not None:
        out.notes["open_rooms_of_the_attacker"] = open_rooms_of(target, ATTACKER_HOST)
    behind = await teacher_can_start(target.port, host=ATTACKER_HOST, timeout=timeout)
    out.notes["teacher_behind_the_attackers_address"] = "started" if behind.ok else behind.detail
    return out


def open_rooms_of(target: Target, host: str) -> int:
    """Open rooms started from ``host`` (as the store keys addresses: ``None`` for 127.0.0.1)."""
    store = target.store()
    wanted = address_key(None if host == "127.0.0.1" else host)
    return sum(1 for code in store.index() if (store.load(code) or {}).get("addr") == wanted)


async def fake_students(target: Target, stop: asyncio.Event, seconds: float = 1e9, *, ids: int = 400,
                        fresh: int = 5, real_students: int = 2, timeout: float = TIMEOUT) -> Outcome:
    """A real teacher opens a class and asks; ``real_students`` real tabs join. From ``ATTACKER_HOST`` one tab
    joins and reruns with ``ids`` invented ``me=`` ids, ``fresh`` fresh tabs come with invented ids, and the
    first tab submits ``HUGE_ANSWERS``. Notes: the teacher's count against the tabs that joined (each a real
    session: the invented ids must not count), the huge answers' refusals, and what the store holds."""
    out = Outcome("fake_students")
    rng = random.Random(24)  # noqa: S311 - invented ids, not secrets
    t0 = time.perf_counter()
    async with teacher(target.port, timeout=timeout) as (t, code), contextlib.AsyncExitStack() as tabs:
        await ask(t, timeout)
        join = f"{room_view.ROOM}={code}"
        for _ in range(real_students):
            s = await tabs.enter_async_context(tab(target.port, query=join, timeout=timeout))
            out.saw(await s.run(timeout=timeout))
        a = await tabs.enter_async_context(tab(target.port, host=ATTACKER_HOST, timeout=timeout,
                                               query=f"{join}&{room_view.ME}={invented_id(rng)}"))
        out.saw(await a.run(timeout=timeout))
        for answer in HUGE_ANSWERS:
            done = out.saw(await submit_answer(a, answer, timeout))
            out.notes.setdefault("huge_answers_received", 0)
            out.notes["huge_answers_received"] += sum("Answer received" in x for x in done.alerts)
        out.notes["huge_answers_refused"] = out.count("1e15")
        for _ in range(fresh):
            f = await tabs.enter_async_context(tab(target.port, host=ATTACKER_HOST, timeout=timeout,
                                                   query=f"{join}&{room_view.ME}={invented_id(rng)}"))
            out.saw(await f.run(timeout=timeout))
        sent = 0
        try:
            while sent < ids and not await _until(stop, seconds, t0, sent):
                a.query = f"{join}&{room_view.ME}={invented_id(rng)}"
                out.saw(await a.run(timeout=timeout))
                sent += 1
                out.rounds = sent
        except Exception as err:  # noqa: BLE001 - the attacker's failure is a finding
            _record_failure(out, err, f"rerun {sent}")
        shown = await t.run(timeout=timeout)
        out.notes.update(invented_ids_sent=sent, sessions_joined=real_students + 1 + fresh,
                         teacher_panel=panel(shown), teacher_answered=answered(shown))
        if target.data_dir is not None:
            store = target.store()
            room = store.load(code) or {}
            question = room.get("question") or {}
            values = [float(x["value"]) for x in store.answers(code, question.get("id", "")).values()]
            out.notes.update(store_students=store.size(code, 0), store_answers=len(values),
                             store_huge_answers=sum(abs(v) > 1e15 for v in values))
    return out


LESSON_BOMBS = {
    "dotted key 100 KB": attack_lesson_plan.dotted_key_plan(99_990),  # just under browser_gate.MAX_TEXT_CHARS
    "dotted key 100,006 chars": attack_lesson_plan.dotted_key_plan(100_000),  # over it: the gate drops the text
    "arrays 10,000 deep": attack_lesson_plan.deep_nesting_plan(10_000, "array"),
    "tables 10,000 deep": attack_lesson_plan.deep_nesting_plan(10_000, "table"),
    "headers 10,000 deep": attack_lesson_plan.deep_nesting_plan(10_000, "header"),
}
"""Plans ``lesson_bomb`` pastes. ``bench.attack_lesson_plan``'s 100 KB key is 100,006 characters, over what
``lucid.ui.runtime.browser_gate`` lets a text widget hold (100,000): that value is dropped before the page sees it, and
the box keeps what it held; the one just under reaches the plan's bounds."""


async def lesson_bomb(target: Target, stop: asyncio.Event, seconds: float = 1e9, *,
                      timeout: float = TIMEOUT) -> Outcome:
    """Paste each of ``LESSON_BOMBS`` into the *Lesson plan* box and press *Start lesson*, round after round.
    Notes: each bomb's refusal and the slowest press."""
    out = Outcome("lesson_bomb")
    t0 = time.perf_counter()
    slowest, refused, said = 0.0, dict.fromkeys(LESSON_BOMBS, 0), {}
    try:
        async with tab(target.port, host=ATTACKER_HOST, timeout=timeout) as s:
            out.saw(await s.run(timeout=timeout))
            box = s.widget_id("text_area", "Lesson plan")
            while not await _until(stop, seconds, t0, out.rounds):
                for name, plan in LESSON_BOMBS.items():
                    done = out.saw(await press(s, "Start lesson", s.set_text(box, plan), timeout=timeout))
                    slowest = max(slowest, done.seconds)
                    refused[name] += any("cannot be used" in a for a in done.alerts)
                    said[name] = " | ".join(done.alerts)[:120]
                out.rounds += 1
    except Exception as err:  # noqa: BLE001 - the attacker's failure is a finding
        _record_failure(out, err, f"round {out.rounds + 1}")
    out.notes.update(refused=refused, said=said, slowest_press_seconds=round(slowest, 2))
    return out


async def hung_redis(target: Target, stop: asyncio.Event, seconds: float = 1e9, *, healthy_runs: int = 3,
                     timeout: float = TIMEOUT) -> Outcome:
    """A real class on a Redis-backed server; a student reruns the page ``healthy_runs`` times, then
    ``redis-server`` is stopped (SIGSTOP) and the student keeps rerunning until ``stop``; Redis is always
    continued (SIGCONT). Notes: the student's page run time healthy and hung, and what the page said."""
    assert target.redis_pid is not None, "hung_redis needs a server on Redis"
    out = Outcome("hung_redis")
    healthy, hung = [], []
    async with teacher(target.port, timeout=timeout) as (_t, code), tab(
            target.port, query=f"{room_view.ROOM}={code}", timeout=timeout) as s:
        for _ in range(healthy_runs):
            healthy.append(out.saw(await s.run(timeout=timeout)).seconds)
        os.kill(target.redis_pid, signal.SIGSTOP)
        t0 = time.perf_counter()
        try:
            while not await _until(stop, seconds, t0, len(hung)):
                hung.append(out.saw(await s.run(timeout=timeout)).seconds)
                out.rounds += 1
        except Exception as err:  # noqa: BLE001 - the attacker's failure is a finding
            _record_failure(out, err, f"hung run {len(hung) + 1}")
        finally:
            os.kill(target.redis_pid, signal.SIGCONT)
    out.notes.update(healthy_run_p50=round(percentile(healthy, 0.5), 3), hung_run_p50=round(percentile(hung, 0.5), 3),
                     hung_run_max=round(max(hung, default=float("nan")), 3), hung_runs=len(hung),
                     unavailable_messages_per_run=round(out.count("cannot be reached") / max(len(hung), 1), 1))
    return out


ATTACKS: dict[str, Attack] = {
    "room flood": room_flood,
    "fake students": fake_students,
    "lesson bomb": lesson_bomb,
}
"""The room attacks on a server with its rooms in SQLite (``hung_redis`` needs one on Redis)."""


def short(outcome: Any) -> str:
    """One line of what an attack reported (its notes, or the value's repr)."""
    if isinstance(outcome, Outcome):
        return json.dumps(outcome.notes, default=str)
    return repr(outcome)[:300]
