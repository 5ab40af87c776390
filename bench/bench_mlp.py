"""Train the seed's small MLP several ways and print how long each takes, side by side.

The network (5 inputs -> 2 tanh hidden -> 1 sigmoid output) is trained with
full-batch SGD on binary cross-entropy *written out* as in the seed notes,
``-(y*log(p) + (1-y)*log(1-p)).mean()``, from identical initial weights:

* ``lucid``   the ``lucid.nn.MLP`` and ``lucid.optim.SGD`` (15 ops per step, each a graph node),
* ``floor``   ``bench/engine_floor.py``: the least any engine shaped like DESIGN.md's can do
              (a fresh op instance, result Tensor, links and gradient closure per op call,
              and nothing else: no grad mode, dtype rules or gradient ownership),
* ``numpy``   the leanest hand-written NumPy loop we could write: the sigmoid and the
              cross-entropy differentiated together on paper (``dz = (p - y)/N``), loop
              invariants hoisted, ``np.dot`` everywhere, batch sums as products with ones,
              0-d constants, in-place updates (see ``train_numpy_lean``),
* ``scalar``  the same network from 0-d Tensors (``lucid.nn.scalar``; thousands of nodes),
* ``micro``   the same scalar network in ``bench/micro_scalar.py``, a lean micrograd-style engine (a float
              and a closure per node): ``scalar/micro`` is lucid's own per-node cost on 0-d Tensors, the
              part of the Train page's scalars-vs-tensors ratio that is not lost vectorisation (target ≤ 2),
* ``torch``   PyTorch eager on the CPU in float64 (only when torch is importable; never required).

The final losses must agree to ~1e-9 (checked here), so all of them do the same work;
the ratios show what the engine's bookkeeping costs: ``floor/numpy`` is what DESIGN.md's
per-call graph objects cost at the least, ``lucid/floor`` what lucid's correctness adds.
Times are wall-clock with Python's garbage collector on, as in real use; the runs alternate
and each keeps its best time, so a busy machine slows all of them alike instead of skewing
the ratios; the same ratios by process CPU time are printed below them (steadier when other
work shares the cores).
Targets (issue 11): lucid/numpy ≤ 3, and torch/lucid ≥ 2 (lucid twice as fast as PyTorch eager);
(issue 27): lucid/floor ≤ 1.15, printed with its target in the wall-clock and the CPU-time lines and
in a last line from the fastest single step of each (``fastest_steps``: steadier on a shared machine).
The first lies below ``floor/numpy`` here (about 3.3), so no DESIGN-shaped engine reaches it.
Run: ``python bench/bench_mlp.py [--repeats 15] [--scalar-repeats 2]``.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

import lucid  # noqa: E402
from bench import engine_floor, micro_scalar  # noqa: E402
from lucid import Tensor  # noqa: E402
from lucid.nn import MLP  # noqa: E402
from lucid.nn.data import toy_binary_data  # noqa: E402
from lucid.nn.scalar import ScalarMLP  # noqa: E402
from lucid.nn.training import train_scalar  # noqa: E402
from lucid.optim import SGD  # noqa: E402

Weights = Sequence[tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class Run:
    """One way of training: its final loss and its best wall-clock time."""

    name: str
    final_loss: float
    seconds: float
    cpu_seconds: float = float("nan")  # process CPU time: steadier than wall-clock on a shared machine


@dataclass(frozen=True)
class Setup:
    sizes: tuple[int, ...] = (5, 2, 1)
    samples: int = 80
    steps: int = 200
    lr: float = 0.5
    seed: int = 0


def train_lucid(model: MLP, x: np.ndarray, y: np.ndarray, steps: int, lr: float) -> list[float]:
    """The seed's loop: forward, BCE written out with lucid ops, backward, SGD step."""
    opt = SGD(model.parameters(), lr=lr)
    xt, yt = Tensor(x), Tensor(y)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        p = model(xt)
        loss = -(yt * lucid.log(p) + (1 - yt) * lucid.log(1 - p)).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def train_numpy_lean(weights: Weights, x: np.ndarray, y: np.ndarray, steps: int, lr: float) -> list[float]:
    """The same training by hand, as lean as we can write it (the yardstick; see the module docstring).

    The loss is still computed every step (the other loops report it too); the gradient skips
    it: for a sigmoid output under BCE, ∂loss/∂z = (p − y)/N, folded into the step size.
    Each trick below was kept only because it measured faster here:

    * ``np.dot`` for every matrix product: the same bits as ``@`` with less call overhead;
    * sums over the batch as a product with a vector of ones (one BLAS call, not a reduction);
    * ``1`` and ``−step`` as 0-d arrays: NumPy 2 converts a Python float on every call;
    * the sigmoid computed in its own ``exp`` buffer, updates and ``dh`` in place.
    """
    (w1, b1), (w2, b2) = [(np.array(w, dtype=np.float64), np.array(b, dtype=np.float64)) for w, b in weights]
    xT, not_y, n = x.T, 1.0 - y, y.size
    ones, one, minus_step = np.ones(n), np.array(1.0), np.array(-lr / n)
    log, exp, tanh, dot, divide = np.log, np.exp, np.tanh, np.dot, np.divide
    losses = []
    for _ in range(steps):
        h = tanh(dot(x, w1) + b1)
        e = exp(-(dot(h, w2) + b2))
        e += one
        p = divide(one, e, out=e)
        losses.append(-float(dot(ones, y * log(p) + not_y * log(one - p))[0]) / n)
        dz = p - y
        dh = dot(dz, w2.T)
        dh *= one - h * h
        w2 += minus_step * dot(h.T, dz)
        b2 += minus_step * dot(ones, dz)
        w1 += minus_step * dot(xT, dh)
        b1 += minus_step * dot(ones, dh)
    return losses


