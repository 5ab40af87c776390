"""Audit: every number the app shows for a program is right, and consistent with every other number.

For each gallery example and a set of further programs (scalars, broadcasting,
reductions, matmuls, repeated indexing, softmax/cross-entropy, x*x, residuals,
division/power chains, where/maximum/clip) this checks, with the seed the app
uses (ones) and with a random non-unit seed:

a) every input's final gradient against high-order central differences of
   ``program.function()``;
b) every trace step on its own: the broadcast sum, upstream · local, the running
   total, upstream = the node's final gradient (a valid reverse topological
   order), ``is_final``, one step per edge;
c) the numbers ``explain`` prints (Markdown and text), in the order they appear,
   and that the printed arithmetic adds up to within 4-significant-digit rounding;
d) the DOT labels: every tensor's value and gradient, at every step, and the
   note on the edge the gradient is flowing along; the same values and gradients
   (with their partial/final marks) in the circuit preset.

The checks compare against numbers recomputed here (finite differences, our own
unbroadcast sum, our own running totals); the formatted text is compared via
``lucid.viz.format_number``/``format_array`` and each printed number is also
parsed back and required to be the true value rounded to 4 significant digits.
"""
from __future__ import annotations

import functools
import html
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lucid import Tensor
from lucid.autograd import Trace, TraceStep, backward_trace, no_grad
from lucid.expr import Program, run
from lucid.viz import explain, format_array, format_number, to_dot
from lucid.viz.numbers import format_grid, parse_number

try:
    from lucid.gallery import EXAMPLES
except ImportError:  # the gallery is written by another helper; the rest of the audit stands alone
    EXAMPLES = ()

# ----------------------------------------------------------------------------------------------
# Programs beyond the gallery. Values sit away from kinks (relu, max, clip, |x|) so finite
# differences are meaningful.
# ----------------------------------------------------------------------------------------------
PROGRAMS: dict[str, str] = {
    "scalars": (
        "x = 1.7\n"
        "y = -0.4\n"
        "z = x*y + x/y - y**2 + exp(y) * sin(x)\n"
        "out = z * sqrt(x) - log(x + 2)\n"
    ),
    "broadcast-bias": (
        "X = randn(3, 4)\n"
        "row = [[0.5], [-1.0], [2.0]]\n"
        "col = randn(1, 4)\n"
        "v = [0.3, -0.2, 0.9, 1.4]\n"
        "s = 0.7\n"
        "H = tanh(X * col + row) + v * s\n"
        "T = randn(2, 3, 4)\n"
        "out = sum(T * H * H)\n"
    ),
    "reductions": (
        "A = randn(2, 3, 4)\n"
        "s = A.sum(axis=1, keepdims=True)\n"
        "m = mean(A, axis=2)\n"
        "k = A.max(axis=0)\n"
        "w = A.sum(axis=-1)\n"
        "v = var(A, axis=1)\n"
        "out = sum(s * s) + sum(m * w) + sum(k ** 3) + sum(v * const(randn(2, 4)))\n"
    ),
    "matmul-shapes": (
        "u = [0.5, -1.5, 2.0]\n"
        "v = [1.2, 0.3, -0.7]\n"
        "M = randn(2, 3)\n"
        "N = randn(3, 4)\n"
        "B = randn(2, 3, 4)\n"
        "C = randn(4, 2)\n"
        "D = randn(2, 2, 3)\n"
        "dot = u @ v\n"
        "mv = M @ u\n"
        "vm = v @ N\n"
        "mm = M @ N\n"
        "bm = B @ C\n"
        "bb = D @ B\n"
        "out = dot * sum(mv) + sum(vm * vm) + sum(mm ** 2) + sum(tanh(bm)) + sum(bb * bb) / 10\n"
    ),
    "indexing-repeats": (
        "x = randn(5)\n"
        "y = x[[0, 0, 3, 1, 3, 3]]\n"
        "W = randn(3, 4)\n"
        "r = W[[2, 0, 2]]\n"
        "c = W[:, 1]\n"
        "e = x[1:4][..., None]\n"
        "out = sum(y * const([1.0, -2.0, 3.0, 0.5, -1.5, 2.5])) + sum(r * r) + sum(c ** 3) + sum(e * W[0])\n"
    ),
    "softmax-cross-entropy": (
        "z = randn(3, 4)\n"
        "p = softmax(z, axis=1)\n"
        "ls = log_softmax(z * 2, axis=0)\n"
        "ce = cross_entropy(z, const([3, 0, 1]))\n"
        "lse = logsumexp(z, axis=1)\n"
        "out = ce + sum(p * const(randn(3, 4))) + sum(ls * ls) / 7 + sum(lse) / 3\n"
    ),
    "x-times-x": (
        "x = [1.5, -2.0, 0.25]\n"
        "y = x * x\n"
        "c = x * x * x + (x + x)\n"
        "out = sum(y * const([0.3, 0.7, -1.1])) + sum(c)\n"
    ),
    "residual": (
        "x = [0.8, -0.3]\n"
        "W = randn(2, 2)\n"
        "h1 = x + tanh(W @ x)\n"
        "h2 = h1 + tanh(W @ h1)\n"
        "h3 = h2 + sigmoid(h2) * h1\n"
        "out = sum(h3 * h3)\n"
    ),
    "div-pow-chain": (
        "x = [1.5, 2.5]\n"
        "y = 0.8\n"
        "p = (x / y) ** 3 / x ** y\n"
        "q = 2 / x - y / (x * x + 1)\n"
        "out = sum(p + q ** 2) ** 0.5 / y\n"
    ),
    "where-maximum-clip": (
        "x = [-1.2, 0.3, 2.5, -0.4]\n"
        "y = [0.5, -0.6, 1.0, 0.1]\n"
        "m = maximum(x, y)\n"
        "n = minimum(x * 2, y)\n"
        "w = where(x > 0, x * y, y ** 2)\n"
        "c = clip(x, -1.0, 1.0)\n"
        "a = abs(x) + relu(y) + leaky_relu(x, 0.1)\n"
        "out = sum(m * w + c * n + a * y)\n"
    ),
    "non-scalar-output": (
        "a = [[1.5, -0.5, 2.0], [0.25, 3.0, -1.0]]\n"
        "b = [0.4, -1.1, 0.6]\n"
        "out = a * b + exp(b) / (a * a + 1)\n"
    ),
    "softmax-sums-to-one": (
        "z = [1.0, 2.0, 3.0]\n"
        "out = sum(softmax(z)) * 2 + sum(sigmoid(z))\n"
    ),
    "deep-residual-large-graph": (
        "x = [0.5, -1.0, 2.0]\n"
        "h = x\n"
        + "".join(f"h = tanh(h * {0.5 + 0.1 * i:.1f} + 0.1)\nh = h + x\n" for i in range(12))
        + "out = sum(h * h)\n"
    ),
    "output-is-a-leaf": "x = [1.0, -2.5]\n",
    "rebound-name-used-twice": "x = 2.0\ny = x\nout = x * y + y\n",
    "negative-and-strided-indexing": "x = randn(6)\nout = sum(x[::-2] * x[-1]) + x[-2] ** 2\n",
    "fancy-2d-indexing": (
        "W = randn(3, 4)\n"
        "out = sum(W[[0, 2, 0], [1, 1, 1]] * const([1.0, 2.0, 3.0])) + sum(W[1:, ::2] ** 2)\n"
    ),
    "outer-product-by-none-index": "x = randn(3)\ny = x[None, :] * x[:, None]\nout = sum(y * const(randn(3, 3)))\n",
    "reductions-over-axis-tuples": (
        "A = randn(2, 3, 4)\n"
        "out = sum(A.mean(axis=(0, 2)) * const([1.0, -2.0, 0.5])) + sum(A.max(axis=(1, 2), keepdims=True) ** 2)\n"
    ),
    "min-keepdims-and-reuse": "A = randn(3, 4)\nout = sum(min(A, axis=1, keepdims=True) * A)\n",
    "axis-permutations": (
        "A = randn(2, 3, 4)\n"
        "out = sum(swapaxes(A, 0, 2) * const(randn(4, 3, 2))) + sum(transpose(A, (1, 0, 2)) ** 2)\n"
    ),
    "losses": "p = [0.2, 0.7, 0.9]\nt = const([0.0, 1.0, 1.0])\nout = mse_loss(p, t) + binary_cross_entropy(p, t)\n",
    "tensor-exponent-softplus": (
        "x = [0.5, 1.5]\ny = [2.0, -0.5]\nout = sum(x ** y + softplus(x * y) + cos(x) * sqrt(x))\n"
    ),
    "batched-matmul-broadcast-batch": "A = randn(1, 2, 3)\nB = randn(4, 3, 2)\nout = sum((A @ B) ** 2)\n",
    "batched-matvec": "A = randn(2, 3, 4)\nv = randn(4)\nw = randn(3)\nout = sum((A @ v) ** 2) + sum((w @ A) ** 3)\n",
    "where-with-broadcast-condition": "x = randn(3, 1)\ny = randn(1, 4)\nout = sum(where(x > y, x * 2, y ** 2))\n",
    "one-sided-clip-and-negation": "x = [-2.0, 0.5, 3.0]\nout = sum(clip(x, None, 1.0) * clip(x, 0.0) * x - -x ** 2)\n",
    "shapes": (
        "A = randn(2, 3)\n"
        "R = A.reshape(3, 2)\n"
        "T = A.T\n"
        "S = stack([A, A * 2], axis=0)\n"
        "K = concatenate([A, T.T], axis=1)\n"
        "U = unsqueeze(A, 0) + broadcast_to(A, (2, 2, 3))\n"
        "out = sum(R @ A) + sum(T * R) + sum(S ** 2) + sum(K * K) / 3 + sum(squeeze(U[:1]) * A)\n"
    ),
}

