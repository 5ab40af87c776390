"""How long does the Playground take on the server? Prints numbers, asserts nothing.

Two cases from the app issue:
- a step rerun (Next) on a ~50-node graph: must not recompute graph or trace;
- the first render of a ~300-node graph: parse, evaluate, trace, DOT, inputs table.

Measured with Streamlit's AppTest (the real page script, no browser) and
time.perf_counter, plus the pure stages on their own for comparison.
Run: python bench/bench_app.py
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from lucid import viz  # noqa: E402
from lucid.ui import share  # noqa: E402
from lucid.ui.analysis import analyze  # noqa: E402
from lucid.ui.inputs_table import input_rows  # noqa: E402
from lucid.ui.options import DrawOptions  # noqa: E402

PAGE = str(ROOT / "pages" / "playground.py")


def chain_program(lines: int) -> str:
    """A program whose graph grows by a few nodes per line: x_{i+1} = tanh(x_i * w_i + b_i)."""
    out = ["x0 = 0.5"]
    for i in range(lines):
        out.append(f"w{i} = {0.9 + 0.01 * (i % 7):.2f}")
        out.append(f"x{i + 1} = tanh(x{i} * w{i} + 0.1)")
    return "\n".join(out) + "\n"


def nodes(source: str) -> int:
    a = analyze(source)
    return a.n_tensors + a.n_ops


def best(samples: list[float]) -> str:
    return f"median {statistics.median(samples) * 1000:7.1f} ms   min {min(samples) * 1000:7.1f} ms"


def sized(target: int) -> str:
    lines = 1
    while nodes(chain_program(lines)) < target:
        lines += 1
    return chain_program(lines)


def main() -> None:
    small, large = sized(50), sized(300)
    print(f"small graph: {nodes(small)} nodes; large graph: {nodes(large)} nodes")

    # --- pure stages -----------------------------------------------------------------
    for label, src in (("~50", small), ("~300", large)):
        t0 = time.perf_counter()
        a = analyze(src)
        t1 = time.perf_counter()
        g = viz.to_dot(a.program.output, a.trace, 3, **DrawOptions().as_kwargs())
        t2 = time.perf_counter()
        viz.to_svg(g)
        t3 = time.perf_counter()
        input_rows(src)
        t4 = time.perf_counter()
        print(f"{label:>5} nodes: parse+eval+trace {1000 * (t1 - t0):6.1f} ms"
              f" | one frame DOT {1000 * (t2 - t1):6.1f} ms"
              f" | its SVG (dot) {1000 * (t3 - t2):6.1f} ms | inputs table (finite diff.) {1000 * (t4 - t3):6.1f} ms")

    # --- first render of the large graph (fresh session each time) --------------------
    firsts = []
    for _ in range(3):
        at = AppTest.from_file(PAGE, default_timeout=120)
        at.query_params.update(share.encode(large))
        t0 = time.perf_counter()
        at.run()
        firsts.append(time.perf_counter() - t0)
        assert not at.exception, at.exception
    print(f"first render, ~300-node graph (whole page script): {best(firsts)}")

    # --- step reruns on the small graph -------------------------------------------------
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params.update(share.encode(small))
    at.run()
    steps_new, steps_seen = [], []
    for _ in range(12):
        t0 = time.perf_counter()
        at.button(key="pg_next").click().run()
        steps_new.append(time.perf_counter() - t0)
    at.button(key="pg_first").click().run()
    for _ in range(12):
        t0 = time.perf_counter()
        at.button(key="pg_next").click().run()
        steps_seen.append(time.perf_counter() - t0)
    print(f"step rerun, ~50-node graph, frame not seen before: {best(steps_new)}")
    print(f"step rerun, ~50-node graph, frame seen before:     {best(steps_seen)}")
    print("(AppTest reruns the whole page script on a click; in the browser only the stepper fragment reruns.)")


if __name__ == "__main__":
    main()
