"""How long a student waits for a graph while the class attacks the server (issue 16).

One ``streamlit run app.py`` under a memory cap. First the victim alone (a fresh tab opens the Playground,
then runs a 3-line program no one ran yet), then the same with every attacker of ``bench/hostile_class.py``
running at once (trace-memory links, animation builds, click floods, ``clear_cache``, crafted values).
Printed side by side with ratios, with the server's CPU over the attack, its peak resident memory and its
memory 10 s after the attackers stop. The issue's target: the victim's graph in under 3 s.

    python3 bench/bench_hostile_class.py [--repeats 3] [--timeout 120] [--copies 1]
"""
from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import hostile_class as hostile  # noqa: E402
from bench.streamlit_client import cpu_seconds, healthy, rss_mb, run_sync, server  # noqa: E402

TARGET_SECONDS = 3.0
"""The issue's bound on the victim's time to graph under attack."""


def median(values: list[float | None]) -> float:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else float("nan")


def measure(repeats: int, timeout: float, copies: int = 1) -> dict:
    """Victim alone, then under attack, ``repeats`` times each on one server; what the server spent."""
    with server(memory_limit=hostile.MEMORY_CAP) as running:
        port = running.port
        run_sync(hostile.fresh_graph(port, timeout))  # warm: the default page, as a class finds it
        alone = [run_sync(hostile.victim(port, timeout)) for _ in range(repeats)]
        attacks, cpu, wall = [], 0.0, 0.0
        for _ in range(repeats):
            cpu0, t0 = cpu_seconds(running.pid), time.perf_counter()
            attack = hostile.under_attack(port, timeout, copies=copies)
            attacks.append(run_sync(asyncio.wait_for(attack, timeout * 6)))
            cpu += cpu_seconds(running.pid) - cpu0
            wall += time.perf_counter() - t0
        peak = rss_mb(running.pid)[1]
        time.sleep(hostile.SETTLE_SECONDS)
        alive = running.process.poll() is None and healthy(port)
        after = rss_mb(running.pid)[0] if alive else float("nan")
    return {"alone": alone, "attacks": attacks, "cpu": cpu, "wall": wall, "peak": peak, "after": after,
            "alive": alive}


def report(m: dict) -> str:
    alone, attacked = m["alone"], [a.victim for a in m["attacks"]]
    rows = [("open the Playground", "open_seconds"), ("a fresh program's graph", "graph_seconds")]
    lines = [f"{'victim (median, s)':<28}{'alone':>8}{'attacked':>10}{'ratio':>8}"]
    for label, attr in rows:
        a = median([getattr(v, attr) for v in alone])
        b = median([getattr(v, attr) for v in attacked])
        lines.append(f"{label:<28}{a:>8.2f}{b:>10.2f}{b / a:>7.1f}x")
    worst = max((v.graph_seconds or float("inf")) for v in attacked)
    lines.append(f"worst fresh graph under attack: {worst:.2f} s (target < {TARGET_SECONDS:.0f} s: "
                 f"{'met' if worst < TARGET_SECONDS else 'NOT met'})")
    failures = [v.failure for v in [*alone, *attacked] if v.failure]
    if failures:
        lines.append(f"victim failures: {failures}")
    lines.append(f"server CPU during the attacks: {m['cpu']:.1f} s over {m['wall']:.1f} s "
                 f"({m['cpu'] / m['wall']:.2f} cores)")
    lines.append(f"server memory: peak {m['peak']:.0f} MB; {hostile.SETTLE_SECONDS:.0f} s after the attackers "
                 f"stopped {m['after']:.0f} MB (limit {hostile.RSS_LIMIT_MB} MB); alive: {m['alive']}")
    lines.append(f"\n{'attacker':<34}{'rounds':>7}{'tracebacks':>11}{'refusals':>9}{'drawn':>7}{'closed':>7}")
    for seen in zip(*(a.seen for a in m["attacks"]), strict=True):
        name = seen[0].name
        lines.append(f"{name:<34}{sum(s.rounds for s in seen):>7}{sum(len(s.exceptions) for s in seen):>11}"
                     f"{sum(sum('limit' in t for t in s.alerts) for s in seen):>9}"
                     f"{sum(s.players for s in seen):>7}{sum(len(s.closed) for s in seen):>7}"
                     + "".join(f"  {s.failure}" for s in seen if s.failure))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--copies", type=int, default=1, help="tabs of each attacker (each its own programs)")
    args = parser.parse_args()
    print(f"{args.copies} tab(s) of each of {len(hostile.attackers(args.timeout))} attackers")
    print(report(measure(args.repeats, args.timeout, args.copies)))


if __name__ == "__main__":
    main()