CASES = [pytest.param(e.source, id=f"gallery-{e.slug}") for e in EXAMPLES] + \
    [pytest.param(src, id=name) for name, src in PROGRAMS.items()]


# ----------------------------------------------------------------------------------------------
# Independent references
# ----------------------------------------------------------------------------------------------
def objective(program: Program, leaves: list[np.ndarray], weight: np.ndarray) -> float:
    """sum(weight · f(leaves)): the scalar whose gradient a backward pass seeded with ``weight`` computes."""
    f = program.function()
    with no_grad():
        out = f(*[Tensor(np.array(a, dtype=np.float64)) for a in leaves])
    return float(np.sum(weight * out.data))


def finite_differences(program: Program, weight: np.ndarray, h: float = 1e-3) -> list[np.ndarray]:
    """Fourth-order central differences (error O(h⁴) + rounding/h: about 1e-11 here)."""
    base = [np.array(x.data, dtype=np.float64) for x in program.inputs]
    grads = []
    for i, x in enumerate(base):
        g = np.zeros_like(x)
        for j in np.ndindex(x.shape):
            values = []
            for step in (2 * h, h, -h, -2 * h):
                moved = [a.copy() for a in base]
                moved[i][j] += step
                values.append(objective(program, moved, weight))
            f2, f1, m1, m2 = values
            g[j] = (-f2 + 8 * f1 - 8 * m1 + m2) / (12 * h)
        grads.append(g)
    return grads


