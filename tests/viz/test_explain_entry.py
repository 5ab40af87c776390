"""A tensor step's headline works one entry out in numbers, and those numbers are NumPy's.

Each program seeds the backward pass with an upstream gradient that is not all ones (``grad=G``), so a
headline that multiplied by the wrong factor, summed the wrong axis or forgot ``+=`` shows a wrong number.
The entry shown is the contribution's largest in magnitude.
"""
import re

import numpy as np
import pytest

from lucid import Tensor
from lucid.autograd import backward_trace
from lucid.i18n import use_language
from lucid.viz import explain
from lucid.viz.numbers import format_number, parse_number

X = np.array([[0.5, -1.25], [2.0, 0.75], [-0.5, 1.5]])
W = np.array([[1.5, -0.5, 0.25, 2.0], [-1.0, 0.5, 3.0, -0.75]])
G = np.array([[0.5, -2.0, 1.0, 0.25], [-1.5, 0.75, 2.5, -0.5], [1.25, 0.5, -1.0, 3.0]])


def named(t: Tensor, name: str) -> Tensor:
    t.name = name
    return t


def step_into(trace, parent: Tensor, nth: int = 0):
    """The explanation of the ``nth`` step whose gradient flows into ``parent``."""
    steps = [s.index for s in trace.steps if s.parent is parent]
    return explain(trace, steps[nth])


def largest(a: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(np.abs(a))), a.shape))


def result(arith: str) -> float:
    """The number after the last ``=`` of the headline."""
    return parse_number(arith.rsplit(" = ", 1)[1])


def operand(x: float) -> str:
    text = format_number(x)
    return f"({text})" if text.startswith("−") else text


def numbers(text: str) -> list[float]:
    return [parse_number(t) for t in re.findall(r"[−-]?\d+(?:\.\d+)?(?: × 10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)?", text)]


def matmul_trace():
    x = Tensor(X, requires_grad=True, name="x")
    w = Tensor(W, requires_grad=True, name="W")
    y = named(x @ w, "Y")
    return backward_trace(y, grad=G), x, w


def test_matmul_weight_entry_is_a_column_of_x_against_a_column_of_the_upstream_gradient():
    trace, x, w = matmul_trace()
    e = step_into(trace, w)
    expected = X.T @ G
    r, c = largest(expected)
    assert e.entry == (r, c) == (0, 2)
    terms = " + ".join(f"{operand(X[k, r])}·{operand(G[k, c])}" for k in range(3))
    assert e.arithmetic == (f"2×3 @ 3×4 → 2×4  ⇒  grad W[0,2] += Σₖ x[k,0] · grad Y[k,2] = {terms} = "
                            f"{format_number(expected[r, c])}")
    assert terms == "0.5000·1.000 + 2.000·2.500 + (−0.5000)·(−1.000)"
    assert result(e.arithmetic) == expected[r, c] == 6.0


def test_matmul_input_entry_is_a_row_of_the_upstream_gradient_against_a_row_of_the_weight():
    trace, x, w = matmul_trace()
    e = step_into(trace, x)
    expected = G @ W.T
    r, c = largest(expected)
    assert e.entry == (r, c)
    assert e.arithmetic.startswith(f"3×4 @ 4×2 → 3×2  ⇒  grad x[{r},{c}] += Σₖ grad Y[{r},k] · W[{c},k] = ")
    assert "(4 terms)" not in e.arithmetic  # four terms are all written out
    assert numbers(e.arithmetic.split(" = ", 1)[1])[:-1] == \
        pytest.approx([v for k in range(4) for v in (G[r, k], W[c, k])], rel=1e-3)
    assert result(e.arithmetic) == pytest.approx(expected[r, c], rel=1e-3)


def test_elementwise_multiply_entry_is_upstream_times_the_other_factor():
    a = Tensor(X, requires_grad=True, name="a")
    b = Tensor(X[::-1] * 2 - 0.5, requires_grad=True, name="b")
    up = np.array([[1.5, -0.25], [0.5, 2.0], [-3.0, 1.0]])
    trace = backward_trace(named(a * b, "c"), grad=up)
    e = step_into(trace, a)
    expected = up * b.data
    i, j = largest(expected)
    assert e.entry == (i, j)
    assert e.arithmetic == (f"3×2 ⊙ 3×2 → 3×2  ⇒  grad a[{i},{j}] += grad c[{i},{j}] · ∂c/∂a[{i},{j}] = "
                            f"{format_number(up[i, j])} · {operand(b.data[i, j])} = {format_number(expected[i, j])}")
    assert result(e.arithmetic) == pytest.approx(expected[i, j], rel=1e-3)


