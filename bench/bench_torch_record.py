"""What recording a PyTorch step costs: a plain torch training step against the same step recorded.

Side by side in one process, alternating, each keeping its best time, so a busy machine slows both alike:

* ``plain``    forward, ``cross_entropy``, ``backward`` of a 2-layer MLP (batch 32, 16 → 32 → 4),
* ``recorded`` the same inside ``lucid.torch.record`` (the calls noted, the backward hooks reading),
* ``graph``    ``recorded`` plus building the plain data (``rec.graph()``: every value and gradient copied),
* ``replay``   ``graph`` plus ``replay`` (the lucid tensors and the trace the player draws).

Prints each time and its ratio to ``plain``; the gradients of ``plain`` and ``recorded`` must be equal (checked).
Run: ``python bench/bench_torch_record.py [--repeats 30]``.
"""
from __future__ import annotations

import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

from lucid.torch import record, replay


def make():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 4))
    x, y = torch.randn(32, 16), torch.randint(0, 4, (32,))
    return model, x, y


def plain(model, x, y):
    model.zero_grad()
    F.cross_entropy(model(x), y).backward()


def recorded(model, x, y, stage: str):
    model.zero_grad()
    with record(model) as rec:
        loss = F.cross_entropy(model(x), y)
    loss.backward()
    if stage in ("graph", "replay"):
        graph = rec.graph()
        if stage == "replay":
            replay(graph)
    return rec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    model, x, y = make()
    plain(model, x, y)
    reference = [p.grad.clone() for p in model.parameters()]
    recorded(model, x, y, "recorded")
    assert all(torch.equal(a, p.grad) for a, p in zip(reference, model.parameters())), "recording changed a gradient"
    runs = {"plain": lambda: plain(model, x, y), "recorded": lambda: recorded(model, x, y, "recorded"),
            "graph": lambda: recorded(model, x, y, "graph"), "replay": lambda: recorded(model, x, y, "replay")}
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(args.repeats):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - start)
    for name, t in best.items():
        print(f"{name:9s} {t * 1e3:8.3f} ms   {t / best['plain']:6.2f}× plain")


if __name__ == "__main__":
    main()