def unbroadcast(raw: np.ndarray, shape: tuple[int, ...]) -> tuple[np.ndarray, tuple[int, ...]]:
    """Our own reference for shape matching: sum the axes broadcasting created or stretched."""
    raw = np.asarray(raw, dtype=np.float64)
    if raw.ndim == 0:
        return np.full(shape, float(raw)), ()
    if raw.ndim < len(shape):  # same values, size-1 axes dropped (e.g. an index with None)
        return raw.reshape(shape), ()
    lead = raw.ndim - len(shape)
    axes = list(range(lead))
    axes += [lead + i for i, n in enumerate(shape) if n == 1 and raw.shape[lead + i] != 1]
    return raw.sum(axis=tuple(axes)).reshape(shape), tuple(axes)


# ----------------------------------------------------------------------------------------------
# Reading numbers back from what is shown
# ----------------------------------------------------------------------------------------------
NUMBER = re.compile(r"(?<![\w.])[-−]?(?:\d+\.\d+(?: × 10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)?|\d+|inf)(?![\w.])|(?<!\w)nan(?!\w)")


def is_small(a: np.ndarray) -> bool:
    """Small enough for every element to be printed (≤ 2 axes, up to 8 rows of up to 8 columns)."""
    return a.ndim == 0 or (a.ndim <= 2 and a.size > 0 and a.shape[-1] <= 8 and (a.ndim == 1 or a.shape[0] <= 8))


def true_values(arr: np.ndarray) -> list[float]:
    """What a view of ``arr`` should show: every element if it is small, else min, mean and max."""
    a = np.asarray(arr, dtype=np.float64)
    if is_small(a):
        return [float(v) for v in a.reshape(-1)]
    finite = a[np.isfinite(a)]
    return [float(finite.min()), float(finite.mean()), float(finite.max())]


def shown_tokens(arr: np.ndarray) -> list[str]:
    """Those numbers as printed: each like ``format_number``, all in one format (``format_grid``)."""
    return format_grid(true_values(arr))


def assert_rounded(token: str, value: float) -> None:
    """A printed number is the true value rounded to 4 significant digits (not truncated, not stale)."""
    if value == 0:
        assert token == "0", (token, value)
        return
    shown = parse_number(token)
    exponent = math.floor(math.log10(abs(value)))
    assert abs(shown - value) <= 0.5 * 10.0 ** (exponent - 3) * (1 + 1e-9) + 1e-300, (token, value)


def assert_shows(text: str, arr: np.ndarray) -> None:
    """``text`` (one value's printed block) holds exactly the numbers of ``arr``, each correctly rounded."""
    tokens = NUMBER.findall(re.sub(r"^shape [\d×]+: ", "", text))
    expected = shown_tokens(arr)
    assert tokens == expected, f"shown {tokens}, expected {expected} for\n{arr}"
    for token, value in zip(tokens, true_values(arr)):
        assert_rounded(token, value)


def find_in_order(haystack: str, needles: list[str]) -> None:
    """Each needle occurs in ``haystack`` after the previous one."""
    at = 0
    for needle in needles:
        found = haystack.find(needle, at)
        assert found >= 0, f"{needle!r} not found (in order) in:\n{haystack}"
        at = found + len(needle)


def operand(text: str) -> str:
    """How the explanation writes a number after · or +: negatives in parentheses."""
    return f"({text})" if text.startswith(("-", "−")) or " × " in text else text


def md_block(arr: np.ndarray) -> str:
    return "```\n" + format_array(arr) + "\n```"


def text_block(arr: np.ndarray) -> str:
    return "\n".join("    " + line for line in format_array(arr).split("\n"))


@functools.lru_cache(maxsize=4)
def node_tables(source: str) -> dict[str, str]:
    """Each node's HTML label table in DOT source, by node id (the first, as a search from the top finds it):
    read once per drawing, not searched again for each of its nodes."""
    tables: dict[str, str] = {}
    for match in re.finditer(r"^\s*(\S+) \[label=<(<TABLE.*?</TABLE>)>", source, flags=re.M):
        tables.setdefault(match.group(1), match.group(2))
    return tables


def dot_label_blocks(source: str, node_id: str) -> tuple[str, str | None]:
    """The value and gradient text of tensor node ``node_id`` in DOT source, as plain text.

    Labels hold fixed-width text (scalars, summaries) or, up to 8×8, a heatmap table with one
    cell per element: table rows become lines and cells are separated by spaces, so either way
    the numbers read in row-major order.
    """
    table = node_tables(source).get(node_id)
    assert table, f"node {node_id} not in the DOT"
    body = table.replace('<BR ALIGN="LEFT"/>', "\n").replace("</TR>", "\n").replace("</TD>", " ")
    plain = html.unescape(re.sub(r"<[^>]+>", "", body)).replace("\u00a0", " ")
    at_val = plain.find("val  ")
    assert at_val >= 0, f"node {node_id} shows no value"
    at_grad = plain.find("grad ", at_val)
    ends = [i for i in (at_grad, plain.find("⚠", at_val)) if i >= 0]
    value = plain[at_val:min(ends) if ends else len(plain)].rstrip()
    grad = plain[at_grad:].rstrip() if at_grad >= 0 else None
    return value, grad


def grad_numbers(grad: str | None, status: str) -> str:
    """The numbers of a label's gradient block, after checking it carries exactly one status word."""
    assert grad is not None and grad.startswith("grad ")
    words = [w for w in grad.split() if w in ("partial", "final", "pending")]
    assert words == [status], f"expected {status!r} in {grad!r}"
    return grad[len("grad "):].replace(status, " ")


def edge_label(source: str, edge_id: str) -> str:
    match = re.search(rf"\[label=<(<FONT.*?</FONT>)>[^\n]*\bid={edge_id}\b", source)
    assert match, f"edge {edge_id} has no label"
    return html.unescape(re.sub(r"<[^>]+>", "", match.group(1))).replace("\u00a0", " ")


