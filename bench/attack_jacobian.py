"""Attack: tabs that open a Playground link to a program of 4,096 inputs and press "Build the whole Jacobian
both ways" again and again (issue 24, item 7).

Before the build was budgeted, every rerun of such a tab built both Jacobians again in its script thread,
outside every build slot: 4,096 forward passes through a few hundred ops, about 30 CPU s per press, and a
classmate's graph went from 0.8 s to 2.1 s with two such tabs. Now the build is predicted and refused (the
tab shows why), or, when it fits, built once in a build slot and read back from the process-wide cache.

``jacobian_tab`` is the attacker (raw websocket clients, ``bench.streamlit_client``); run this file to time a
victim (``bench.hostile_class.victim``: open the Playground, run a fresh 3-line program) alone and with
``--tabs`` attackers pressing, side by side with the ratio:

    python3 bench/attack_jacobian.py [--tabs 2] [--repeats 3] [--ops 360] [--fresh]
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.hostile_class import Seen, link, victim  # noqa: E402
from bench.streamlit_client import cpu_seconds, run_sync, server, session  # noqa: E402

TOGGLE = "Build the whole Jacobian both ways"
PANEL = "Forward mode: push one input's tangent forward"  # folded, it draws nothing: the toggle is inside
"""The Forward mode panel's toggle (``forward_mode_view``), in English: the sessions open English pages."""


