"""How long does the Playground take to build the animation of a program drawn collapsed? Prints, asserts nothing.

A 3 → 4 tanh → 1 network written out one scalar at a time (``tests/large_programs.py``), past the
400-node cap, so the Playground draws it in boxes. Side by side in the same process (server time, best
of ``--repeats``; the animation's two ``dot`` runs included):

- per trace step: one collapsed frame for every step of the backward trace, each from its own
  ``to_dot`` call (what the player got before it played collapsed graphs box by box), against
- per box step: ``build_animation`` now (one ``CollapsedView``, one frame per collapsed step);
- every box open (the most a student can open by clicking), frames drawn alone against frames that
  reuse the DOT statements of boxes, nodes and edges whose look did not change.

Run: python bench/bench_collapsed_animation.py [--samples 10] [--repeats 1]
"""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lucid.autograd import backward_trace  # noqa: E402
from lucid.expr import run  # noqa: E402
from lucid.viz import large_view, to_dot  # noqa: E402
from lucid.viz.graph.collapse import collapsed_dot  # noqa: E402
from lucid.viz.player.animation import build_animation  # noqa: E402
from tests.large_programs import scalar_mlp_source  # noqa: E402


def best(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args(argv)
    program = run(scalar_mlp_source(args.samples), seed=0)
    root, trace = program.output, backward_trace(program.output)
    view = large_view(root, trace)
    every = large_view(root, trace, list(view.hierarchy.groups))

    per_trace = best(lambda: [to_dot(root, trace, k, direction="TB") for k in range(len(trace.steps))], args.repeats)
    per_box = best(lambda: build_animation(root, trace, direction="TB"), args.repeats)
    alone = best(lambda: [collapsed_dot(every, c, direction="TB") for c in range(len(every.steps))], args.repeats)

    def reusing() -> None:
        statements: dict = {}
        for c in range(len(every.steps)):
            collapsed_dot(every, c, direction="TB", statements=statements)
    reused = best(reusing, args.repeats)
    lines = [
        f"program: {len(trace.order):,} tensors, {len(trace.steps):,} gradient steps; collapsed: "
        f"{view.node_count} boxes and nodes, {len(view.steps)} box steps; every box open: {every.node_count} drawn, "
        f"{len(every.steps)} steps",
        f"{'frames, one per trace step (to_dot each)':<58}{per_trace:8.2f} s",
        f"{'whole animation, one frame per box step (2 dot runs)':<58}{per_box:8.2f} s   "
        f"ratio {per_trace / per_box:5.1f}x less",
        f"{'every box open: frames drawn alone':<58}{alone:8.2f} s",
        f"{'every box open: frames reusing unchanged statements':<58}{reused:8.2f} s   "
        f"ratio {alone / reused:5.1f}x less",
    ]
    text = "\n".join(lines)
    print(text)
    return text


if __name__ == "__main__":
    main()
