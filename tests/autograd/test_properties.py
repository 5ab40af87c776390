"""Property tests: random compositions of ops differentiate like finite differences.

Hypothesis builds random expression trees over elementwise unary ops, broadcasting
binary ops and axis reductions, applied to inputs whose shapes all broadcast to
(2, 3): (2, 3), (1, 3), (2, 1), (3,) and (). Every tree is checked with
``lucid.autograd.gradcheck`` (central differences, random upstream gradient).
Ops with kinks (abs, relu, max, a data-dependent where) are left to the per-op
tests: a random tree can land exactly on a kink (``(x1 + x0) - x0`` ties with
``x1``), where finite differences are meaningless. Domain-limited
ops get safe arguments (``log(x² + 1)``), and the runs are derandomized so the
suite is reproducible.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lucid
from lucid import Tensor
from lucid.autograd import backward_trace, gradcheck

SHAPES = [(2, 3), (1, 3), (2, 1), (3,), ()]
MASK = np.array([[True, False, True], [False, True, False]])
N_INPUTS = 3

UNARY: dict[str, Callable[[Tensor], Tensor]] = {
    "neg": lambda x: -x,
    "scale": lambda x: x * 0.7,
    "square": lambda x: x ** 2,
    "tanh": lucid.tanh,
    "sin": lucid.sin,
    "cos": lucid.cos,
    "sigmoid": lucid.sigmoid,
    "softplus": lucid.softplus,
    "exp": lambda x: lucid.exp(lucid.tanh(x)),
    "log": lambda x: lucid.log(x * x + 1.0),
    "sqrt": lambda x: lucid.sqrt(x * x + 0.25),
    "softmax": lambda x: lucid.softmax(x, axis=-1) if x.ndim else x,
    "log_softmax": lambda x: lucid.log_softmax(x, axis=-1) if x.ndim else x,
}

BINARY: dict[str, Callable[[Tensor, Tensor], Tensor]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / (b * b + 1.0),
    "pow": lambda a, b: (a * a + 0.5) ** lucid.tanh(b),
    # a fixed mask: a data-dependent one (a > b) jumps where a and b tie, and finite differences can't follow
    "where": lambda a, b: lucid.where(MASK, a, b),
}

REDUCE: dict[str, Callable[..., Tensor]] = {
    "sum": lucid.sum, "mean": lucid.mean, "logsumexp": lucid.logsumexp, "var": lucid.var,
}

# Every mode keeps the result broadcastable against (2, 3), so any two subtrees can meet.
MODES = ["all", "first", "first_keep", "last_keep", "both_keep"]


def reduce_args(mode: str, ndim: int) -> dict[str, Any]:
    """Axis/keepdims for a reduction ``mode`` on a value with ``ndim`` axes."""
    if ndim == 0 or mode == "all":
        return {"axis": None}
    if mode == "first":
        return {"axis": 0}
    if mode == "first_keep":
        return {"axis": 0, "keepdims": True}
    if mode == "last_keep":
        return {"axis": -1, "keepdims": True}
    return {"axis": tuple(range(ndim)), "keepdims": True}


def evaluate(tree: tuple, inputs: list[Tensor]) -> Tensor:
    kind = tree[0]
    if kind == "leaf":
        return inputs[tree[1]]
    if kind == "unary":
        return UNARY[tree[1]](evaluate(tree[2], inputs))
    if kind == "binary":
        return BINARY[tree[1]](evaluate(tree[2], inputs), evaluate(tree[3], inputs))
    child = evaluate(tree[3], inputs)
    return REDUCE[tree[1]](child, **reduce_args(tree[2], child.ndim))


def describe(tree: tuple) -> str:
    kind = tree[0]
    if kind == "leaf":
        return f"x{tree[1]}"
    if kind == "unary":
        return f"{tree[1]}({describe(tree[2])})"
    if kind == "binary":
        return f"{tree[1]}({describe(tree[2])}, {describe(tree[3])})"
    return f"{tree[1]}[{tree[2]}]({describe(tree[3])})"


@st.composite
def trees(draw: st.DrawFn) -> tuple:
    """A random expression of 2-7 ops, built bottom-up so every example is a real composition.

    Each op applies to the expression built so far; a binary op's other operand
    is anything built earlier (an input or a shared subexpression, as in ``x*x``
    or a residual), on either side.
    """
    pool: list[tuple] = [("leaf", i) for i in range(N_INPUTS)]
    current = draw(st.sampled_from(pool))
    for _ in range(draw(st.integers(2, 7))):
        kind = draw(st.sampled_from(["unary", "binary", "binary", "reduce"]))
        if kind == "unary":
            node = ("unary", draw(st.sampled_from(sorted(UNARY))), current)
        elif kind == "binary":
            other = draw(st.sampled_from(pool))
            left, right = (current, other) if draw(st.booleans()) else (other, current)
            node = ("binary", draw(st.sampled_from(sorted(BINARY))), left, right)
        else:
            node = ("reduce", draw(st.sampled_from(sorted(REDUCE))), draw(st.sampled_from(MODES)), current)
        pool.append(current)
        current = node
    return current


input_shapes = st.lists(st.sampled_from(SHAPES), min_size=N_INPUTS, max_size=N_INPUTS)

PROPERTY_SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                             suppress_health_check=[HealthCheck.too_slow])


def make_inputs(shapes: list[tuple[int, ...]], seed: int) -> list[Tensor]:
    rng = np.random.default_rng(seed)
    return [Tensor(rng.uniform(-1.5, 1.5, shape), requires_grad=True, name=f"x{i}") for i, shape in enumerate(shapes)]


@PROPERTY_SETTINGS
@given(tree=trees(), shapes=input_shapes, seed=st.integers(0, 2**16))
def test_random_compositions_match_finite_differences(tree, shapes, seed):
    inputs = make_inputs(shapes, seed)
    report = gradcheck(lambda *xs: evaluate(tree, list(xs)), inputs, atol=1e-5, rtol=1e-4, seed=seed)
    assert len(report.inputs) == N_INPUTS
    for r in report.inputs:
        assert r.ok, (f"{describe(tree)} with shapes {shapes}: input x{r.index} max abs error "
                      f"{r.max_abs_error:.3g}, max rel error {r.max_rel_error:.3g}")


@PROPERTY_SETTINGS
@given(tree=trees(), shapes=input_shapes, seed=st.integers(0, 2**16))
def test_trace_final_gradients_equal_the_engine_gradients(tree, shapes, seed):
    inputs = make_inputs(shapes, seed)
    out = evaluate(tree, inputs)
    upstream = np.random.default_rng(seed).uniform(0.5, 1.5, out.shape)
    trace = backward_trace(out, upstream)
    edges = sum(1 for node in trace.order for parent in node._prev if parent.requires_grad)
    assert len(trace.steps) == 1 + edges  # the seed, then exactly one step per edge
    final = trace.final_grads()
    for x in inputs:
        if id(x) in final:
            np.testing.assert_allclose(final[id(x)], x.grad, rtol=0, atol=0)
        else:
            assert x.grad is None
    first = [None if x.grad is None else x.grad.copy() for x in inputs]
    out.backward(upstream)  # the same graph again: every leaf gradient accumulates exactly once more
    for x, g in zip(inputs, first):
        if g is not None:
            np.testing.assert_allclose(x.grad, 2 * g, rtol=1e-12, atol=1e-12)