def torch_trainer() -> Callable[[Weights, np.ndarray, np.ndarray, int, float], list[float]] | None:
    """PyTorch eager (float64, one thread, the same loop), or None when torch is not installed."""
    try:
        import torch
    except ImportError:
        return None

    def train_torch(weights: Weights, x: np.ndarray, y: np.ndarray, steps: int, lr: float) -> list[float]:
        torch.set_num_threads(1)  # tiny arrays: threads only add overhead (and the machine is shared)
        params = []
        for w, b in weights:
            params += [torch.tensor(w, dtype=torch.float64, requires_grad=True),
                       torch.tensor(b, dtype=torch.float64, requires_grad=True)]
        w1, b1, w2, b2 = params
        opt = torch.optim.SGD(params, lr=lr)
        xt, yt = torch.tensor(x), torch.tensor(y)
        losses = []
        for _ in range(steps):
            opt.zero_grad()
            p = torch.sigmoid(torch.tanh(xt @ w1 + b1) @ w2 + b2)
            loss = -(yt * torch.log(p) + (1 - yt) * torch.log(1 - p)).mean()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses

    return train_torch


def _timed(fn: Callable[[], list[float]]) -> tuple[float, float, float]:
    start, cpu_start = time.perf_counter(), time.process_time()
    losses = fn()
    return losses[-1], time.perf_counter() - start, time.process_time() - cpu_start


def compare(setup: Setup = Setup(), repeats: int = 7, scalar_repeats: int = 2,
            include_torch: bool = True) -> list[Run]:
    """Train every version from the same initial weights; every repeat starts afresh."""
    x, y = toy_binary_data(setup.samples, setup.sizes[0], seed=setup.seed)

    def model() -> MLP:
        return MLP(list(setup.sizes), activation="tanh", output_activation="sigmoid", seed=setup.seed)

    weights = model().weights()
    ways: dict[str, Callable[[], list[float]]] = {
        "lucid": lambda: train_lucid(model(), x, y, setup.steps, setup.lr),
        "floor": lambda: engine_floor.train(weights, x, y, setup.steps, setup.lr),
        "numpy": lambda: train_numpy_lean(weights, x, y, setup.steps, setup.lr),
        "scalar": lambda: train_scalar(ScalarMLP(weights), x, y, setup.steps, setup.lr),
        "micro": lambda: micro_scalar.train(weights, x, y, setup.steps, setup.lr),
    }
    train_torch = torch_trainer() if include_torch else None
    if train_torch is not None:
        ways["torch"] = lambda: train_torch(weights, x, y, setup.steps, setup.lr)
    count = {name: max(1, scalar_repeats if name in ("scalar", "micro") else repeats) for name in ways}
    best = {name: (float("nan"), float("inf"), float("inf")) for name in ways}
    for i in range(max(count.values())):
        for name, fn in ways.items():
            if i < count[name]:
                loss, seconds, cpu = _timed(fn)
                best[name] = (loss, min(best[name][1], seconds), min(best[name][2], cpu))
    return [Run(name, *best[name]) for name in ways]


