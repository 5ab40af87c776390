"""How long a student waits for a graph while the class attacks the server (issues 16 and 24).

Issue 16 (``--suite engine``): one ``streamlit run app.py`` under a memory cap. First the victim alone (a fresh
tab opens the Playground, then runs a 3-line program no one ran yet), then the same with every attacker of
``bench/hostile_class.py`` running at once (trace-memory links, animation builds, click floods, ``clear_cache``,
crafted values). Printed side by side with ratios, with the server's CPU over the attack, its peak resident
memory and its memory 10 s after the attackers stop. The issue's target: the victim's graph in under 3 s.

Issue 24 (``--suite class``): each attack of ``CLASS_ATTACKS`` (``bench/attack_class.py``: room flood, fake
students, lesson bomb, hung Redis; more plug in with one line) alone against the server while a real class goes
on, side by side with the same class and no attack: a classmate's time to graph (target < 3 s), a student's
feed poll p95 (target < 1 s), the server's RSS 10 s after (< 1 GB), and whether a real teacher could start a
class and a real student answer (yes). Printed as a markdown table, then what each attack saw.

    python3 bench/bench_hostile_class.py [--suite all|engine|class] [--repeats 3] [--timeout 120] [--copies 1]
                                         [--seconds 20] [--only "room flood"]
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import attack_class, attack_jacobian, attack_rerun_storm  # noqa: E402
from bench import hostile_class as hostile  # noqa: E402
from bench.streamlit_client import cpu_seconds, healthy, rss_mb, run_sync, server  # noqa: E402

TARGET_SECONDS = 3.0
"""The issue's bound on the victim's time to graph under attack."""
FEED_TARGET_SECONDS = 1.0
"""Issue 24's bound on a student's feed poll p95 under attack."""


async def rerun_storm(target: Any, stop: asyncio.Event, seconds: float) -> attack_class.Outcome:
    """``bench/attack_rerun_storm.py``'s 8 tabs sending 20 reruns a second each, as one outcome."""
    stormers = await attack_rerun_storm.rerun_storm(target.port, tabs=8, rate=20, seconds=seconds)
    out = attack_class.Outcome("rerun storm", rounds=len(stormers))
    out.notes["reruns sent / runs started per tab"] = [(s.sent, s.runs) for s in stormers]
    out.notes["last program drawn"] = sum(s.final_shown for s in stormers)
    out.failure = next((s.failure for s in stormers if s.failure), None)
    return out


async def jacobian_tabs(target: Any, stop: asyncio.Event, seconds: float) -> attack_class.Outcome:
    """Two tabs of ``bench/attack_jacobian.py`` pressing *Build the whole Jacobian* on 4,096 inputs."""
    tabs = [attack_jacobian.Pressed(f"jacobian {k}") for k in range(2)]
    timer = asyncio.get_running_loop().call_later(seconds, stop.set)
    try:
        await asyncio.gather(*(attack_jacobian.jacobian_tab(target.port, seen, stop, tab=k)
                               for k, seen in enumerate(tabs)))
    finally:
        timer.cancel()
    out = attack_class.Outcome("jacobian tabs", rounds=sum(t.presses for t in tabs))
    for seen in tabs:
        out.exceptions += seen.exceptions
        out.alerts += seen.alerts
    out.notes["presses / built / refused"] = [(t.presses, t.built, t.refused) for t in tabs]
    out.failure = next((t.failure for t in tabs if t.failure), None)
    return out


@dataclass(frozen=True)
class ClassAttack:
    """One entry of ``CLASS_ATTACKS``: ``run(target, stop, seconds)`` attacks until ``stop`` is set (or
    ``seconds``); ``redis``: it needs a server keeping its rooms in Redis (``target.redis_pid`` is then that
    ``redis-server``); ``seconds``: its own attack window, when it needs longer than ``--seconds``."""

    run: attack_class.Attack
    redis: bool = False
    seconds: float | None = None


CLASS_ATTACKS: dict[str, ClassAttack] = {
    "room flood": ClassAttack(attack_class.room_flood),
    "fake students": ClassAttack(attack_class.fake_students, seconds=75.0),  # 400 invented ids, one rerun each
    "lesson bomb": ClassAttack(attack_class.lesson_bomb),
    "hung redis": ClassAttack(attack_class.hung_redis, redis=True),
    "rerun storm (8 tabs × 20/s)": ClassAttack(lambda t, stop, seconds: rerun_storm(t, stop, seconds)),
    "jacobian tabs (2)": ClassAttack(lambda t, stop, seconds: jacobian_tabs(t, stop, seconds)),
}
"""Issue 24's attacks by name, each run alone against a server while a real class goes on."""


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


