"""How long does the scalar MLP's step take to draw, collapsed, against the 13-node array step? Prints, asserts nothing.

The design notes' experiment (5 → 2 tanh → 1 sigmoid, 80 samples of the file-chunk data)
built from 0-d tensors has ~4,659 nodes; built from arrays, 13. For each, in the same
process, side by side (server time, best of ``--repeats``):

- graph: forward + recorded backward;
- DOT: grouping and the collapsed view (scalar) or the model (array), and the DOT text;
- SVG: Graphviz ``dot -Tsvg`` on that DOT;
- also the scalar graph's overview + detail pair, and one box opened.

Also the cluster case of the cost issue: 60 leaves ``p{i%10}_v{i}``, 60 products, two sums,
drawn with its 20 name-prefix clusters (what the drawing did before) and as drawn now.

Run: python bench/bench_large_graph.py [--repeats 3]
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lucid.autograd import backward_trace  # noqa: E402
from lucid.data import load  # noqa: E402
from lucid.expr import run  # noqa: E402
from lucid.lessons.graph_sizes import SEED_HIDDEN, SEED_SAMPLES, step_graphs  # noqa: E402
from lucid.lessons.training import make_model, prepare  # noqa: E402
from lucid.viz import large_frame, large_view, to_dot, toggle  # noqa: E402
from lucid.viz.export.pictures import to_svg  # noqa: E402


def best(fn: Callable[[], object], repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def cluster_program() -> str:
    """The cost issue's program: 60 leaves in 10 name prefixes, 60 products of neighbours, two sums, out."""
    lines = [f"p{i % 10}_v{i} = {1 + i % 7}" for i in range(60)]
    lines += [f"q{i % 10}_s{i} = p{i % 10}_v{i} * p{(i + 1) % 10}_v{(i + 1) % 60}" for i in range(60)]
    lines.append("r0 = " + " + ".join(f"q{i % 10}_s{i}" for i in range(0, 30)))
    lines.append("r1 = " + " + ".join(f"q{i % 10}_s{i}" for i in range(30, 60)))
    lines.append("out = r0 + r1")
    return "\n".join(lines)


def with_prefix_clusters(source: str) -> tuple[str, int]:
    """The same DOT with the name-prefix clusters put back (what was drawn before the cost check)."""
    from lucid.viz.graph.hierarchy import _PREFIX

    nodes = re.findall(r'^\t(t\d+) \[label=<<TABLE[^\n]*?<B>([^<]*)</B>', source, flags=re.M)
    groups: dict[str, list[str]] = {}
    for node, name in nodes:
        m = _PREFIX.match(name)
        if m:
            groups.setdefault(m.group(1), []).append(node)
    extra = "".join(f"\tsubgraph cluster_{i} {{ label=\"{p}\" {' '.join(ids)} }}\n"
                    for i, (p, ids) in enumerate(groups.items()) if len(ids) > 1)
    return source.rstrip().rstrip("}") + extra + "}\n", sum(1 for ids in groups.values() if len(ids) > 1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    prepared = prepare(load("file chunks"))
    model = make_model(prepared.Z.shape[1], SEED_HIDDEN, 0)

    graph_s, sizes = best(lambda: step_graphs(model, prepared.Z, prepared.y, SEED_SAMPLES), a.repeats)
    tensor, scalar = sizes.tensor, sizes.scalar
    t_dot, t_graph = best(lambda: to_dot(tensor.root, tensor.trace, direction="TB", large=True), a.repeats)
    t_svg, _ = best(lambda: to_svg(t_graph), a.repeats)

    def scalar_dot():
        view = large_view(scalar.root, scalar.trace)
        return view, large_frame(view, len(view.steps) // 2).main

    s_dot, (view, s_graph) = best(scalar_dot, a.repeats)
    s_svg, _ = best(lambda: to_svg(s_graph), a.repeats)
    frame = large_frame(view, len(view.steps) // 2)
    pair_s, _ = best(lambda: (to_svg(frame.overview), to_svg(frame.detail)), a.repeats)
    opened = toggle(view, (), view.units[1])

    def open_one():
        v = large_view(scalar.root, scalar.trace, opened)
        return to_svg(large_frame(v, len(v.steps) // 2).main), v

    open_s, (_, v_open) = best(open_one, a.repeats)

    print(f"One training step, {sizes.samples} samples, 5 → {SEED_HIDDEN} → 1 (server time, best of {a.repeats})")
    print(f"{'':28}{'tensors':>12}{'scalars':>12}{'ratio':>9}")
    print(f"{'nodes in the graph':28}{tensor.nodes:>12,}{scalar.nodes:>12,}{scalar.nodes / tensor.nodes:>8.0f}×")
    drawn = len(re.findall(r"^\t(?:t|op)\d+ \[", t_graph.source, flags=re.M))
    print(f"{'nodes drawn':28}{drawn:>12,}{view.node_count:>12,}")
    print(f"{'graph + backward (s)':28}{tensor.seconds:>12.4f}{scalar.seconds:>12.4f}"
          f"{scalar.seconds / tensor.seconds:>8.0f}×")
    print(f"{'DOT (s)':28}{t_dot:>12.4f}{s_dot:>12.4f}{s_dot / t_dot:>8.1f}×")
    print(f"{'SVG by dot (s)':28}{t_svg:>12.4f}{s_svg:>12.4f}{s_svg / t_svg:>8.1f}×")
    total_t, total_s = t_dot + t_svg, s_dot + s_svg
    print(f"{'DOT + SVG (s)':28}{total_t:>12.4f}{total_s:>12.4f}{total_s / total_t:>8.1f}×")
    print(f"scalar overview + detail SVGs: {pair_s:.3f} s; one box opened ({v_open.node_count} drawn): "
          f"view + DOT + SVG {open_s:.3f} s")
    print(f"losses: tensors {tensor.loss:.15f}  scalars {scalar.loss:.15f}")

    program = run(cluster_program())
    trace = backward_trace(program.output)
    now = to_dot(program.output, trace, 5).source
    before, n_clusters = with_prefix_clusters(now)
    before_s, _ = best(lambda: to_svg(before), max(1, a.repeats - 1))
    now_s, _ = best(lambda: to_svg(now), a.repeats)
    print(f"\nCluster case ({len(cluster_program()):,} chars): dot with its {n_clusters} prefix clusters "
          f"{before_s:.3f} s, as drawn now ({now.count('subgraph cluster')} clusters) {now_s:.3f} s "
          f"({before_s / now_s:.1f}×)")


if __name__ == "__main__":
    main()
