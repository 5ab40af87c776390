"""Load generator: N students on one Playground server, speaking Streamlit's own websocket protocol.

Each simulated student connects to ``/_stcore/stream`` like the browser does
(BackMsg/ForwardMsg protobufs from ``streamlit.proto``) and
1. opens the Playground, by default through the teacher's shared link (``?code=…``),
   and waits for the graph (the player component) to arrive: *time to graph*;
2. runs a program (sends the editor's text as the browser would) and waits for its graph;
3. steps through the whole backward pass: this happens in the browser and sends nothing,
   so the simulated student sends nothing either (the table counts messages to prove it);
4. clicks a node (the component's trigger, exactly as the player's JavaScript sends it) and waits for
   the run to end; the click counts only if the node inspector then shows that node.

The messages are the browser's own (``bench.streamlit_client``, read off a real Chromium session).

The benchmark starts its own ``streamlit run app.py`` on a free loopback port for each N
(a cold server, as at the start of a class), reads the server's CPU time (its own and
its ``dot`` children's) and RSS from ``/proc``, stops it, and prints one row per N, next to the
targets (``TARGETS``: the class gets the teacher's graph within 2 s and its own programs within 4 s
at p95, and a warm rerun, the click, costs the server at most 25 ms of CPU per student). The
server's CPU is sampled while the class moves, so each phase (open, run, click) gets its own
CPU per student::

    python bench/bench_load.py                 # N = 1, 10, 30, 60
    python bench/bench_load.py -n 1 -n 2 --distinct   # every student a different program

Loopback only; every wait is bounded (``--timeout`` per action, and per run of N).
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.streamlit_client import cpu_seconds, rss_mb, run_sync, server, session  # noqa: E402
from lucid import gallery  # noqa: E402
from lucid.session import share  # noqa: E402

LESSON = gallery.by_slug("mlp").source
"""The teacher's link: the 2-layer MLP lesson."""
EXERCISE = "a = 1.5\nb = -2.0\nc = a * b + tanh(a)\nout = c * c + b\n"
"""What every student types next (``--distinct`` adds a different constant per student)."""


TARGETS = {"graph_p95": 2.0, "run_p95": 4.0, "click_cpu": 0.025}
"""What a class of 60 needs: graph p95 (s), own program p95 (s), CPU of one warm rerun (the click) per student (s)."""

CLICKED_NODE, CLICKED_STEP = "t0", 2
"""The click every student makes: the exercise's first input, at trace step 2."""


def inspector_shows(markdown: list[str], node: str) -> bool:
    """Whether the node inspector's heading (``**t0 · a** — …``) names ``node``."""
    return any(text.startswith(f"**{node} · ") for text in markdown)


@dataclass
class Student:
    time_to_graph: float | None = None
    time_to_run: float | None = None
    time_to_inspect: float | None = None
    sent_while_stepping: int = 0
    error: str | None = None
    done_at: list[float] = field(default_factory=list)  # perf_counter at the end of each phase


@dataclass
class Row:
    n: int
    students: list[Student] = field(default_factory=list)
    cpu_seconds: float = 0.0
    rss_mb: float = 0.0
    peak_rss_mb: float = 0.0
    wall: float = 0.0
    phase_cpu: dict[str, float] = field(default_factory=dict)  # server CPU seconds of each phase (whole class)


async def _together(barrier: asyncio.Barrier | None, timeout: float) -> None:
    if barrier is not None:
        with contextlib.suppress(asyncio.BrokenBarrierError, TimeoutError):
            await asyncio.wait_for(barrier.wait(), timeout)


async def student(port: int, index: int, *, link: bool, distinct: bool, timeout: float,
                  barrier: asyncio.Barrier | None = None) -> Student:
    """One student's lesson. With ``barrier`` the class moves together (the teacher says "now run this"),
    so each phase's times are measured with everyone doing the same thing at once."""
    result = Student()
    query = urllib.parse.urlencode(share.encode(LESSON)) if link else ""
    try:
        async with session(port, query=query, timeout=timeout) as s:
            first = await s.run(timeout=timeout)
            result.time_to_graph = first.graph_at  # from the request to the graph's arrival
            result.done_at.append(time.perf_counter())
            editor = s.widget_id("text_area", "Program")
            await _together(barrier, timeout)
            program = EXERCISE + (f"out2 = out + {index}\n" if distinct else "")
            result.time_to_run = (await s.run(s.set_text(editor, program), timeout=timeout)).graph_at
            result.done_at.append(time.perf_counter())
            # Stepping through the pass runs in the browser: nothing is sent.
            result.sent_while_stepping = 0
            await _together(barrier, timeout)
            t0 = time.perf_counter()
            clicked = await s.run(s.click(CLICKED_NODE, CLICKED_STEP), timeout=timeout)
            result.time_to_inspect = time.perf_counter() - t0
            result.done_at.append(time.perf_counter())
            if not inspector_shows(clicked.markdown, CLICKED_NODE):
                raise RuntimeError(f"the click on {CLICKED_NODE} did not reach the node inspector")
    except Exception as err:  # noqa: BLE001 - one student's failure is reported in the table
        result.error = f"{type(err).__name__}: {err}"[:200]
        if barrier is not None:
            await barrier.abort()
    return result


async def _crowd(port: int, n: int, *, link: bool, distinct: bool, timeout: float,
                 together: bool) -> list[Student]:
    barrier = asyncio.Barrier(n) if together else None
    return await asyncio.gather(*(student(port, i, link=link, distinct=distinct, timeout=timeout, barrier=barrier)
                                  for i in range(n)))