# -- issue 24: class mode's attacks, one at a time, while a real class goes on -------------------------------
@dataclass
class Trial:
    """A real class during one attack (``attack`` None: the same class, no attack)."""

    attack: str | None
    graphs: list[hostile.Victim] = field(default_factory=list)  # a classmate's fresh program, ``repeats`` times
    feed: attack_class.FeedPoll | None = None  # a student's feed reads over the whole window
    teacher: attack_class.Check | None = None
    student: attack_class.Check | None = None
    outcome: Any = None  # what the attack reported
    failure: str | None = None  # the attack (or the class) failed outright
    rss_after: float = float("nan")  # server RSS ``SETTLE_SECONDS`` after the attack stopped, MB
    alive: bool = True
    attack_outlived_checks: bool = True  # the attack was still going when the class's checks were done


async def class_trial(target: attack_class.Target, name: str | None, attack: ClassAttack | None, seconds: float,
                      repeats: int, timeout: float, head_start: float = 1.5) -> Trial:
    """Open a real class whose feed a student polls; start ``attack``; ``head_start`` s later a classmate draws
    ``repeats`` fresh programs, a teacher starts a class and a student answers; the attack is stopped once
    ``seconds`` have passed (and the checks are done)."""
    trial = Trial(name)
    window = attack.seconds if attack is not None and attack.seconds else seconds
    async with attack_class.teacher(target.port, timeout=timeout) as (_t, code):
        poll_stop, stop = asyncio.Event(), asyncio.Event()
        trial.feed = attack_class.FeedPoll(target.port, code)
        polling = asyncio.ensure_future(trial.feed.run(poll_stop))
        t0 = time.perf_counter()
        running = asyncio.ensure_future(attack.run(target, stop, window)) if attack is not None else None
        try:
            await asyncio.sleep(head_start)
            for _ in range(repeats):
                trial.graphs.append(await hostile.victim(target.port, timeout))
            trial.teacher = await attack_class.teacher_can_start(target.port, timeout=timeout)
            trial.student = await attack_class.student_can_answer(target.port, timeout=timeout)
            trial.attack_outlived_checks = running is None or not running.done()
            await asyncio.sleep(max(0.0, window - (time.perf_counter() - t0)))
        finally:
            stop.set()
            if running is not None:
                try:
                    trial.outcome = await asyncio.wait_for(running, timeout)
                except Exception as err:  # noqa: BLE001 - the attack's own failure is reported
                    trial.failure = f"{type(err).__name__}: {err}"[:300]
            poll_stop.set()
            await polling
    return trial


@contextlib.contextmanager
def class_server(redis: bool) -> Iterator[attack_class.Target]:
    """A server under the memory cap with its rooms in a fresh data folder (SQLite), or in a fresh
    ``redis-server`` (``redis``)."""
    with contextlib.ExitStack() as stack:
        data = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="lucid-hostile-")))
        env, redis_pid = {"LUCID_DATA_DIR": str(data)}, None
        if redis:
            from tests.redis_server import redis_process

            url, process = stack.enter_context(redis_process())
            env["LUCID_REDIS_URL"], redis_pid = url, process.pid
        running = stack.enter_context(server(env=env, memory_limit=hostile.MEMORY_CAP))
        yield attack_class.Target(running.port, running.pid, None if redis else data, redis_pid)


def measure_class(attacks: dict[str, ClassAttack], seconds: float, repeats: int,
                  timeout: float) -> list[tuple[Trial, Trial]]:
    """For each server kind the attacks need: the class alone, then each attack; (alone, attacked) per attack."""
    pairs = []
    for redis in (False, True):
        chosen = {name: a for name, a in attacks.items() if a.redis == redis}
        if not chosen:
            continue
        with class_server(redis) as target:
            run_sync(hostile.fresh_graph(target.port, timeout))  # warm: the default page, as a class finds it
            alone = run_sync(class_trial(target, None, None, seconds, repeats, timeout))
            for name, attack in chosen.items():
                trial = run_sync(class_trial(target, name, attack, seconds, repeats, timeout))
                time.sleep(hostile.SETTLE_SECONDS)
                trial.alive = healthy(target.port)
                trial.rss_after = rss_mb(target.pid)[0] if trial.alive else float("nan")
                pairs.append((alone, trial))
    return pairs


