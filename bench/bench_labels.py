"""How long does one frame of a graph with big arrays take? Prints numbers, asserts nothing.

Issue: graph labels used to format every element of every array in Python just to
find a column width, 7-10 s per frame for a 1000×1000 input while ``dot`` takes
0.02 s. Labels now format only what they show (a grid up to 8×8, else min/mean/max
from NumPy reductions). This prints, side by side in one process, the column-width
step done the old way (every element formatted) and the new way, and the whole
frame today (``viz.to_dot`` + render).
Run: python bench/bench_labels.py
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lucid import viz  # noqa: E402
from lucid.autograd import backward_trace  # noqa: E402
from lucid.expr import run  # noqa: E402
from lucid.viz.graph.labels import number_columns  # noqa: E402
from lucid.viz.graph.state import grads_over_trace  # noqa: E402
from lucid.viz.graph.structure import build_model  # noqa: E402
from lucid.viz.numbers import format_number  # noqa: E402

PROGRAMS = {
    "rand(1000, 1000) + reductions": (
        "x = rand(1000, 1000)\ns = x.sum(axis=0)\nm = x.mean(axis=1)\nout = sum(s) + sum(m) + x.max()\n"),
    "outer product 1000×1000": "a = rand(1000, 1)\nb = rand(1, 1000)\nc = a*b\nd = c*c\nout = d.mean()\n",
}


def old_number_columns(arrays: list[np.ndarray]) -> int:
    """The old way: every element formatted to find the widest."""
    return max((max((len(format_number(v)) for v in np.asarray(a, dtype=np.float64).reshape(-1)), default=1)
                for a in arrays if np.asarray(a).size), default=1)


def widths(trace, how) -> float:
    model = build_model(trace.root, trace.order)
    grads = grads_over_trace(model, trace)
    start = time.perf_counter()
    for node in model.tensors:
        how([node.tensor.data, *grads.get(node.index, [])])
    return time.perf_counter() - start


def frame_seconds(trace, step: int) -> tuple[float, float]:
    start = time.perf_counter()
    graph = viz.to_dot(trace.root, trace, step)
    dot_done = time.perf_counter()
    viz.to_svg(graph)
    return dot_done - start, time.perf_counter() - dot_done


def main(repeats: int = 3) -> None:
    print(f"{'program':32} {'widths old':>11} {'widths new':>11} {'ratio':>8} {'to_dot':>8} {'render':>8} {'frame':>8}")
    for label, source in PROGRAMS.items():
        program = run(source, seed=1)
        trace = backward_trace(program.output)
        old = widths(trace, old_number_columns)
        new = min(widths(trace, number_columns) for _ in range(repeats))
        frames = [frame_seconds(trace, s) for s in (1, len(trace.steps) - 1) for _ in range(repeats)]
        to_dot = min(f[0] for f in frames)
        render = min(f[1] for f in frames)
        print(f"{label:32} {old:10.3f}s {new:10.4f}s {old / new:7.0f}× {to_dot:7.3f}s {render:7.3f}s "
              f"{to_dot + render:7.3f}s")


if __name__ == "__main__":
    main()
