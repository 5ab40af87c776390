"""Class mode under load: one teacher and N students in one room, speaking Streamlit's own protocol.

Every simulated tab is what a browser sends (``bench.streamlit_client``):

- the teacher opens the Playground on the ``scalar`` lesson, presses *Start a class*, then steps 20 times
  (the player's ``step`` event, as its JavaScript reports a key press) and asks 3 questions (*Ask the
  class*, then *Reveal*); while a question is open the teacher's answer panel refreshes on its
  ``run_every`` timer, as the browser's would, and its answer watcher holds a read of the round's count after
  another (with the room's teacher key), each count on the teacher's screen at once and the first change after
  a draw rerunning the panel (``lucid/ui/live_class/answer_watch.js``);
- each student opens the join link (``?room=``) and then does what the player does in the browser: reads
  the room's feed over one keep-alive connection, the way the player's room data says (``room_view.player_room``:
  ``poll_ms`` between reads, and ``hold_ms`` > 0 when the server holds a read until the feed changes), and
  asks for a rerun only when the feed's question changed (the class panel's watcher: a question, its reveal,
  its close); on a question it types an answer and presses *Submit*.

Measured, each event's p95 printed next to the 1 s target: a step (the teacher's key press sent -> a student's
feed shows it), a question (*Ask the class* sent -> the question's form on a student's page), a reveal (*Reveal*
sent -> the revealed answer on a student's page), an answer (a student's Submit pressed -> the teacher's panel
counts it: the watcher's read or the panel's run, whichever came first; the run's own time is printed under it);
and the server's CPU while idle (students following, nobody acting: % of one core per 10 students),
CPU per student per minute over the whole class (ms of CPU), and peak RSS. ``--redis`` runs two Streamlit
processes sharing one ``redis-server`` (students split across both, the teacher on the first).

    python bench/bench_class.py                 # N = 30, 60
    python bench/bench_class.py -n 120 --redis
    python bench/bench_class.py --all           # N = 30, 60, 120 on one process, then on two

Loopback only; every wait is bounded.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import sys
import tempfile
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.streamlit_client import cpu_seconds, rss_mb, run_sync, server, session  # noqa: E402
from lucid.ui.live_class import room_feed, room_view  # noqa: E402

LESSON = "scalar"
STEPS = [*range(1, 18), 16, 15, 14]
"""The teacher's 20 key presses: through the scalar lesson's 17 steps and back three."""
ASK_AFTER = (5, 10, 15)
"""After these many presses the teacher asks the class (then reveals)."""
POLL_SECONDS = room_view.POLL_MS / 1000  # the player's poll interval when the server holds no read
TARGET = 1.0
"""Seconds: every event on every screen within this, p95 (issue 27)."""
IDLE_SECONDS = 20.0
WARMUP_WAIT = 180.0
"""Seconds the idle window waits at most for the servers' page warm-up to end (at 30 students it outlasts the class's
joining, and its CPU was counted as the idle class's)."""
WARMED = "page warm-up done"
"""What a server's log says when its warm-up is done (``lucid.ui.runtime.warmup.DONE_LINE``)."""
ANSWER_WAIT = 20.0
DEBUG = False


@dataclass
class Result:
    n: int
    servers: int
    propagation: list[float] = field(default_factory=list)
    answer_latency: list[float] = field(default_factory=list)  # Submit pressed -> the count on the teacher's screen
    count_run_latency: list[float] = field(default_factory=list)  # Submit pressed -> the panel's run drew the count
    answers_expected: int = 0
    idle_cpu: float = 0.0  # fraction of one core, whole idle window
    class_cpu: float = 0.0  # CPU seconds, teacher stepping and asking
    class_minutes: float = 0.0
    peak_rss: float = 0.0
    errors: list[str] = field(default_factory=list)
    student_runs: list[float] = field(default_factory=list)  # a student's panel run for a question / a submit
    question_latency: list[float] = field(default_factory=list)  # Ask sent -> the question on a student's screen
    reveal_latency: list[float] = field(default_factory=list)  # Reveal sent -> the answer on a student's screen
    form_latency: list[float] = field(default_factory=list)  # Ask sent -> the panel's run drew the answer form
    verdict_latency: list[float] = field(default_factory=list)  # Reveal sent -> the panel's run drew the verdict
    pushed: bool = False  # the server held feed reads until a change (push), else the students polled
    warmup_wait: float = 0.0  # seconds the idle window waited for the servers' page warm-up to end