def large_input_program(n_inputs: int = 4096, ops: int = 360, constant: int = 0) -> str:
    """``n_inputs`` numbers through ``ops`` nested ``tanh`` (four to a line, within the line and depth limits),
    summed; ``constant`` makes it a program no one ran yet."""
    lines = [f"x = randn({n_inputs}) + {constant}"]
    lines += ["x = tanh(tanh(tanh(tanh(x))))"] * (ops // 4)
    lines += ["x = tanh(x)"] * (ops % 4)
    return "\n".join([*lines, "x.sum()"])


@dataclass
class Pressed(Seen):
    """What one Jacobian tab saw: its presses, and how many showed the two Jacobians or a refusal."""

    presses: int = 0
    built: int = 0  # runs that showed both Jacobians
    refused: int = 0  # runs that said why no Jacobian is built
    press_seconds: list[float] = field(default_factory=list)


async def open_forward_mode(s, *, timeout: float = 120.0):
    """Unfold the Forward mode panel (a rerun, as the browser's click on its header) so its toggle is drawn."""
    s.open_expander(PANEL)
    return await s.run(timeout=timeout)


def toggle_state(s, on: bool):
    """The toggle's widget state, kept by the session and sent with every later rerun (like the browser)."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    widget = s.widget_id("checkbox", TOGGLE)
    s.widgets[widget] = WidgetState(id=widget, bool_value=on)
    return s.widgets[widget]


async def jacobian_tab(port: int, seen: Pressed, stop: asyncio.Event, *, timeout: float = 300.0, ops: int = 360,
                       fresh: bool = False, tab: int = 0) -> Pressed:
    """One attacker tab: opens the link, switches the toggle on, then reruns (a press) until ``stop``.

    With ``fresh`` every round opens a program no one ran yet (a new constant), so no cache answers for it.
    The attacker's own failure (a timeout: the server stopped answering) is recorded, not raised.
    """
    try:
        for round_ in range(1, 10_000):
            source = large_input_program(ops=ops, constant=(1000 * tab + round_) if fresh else 0)
            async with session(port, query=link(source), timeout=timeout) as s:
                seen.saw(await s.run(timeout=timeout))
                seen.saw(await open_forward_mode(s, timeout=timeout))
                toggle_state(s, True)
                while True:
                    t0 = time.perf_counter()
                    await s.rerun()
                    seen.armed.set()
                    run = seen.saw(await s.finish(timeout))
                    seen.press_seconds.append(time.perf_counter() - t0)
                    seen.presses += 1
                    seen.built += any(m.startswith("**forward mode:") for m in run.markdown)
                    seen.refused += any("forward pass per input number" in a for a in run.alerts)
                    if stop.is_set() or fresh:
                        break
            seen.rounds = round_
            if stop.is_set():
                break
    except Exception as err:  # noqa: BLE001 - an attacker's failure is a finding, reported by the caller
        seen.failure = f"{type(err).__name__}: {err}"[:300]
    return seen


@dataclass
class Measured:
    alone: list
    attacked: list
    tabs: list[Pressed]
    cpu: float
    wall: float


def median(values) -> float:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else float("nan")


async def attacked_victims(port: int, tabs: int, repeats: int, timeout: float, ops: int, fresh: bool,
                           head_start: float) -> tuple[list, list[Pressed]]:
    """Start ``tabs`` Jacobian tabs; once each has pressed, time ``repeats`` victims; then stop the tabs."""
    stop = asyncio.Event()
    seen = [Pressed(f"jacobian tab {k + 1}") for k in range(tabs)]
    tasks = [asyncio.ensure_future(jacobian_tab(port, one, stop, timeout=timeout, ops=ops, fresh=fresh, tab=k))
             for k, one in enumerate(seen)]
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*(one.armed.wait() for one in seen)), timeout)
    await asyncio.sleep(head_start)
    victims = [await victim(port, timeout) for _ in range(repeats)]
    stop.set()
    _, pending = await asyncio.wait(tasks, timeout=timeout)
    for task, one in zip(tasks, seen, strict=True):
        if task in pending:
            task.cancel()
            one.failure = one.failure or "still pressing a timeout after the victims were done"
    return victims, seen


def measure(tabs: int = 2, repeats: int = 3, timeout: float = 300.0, ops: int = 360, fresh: bool = False,
            head_start: float = 1.0) -> Measured:
    with server() as running:
        port = running.port
        run_sync(victim(port, timeout))  # warm: the first run of a process imports and compiles everything
        alone = [run_sync(victim(port, timeout)) for _ in range(repeats)]
        cpu0, t0 = cpu_seconds(running.pid), time.perf_counter()
        attacked, seen = run_sync(attacked_victims(port, tabs, repeats, timeout, ops, fresh, head_start))
        cpu, wall = cpu_seconds(running.pid) - cpu0, time.perf_counter() - t0
    return Measured(alone, attacked, seen, cpu, wall)


def report(m: Measured, tabs: int) -> str:
    lines = [f"{'victim (median, s)':<28}{'alone':>8}{f'{tabs} Jacobian tabs':>18}{'ratio':>8}"]
    for label, attr in (("open the Playground", "open_seconds"), ("a fresh program's graph", "graph_seconds")):
        a = median([getattr(v, attr) for v in m.alone])
        b = median([getattr(v, attr) for v in m.attacked])
        lines.append(f"{label:<28}{a:>8.2f}{b:>18.2f}{b / a:>7.1f}x")
    failures = [v.failure for v in [*m.alone, *m.attacked] if v.failure]
    if failures:
        lines.append(f"victim failures: {failures}")
    lines.append(f"server CPU while the tabs pressed: {m.cpu:.1f} s over {m.wall:.1f} s ({m.cpu / m.wall:.2f} cores)")
    lines.append(f"\n{'tab':<16}{'presses':>8}{'built':>7}{'refused':>8}{'tracebacks':>11}{'median press, s':>17}")
    for one in m.tabs:
        lines.append(f"{one.name:<16}{one.presses:>8}{one.built:>7}{one.refused:>8}{len(one.exceptions):>11}"
                     f"{median(one.press_seconds):>17.2f}" + (f"  {one.failure}" if one.failure else ""))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tabs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--ops", type=int, default=360, help="tanh ops the 4,096 inputs go through")
    parser.add_argument("--fresh", action="store_true", help="a program no one ran yet on every press")
    args = parser.parse_args()
    print(f"{args.tabs} tab(s) pressing the Jacobian toggle on 4,096 inputs through {args.ops} ops")
    print(report(measure(args.tabs, args.repeats, args.timeout, args.ops, args.fresh), args.tabs))


if __name__ == "__main__":
    main()