# ----------------------------------------------------------------------------------------------
# The audit of one program
# ----------------------------------------------------------------------------------------------
def traced(source: str, upstream: str) -> tuple[Program, Trace, np.ndarray]:
    program = run(source, seed=3)
    shape = program.output.shape
    if upstream == "ones":
        weight = np.ones(shape)
        trace = backward_trace(program.output)
    else:
        weight = np.random.default_rng(11).uniform(0.3, 1.7, size=shape) * np.random.default_rng(12).choice(
            [-1.0, 1.0], size=shape)
        trace = backward_trace(program.output, grad=weight)
    return program, trace, weight


def check_gradients_match_finite_differences(program: Program, trace: Trace, weight: np.ndarray) -> None:
    final = trace.final_grads()
    numeric = finite_differences(program, weight)
    assert program.inputs, "a program to audit needs inputs"
    for x, expected in zip(program.inputs, numeric):
        if id(x) not in final:  # an input the output does not use: not in the graph, no gradient
            assert all(t is not x for t in trace.order) and x.grad is None
            np.testing.assert_allclose(expected, np.zeros(x.shape), atol=1e-8)
            continue
        got = final[id(x)]
        assert got.shape == x.shape
        np.testing.assert_allclose(got, expected, rtol=1e-7, atol=1e-8, err_msg=f"input {x.name}")
        np.testing.assert_array_equal(x.grad, got)  # the leaf's .grad is what the trace ends with


def upstream_over_input(s: TraceStep) -> np.ndarray:
    """The upstream gradient laid over the local derivative's axes.

    A reduction without keepdims loses its reduced axes, so its upstream gradient
    is copied back along them (axes restored as size 1, then broadcast) before it
    multiplies the local derivative; elementwise ops broadcast as NumPy does.
    """
    up = np.asarray(s.upstream, dtype=np.float64)
    params = s.node._op.params
    if up.ndim and up.shape != s.local.shape and "axis" in params and not params.get("keepdims"):
        ndim = s.local.ndim
        axis = params["axis"]
        axes = range(ndim) if axis is None else [a % ndim for a in np.atleast_1d(axis)]
        up = np.expand_dims(up, tuple(sorted(axes)))
    return up


def check_steps_are_consistent(trace: Trace, weight: np.ndarray) -> None:
    steps = trace.steps
    seed = steps[0]
    assert seed.node is None and seed.parent is trace.root
    np.testing.assert_array_equal(seed.contribution, weight)
    np.testing.assert_array_equal(seed.accumulated, weight)
    position = {id(t): k for k, t in enumerate(trace.order)}
    last_into = {id(s.parent): s.index for s in steps}
    running: dict[int, np.ndarray] = {id(trace.root): np.array(weight, dtype=np.float64)}
    seen_edges: set[tuple[int, int]] = set()
    for s in steps[1:]:
        node, parent = s.node, s.parent
        assert node._prev[s.slot] is parent
        assert position[id(parent)] < position[id(node)]
        assert (id(node), s.slot) not in seen_edges
        seen_edges.add((id(node), s.slot))
        # upstream is the node's complete gradient: everything flowing into it came earlier
        assert last_into[id(node)] < s.index, "a node pushed its gradient before it was complete"
        assert id(node) in running, "a node pushed a gradient it never received"
        np.testing.assert_array_equal(s.upstream, running[id(node)])
        if s.local is not None:
            up = upstream_over_input(s)
            np.testing.assert_allclose(s.contribution_raw, up * s.local, rtol=1e-14, atol=0)
        reference, axes = unbroadcast(s.contribution_raw, parent.shape)
        assert tuple(s.summed_axes) == axes
        np.testing.assert_allclose(s.contribution, reference, rtol=1e-13, atol=1e-15)
        before = running.get(id(parent))
        running[id(parent)] = s.contribution.copy() if before is None else before + s.contribution
        np.testing.assert_allclose(s.accumulated, running[id(parent)], rtol=1e-13, atol=1e-15)
        assert s.accumulated.shape == parent.shape
    for s in steps:
        assert s.is_final == (last_into[id(s.parent)] == s.index)
    # every edge into something that requires grad carried exactly one step
    for node in trace.order:
        if node._op is None or id(node) not in running:
            continue
        for slot, parent in enumerate(node._prev):
            if parent.requires_grad:
                assert (id(node), slot) in seen_edges, f"no step for {type(node._op).name} slot {slot}"


def previous_total(trace: Trace, s: TraceStep) -> np.ndarray | None:
    earlier = [t for t in trace.steps[: s.index] if t.parent is s.parent]
    return earlier[-1].accumulated if earlier else None


def inline(a: np.ndarray) -> str:
    """How the arithmetic line writes a value: the number, a vector of up to 4, else its shape."""
    a = np.asarray(a)
    if a.size == 1:
        return format_number(a.reshape(-1)[0])
    if a.ndim == 1 and a.size <= 4:
        return format_array(a)
    return "(" + "×".join(map(str, a.shape)) + ")"


def check_entry_line(s: TraceStep, parent: str, arith: str, entry: tuple[int, ...], before) -> None:
    """A tensor step's worked entry: ``… ⇒  grad p[i,j] += … = c`` (``⇒  grad p[i,j] = old + c = new``)."""
    name = f"grad {parent}" + (f"[{','.join(map(str, entry))}]" if entry else "")
    assert f"  ⇒  {name} += " in arith, arith
    worked = arith.split(f"  ⇒  {name} += ", 1)[1]
    if before is None:
        assert_rounded(worked.rsplit(" = ", 1)[1], float(s.contribution[entry]))
    else:
        worked, total = worked.split(f"  ⇒  {name} = ")
        assert_rounded(worked.rsplit(" = ", 1)[1], float(s.contribution[entry]))
        old, rest = total.split(" + ", 1)
        added, new = rest.split(" = ")
        assert_rounded(old, float(before[entry]))
        assert_rounded(added.strip("()"), float(s.contribution[entry]))
        assert_rounded(new, float(s.accumulated[entry]))
    if s.summed_axes:
        assert f"Σ over axis {', '.join(map(str, s.summed_axes))} → " in arith