def _button(sess, label: str):
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    found = [b.id for b in sess.last.of_type("button") if b.label == label]
    if not found:
        raise LookupError(f"no button {label!r}")
    return WidgetState(id=found[-1], trigger_value=True)


WATCHER = "lucid_room_watch"


def _component(sess, name: str) -> str:
    found = [c.id for c in sess.last.of_type("bidi_component") if c.component_name == name]
    if not found:
        raise LookupError(f"no component {name!r} on the page")
    return found[-1]


class Poller:
    """A student's browser reading the feed: one keep-alive HTTP connection, a GET every ``poll`` seconds; with
    ``hold`` the GET names the version seen last (``?v=``) and the server answers when the feed changes."""

    def __init__(self, port: int, path: str, *, poll: float = POLL_SECONDS, hold: bool = False) -> None:
        self.port, self.path, self.poll, self.hold = port, path, poll, hold
        self.seen: list[tuple[float, dict]] = []
        self.reader = self.writer = None
        self.failures = 0
        self.changed = asyncio.Event()

    async def get(self) -> dict | None:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        path = self.path
        if self.hold:
            path += "?v=" + (str(self.seen[-1][1].get("v", "")) if self.seen else "")
        self.writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCache-Control: no-store\r\n\r\n".encode())
        await self.writer.drain()
        head = await self.reader.readuntil(b"\r\n\r\n")
        length = int(re.search(rb"(?i)content-length:\s*(\d+)", head).group(1))
        body = await self.reader.readexactly(length)
        return json.loads(body) if head.startswith(b"HTTP/1.1 200") else None

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                feed = await asyncio.wait_for(self.get(), 10)
            except Exception:  # noqa: BLE001 - a dropped connection: the browser opens another
                self.failures += 1
                if self.writer is not None:
                    self.writer.close()
                self.reader = self.writer = None
            else:
                if feed is not None:
                    if not self.seen or self.seen[-1][1] != feed:
                        self.changed.set()
                    self.seen.append((time.perf_counter(), feed))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.poll)
        if self.writer is not None:
            self.writer.close()


async def student(port: int, code: str, index: int, stop: asyncio.Event, submitted: list[tuple[float, str]],
                  errors: list[str], ready: asyncio.Event, timeout: float, runs: list[float],
                  shown: dict[str, list[float]], drawn_at: dict[str, list[float]], modes: list[bool]) -> Poller:
    poller = Poller(port, "/" + f"{room_feed.ROUTE}/{code}.json")
    try:
        async with session(port, query=f"room={code}", timeout=timeout) as s:
            await s.run(timeout=timeout)
            room = s.player_data().get("room") or {}
            hold = int(room.get("hold_ms") or 0) > 0
            modes.append(hold)
            poller = Poller(port, room.get("feed") or poller.path, poll=float(room.get("poll_ms", 600)) / 1000,
                            hold=hold)
            ready.set()
            task = asyncio.create_task(poller.run(stop))
            on_page = room.get("question", "")
            while not stop.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(poller.changed.wait(), 0.5)
                poller.changed.clear()
                if not poller.seen:
                    continue
                seen_at, feed = poller.seen[-1]
                q = feed.get("q", "")
                if q == on_page:
                    continue
                on_page = q
                card = feed.get("card") or {}
                if q and (card.get("answer") is not None) == q.endswith(":1") and card.get("label"):
                    shown.setdefault(q, []).append(seen_at)  # the watcher shows the feed's card at once
                # The player tells the class panel's watcher, whose event reruns the panel's fragment (a question,
                # its reveal, its close); a new question or its reveal may run the whole page once
                # (``ui.live_class.room_hold``), so the form, or the answer, arrives in that run.
                watch = _component(s, WATCHER)
                events = s.events(json.dumps([{"event": "question", "value": q}]), component_id=watch)
                sent_at = time.perf_counter()
                await s.ws.send(s.fragment_message(s.fragment_of[watch], events, auto=False))
                drawn = await s.finish(timeout)  # what it holds back: tests/ui/test_app_class_hold.py
                # the panel draws the form (or the verdict) before it runs the page again for the hold
                drawn_time = sent_at + (drawn.early if drawn.early is not None else drawn.seconds)
                if not q:
                    continue
                qid, revealed = q.split(":")
                drawn_at.setdefault(q, []).append(drawn_time)
                if not card:  # no card in the feed: the question is on screen when the panel's run drew it
                    shown.setdefault(q, []).append(drawn_time)
                if revealed == "1":
                    if not any("the class:" in a for a in drawn.alerts):
                        raise RuntimeError("the reveal did not show the answer")
                    continue
                box = s.widget_id("text_input", "Your answer")
                answer = "-0.5" if index % 3 else "0.5"
                submitted.append((time.perf_counter(), q))  # pressed now (the teacher may count it mid-run)
                submit = _button(s, "Submit")
                await s.ws.send(s.fragment_message(s.fragment_of[submit.id], s.set_text(box, answer), submit,
                                                   auto=False))
                done = await s.finish(timeout)
                if done.player is not None or not any("Answer received" in a for a in done.alerts):
                    raise RuntimeError("Submit reran the whole page, or the answer was not received")
                runs.extend([drawn.seconds, done.seconds])
            await task
    except Exception as err:  # noqa: BLE001 - one student's failure is reported
        errors.append(f"student {index}: {type(err).__name__}: {err}"[:200])
        ready.set()
    return poller