def _graph(trial: Trial) -> float:
    return max((v.graph_seconds if v.graph_seconds is not None else float("inf")) for v in trial.graphs)


def _yes(check: attack_class.Check | None) -> str:
    return "yes" if check is not None and check.ok else f"**no** ({check.detail if check else 'not run'})"


def report_class(pairs: list[tuple[Trial, Trial]]) -> str:
    """The markdown table (alone → attacked), then what each attack saw."""
    lines = ["| attack | classmate's graph, worst (s) | feed poll p95 (s) | RSS 10 s after (MB) | "
             "teacher starts a class | student answers | attacker tracebacks |",
             "|---|---:|---:|---:|---|---|---:|"]
    for alone, hit in pairs:
        outcome = hit.outcome
        tracebacks = len(outcome.exceptions) if isinstance(outcome, attack_class.Outcome) else "?"
        victims = [e for v in hit.graphs for e in v.exceptions]
        lines.append(f"| {hit.attack} | {_graph(alone):.2f} → {_graph(hit):.2f} | "
                     f"{alone.feed.p95():.3f} → {hit.feed.p95():.3f} | {hit.rss_after:.0f} | {_yes(hit.teacher)} | "
                     f"{_yes(hit.student)} | {tracebacks}{' + victim ' + str(len(victims)) if victims else ''} |")
    worst = max((_graph(hit) for _, hit in pairs), default=float("nan"))
    feed = max((hit.feed.p95() for _, hit in pairs), default=float("nan"))
    rss = max((hit.rss_after for _, hit in pairs), default=float("nan"))
    lines.append(f"\ntargets: classmate's graph < {TARGET_SECONDS:.0f} s "
                 f"({'met' if worst < TARGET_SECONDS else 'NOT met'}, worst {worst:.2f}); "
                 f"feed poll p95 < {FEED_TARGET_SECONDS:.0f} s "
                 f"({'met' if feed < FEED_TARGET_SECONDS else 'NOT met'}, worst {feed:.3f}); RSS after < "
                 f"{hostile.RSS_LIMIT_MB} MB ({'met' if rss < hostile.RSS_LIMIT_MB else 'NOT met'}, worst {rss:.0f})")
    for _, hit in pairs:
        outcome = hit.outcome
        extra = []
        if isinstance(outcome, attack_class.Outcome):
            extra.append(f"{outcome.rounds} rounds")
            if outcome.failure:
                extra.append(f"attacker failed: {outcome.failure}")
        if hit.failure:
            extra.append(f"attack failed: {hit.failure}")
        if not hit.attack_outlived_checks:
            extra.append("the attack ended before the class's checks did")
        if hit.feed is not None and hit.feed.failures:
            extra.append(f"{hit.feed.failures} feed reads failed")
        failures = [v.failure for v in hit.graphs if v.failure]
        if failures:
            extra.append(f"classmate failures: {failures}")
        lines.append(f"- {hit.attack} ({', '.join(extra)}): {attack_class.short(outcome)}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", choices=("all", "engine", "class"), default="all",
                        help="engine: issue 16's attackers at once; class: issue 24's attacks one by one")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--copies", type=int, default=1, help="tabs of each attacker (each its own programs)")
    parser.add_argument("--seconds", type=float, default=20.0, help="each class attack's window")
    parser.add_argument("--only", action="append", choices=sorted(CLASS_ATTACKS), help="class attacks to run")
    args = parser.parse_args()
    if args.suite in ("all", "engine"):
        print(f"{args.copies} tab(s) of each of {len(hostile.attackers(args.timeout))} attackers")
        print(report(measure(args.repeats, args.timeout, args.copies)))
    if args.suite in ("all", "class"):
        chosen = {name: CLASS_ATTACKS[name] for name in (args.only or CLASS_ATTACKS)}
        print(f"\nclass attacks, each alone for {args.seconds:.0f} s (or its own window) while a real class goes on; "
              f"alone → attacked")
        print(report_class(measure_class(chosen, args.seconds, args.repeats, args.timeout)), flush=True)


if __name__ == "__main__":
    main()