def check_arithmetic_line(trace: Trace, s: TraceStep, node: str, parent: str, arith: str,
                          entry: tuple[int, ...] | None = None) -> None:
    """``grad n · ∂n/∂p = up · local = product  ⇒  grad p += contribution → total`` with the right numbers."""
    if s.local is not None and all(np.size(a) == 1 for a in (s.upstream, s.local, s.contribution_raw)):
        up, loc, prod = (float(np.asarray(a).reshape(-1)[0]) for a in (s.upstream, s.local, s.contribution_raw))
        product = f"{format_number(up)} · {operand(format_number(loc))} = {format_number(prod)}"
        assert arith.startswith(f"grad {node} · ∂{node}/∂{parent} = {product}  ⇒  "), arith
        assert_rounded(format_number(up), up)
        assert_rounded(format_number(loc), loc)
        assert_rounded(format_number(prod), up * loc)
        # the printed factors multiply to the printed product within rounding
        assert abs(parse_number(format_number(up)) * parse_number(format_number(loc))
                   - parse_number(format_number(prod))) <= \
            1e-3 * abs(up * loc) + 1e-12
    before = previous_total(trace, s)
    if entry is not None:
        check_entry_line(s, parent, arith, entry, before)
        return
    if before is None:
        assert arith.endswith(f"  ⇒  grad {parent} = {inline(s.accumulated)}"), arith
    elif all(np.size(a) == 1 for a in (before, s.contribution, s.accumulated)):
        # an accumulation is written out as the sum: grad x = 1.000 + (−2.000) = −1.000
        assert arith.endswith(f"  ⇒  grad {parent} = {inline(before)} + {operand(inline(s.contribution))} = "
                              f"{inline(s.accumulated)}"), arith
    elif not any(inline(a).startswith("(") for a in (before, s.contribution, s.accumulated)):
        assert arith.endswith(f"  ⇒  grad {parent} = {inline(before)} + {inline(s.contribution)} = "
                              f"{inline(s.accumulated)}"), arith
    else:
        assert arith.endswith(f"  ⇒  grad {parent} += {inline(s.contribution)} → {inline(s.accumulated)}"), arith
    tail = arith.rsplit("⇒", 1)[1]
    if not inline(s.accumulated).startswith("("):  # numbers, not a shape: each one correctly rounded
        values = [*true_values(before), *true_values(s.contribution)] \
            if before is not None and not inline(before).startswith("(") else \
            [*true_values(s.contribution)] if before is not None else []
        values += true_values(s.accumulated)
        tokens = NUMBER.findall(tail)
        assert len(tokens) == len(values), (tail, values)
        for token, value in zip(tokens, values):
            assert_rounded(token, value)
    if s.summed_axes:
        assert f"Σ over axis {', '.join(map(str, s.summed_axes))} → " in arith


def html_numbers(fragment: str) -> list[str]:
    """The numbers an HTML explanation shows, in reading order (tags and attributes dropped)."""
    blocks = re.sub(r"</(td|tr|p|div|figure|pre|table)>", " ", fragment)
    return NUMBER.findall(html.unescape(re.sub(r"<[^>]+>", "", blocks)))