async def teacher_class(ports: list[int], n: int, timeout: float, result: Result, pids: list[int],
                        logs: list[Path]) -> None:
    async with session(ports[0], query=f"example={LESSON}", timeout=timeout) as t:
        await t.run(timeout=timeout)
        await t.run(_button(t, "Start a class"), timeout=timeout)
        code = dict(urllib.parse.parse_qsl(t.query))["room"]
        await t.run(timeout=timeout)
        program = t.player_data()["program_id"]

        stop = asyncio.Event()
        submitted: list[tuple[float, str]] = []
        on_screen: dict[str, list[float]] = {}  # question key -> when each student's screen showed it
        drawn: dict[str, list[float]] = {}  # question key -> when each student's panel run drew the form / verdict
        pressed: dict[str, float] = {}  # question key -> when the teacher pressed Ask / Reveal
        modes: list[bool] = []
        readies = [asyncio.Event() for _ in range(n)]
        tasks = [asyncio.create_task(student(ports[i % len(ports)], code, i, stop, submitted, result.errors,
                                             readies[i], timeout, result.student_runs, on_screen, drawn, modes))
                 for i in range(n)]
        await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), timeout * 2)
        await asyncio.sleep(2.0)
        result.warmup_wait = await _warmed(logs, WARMUP_WAIT)  # its CPU is no idle class's

        cpu0 = sum(cpu_seconds(p) for p in pids)
        await asyncio.sleep(IDLE_SECONDS)  # the class sits and watches: students poll, nobody acts
        result.idle_cpu = (sum(cpu_seconds(p) for p in pids) - cpu0) / IDLE_SECONDS

        cpu0, wall0 = sum(cpu_seconds(p) for p in pids), time.perf_counter()
        sent: list[tuple[float, int]] = []
        fragment_runs: list[tuple[float, int]] = []
        for press, step in enumerate(STEPS, start=1):
            t0 = time.perf_counter()
            await t.run(t.events(json.dumps([{"event": "step", "value": {"step": step, "program": program}}])),
                        timeout=timeout)
            sent.append((t0, step))
            await asyncio.sleep(1.0)
            if press in ASK_AFTER:
                t0 = time.perf_counter()
                await t.run(_button(t, "Ask the class"), timeout=timeout)
                asked = json.loads(room_feed.writer().path(code).read_text())["q"]
                pressed[asked] = t0
                deadline = time.perf_counter() + ANSWER_WAIT
                watcher = AnswerWatcher(ports[0])  # the panel's answer watcher, as the teacher's browser runs it
                try:
                    while time.perf_counter() < deadline:  # the answer panel's run_every timer, as in the browser
                        # the answer panel refreshes fastest; the page's once-a-minute heartbeat is another fragment
                        fragment = min(t.auto_reruns, key=t.auto_reruns.__getitem__, default=None)
                        if fragment is None:
                            break
                        # the watcher the last run drew (Ask's, then each panel run's) asks for the next run when it
                        # reads another count; else the panel's timer
                        message = await watcher.next_rerun(t, t.auto_reruns[fragment])
                        await t.ws.send(message or t.fragment_message(fragment))
                        run = await t.finish(timeout)
                        counts = [int(m.group(1)) for text in run.markdown
                                  if (m := re.match(r"\*\*(\d+) / \d+\*\* answered", text))]
                        if DEBUG:
                            print(f"teacher panel run {run.seconds:.2f} s, counts {counts}, "
                                  f"{'pushed' if message else 'timer'}")
                        if counts:
                            fragment_runs.append((time.perf_counter(), counts[-1]))
                            if counts[-1] >= n:
                                break
                finally:
                    await watcher.stop()
                mine = sorted(at for at, q in submitted if q == asked)
                if DEBUG:
                    print("submitted", [round(x - mine[0], 2) for x in mine],
                          "panel", [(round(ts - mine[0], 2), c) for ts, c in fragment_runs if ts >= mine[0] - 5],
                          "watcher", [(round(ts - mine[0], 2), c) for ts, c in watcher.counts if ts >= mine[0] - 5],
                          "student runs", [round(x, 2) for x in result.student_runs[-2 * n:]])
                qid = asked.split(":")[0]
                for rank, at in enumerate(mine, start=1):
                    drawn_by_run = next((ts for ts, count in fragment_runs if ts >= at and count >= rank), None)
                    pushed = next((ts for ts, count in watcher.counts_of(qid) if ts >= at and count >= rank), None)
                    shown = min((x for x in (drawn_by_run, pushed) if x is not None), default=None)
                    if shown is not None:
                        result.answer_latency.append(shown - at)
                    if drawn_by_run is not None:
                        result.count_run_latency.append(drawn_by_run - at)
                result.answers_expected += n
                t.auto_reruns.clear()
                t0 = time.perf_counter()
                await t.run(_button(t, "Reveal"), timeout=timeout)
                revealed = asked.split(":")[0] + ":1"
                pressed[revealed] = t0
                deadline = time.perf_counter() + ANSWER_WAIT  # the class reads the answer before the teacher moves on
                while time.perf_counter() < deadline and len(drawn.get(revealed, [])) < n - len(result.errors):
                    await asyncio.sleep(0.2)
                await asyncio.sleep(1.0)
                await t.run(_button(t, "Back to following"), timeout=timeout)
                await asyncio.sleep(1.0)
        await asyncio.sleep(2.0)
        result.class_cpu = sum(cpu_seconds(p) for p in pids) - cpu0
        result.class_minutes = (time.perf_counter() - wall0) / 60
        stop.set()
        pollers = await asyncio.gather(*tasks)
        result.pushed = bool(modes) and all(modes)
        for q, at in pressed.items():
            reveal = q.endswith(":1")
            (result.reveal_latency if reveal else result.question_latency).extend(
                ts - at for ts in on_screen.get(q, []))
            (result.verdict_latency if reveal else result.form_latency).extend(ts - at for ts in drawn.get(q, []))
        for poller in pollers:
            for t0, step in sent:
                if _already(poller, t0, step):
                    continue
                seen = next((ts for ts, feed in poller.seen if ts >= t0 and feed.get("step") == step), None)
                if seen is not None:
                    result.propagation.append(seen - t0)
        if DEBUG:
            for press, (t0, step) in enumerate(sent, start=1):
                lags = sorted(next((ts - t0 for ts, feed in p.seen if ts >= t0 and feed.get("step") == step), -1)
                              if not _already(p, t0, step) else 0.0 for p in pollers)
                print(f"press {press} (step {step}): lag min {lags[0]:.2f} median {lags[len(lags) // 2]:.2f} "
                      f"max {lags[-1]:.2f}")


