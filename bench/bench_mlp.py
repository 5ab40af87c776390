"""Train one small MLP three ways and print how long each takes, side by side.

The network (5 inputs -> 2 tanh hidden -> 1 sigmoid output) is trained with
full-batch SGD on binary cross-entropy, from identical initial weights:

* ``lucid``   the ``lucid.nn.MLP`` (a dozen array nodes per step),
* ``numpy``   the same maths written out by hand (``lucid.nn.reference``),
* ``scalar``  the same network from 0-d Tensors (``lucid.nn.scalar``; thousands of nodes).

The final losses must agree to ~1e-9 (checked here), so the three are doing the
same work; the ratios show what the engine's bookkeeping costs. Times are
wall-clock with Python's garbage collector on, as in real use. Target:
lucid/numpy ≤ 3. Run: ``python bench/bench_mlp.py [--repeats 15] [--scalar-repeats 2]``.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from lucid.nn import MLP  # noqa: E402
from lucid.nn.data import toy_binary_data  # noqa: E402
from lucid.nn.reference import NumpyMLP  # noqa: E402
from lucid.nn.scalar import ScalarMLP  # noqa: E402
from lucid.nn.training import train_numpy, train_scalar, train_tensor  # noqa: E402


@dataclass(frozen=True)
class Run:
    """One way of training: its final loss and its best wall-clock time."""

    name: str
    final_loss: float
    seconds: float


@dataclass(frozen=True)
class Setup:
    sizes: tuple[int, ...] = (5, 2, 1)
    samples: int = 80
    steps: int = 200
    lr: float = 0.5
    seed: int = 0


def _timed(fn: Callable[[], list[float]]) -> tuple[float, float]:
    start = time.perf_counter()
    losses = fn()
    return losses[-1], time.perf_counter() - start


def compare(setup: Setup = Setup(), repeats: int = 7, scalar_repeats: int = 2) -> list[Run]:
    """Train the three twins from the same initial weights; every repeat starts afresh.

    The lucid and NumPy runs alternate and each keeps its best time, so a busy
    machine slows both alike instead of skewing the ratio.
    """
    x, y = toy_binary_data(setup.samples, setup.sizes[0], seed=setup.seed)

    def model() -> MLP:
        return MLP(list(setup.sizes), activation="tanh", output_activation="sigmoid", seed=setup.seed)

    weights = model().weights()
    ways: dict[str, Callable[[], list[float]]] = {
        "lucid": lambda: train_tensor(model(), x, y, setup.steps, setup.lr),
        "numpy": lambda: train_numpy(NumpyMLP(weights), x, y, setup.steps, setup.lr),
        "scalar": lambda: train_scalar(ScalarMLP(weights), x, y, setup.steps, setup.lr),
    }
    count = {name: max(1, scalar_repeats if name == "scalar" else repeats) for name in ways}
    best = {name: (float("nan"), float("inf")) for name in ways}
    for i in range(max(count.values())):
        for name, fn in ways.items():
            if i < count[name]:
                loss, seconds = _timed(fn)
                best[name] = (loss, min(best[name][1], seconds))
    return [Run(name, *best[name]) for name in ways]


def check_agreement(runs: list[Run], tol: float = 1e-9) -> float:
    """Largest difference between final losses; raises if above ``tol``."""
    losses = np.array([r.final_loss for r in runs])
    spread = float(losses.max() - losses.min())
    if not spread <= tol:
        raise AssertionError(f"final losses disagree by {spread:.3g}: " + ", ".join(
            f"{r.name}={r.final_loss!r}" for r in runs))
    return spread


def report(runs: list[Run], setup: Setup) -> str:
    by_name = {r.name: r for r in runs}
    base = by_name["numpy"].seconds
    lines = [f"MLP {list(setup.sizes)}, {setup.samples} samples, {setup.steps} full-batch SGD steps (lr {setup.lr})",
             f"{'version':<8} {'final loss':>22} {'best time':>12} {'per step':>12} {'/ numpy':>9}"]
    for r in runs:
        lines.append(f"{r.name:<8} {r.final_loss:>22.16f} {r.seconds:>11.4f}s {r.seconds / setup.steps * 1e6:>10.1f}µs"
                     f" {r.seconds / base:>8.2f}x")
    lines.append(f"lucid/numpy = {by_name['lucid'].seconds / base:.2f}x   "
                 f"scalar/numpy = {by_name['scalar'].seconds / base:.1f}x   "
                 f"(losses agree within {check_agreement(runs):.1e})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15, help="best of this many runs (lucid and numpy)")
    parser.add_argument("--scalar-repeats", type=int, default=2, help="best of this many runs (scalar)")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--samples", type=int, default=80)
    args = parser.parse_args(argv)
    setup = Setup(samples=args.samples, steps=args.steps)
    runs = compare(setup, args.repeats, args.scalar_repeats)
    check_agreement(runs)
    print(report(runs, setup))


if __name__ == "__main__":
    main()