def fastest_steps(setup: Setup = Setup(), runs: int = 10) -> tuple[float, float]:
    """The fastest single training step of lucid and of the floor, in seconds: ``(lucid, floor)``.

    The same loops as ``train_lucid`` and ``engine_floor.train``, each step (zero_grad, forward,
    backward, update, loss read) timed on its own; ``runs`` alternating runs of ``setup.steps`` steps.
    A step lasts tens of microseconds, so on a shared machine most of them run uninterrupted and
    the minimum is the engine's own cost, where a whole run's best time still carries the machine's
    interruptions (which is why both are printed).
    """
    from bench.engine_floor import _tensor, add, backward, log, matmul, mean, mul, neg, sigmoid, sub, tanh

    x, y = toy_binary_data(setup.samples, setup.sizes[0], seed=setup.seed)
    clock = time.perf_counter
    best_lucid = best_floor = float("inf")
    for _ in range(runs):
        model = MLP(list(setup.sizes), activation="tanh", output_activation="sigmoid", seed=setup.seed)
        params = [_tensor(np.array(a, dtype=np.float64), True) for pair in model.weights() for a in pair]
        opt = SGD(model.parameters(), lr=setup.lr)
        xt, yt = Tensor(x), Tensor(y)
        for _ in range(setup.steps):
            start = clock()
            opt.zero_grad()
            p = model(xt)
            loss = -(yt * lucid.log(p) + (1 - yt) * lucid.log(1 - p)).mean()
            loss.backward()
            opt.step()
            loss.item()
            best_lucid = min(best_lucid, clock() - start)
        w1, b1, w2, b2 = params
        fx, fy = _tensor(x), _tensor(y)
        for _ in range(setup.steps):
            start = clock()
            for q in params:
                q.grad = None
            p_ = sigmoid(add(matmul(tanh(add(matmul(fx, w1), b1)), w2), b2))
            floor_loss = neg(mean(add(mul(fy, log(p_)), mul(sub(1, fy), log(sub(1, p_))))))
            backward(floor_loss)
            for q in params:
                q.data -= setup.lr * q.grad
            floor_loss.data.item()
            best_floor = min(best_floor, clock() - start)
        if abs(loss.item() - floor_loss.data.item()) > 1e-9:
            raise AssertionError("the step-timed loops do not train the same network")
    return best_lucid, best_floor


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
    lines = [f"MLP {list(setup.sizes)}, {setup.samples} samples, {setup.steps} full-batch SGD steps (lr {setup.lr}), "
             "BCE written out",
             f"{'version':<8} {'final loss':>22} {'best time':>12} {'per step':>12} {'/ numpy':>9}"]
    for r in runs:
        lines.append(f"{r.name:<8} {r.final_loss:>22.16f} {r.seconds:>11.4f}s {r.seconds / setup.steps * 1e6:>10.1f}µs"
                     f" {r.seconds / base:>8.2f}x")
    lucid_s = by_name["lucid"].seconds
    summary = (f"lucid/numpy = {lucid_s / base:.2f}x (target ≤ 3)   "
               f"floor/numpy = {by_name['floor'].seconds / base:.2f}x   "
               f"lucid/floor = {lucid_s / by_name['floor'].seconds:.2f}x (target ≤ 1.15)   "
               f"scalar/numpy = {by_name['scalar'].seconds / base:.1f}x   "
               f"scalar/micro = {by_name['scalar'].seconds / by_name['micro'].seconds:.2f}x (target ≤ 2)")
    if "torch" in by_name:
        summary += f"   torch/lucid = {by_name['torch'].seconds / lucid_s:.2f}x (target ≥ 2)"
    else:
        summary += "   torch: not installed"
    lines.append(summary + f"   (losses agree within {check_agreement(runs):.1e})")
    cpu_base = by_name["numpy"].cpu_seconds
    if cpu_base == cpu_base:  # measured (not NaN)
        cpu = (f"by CPU time: lucid/numpy = {by_name['lucid'].cpu_seconds / cpu_base:.2f}x   "
               f"lucid/floor = {by_name['lucid'].cpu_seconds / by_name['floor'].cpu_seconds:.2f}x (target ≤ 1.15)   "
               f"scalar/micro = {by_name['scalar'].cpu_seconds / by_name['micro'].cpu_seconds:.2f}x")
        if "torch" in by_name:
            cpu += f"   torch/lucid = {by_name['torch'].cpu_seconds / by_name['lucid'].cpu_seconds:.2f}x"
        lines.append(cpu)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15, help="best of this many runs (lucid, numpy, torch)")
    parser.add_argument("--scalar-repeats", type=int, default=2, help="best of this many runs (scalar)")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--samples", type=int, default=80)
    parser.add_argument("--no-torch", action="store_true", help="leave PyTorch out even when it is installed")
    args = parser.parse_args(argv)
    setup = Setup(samples=args.samples, steps=args.steps)
    runs = compare(setup, args.repeats, args.scalar_repeats, include_torch=not args.no_torch)
    check_agreement(runs)
    print(report(runs, setup))
    step_lucid, step_floor = fastest_steps(setup, args.repeats)
    print(f"fastest single step: lucid {step_lucid * 1e6:.1f}µs   floor {step_floor * 1e6:.1f}µs   "
          f"lucid/floor = {step_lucid / step_floor:.2f}x (target ≤ 1.15)")


if __name__ == "__main__":
    main()