class AnswerWatcher:
    """The teacher's answer watcher as its browser runs it (``lucid/ui/live_class/answer_watch.js``): once the panel
    drew it, a held read of the answer count after another, each naming the count it has and the room's teacher key;
    every count read is on the teacher's screen at once (``counts``), and the first change after a draw of the
    panel asks for the panel's rerun."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.counts: list[tuple[float, str, int]] = []  # (when read, round id, answered)
        self.version: int | None = None  # the newest count version read
        self.changed = asyncio.Event()
        self.data: dict | None = None
        self.task: asyncio.Task | None = None

    def counts_of(self, qid: str) -> list[tuple[float, int]]:
        return [(ts, n) for ts, q, n in self.counts if q == qid]

    async def _get(self, reader, writer, seen: int) -> dict:
        d = self.data
        writer.write(f"GET {d['feed']}?answers={seen} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     f"{d['header']}: {d['key']}\r\n\r\n".encode())
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(re.search(rb"(?i)content-length:\s*(\d+)", head).group(1))
        body = await reader.readexactly(length)
        if not head.startswith(b"HTTP/1.1 200"):
            raise PermissionError(head.split(b"\r\n")[0].decode())
        return json.loads(body)

    async def _read(self) -> None:
        reader = writer = None
        try:
            while True:
                try:
                    if writer is None:
                        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
                    seen = self.version if self.version is not None else self.data["seen"]
                    got = await asyncio.wait_for(self._get(reader, writer, seen), 10)
                except (OSError, ValueError, AttributeError, TimeoutError, asyncio.IncompleteReadError):
                    if writer is not None:
                        writer.close()
                    reader = writer = None
                    await asyncio.sleep(1.0)
                    continue
                if got.get("answers") is None or got["answers"] == seen:
                    continue
                self.version = got["answers"]
                if isinstance(got.get("answered"), int):
                    self.counts.append((time.perf_counter(), str(got.get("q")), got["answered"]))
                self.changed.set()
        finally:
            if writer is not None:
                writer.close()

    async def next_rerun(self, t, interval: float) -> bytes | None:
        """What the teacher's browser sends next: the watcher's event as soon as a count newer than the one the panel
        drew is read (at once when one came during the run), or None for the panel's timer (after ``interval``
        seconds, as without a watcher on the page)."""
        found = [c for c in t.last.of_type("bidi_component") if c.component_name == "lucid_answer_watch"]
        if not found:
            await asyncio.sleep(interval)
            return None
        self.data = json.loads(found[-1].json)
        drawn = int(self.data["seen"])
        if self.version is None or self.version < drawn:
            self.version = drawn
        if self.task is None:
            self.task = asyncio.create_task(self._read())
        if self.version <= drawn:
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), interval)
        if self.version <= drawn:
            return None
        events = t.events(json.dumps([{"event": "answers", "value": self.version}]), component_id=found[-1].id)
        return t.fragment_message(t.fragment_of[found[-1].id], events, auto=False)

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task


def _already(poller: Poller, t0: float, step: int) -> bool:
    """The student's feed showed ``step`` before the key press (a reveal moves the class to the step it asked
    about, and the teacher's next press is that step): nothing to propagate, no sample."""
    before = [feed for ts, feed in poller.seen if ts < t0]
    return bool(before) and before[-1].get("step") == step