def check_explanations(trace: Trace) -> None:
    last = len(trace.steps) - 1
    for s in trace.steps:
        e = explain(trace, s.index)
        assert e.title.startswith(f"Step {s.index} of {last}")
        # the HTML (heatmap cells, summaries, the arithmetic line) shows exactly the numbers of the text
        assert html_numbers(e.html) == NUMBER.findall(e.text)
        if s.node is None:
            if trace.root.shape or not np.all(s.contribution == 1):
                find_in_order(e.text, [text_block(s.contribution)])
                find_in_order(e.markdown, [md_block(s.contribution)])
                assert_shows(format_array(s.contribution), s.contribution)
            continue
        uses = sum(1 for q in s.node._prev if q is s.parent)
        if uses > 1:
            assert f"is used {uses} times by this op" in e.text
        scalarish = all(np.size(a) == 1 for a in (s.upstream, s.local, s.contribution_raw) if a is not None)
        # the arithmetic line leads (text, Markdown heading, HTML's first element) and adds up
        arith = e.text.split("\n\n")[0]
        assert arith == e.arithmetic
        assert e.markdown.startswith("#### ") and e.html.startswith('<div class="lgl-explain"><div class="lgl-arith">')
        check_arithmetic_line(trace, s, e.node, e.parent, arith, e.entry)
        assert NUMBER.findall(e.markdown.split("\n\n")[0]) == NUMBER.findall(arith)
        text_parts = [text_block(s.upstream)]
        md_parts = [md_block(s.upstream)]
        assert_shows(format_array(s.upstream), s.upstream)
        if s.local is not None and scalarish:
            pass  # upstream · local = product is the arithmetic line, checked above
        else:
            shown = [s.local, s.contribution_raw] if s.local is not None else [s.contribution_raw]
            if s.local is None and type(s.node._op).name == "matmul":
                # a matrix product's gradient shows the other factor's value, then the product
                other = s.node._prev[1 - s.slot].data
                text_parts += ["The other factor", text_block(other)]
                md_parts += ["The other factor", md_block(other)]
                assert_shows(format_array(other), other)
            text_parts += [text_block(shown[0])]
            md_parts += [md_block(shown[0])]
            if s.local is not None and np.ndim(s.upstream) and upstream_over_input(s).shape != np.shape(s.upstream):
                # a reduction's upstream gradient, copied back along the axes it removed
                spread = np.broadcast_to(upstream_over_input(s), s.local.shape)
                shown.append(spread)
                text_parts += ["so the upstream gradient is first copied back along", text_block(spread)]
                md_parts += ["so the upstream gradient is first copied back along", md_block(spread)]
            if s.local is not None:
                text_parts += [text_block(s.contribution_raw)]
                md_parts += [md_block(s.contribution_raw)]
            for a in shown:
                assert_shows(format_array(a), a)
        if s.summed_axes:
            listed = ", ".join(str(a) for a in s.summed_axes)
            raw, extra = s.contribution_raw.shape, s.contribution_raw.ndim - s.parent.ndim
            for a in s.summed_axes:  # how many copies broadcasting made, as the text says it
                assert (f"copied it {raw[a]} times" if a < extra else
                        f"its axis {a - extra} has size 1 and was stretched to {raw[a]}") in e.text
            text_parts += [f"sum over axis {listed}", text_block(s.contribution)]
            md_parts += [f"sum over axis {listed}", md_block(s.contribution)]
            assert_shows(format_array(s.contribution), s.contribution)
        before = previous_total(trace, s)
        if before is None:
            text_parts += ["This is the first contribution", text_block(s.accumulated)]
            md_parts += ["This is the first contribution", md_block(s.accumulated)]
            np.testing.assert_array_equal(s.accumulated, s.contribution)
        elif np.size(before) == 1:
            b, c, t = (float(np.asarray(a).reshape(-1)[0]) for a in (before, s.contribution, s.accumulated))
            line = f"= {format_number(b)} + {operand(format_number(c))} = {format_number(t)}"
            text_parts.append(line)
            md_parts.append(line)
            assert abs(parse_number(format_number(b)) + parse_number(format_number(c))
                       - parse_number(format_number(t))) <= \
                1e-3 * max(abs(b), abs(c), abs(t)) + 1e-12
        else:
            text_parts += [text_block(before), "and after adding this contribution it is", text_block(s.accumulated)]
            md_parts += [md_block(before), "and after adding this contribution it is", md_block(s.accumulated)]
            assert_shows(format_array(s.accumulated), s.accumulated)
        later = sum(1 for t in trace.steps[s.index + 1:] if t.parent is s.parent)
        if s.is_final:
            text_parts.append("is now final")
            md_parts.append("is now **final**")
            assert later == 0
        else:
            word = "contribution" if later == 1 else "contributions"
            text_parts.append(f"is partial: {later} more {word} will arrive")
            md_parts.append(f"is **partial**: {later} more {word} will arrive")
        find_in_order(e.text, text_parts)
        find_in_order(e.markdown, md_parts)
        np.testing.assert_array_equal(e.accumulated, s.accumulated)


def check_dot_large(trace: Trace) -> None:
    """Large-graph mode (what the app draws for big graphs): one-line labels show a scalar, or the mean."""
    def one_line(arr: np.ndarray) -> np.ndarray:
        a = np.asarray(arr, dtype=np.float64)
        return a if a.ndim == 0 else np.asarray(a[np.isfinite(a)].mean())

    position = {id(t): k for k, t in enumerate(trace.order)}
    final = trace.final_grads()
    last = len(trace.steps) - 1
    for step in range(len(trace.steps)):
        source = to_dot(trace.root, trace, step, large=True).source
        drawn = {int(k) for k in re.findall(r"^\s*t(\d+) \[label=", source, flags=re.M)}
        assert trace.root is trace.order[-1] and position[id(trace.root)] in drawn
        if step == last:
            for k in drawn:
                t = trace.order[k]
                value, grad = dot_label_blocks(source, f"t{k}")
                assert_shows(value[len("val  "):], one_line(t.data))
                if id(t) in final:
                    assert_shows(grad_numbers(grad, "final"), one_line(final[id(t)]))
        s = trace.steps[step]
        k = position[id(s.parent)]
        if k in drawn:
            _, grad = dot_label_blocks(source, f"t{k}")
            assert_shows(grad_numbers(grad, "final" if s.is_final else "partial"), one_line(s.accumulated))


def check_dot(trace: Trace, every_step: bool) -> None:
    """Every tensor's value, and its gradient as it stands after each step (or "—" before any
    arrived), plus the note on the edge the gradient flows along."""
    order = trace.order
    position = {id(t): k for k, t in enumerate(order)}
    last_into = {id(s.parent): s.index for s in trace.steps}
    shown: dict[int, tuple[np.ndarray, str]] = {}  # our own running state: gradient and status word
    for s in trace.steps:
        before = shown.get(id(s.parent))
        total = s.contribution.copy() if before is None else before[0] + s.contribution
        shown[id(s.parent)] = (total, "final" if last_into[id(s.parent)] == s.index else "partial")
        if not every_step and s.index != len(trace.steps) - 1:
            continue
        source = to_dot(trace.root, trace, s.index, large=False).source
        for k, t in enumerate(order):
            value, grad = dot_label_blocks(source, f"t{k}")
            assert_shows(value[len("val  "):], t.data)
            if id(t) in shown:
                assert_shows(grad_numbers(grad, shown[id(t)][1]), shown[id(t)][0])
            elif t.requires_grad:  # not reached yet (or never: nothing flows into it)
                assert grad is not None and grad.split() == ["grad", "—", "pending"]
            else:
                assert grad is None  # constants have no gradient row
        if s.node is not None:
            note = edge_label(source, f"e{position[id(s.node)]}_{s.slot}")
            assert note.startswith("◀ grad += ")
            body, _, summed = note[len("◀ grad += "):].partition("  (Σ axis ")
            c = np.asarray(s.contribution)
            if c.ndim == 0 or (c.ndim == 1 and c.size <= 3):
                assert_shows(body, c)
            else:
                assert body.startswith("×".join(map(str, c.shape)) + ", mean ")
                mean = body.split(", mean ", 1)[1]
                assert mean == format_number(c.mean())
                assert_rounded(mean, float(c.mean()))
            assert summed.rstrip(")") == ",".join(str(a) for a in s.summed_axes)