def run_n(n: int, *, link: bool = True, distinct: bool = False, timeout: float = 120.0,
          together: bool = True) -> Row:
    """Start a cold server, let ``n`` students in at once, measure, stop the server.

    ``together``: every phase (open, run, click) starts for the whole class at once; otherwise each
    student goes on at their own pace, so late openers compete with early runners."""
    with server() as running:
        port, pid = running.port, running.pid
        cpu0 = cpu_seconds(pid)
        t0 = time.perf_counter()
        samples: list[tuple[float, float]] = [(t0, cpu0)]
        students = run_sync(asyncio.wait_for(_sampled(pid, samples, _crowd(port, n, link=link, distinct=distinct,
                                                                          timeout=timeout, together=together)),
                                             timeout=timeout * 4))
        wall = time.perf_counter() - t0
        cpu = cpu_seconds(pid) - cpu0
        samples.append((time.perf_counter(), cpu0 + cpu))
        rss, peak = rss_mb(pid)
    return Row(n, students, cpu, rss, peak, wall, phase_cpu(students, samples) if together else {})


SAMPLE_SECONDS = 0.02
"""How often the server's CPU is read while the class moves (its clock ticks every 10 ms)."""


async def _sampled(pid: int, samples: list[tuple[float, float]], crowd):
    """Run ``crowd`` while reading the server's CPU time every ``SAMPLE_SECONDS`` into ``samples``."""
    async def sample() -> None:
        while True:
            samples.append((time.perf_counter(), cpu_seconds(pid)))
            await asyncio.sleep(SAMPLE_SECONDS)

    sampler = asyncio.ensure_future(sample())
    try:
        return await crowd
    finally:
        sampler.cancel()


PHASES = ("open", "run", "click")


def phase_cpu(students: list[Student], samples: list[tuple[float, float]]) -> dict[str, float]:
    """Server CPU seconds of each phase, for the whole class: a phase ends when its last student is done
    (the class moves together, so the next one starts then)."""
    def cpu_at(t: float) -> float:
        return next((c for when, c in samples if when >= t), samples[-1][1])

    ends = [max((s.done_at[k] for s in students if len(s.done_at) > k), default=None) for k in range(len(PHASES))]
    out, start = {}, samples[0][0]
    for name, end in zip(PHASES, ends):
        if end is None:
            break
        out[name] = cpu_at(end) - cpu_at(start)
        start = end
    return out


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def _mark(value: float, target: float) -> str:
    return "ok" if value <= target else "MISS"


def table(rows: list[Row]) -> str:
    t = TARGETS
    head = (f"{'N':>4} {'graph p50':>10} {'graph p95':>10} {'run p95':>8} {'click p95':>10} "
            f"{'CPU s/student':>14} {'open ms':>8} {'run ms':>7} {'click ms':>9} "
            f"{'RSS MB':>7} {'peak MB':>8} {'msgs/step':>9} {'errors':>6}")
    lines = [f"targets: graph p95 <= {t['graph_p95']:.0f} s, run p95 <= {t['run_p95']:.0f} s, "
             f"a warm rerun (the click) <= {t['click_cpu'] * 1000:.0f} ms of server CPU per student",
             head, "-" * len(head)]
    verdicts = []
    for r in rows:
        ok = [s for s in r.students if s.error is None]
        graph = [s.time_to_graph for s in ok if s.time_to_graph is not None]
        run = [s.time_to_run for s in ok if s.time_to_run is not None]
        click = [s.time_to_inspect for s in ok if s.time_to_inspect is not None]
        per = {k: 1000 * v / max(r.n, 1) for k, v in r.phase_cpu.items()}
        lines.append(f"{r.n:>4} {_pct(graph, 50):>9.2f}s {_pct(graph, 95):>9.2f}s {_pct(run, 95):>7.2f}s "
                     f"{_pct(click, 95):>9.2f}s {r.cpu_seconds / max(r.n, 1):>14.3f} "
                     + " ".join(f"{per[k]:>{w}.1f}" if k in per else f"{'—':>{w}}"
                                for k, w in (("open", 8), ("run", 7), ("click", 9)))
                     + f" {r.rss_mb:>7.0f} "
                     f"{r.peak_rss_mb:>8.0f} {max((s.sent_while_stepping for s in ok), default=0):>9} "
                     f"{len(r.students) - len(ok):>6}")
        verdict = [f"graph p95 {_mark(_pct(graph, 95), t['graph_p95'])}",
                   f"run p95 {_mark(_pct(run, 95), t['run_p95'])}"]
        if "click" in per:
            verdict.append(f"click CPU {_mark(per['click'] / 1000, t['click_cpu'])}")
        verdicts.append(f"N={r.n}: " + ", ".join(verdict))
    errors = sorted({s.error for r in rows for s in r.students if s.error})
    return "\n".join(lines + verdicts + [f"error: {e}" for e in errors[:5]])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, action="append", help="students (repeatable; default 1, 10, 30, 60)")
    ap.add_argument("--no-link", action="store_true", help="open the plain Playground instead of the teacher's link")
    ap.add_argument("--distinct", action="store_true", help="every student runs a different program")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds allowed per action")
    ap.add_argument("--own-pace", action="store_true",
                    help="students go on without waiting for the class (phases overlap)")
    a = ap.parse_args(argv)
    counts = a.n or [1, 10, 30, 60]
    rows = []
    for n in counts:
        rows.append(run_n(n, link=not a.no_link, distinct=a.distinct, timeout=a.timeout, together=not a.own_pace))
        print(f"N={n}: {rows[-1].wall:.1f} s wall", file=sys.stderr)
    print(f"{os.cpu_count()} CPUs · link={'yes' if not a.no_link else 'no'} · distinct={a.distinct} · "
          f"{'own pace' if a.own_pace else 'the class moves together'}")
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