async def _warmed(logs: list[Path], limit: float) -> float:
    """Seconds waited until every server's log says its page warm-up is done (``lucid.ui.runtime.warmup``: the lesson
    pages' experiments, computed in the background after a server's first run), at most ``limit``; NaN if not."""
    start = time.perf_counter()
    while time.perf_counter() - start < limit:
        if all(log.exists() and WARMED in log.read_text(errors="replace") for log in logs):
            return time.perf_counter() - start
        await asyncio.sleep(0.5)
    return float("nan")


def _redis():
    from tests import redis_server

    return redis_server.redis_server()


def run_n(n: int, *, redis: bool, timeout: float) -> Result:
    result = Result(n, 2 if redis else 1)
    with contextlib.ExitStack() as stack:
        env = {}
        if redis:
            env["LUCID_REDIS_URL"] = stack.enter_context(_redis())
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-class-")))
        logs = [folder / f"server{i}.log" for i in range(result.servers)]
        servers = [stack.enter_context(server(env=env, log=log)) for log in logs]
        pids = [s.pid for s in servers]
        run_sync(asyncio.wait_for(teacher_class([s.port for s in servers], n, timeout, result, pids, logs),
                                  timeout=timeout * 10))
        result.peak_rss = max(rss_mb(p)[1] for p in pids)
    return result


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _per_student_ms(r: Result) -> float:
    """Milliseconds of server CPU per student per minute of class (stepping, asking, answering, revealing)."""
    return 1000 * r.class_cpu / r.n / r.class_minutes if r.class_minutes else float("nan")


