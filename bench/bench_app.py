"""How long does the Playground take on the server? Prints numbers, asserts nothing.

- the pure stages for a ~50- and a ~300-node graph: parse, evaluate, trace, one DOT, its SVG, inputs table;
- the whole animation built once (two ``dot`` runs) against one ``dot`` run per step, and its payload size;
- the first render of a ~300-node graph, cold and for a second session (shared cache);
- a page rerun (what a node click costs); stepping itself costs the server nothing.

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
from lucid.session import analysis as shared  # noqa: E402
from lucid.session import share  # noqa: E402
from lucid.session.analysis import analyze  # noqa: E402
from lucid.session.inputs_table import input_rows  # noqa: E402
from lucid.session.options import DrawOptions  # noqa: E402
from lucid.viz.player.animation import build_animation  # noqa: E402

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

    # --- the whole animation, built once, against one dot run per step (the old way) ---------
    for label, src in (("~50", small), ("~300", large)):
        a = analyze(src)
        t0 = time.perf_counter()
        anim = build_animation(a.program.output, a.trace, **DrawOptions().as_kwargs())
        t1 = time.perf_counter()
        per_step = []
        for k in range(min(a.n_steps, 8)):
            f0 = time.perf_counter()
            viz.to_svg(viz.to_dot(a.program.output, a.trace, k, **DrawOptions().as_kwargs()))
            per_step.append(time.perf_counter() - f0)
        old = statistics.mean(per_step) * a.n_steps
        print(f"{label:>5} nodes, {a.n_steps} steps: animation built once {1000 * (t1 - t0):7.1f} ms, "
              f"payload {anim.payload_bytes() / 1024:7.1f} kB | one dot per step would be {1000 * old:8.1f} ms "
              f"(ratio {old / (t1 - t0):4.1f}x)")

    # --- first render of the large graph: cold (nothing cached), then another session -----
    for name in ("cold", "second session"):
        if name == "cold":
            shared.ANALYSES.clear()
            shared.ANIMATIONS.clear()
            shared.INPUT_ROWS.clear()
        at = AppTest.from_file(PAGE, default_timeout=120)
        at.query_params.update(share.encode(large))
        t0 = time.perf_counter()
        at.run()
        took = time.perf_counter() - t0
        assert not at.exception, at.exception
        print(f"first render of the ~300-node graph, {name:>14}: {1000 * took:7.1f} ms (whole page script)")

    # --- a rerun (a node click) on the small graph ----------------------------------------
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params.update(share.encode(small))
    at.run()
    reruns = []
    for k in range(12):
        at.session_state["pg_step"] = k
        t0 = time.perf_counter()
        at.run()
        reruns.append(time.perf_counter() - t0)
    print(f"rerun of the page (e.g. a node click), ~50-node graph: {best(reruns)}")
    print("(Next, Prev, the slider, keys and Play run in the browser: no rerun at all.)")


if __name__ == "__main__":
    main()