def test_a_broadcast_bias_entry_sums_the_upstream_gradient_down_its_column():
    x = Tensor(X, requires_grad=True, name="x")
    b = Tensor(np.array([0.1, -0.2]), requires_grad=True, name="b")
    up = np.array([[1.5, -0.25], [0.5, 2.0], [-3.0, 1.0]])
    trace = backward_trace(named(x + b, "Y"), grad=up)
    e = step_into(trace, b)
    expected = up.sum(axis=0)
    (j,) = largest(expected)
    assert e.entry == (j,) == (1,)
    assert e.arithmetic == "3×2 ⊙ 3×2 → 3×2, Σ over axis 0 → 2  ⇒  grad b[1] += Σᵢ grad Y[i,1] = " \
                           "−0.2500 + 2.000 + 1.000 = 2.750"
    assert result(e.arithmetic) == expected[1] == 2.75


def test_a_long_sum_shows_its_first_two_and_last_terms_and_counts_them():
    x = Tensor(np.arange(12.0).reshape(6, 2) / 4 - 1, requires_grad=True, name="x")
    b = Tensor(np.zeros(2), requires_grad=True, name="b")
    up = np.arange(12.0).reshape(6, 2)[::-1] / 2 - 1.5
    trace = backward_trace(named(x + b, "Y"), grad=up)
    e = step_into(trace, b)
    expected = up.sum(axis=0)
    (j,) = largest(expected)
    col = up[:, j]
    assert e.arithmetic.endswith(f"Σᵢ grad Y[i,{j}] = {format_number(col[0])} + {operand(col[1])} + … + "
                                 f"{operand(col[5])}\u00a0(6\u00a0terms) = {format_number(expected[j])}")
    with use_language("ko"):
        assert "(6개\u00a0항)" in step_into(trace, b).arithmetic


def test_sum_over_an_axis_copies_the_upstream_entry_back():
    a = Tensor(X, requires_grad=True, name="A")
    up = np.array([-0.5, 2.5])
    trace = backward_trace(named(a.sum(axis=0), "s"), grad=up)
    e = step_into(trace, a)
    assert e.entry == (0, 1)  # every row gets the same: the first of the largest
    assert e.arithmetic == "2 ⊙ 3×2 → 3×2  ⇒  grad A[0,1] += grad s[1] = 2.500"


def test_mean_over_an_axis_divides_the_upstream_entry_by_the_count():
    a = Tensor(X, requires_grad=True, name="A")
    up = np.array([0.5, -3.0, 1.5])
    trace = backward_trace(named(a.mean(axis=1), "m"), grad=up)
    e = step_into(trace, a)
    expected = np.broadcast_to(up[:, None] / 2, X.shape)
    assert e.entry == largest(expected) == (1, 0)
    assert e.arithmetic == "3 ⊙ 3×2 → 3×2  ⇒  grad A[1,0] += grad m[1] · ∂m/∂A[1,0] = −3.000 · 0.5000 = −1.500"


def test_a_second_contribution_writes_out_the_accumulation_of_its_entry():
    a = Tensor(X, requires_grad=True, name="a")
    up = np.array([[1.5, -0.25], [0.5, 2.0], [-3.0, 1.0]])
    trace = backward_trace(named(a * a, "c"), grad=up)
    first, second = step_into(trace, a, 0), step_into(trace, a, 1)
    i, j = second.entry
    part = up[i, j] * X[i, j]
    assert second.arithmetic.endswith(f"⇒  grad a[{i},{j}] = {format_number(part)} + {operand(part)} = "
                                      f"{format_number(2 * part)}")
    assert np.isclose(2 * part, trace.steps[-1].accumulated[i, j]) and part == 1.5 and (i, j) == (1, 1)
    assert "⇒  grad a[" not in first.arithmetic.split("+=", 1)[1]  # the first one is the total: no sum


def test_scalar_steps_keep_their_line():
    a = Tensor(2.0, requires_grad=True, name="a")
    b = Tensor(-3.0, requires_grad=True, name="b")
    e = step_into(backward_trace(named(a * b, "c")), a)
    assert e.arithmetic == "grad c · ∂c/∂a = 1.000 · (−3.000) = −3.000  ⇒  grad a = −3.000"
    assert e.entry is None