def table(rows: list[Result]) -> str:
    lines = ["| students | servers | feed | step p50 | step p95 | question p95 | reveal p95 | answer→teacher p50 | "
             "p95 | answers seen | student run p95 | idle CPU / 10 students | CPU ms / student / min | peak RSS MB | "
             "errors |",
             "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r.n} | {r.servers} | {'push' if r.pushed else 'poll'} | {_pct(r.propagation, 0.5):.2f} s | "
                     f"{_pct(r.propagation, 0.95):.2f} s | {_pct(r.question_latency, 0.95):.2f} s | "
                     f"{_pct(r.reveal_latency, 0.95):.2f} s | "
                     f"{_pct(r.answer_latency, 0.5):.2f} s | {_pct(r.answer_latency, 0.95):.2f} s | "
                     f"{len(r.answer_latency)}/{r.answers_expected} | {_pct(r.student_runs, 0.95):.2f} s | "
                     f"{100 * r.idle_cpu / r.n * 10:.1f} % | "
                     f"{_per_student_ms(r):.0f} | {r.peak_rss:.0f} | {len(r.errors)} |")
    return "\n".join(lines)


def targets(r: Result) -> str:
    """Each event's p95 next to its target, and the CPU figures, for one row."""
    events = [("a teacher's key press on every student's screen", r.propagation),
              ("a question on every student's screen", r.question_latency),
              ("a reveal on every student's screen", r.reveal_latency),
              ("an answer on the teacher's panel", r.answer_latency)]
    lines = [f"{r.n} students, {r.servers} process{'es' if r.servers > 1 else ''} "
             f"({'push' if r.pushed else 'poll'}):"]
    for name, values in events:
        p95 = _pct(values, 0.95)
        lines.append(f"  {name:<48} p95 {p95:5.2f} s  target {TARGET:.0f} s  "
                     f"{'ok' if p95 < TARGET else 'MISSED'}  ({len(values)} samples)")
    idle = 100 * r.idle_cpu / r.n * 10
    for name, values in (("  then the panel's run drew the answer form", r.form_latency),
                         ("  then the panel's run drew the verdict", r.verdict_latency),
                         ("  then the teacher's panel run drew the count", r.count_run_latency)):
        lines.append(f"  {name:<48} p95 {_pct(values, 0.95):5.2f} s  (p50 {_pct(values, 0.5):.2f} s)")
    lines.append(f"  {'idle CPU per 10 students':<48} {idle:5.1f} %  target 5 %  {'ok' if idle < 5 else 'MISSED'}")
    lines.append(f"  {'CPU per student per minute of class':<48} {_per_student_ms(r):5.0f} ms  "
                 f"({1000 * r.class_cpu / r.n:.0f} ms per student over the {r.class_minutes:.1f} min class)")
    lines.append(f"  {'the idle window waited for the page warm-up':<48} {r.warmup_wait:5.1f} s")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, action="append", help="students (repeatable); default 30 and 60")
    parser.add_argument("--redis", action="store_true", help="two Streamlit processes sharing one redis-server")
    parser.add_argument("--all", action="store_true", help="30, 60 and 120 students, on one process then on two")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--debug", action="store_true", help="print each key press's lags and each question's runs")
    args = parser.parse_args(argv)
    global DEBUG
    DEBUG = args.debug
    rows = []
    sizes = args.n or ([30, 60, 120] if args.all else [30, 60])
    for redis in ([False, True] if args.all else [args.redis]):
        for n in sizes:
            row = run_n(n, redis=redis, timeout=args.timeout)
            rows.append(row)
            for err in row.errors[:5]:
                print("  ", err)
            print(table([row]), flush=True)
            print(targets(row), flush=True)
    print()
    print(table(rows))
    print()
    for row in rows:
        print(targets(row))
    print(f"\n{len(STEPS)} key presses and {len(ASK_AFTER)} questions; nearest-rank percentiles of all "
          "(student, event) pairs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