def circuit_blocks(source: str, node_id: str) -> tuple[str, str]:
    """The text above the wire (value, after the name row) and below it (gradient and mark) of a circuit node."""
    table = node_tables(source).get(node_id)
    assert table, f"node {node_id} not in the DOT"
    above, wire, below = table.partition('PORT="wire"')
    assert wire, f"node {node_id} has no wire"

    def plain(fragment: str) -> str:
        body = fragment.replace("</TR>", "\n").replace("</TD>", " ")
        return html.unescape(re.sub(r"<[^>]+>", "", body)).replace("\u00a0", " ")

    above, below = above[:above.rfind("<TR")], below.split("</TR>", 1)[1]  # the wire's own row holds no text
    return plain(above.split("</TR>", 1)[1]), plain(below)


def circuit_numbers(arr: np.ndarray) -> np.ndarray:
    """What the circuit preset prints for ``arr``: every element up to 8×8, else the mean of the finite ones."""
    a = np.asarray(arr, dtype=np.float64)
    return a if is_small(a) else np.asarray(a[np.isfinite(a)].mean())


def check_dot_circuit(trace: Trace, every_step: bool) -> None:
    """The circuit preset: each value above its wire, and below it the gradient as it stands after each step
    with its mark (◐ partial, ✓ final; a dash and no mark before any arrived; nothing for constants)."""
    last_into = {id(s.parent): s.index for s in trace.steps}
    shown: dict[int, tuple[np.ndarray, str]] = {}
    for s in trace.steps:
        before = shown.get(id(s.parent))
        total = s.contribution.copy() if before is None else before[0] + s.contribution
        shown[id(s.parent)] = (total, "✓" if last_into[id(s.parent)] == s.index else "◐")
        if not every_step and s.index != len(trace.steps) - 1:
            continue
        source = to_dot(trace.root, trace, s.index, large=False, preset="circuit").source
        for k, t in enumerate(trace.order):
            if not re.search(rf"^\s*t{k} \[", source, flags=re.M):
                # an unnamed scalar constant folded into its op's gate (+1, 1/x, ×2): its number is in the gate
                assert t._op is None and not t.requires_grad and not t.name and t.size == 1, f"t{k} is missing"
                gate = [line for line in source.splitlines() if f"t{k} ->" in line]
                assert not gate, gate  # and its edge is not drawn either
                continue
            value, grad = circuit_blocks(source, f"t{k}")
            assert_shows(value.replace("mean", ""), circuit_numbers(t.data))
            marks = [m for m in ("◐", "✓") if m in grad]
            if id(t) in shown:
                total, mark = shown[id(t)]
                assert marks == [mark]
                assert_shows(grad.replace("mean", "").replace(mark, ""), circuit_numbers(total))
            elif t.requires_grad:
                assert marks == [] and grad.split() == ["—"]
            else:
                assert grad.split() == [] or set(grad.split()) == {"—"}  # a constant: a blank row


@pytest.mark.parametrize("upstream", ["ones", "random"])
@pytest.mark.parametrize("source", CASES)
def test_every_number_shown_for_a_program_is_right(source: str, upstream: str) -> None:
    program, trace, weight = traced(source, upstream)
    check_gradients_match_finite_differences(program, trace, weight)
    check_steps_are_consistent(trace, weight)
    check_explanations(trace)
    check_dot(trace, every_step=len(trace.steps) <= 80)
    check_dot_circuit(trace, every_step=len(trace.steps) <= 80)
    if len(trace.order) > 60:
        check_dot_large(trace)


def test_the_gallery_is_audited() -> None:
    pytest.importorskip("lucid.gallery")
    assert len(EXAMPLES) >= 5


# ----------------------------------------------------------------------------------------------
# The classroom example, derived by hand
# ----------------------------------------------------------------------------------------------
def test_classroom_example_matches_hand_derived_partials() -> None:
    """f = tanh(ab + c²)·σ(a − c) + log(b² + 1) at a = 1.3, b = -0.7, c = 0.45.

    With T = tanh(ab + c²), S = σ(a − c), T' = 1 − T², S' = S(1 − S):
    ∂f/∂a = T'·b·S + T·S',  ∂f/∂b = T'·a·S + 2b/(b² + 1),  ∂f/∂c = T'·2c·S − T·S'.
    """
    a, b, c = 1.3, -0.7, 0.45
    t = math.tanh(a * b + c**2)
    s = 1 / (1 + math.exp(-(a - c)))
    dt, ds = 1 - t * t, s * (1 - s)
    expected = {
        "a": dt * b * s + t * ds,
        "b": dt * a * s + 2 * b / (b * b + 1),
        "c": dt * 2 * c * s - t * ds,
    }
    program = run("a = 1.3\nb = -0.7\nc = 0.45\nout = tanh(a*b + c**2) * sigmoid(a - c) + log(b*b + 1)\n")
    assert program.output.item() == pytest.approx(t * s + math.log(b * b + 1), abs=1e-15)
    trace = backward_trace(program.output)
    final = trace.final_grads()
    for name, value in expected.items():
        x = program.variables[name]
        assert abs(float(final[id(x)]) - value) < 1e-12, name
        assert abs(float(x.grad) - value) < 1e-12, name
    # and the graph shows them, rounded to 4 significant digits
    source = to_dot(trace.root, trace).source
    position = {id(t): k for k, t in enumerate(trace.order)}
    for name, value in expected.items():
        _, grad = dot_label_blocks(source, f"t{position[id(program.variables[name])]}")
        assert grad_numbers(grad, "final").split() == [format_number(value)]
        assert_rounded(format_number(value), value)


