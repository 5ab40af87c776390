"""Crossing a lesson's link boundary with the clicker: how long until the next link's graph is on screen.

A lecturer on link 1 of a lesson presses → after its last step; the player sends a ``lesson`` event
(``{"move": "next", "at": 0, "program": …}``, as its JavaScript does) and the server answers with the
page at link 2. Without help that run builds link 2's program and its whole animation (seconds for a
lecture-sized program); ``lucid.ui.lesson_plan.view.prefetch_next`` builds both on a background thread while
link 1 is on screen, so the crossing only reads the shared caches.

For each mode (prefetch on, then off through ``LUCID_LESSON_PREFETCH=0``) this starts its own
``streamlit run app.py`` on a free loopback port (``bench.streamlit_client.server``), and for each of
``--repeats`` trials opens a fresh two-link lesson in a new session (programs made unique per trial, so
no cache helps), stays on link 1 for ``--dwell`` seconds (the lecturer talking) and sends the move. The
crossing is the time from sending the move to the arrival of the player drawing link 2, the same moment
the browser can draw it. Medians side by side, with the ratio::

    python bench/bench_lesson_crossing.py            # 3 trials per mode, 5 s on link 1
    python bench/bench_lesson_crossing.py -r 5 --dwell 8 --neurons 4 --samples 4

Loopback only; every wait is bounded by ``--timeout``. Asserts nothing: speed is printed, not tested.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.streamlit_client import run_sync, server, session  # noqa: E402
from lucid.session import lesson_plan as lesson
from lucid.session import share  # noqa: E402
from lucid.ui.lesson_plan.view import PREFETCH_ENV  # noqa: E402


def lecture_program(neurons: int, samples: int, tag: str) -> str:
    """A scalar one-hidden-layer network written out neuron by neuron (the lecture's kind of program):
    every weight a named scalar, one line per neuron and sample. ``tag`` makes the text (and its cache key) new."""
    lines = [f"# {tag}"]
    for j in range(neurons):
        lines.append(f"w{j} = {((j * 7) % 9 - 4) / 5}")
        lines.append(f"b{j} = {((j * 3) % 5 - 2) / 10}")
        lines.append(f"v{j} = {((j * 5) % 7 - 3) / 4}")
    for s in range(samples):
        x = ((s * 5) % 9 - 4) / 3
        for j in range(neurons):
            lines.append(f"h{s}_{j} = tanh(w{j} * {x} + b{j})")
        lines.append(f"e{s} = (" + " + ".join(f"v{j} * h{s}_{j}" for j in range(neurons)) + f" - {s % 3 - 1}.0) ** 2")
    lines.append("loss = (" + " + ".join(f"e{s}" for s in range(samples)) + f") / {samples}.0")
    return "\n".join(lines) + "\n"


def two_link_lesson(tag: str, neurons: int, samples: int) -> lesson.Lesson:
    first = lesson.LessonLink(f"# {tag}\nx = 2.0\ny = x * x\n", title="Warm-up")
    second = lesson.LessonLink(lecture_program(neurons, samples, tag), title="A small network",
                               view=(("style", "circuit"),))
    return lesson.Lesson((first, second), "Crossing bench")


async def one_crossing(port: int, plan: lesson.Lesson, dwell: float, timeout: float) -> float:
    """Seconds from the clicker's move on link 1 to the arrival of link 2's player."""
    params = {**lesson.encode(plan, 0), **share.encode(plan.links[0].source), "classroom": "1"}
    async with session(port, query=urllib.parse.urlencode(params), timeout=timeout) as tab:
        first = await tab.run(timeout=timeout)
        if first.exceptions or first.player is None:
            raise RuntimeError(f"link 1 did not open: {first.exceptions or first.alerts}")
        await asyncio.sleep(dwell)  # the lecturer talks over link 1
        program = tab.player_data()["program_id"]
        move = [{"event": "lesson", "value": {"move": "next", "at": 0, "program": program}}]
        sent = time.perf_counter()
        await tab.rerun(tab.events(json.dumps(move, separators=(",", ":"))))
        deadline = sent + timeout
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            run = await tab.finish(timeout=timeout)
            if run.exceptions:
                raise RuntimeError(f"link 2 failed: {run.exceptions}")
            data = json.loads(run.player.json) if run.player is not None else {}
            if (data.get("lesson") or {}).get("at") == 1 and run.graph_at is not None:
                return started + run.graph_at - sent
        raise TimeoutError("link 2 never arrived")


def measure(prefetch: bool, args: argparse.Namespace) -> list[float]:
    seconds = []
    with server(env={PREFETCH_ENV: "1" if prefetch else "0"}) as running:
        for k in range(args.repeats):
            tag = f"{'on' if prefetch else 'off'}-{k}-{time.time_ns()}"
            plan = two_link_lesson(tag, args.neurons, args.samples)
            seconds.append(run_sync(one_crossing(running.port, plan, args.dwell, args.timeout)))
            print(f"  prefetch {'on ' if prefetch else 'off'} trial {k + 1}: {seconds[-1]:.2f} s", flush=True)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-r", "--repeats", type=int, default=3)
    parser.add_argument("--dwell", type=float, default=5.0, help="seconds on link 1 before the move")
    parser.add_argument("--neurons", type=int, default=3, help="hidden neurons of link 2's program")
    parser.add_argument("--samples", type=int, default=3, help="samples of link 2's program")
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    steps = lesson.LessonLink(lecture_program(args.neurons, args.samples, "count"))
    print(f"link 2: {steps.source.count(chr(10))} lines; {args.repeats} trials per mode, {args.dwell:.0f} s on link 1")
    on = statistics.median(measure(True, args))
    off = statistics.median(measure(False, args))
    print(f"{'':22}{'median crossing':>16}")
    print(f"{'with prefetch':22}{on:>14.2f} s")
    print(f"{'without prefetch':22}{off:>14.2f} s")
    print(f"{'ratio (without / with)':22}{off / on:>14.1f} ×" if on > 0 else "ratio: n/a")


if __name__ == "__main__":
    main()
