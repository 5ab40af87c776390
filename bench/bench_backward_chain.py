"""Backward on chains of 1k, 10k and 100k nodes: the time per node should stay flat.

A recursive topological sort would die near 1,000 nodes deep, and a sort that
re-walks shared parents would grow faster than the graph. Each row prints the
build time, the backward time, the backward time per node and that per-node time
relative to the smallest chain (≈1.0 everywhere means linear).
Run: ``python bench/bench_backward_chain.py [--repeats 3]``.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import lucid  # noqa: E402
from lucid import Tensor  # noqa: E402

SIZES = (1_000, 10_000, 100_000)


def build_chain(n: int) -> tuple[Tensor, Tensor]:
    """``x`` and ``sin(sin(...sin(x)))`` with ``n`` ops: n + 1 nodes, each with one parent."""
    x = Tensor(0.5, requires_grad=True)
    y = x
    for _ in range(n):
        y = lucid.sin(y)
    return x, y


def time_chain(n: int, repeats: int = 3) -> tuple[float, float]:
    """Best build and best backward time (seconds) for a chain of ``n`` ops."""
    best_build = best_backward = float("inf")
    for _ in range(max(1, repeats)):
        start = time.perf_counter()
        x, y = build_chain(n)
        built = time.perf_counter()
        y.backward()
        done = time.perf_counter()
        best_build = min(best_build, built - start)
        best_backward = min(best_backward, done - built)
        del x, y
    return best_build, best_backward


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"{'nodes':>8} {'build':>10} {'backward':>10} {'µs/node':>9} {'ratio':>7}")
    base = None
    for n in SIZES:  # small chains are cheap: repeat them more so a busy machine disturbs them less
        build, backward = time_chain(n, max(args.repeats, 30_000 // n))
        per_node = backward / n
        base = base or per_node
        print(f"{n:>8} {build:>9.3f}s {backward:>9.3f}s {per_node * 1e6:>9.2f} {per_node / base:>6.2f}x")


if __name__ == "__main__":
    main()