def test_a_reduction_step_shows_the_upstream_copied_back_along_the_removed_axis() -> None:
    """Σ(axis=1) of a 3×3 A: the upstream [1, 2, 3] belongs to rows. Multiplying it by the 3×3 local
    derivative with NumPy's trailing-axis broadcasting would put it in columns, so the explanation
    must show it copied back along axis 1 before the element-by-element product."""
    program = run("A = randn(3, 3)\ns = A.sum(axis=1)\nout = sum(s * const([1.0, 2.0, 3.0]))\n")
    trace = backward_trace(program.output)
    step = trace.steps[-1]
    assert step.parent is program.variables["A"]
    rows = np.array([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0], [3.0, 3.0, 3.0]])
    np.testing.assert_array_equal(step.contribution_raw, rows)
    text = explain(trace, step.index).text
    find_in_order(text, ["Upstream gradient", "    [1.000 2.000 3.000]",
                         "Σ(axis=1) removed axis 1, so the upstream gradient is first copied back along it "
                         "(shape 3 → 3×3):", text_block(rows),
                         "Product upstream ⊙ local, element by element (shape 3×3):", text_block(rows)])


@settings(max_examples=400, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300))
def test_format_number_is_the_value_rounded_to_4_significant_digits(x: float) -> None:
    assert_rounded(format_number(x), x)


# ----------------------------------------------------------------------------------------------
# Random programs: many paths into the same variables, broadcasting, reductions and matmuls mixed
# ----------------------------------------------------------------------------------------------
SHAPES = [(), (3,), (2, 3), (2, 1), (1, 3)]
UNARY = ["tanh({x})", "sigmoid({x})", "sin({x})", "({x} * {x})", "log({x} * {x} + 1)", "sqrt({x} * {x} + 0.5)",
         "exp(tanh({x}))", "({x} * {x} + 1) ** 1.5", "softplus({x})", "-{x}"]
BINARY = ["({x} + {y})", "({x} - {y})", "({x} * {y})", "({x} / ({y} * {y} + 1))", "maximum({x}, {y} + 0.05)"]


def random_program(seed: int) -> str:
    """A small random program whose values stay away from kinks and poles (so finite differences hold)."""
    rnd = np.random.default_rng(seed)
    names: list[tuple[str, tuple[int, ...]]] = []
    lines = []
    for i in range(int(rnd.integers(2, 4))):
        shape = SHAPES[int(rnd.integers(len(SHAPES)))]
        name = f"x{i}"
        lines.append(f"{name} = randn({', '.join(map(str, shape))})" if shape else f"{name} = {rnd.normal():.3f}")
        names.append((name, shape))
    for i in range(int(rnd.integers(4, 9))):
        kind = rnd.choice(["unary", "binary", "binary", "reduce", "matmul", "index", "axis-op", "gate"])
        x, sx = names[int(rnd.integers(len(names)))]
        y, sy = names[int(rnd.integers(len(names)))]  # often the same as x: two paths into one node
        if kind == "unary":
            expr, shape = UNARY[int(rnd.integers(len(UNARY)))].format(x=x), sx
        elif kind == "binary":
            try:
                shape = tuple(np.broadcast_shapes(sx, sy))
            except ValueError:
                continue
            expr = BINARY[int(rnd.integers(len(BINARY)))].format(x=x, y=y)
        elif kind == "reduce" and sx:
            axis = int(rnd.integers(-len(sx), len(sx)))
            keep = bool(rnd.integers(2))
            fn = ["sum", "mean", "logsumexp", "max", "var"][int(rnd.integers(5))]
            expr = f"{fn}({x}, axis={axis}, keepdims={keep})"
            shape = tuple(1 if k == axis % len(sx) else n for k, n in enumerate(sx)) if keep else \
                tuple(n for k, n in enumerate(sx) if k != axis % len(sx))
        elif kind == "matmul" and len(sx) == 2 and sx[1] == 3:
            expr, shape = f"({x} @ const(randn(3, 2)))", (sx[0], 2)
        elif kind == "index" and sx and sx[0] >= 2:
            expr, shape = f"{x}[[1, 0, 1]]", (3,) + sx[1:]
        elif kind == "axis-op" and sx:
            choice = int(rnd.integers(3))
            if choice == 2 and len(sx) == 2:
                expr, shape = f"{x}.T", sx[::-1]
            else:
                expr, shape = f"{['softmax', 'log_softmax', 'softmax'][choice]}({x}, axis=-1)", sx
        elif kind == "gate":
            expr = [f"where({x} > 0, {x} * 2, {x} * {x})", f"clip({x}, -0.5, 0.5)", f"abs({x}) + relu({x})"][
                int(rnd.integers(3))]
            shape = sx
        else:
            continue
        name = f"v{i}"
        lines.append(f"{name} = {expr}")
        names.append((name, shape))
    last, shape = names[-1]
    weights = f" * const(randn({', '.join(map(str, shape))}))" if shape else " * 1.5"
    extra = "".join(f" + sum({names[int(k)][0]}) / {j + 2}" for j, k in enumerate(rnd.integers(len(names), size=2)))
    lines.append(f"out = sum({last}{weights}) + sum({names[0][0]} * {names[0][0]}) / 3{extra}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(30))
def test_every_number_shown_for_a_random_program_is_right(seed: int) -> None:
    source = random_program(seed)
    for upstream in ("ones", "random"):
        program, trace, weight = traced(source, upstream)
        check_gradients_match_finite_differences(program, trace, weight)
        check_steps_are_consistent(trace, weight)
        check_explanations(trace)
        check_dot(trace, every_step=len(trace.steps) <= 40)
        check_dot_circuit(trace, every_step=len(trace.steps) <= 40)
