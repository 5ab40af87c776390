"""How much one program may ask of the server.

Budgets beside these limits, each predicted before the work it bounds is started:

- ``lucid.viz.player.animation_cost.MAX_ANIMATION_WORK``: the work of building one program's animation
  (steps × drawn elements + the inputs each step explains); past it the graph is drawn collapsed, then
  refused. ``CHEAP_ANIMATION_WORK`` splits builds into two lanes (``lucid.session.analysis.BUILD_LANES``: two
  cheap slots, one expensive slot), so a heavy program never makes a light one wait.
- ``lucid.autograd.gradcheck`` / ``lucid.session.inputs_table``: the finite-difference work of the inputs table
  (``OP_OVERHEAD_ELEMENTS`` and ``BATCH_ELEMENTS`` below).
- ``lucid.session.analysis``: concurrent work in total: two programs analysed at once, two input tables, two
  cheap and one expensive animation build; one session runs one script at a time (Streamlit), so a
  session's own concurrent work is one of these.
- ``lucid.session.browser_events``: what the browser may send back: the event batch (only the last click of a
  batch counts, batches over 64 KB are dropped), node ids, steps, JSON depth and number length.

The defaults suit a classroom server shared by dozens of people at once: a
program gets well under a second of CPU and a few tens of megabytes, and its
graph stays small enough for Graphviz to draw. Every limit is checked before
the thing it guards is built: text limits before parsing, shape limits (worked
out from the syntax tree alone) before any array is allocated.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Ceilings for one ``run``; pass a custom instance to loosen or tighten them."""

    max_source_chars: int = 10_000
    """Characters in the whole program."""
    max_lines: int = 200
    """Lines in the program, comments and blank lines included."""
    max_syntax_nodes: int = 4_000
    """Numbers, names, operators, calls ... in the parsed program (bounds list literals too)."""
    max_depth: int = 64
    """Nesting of the syntax tree: brackets, unary signs and chained operators all count."""
    max_tensor_elements: int = 1_000_000
    """Elements of any one tensor (8 MB of float64)."""
    max_total_elements: int = 8_000_000
    """Elements of all tensors of the graph together, plus, for every op, the elements of its inputs: the
    gradients its backward pass will send along each edge (``x.sum()`` on a big ``x`` costs a full-size
    gradient even though its output is one number)."""
    max_ndim: int = 32
    """Dimensions of any one tensor (NumPy's matmul handles at most 32; arrays at most 64)."""
    max_trace_elements: int = 16_000_000
    """Elements the step-by-step record of the backward pass keeps (128 MB of float64), predicted per op from
    shapes before anything runs (``compiler.backward_record_elements``) and enforced again while the record is
    made (``backward_trace(max_elements=...)``). ``stack`` of one tensor repeated n times costs n inputs'
    worth here, not n² as a record that copied the upstream gradient per edge did."""
    max_graph_nodes: int = 1_000
    """Tensors in the graph: leaves, constants and op results."""
    max_matmul_work: int = 50_000_000
    """Multiply-adds of all matrix products together."""
    max_exponent: float = 1_000.0
    """Largest |exponent| of ``**`` (checked on literals before evaluating, and on computed exponents
    before the power is taken)."""


DEFAULT_LIMITS = Limits()

OP_OVERHEAD_ELEMENTS = 5_000
"""What one op costs before it touches a single element, counted in elements.

Work budgets for re-running a program (finite differences) count elements, but
a small op costs ~10-15 µs of Python and NumPy dispatch whatever its size,
while an element of a large array costs ~2-3 ns: one op is worth about 5,000
elements. Without this term a program of 999 scalar ops looked nearly free and
its finite differences took over a minute of CPU (measured, see
``bench/bench_gradcheck_cost.py``)."""

BATCH_ELEMENTS = 2_000_000
"""Elements one batched re-run pass may hold across all of its rows (``Program.batch_rows``): about 16 MB
per tensor of the program, so stacking re-runs never trades seconds of CPU for a memory spike."""
