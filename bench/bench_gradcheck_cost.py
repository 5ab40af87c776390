"""What finite differences cost, against what the budget predicts: batched re-runs and the per-op term.

Rows timed side by side in one process:
- the cost issue's program (4,000 inputs, 999 small ops): the seconds a check one re-run at a time takes
  (extrapolated from a sample of its re-runs) against the seconds the whole check takes now (its re-runs
  are batched, see ``lucid.expr.batched``);
- a chain of scalar ops that cannot be batched (a matrix product on the path) and a few large elementwise
  ops, each sized to sit at the edge of ``MAX_WORK``: the seconds a check really takes there. Both should
  land in the same range, under a second on a quiet 2-core machine; if one is far slower,
  ``OP_OVERHEAD_ELEMENTS`` is off.
Run: ``python bench/bench_gradcheck_cost.py [--sample 40]``.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lucid._backend.grad_mode import no_grad  # noqa: E402
from lucid.expr import run  # noqa: E402
from lucid.lessons.gradient_check import MAX_WORK, check_cost, check_program  # noqa: E402


def nested(depth: int) -> str:
    text = "s"
    for k in range(depth):
        text = f"{('sin', 'cos')[k % 2]}({text})"
    return text


def long_chain_program(inputs: int = 4000) -> str:
    """The issue's program: ``x = randn(4000)``, ``s = x.sum()``, 16 lines nested 60 deep, one 37 deep."""
    lines = [f"x = randn({inputs})", "s = x.sum()"] + [f"s = {nested(60)}" for _ in range(16)]
    return "\n".join(lines + [f"s = {nested(37)}"])


def scalar_chain_at_budget() -> str:
    """100 inputs into a chain of 400 scalar ops, one re-run at a time (a matrix product mixes the rows):
    nearly all of the cost is per-op overhead."""
    return "\n".join(["x = randn(100)", "s = x @ const(ones(100))"] + [f"s = {nested(8)}" for _ in range(49)])


def elementwise_at_budget() -> str:
    """100 inputs broadcast against a large constant: few ops, nearly all of the cost is elements."""
    return "w = randn(100)\nC = const(randn(2000, 100))\nout = (tanh(C * w) * C).mean()"


def rerun_seconds(source: str, sample: int) -> tuple[float, int]:
    """Seconds per re-run of the program (best of ``sample`` runs) and how many re-runs a check needs."""
    program = run(source)
    fn = program.function()
    best = float("inf")
    with no_grad():
        for _ in range(sample):
            start = time.perf_counter()
            fn(*program.inputs)
            best = min(best, time.perf_counter() - start)
    return best, 2 * sum(leaf.size for leaf in program.inputs)


def check_now_seconds(source: str) -> tuple[float, str]:
    """Seconds the Gradient check page's check takes now, and what it says."""
    program = run(source)
    start = time.perf_counter()
    try:
        result = check_program(program)
    except ValueError as err:
        return time.perf_counter() - start, f"refused: {err}"
    return time.perf_counter() - start, f"finished, worst relative error {result.max_rel_error:.1e}"


def check_seconds(source: str) -> float:
    program = run(source)
    start = time.perf_counter()
    check_program(program, time_limit=None)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=40, help="re-runs timed to extrapolate the full check")
    args = parser.parse_args()

    issue = long_chain_program()
    per_run, reruns = rerun_seconds(issue, args.sample)
    now, outcome = check_now_seconds(issue)
    program = run(issue)
    print(f"issue program: {program.graph_nodes} nodes, {reruns:,} re-runs of {per_run * 1e3:.2f} ms")
    print(f"  one re-run at a time (before): {per_run * reruns:8.1f} s  (extrapolated)")
    print(f"  batched (now):                 {now:8.2f} s  ratio {per_run * reruns / now:,.0f}x; {outcome}")
    print(f"  budget: {check_cost(program) / MAX_WORK:.2f}x MAX_WORK, {program.batch_rows} re-runs per pass")
    print("checks near the budget (both should take about the same time per unit of budget):")
    for name, source in (("scalar chain", scalar_chain_at_budget()), ("elementwise", elementwise_at_budget())):
        p = run(source)
        share = check_cost(p) / MAX_WORK
        took = check_seconds(source)
        print(f"  {name:13s}: {p.graph_nodes:4d} nodes, {sum(x.size for x in p.inputs):4d} inputs, "
              f"cost {share:.2f}x MAX_WORK, check took {took:.2f} s = {took / share:.2f} s per MAX_WORK")


if __name__ == "__main__":
    main()
