"""Numbers the correctness audit found wrong (issue 19), each with its exact expected value.

- A blocked branch (relu below 0, clip outside its range, the losing side of
  maximum/minimum/where, |a| at 0, the non-extreme elements of max/min) gets an
  exact 0 even when the upstream gradient there is ±inf or NaN: the engine selects,
  it does not multiply by a 0/1 mask (``inf · 0 = nan``), as PyTorch does.
- ``∂(a/b)/∂b`` is ``−(a/b)/b``: no ``b·b`` to under- or overflow.
- ``binary_cross_entropy`` refuses probabilities outside [0, 1] and keeps the exact
  value near 0 and 1; ``binary_cross_entropy_with_logits`` is exact where the
  sigmoid saturates.
- ``where`` needs a True/False condition, in the engine and in the language.

Upstream gradients are not all ones, so a mask that only happens to work for ones fails.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import lucid
from lucid import Tensor
from lucid.autograd import backward_trace
from lucid.expr import ExprError, run
from lucid.viz import explain

INF, NAN = math.inf, math.nan


def leaf(values) -> Tensor:
    return Tensor(np.array(values, dtype=np.float64), requires_grad=True)


# ----- blocked branches: select, don't multiply -------------------------------------------------
def test_sqrt_of_relu_gives_a_zero_gradient_at_the_blocked_element_not_nan():
    x = leaf([-1.0, 4.0])
    with np.errstate(divide="ignore"):  # sqrt'(0) = 0.5/0 = inf is the true upstream of the blocked element
        lucid.sqrt(lucid.relu(x)).sum().backward()
    np.testing.assert_array_equal(x.grad, [0.0, 0.25])


def test_sqrt_of_relu_with_a_varying_upstream():
    x = leaf([-1.0, 4.0, -0.5])
    with np.errstate(divide="ignore"):
        lucid.sqrt(lucid.relu(x)).backward(np.array([3.0, -2.0, 0.5]))
    np.testing.assert_array_equal(x.grad, [0.0, -0.5, 0.0])


def test_relu_blocks_an_infinite_or_nan_upstream_exactly():
    x = leaf([-1.0, 3.0, -2.0, 0.0])
    lucid.relu(x).backward(np.array([INF, 1.5, NAN, -INF]))
    np.testing.assert_array_equal(x.grad, [0.0, 1.5, 0.0, 0.0])  # relu'(0) = 0: blocked too


def test_leaky_relu_with_slope_zero_is_relu_and_blocks():
    x = leaf([-1.0, 3.0])
    lucid.leaky_relu(x, slope=0.0).backward(np.array([NAN, 1.5]))
    np.testing.assert_array_equal(x.grad, [0.0, 1.5])


def test_leaky_relu_with_a_slope_is_not_blocked_and_scales_the_infinity():
    x = leaf([-2.0, 3.0])
    lucid.leaky_relu(x, slope=0.1).backward(np.array([-INF, 1.5]))
    np.testing.assert_array_equal(x.grad, [-INF, 1.5])  # −inf · 0.1 is a real −inf, not a blocked branch


def test_clip_blocks_outside_its_range():
    x = leaf([-2.0, 0.5, 3.0, 1.0])
    lucid.clip(x, -1.0, 1.0).backward(np.array([INF, 2.0, NAN, -0.5]))
    np.testing.assert_array_equal(x.grad, [0.0, 2.0, 0.0, -0.5])


def test_maximum_blocks_the_smaller_input_and_splits_ties():
    a, b = leaf([1.0, 5.0, 2.0]), leaf([3.0, 4.0, 2.0])
    lucid.maximum(a, b).backward(np.array([INF, -2.0, 4.0]))
    np.testing.assert_array_equal(a.grad, [0.0, -2.0, 2.0])
    np.testing.assert_array_equal(b.grad, [INF, 0.0, 2.0])


def test_minimum_blocks_the_larger_input():
    a, b = leaf([1.0, 5.0, 2.0]), leaf([3.0, 4.0, 2.0])
    lucid.minimum(a, b).backward(np.array([-2.0, NAN, 4.0]))
    np.testing.assert_array_equal(a.grad, [-2.0, 0.0, 2.0])
    np.testing.assert_array_equal(b.grad, [0.0, NAN, 2.0])


def test_where_blocks_the_branch_not_taken():
    x = leaf([-1.0, 2.0, 0.5])
    a, b = leaf([10.0, 20.0, 30.0]), leaf([-1.0, -2.0, -3.0])
    lucid.where(x > 0, a, b).backward(np.array([NAN, 3.0, -INF]))
    np.testing.assert_array_equal(a.grad, [0.0, 3.0, -INF])
    np.testing.assert_array_equal(b.grad, [NAN, 0.0, 0.0])
    assert x.grad is None


def test_abs_at_zero_blocks():
    x = leaf([0.0, -2.0, 3.0])
    lucid.abs(x).backward(np.array([INF, 1.5, -0.5]))
    np.testing.assert_array_equal(x.grad, [0.0, -1.5, -0.5])


def test_max_reduction_blocks_the_elements_that_are_not_the_maximum():
    x = leaf([[1.0, 7.0], [3.0, 2.0]])
    lucid.max(x, axis=0).backward(np.array([INF, 2.0]))
    np.testing.assert_array_equal(x.grad, [[0.0, 2.0], [INF, 0.0]])


def test_min_reduction_blocks_and_splits_ties():
    x = leaf([4.0, 1.0, 1.0])
    lucid.min(x).backward(np.array(NAN))
    np.testing.assert_array_equal(x.grad, [0.0, NAN, NAN])  # the winners share the NaN; the loser is blocked


def test_blocked_branches_raise_no_floating_point_error_under_strict_errstate():
    """The language evaluates with errstate(invalid='raise'): selecting never computes inf · 0."""
    x, y = leaf([-1.0, 2.0]), leaf([3.0, 1.0])
    with np.errstate(invalid="raise"):
        (lucid.relu(x) + lucid.maximum(x, y) + lucid.abs(x - 2.0) + lucid.clip(x, 0.0, 1.0)).backward(
            np.array([INF, 1.0]))
    # first element: only |x − 2|' = −1 is open, so −inf flows there; second: relu and maximum pass 1 each,
    # |x − 2| sits at 0 and clip is outside its range (both blocked)
    np.testing.assert_array_equal(x.grad, [-INF, 2.0])
    np.testing.assert_array_equal(y.grad, [INF, 0.0])


def test_the_explanation_reads_zero_for_a_blocked_branch():
    x = Tensor(-1.0, requires_grad=True, name="x")
    r = lucid.relu(x)
    r.name = "r"
    y = lucid.sqrt(r)
    y.name = "y"
    with np.errstate(divide="ignore"):
        trace = backward_trace(y)
    lines = [explain(trace, i).arithmetic for i in range(len(trace.steps))]
    assert lines[2] == "grad r · ∂r/∂x = inf · 0 = 0  ⇒  grad x = 0"
    assert trace.steps[2].local == 0.0 and trace.steps[2].contribution == 0.0
    assert x.grad == 0.0


def test_a_program_with_a_blocked_branch_gets_the_same_gradient():
    program = run("x = [-1.0, 4.0]\nsqrt(relu(x)).sum()")
    x = program.variables["x"]
    with np.errstate(divide="ignore"):
        program.output.backward()
    np.testing.assert_array_equal(x.grad, [0.0, 0.25])


# ----- ∂(a/b)/∂b without b·b --------------------------------------------------------------------
def test_b_over_b_at_a_tiny_denominator_has_gradient_zero():
    b = leaf(1e-200)
    (b / b).backward()
    assert b.grad == 0.0  # 1/b − (b/b)/b = 1e200 − 1e200; −b/(b·b) was −1e-200/0 = −inf


def test_quotient_gradient_at_a_tiny_denominator():
    a, b = leaf(3e-200), leaf(1e-200)
    (a / b).backward(np.array(0.5))
    assert b.grad == pytest.approx(-1.5e200, rel=1e-15)  # −(a/b)/b · 0.5 = −3/1e-200 · 0.5
    assert a.grad == pytest.approx(5e199, rel=1e-15)


def test_quotient_gradient_at_a_huge_denominator():
    a, b = leaf([2e200, -6.0]), leaf([1e200, 4.0])
    (a / b).backward(np.array([0.5, -2.0]))
    # −(2)/1e200 · 0.5 = −1e-200 (b·b = inf gave −0); −(−1.5)/4 · (−2) = −0.75
    np.testing.assert_allclose(b.grad, [-1e-200, -0.75], rtol=1e-15)


# ----- binary cross-entropy ---------------------------------------------------------------------
@pytest.mark.parametrize("p", [2.0, -0.5, 1.0000001, NAN])
def test_binary_cross_entropy_refuses_values_that_are_not_probabilities(p):
    with pytest.raises(ValueError, match=r"binary_cross_entropy needs probabilities in \[0, 1\]"):
        lucid.binary_cross_entropy(Tensor([0.5, p]), Tensor([0.0, 0.0]))


def test_binary_cross_entropy_names_the_bad_value_and_the_logits_form():
    with pytest.raises(ValueError) as info:
        lucid.binary_cross_entropy(2.0, 0.0)
    assert str(info.value) == ("binary_cross_entropy needs probabilities in [0, 1], got 2; apply sigmoid first, "
                               "or give logits to binary_cross_entropy_with_logits")


def test_binary_cross_entropy_is_exactly_zero_for_certain_right_answers():
    p = leaf([1.0, 0.0])
    loss = lucid.binary_cross_entropy(p, Tensor([1.0, 0.0]))
    assert loss.item() == 0.0  # the ε clamp gave 1e-12


def test_binary_cross_entropy_keeps_its_exact_value_near_one():
    p = 1.0 - 1e-15
    loss = lucid.binary_cross_entropy(p, 0.0).item()
    assert loss == pytest.approx(-math.log(1.0 - p), rel=1e-14)  # 1 − p is exact (Sterbenz)
    assert loss == pytest.approx(34.53957599234088, rel=1e-14)  # a clamp at 1 − 1e-12 gave 27.63


def test_binary_cross_entropy_floors_ln_zero_at_minus_100():
    assert lucid.binary_cross_entropy(Tensor([1.0, 0.25]), Tensor([0.0, 1.0])).item() == pytest.approx(
        (100.0 + math.log(4.0)) / 2, rel=1e-15)


def test_binary_cross_entropy_values_and_gradient():
    p, y = leaf([0.25, 0.9]), leaf([1.0, 0.0])
    loss = lucid.binary_cross_entropy(p, y)
    assert loss.item() == pytest.approx((math.log(4.0) + math.log(10.0)) / 2, rel=1e-15)
    loss.backward(np.array(2.0))
    np.testing.assert_allclose(p.grad, [-4.0, 10.0], rtol=1e-14)  # (p − y)/(p(1 − p)·2) · 2
    np.testing.assert_allclose(y.grad, [math.log(0.75 / 0.25), math.log(0.1 / 0.9)], rtol=1e-14)


def test_bce_with_logits_is_exact_where_the_sigmoid_saturates():
    z, t = leaf([40.0, -3.0]), leaf([0.0, 1.0])
    loss = lucid.binary_cross_entropy_with_logits(z, t)
    # 40 + ln(1 + e⁻⁴⁰) = 40 in float64; 3 + ln(1 + e⁻³) = 3.048587351573742
    assert loss.item() == pytest.approx((40.0 + 3.048587351573742) / 2, rel=1e-15)
    assert lucid.binary_cross_entropy(lucid.sigmoid(40.0), 0.0).item() == 100.0  # σ(40) rounds to 1: floored
    loss.backward(np.array(2.0))
    np.testing.assert_allclose(z.grad, [1.0, -0.9525741268224334], rtol=1e-15)  # (σ(z) − t)/2 · 2
    np.testing.assert_array_equal(t.grad, [-40.0, 3.0])  # −z/2 · 2


def test_bce_with_logits_agrees_with_bce_of_the_sigmoid_where_both_are_exact():
    z = np.array([[0.5, -1.2], [2.0, -0.3]])
    t = np.array([[1.0, 0.0], [0.3, 0.7]])
    expected = lucid.binary_cross_entropy(lucid.sigmoid(Tensor(z)), Tensor(t)).item()
    assert lucid.binary_cross_entropy_with_logits(Tensor(z), Tensor(t)).item() == pytest.approx(expected, rel=1e-14)


def test_bce_with_logits_does_not_overflow_at_huge_logits():
    with np.errstate(over="raise", divide="raise", invalid="raise"):  # e⁻⁸⁰⁰ underflowing to 0 is fine
        loss = lucid.binary_cross_entropy_with_logits(Tensor([800.0, -800.0]), Tensor([0.0, 0.0]))
    assert loss.item() == 400.0


def test_bce_with_logits_is_in_the_registry_and_the_language():
    spec = lucid.REGISTRY["binary_cross_entropy_with_logits"]
    assert spec.group == "loss" and spec.samples is not None
    assert spec.derivatives == ("∂out/∂zᵢ = (σ(zᵢ) − tᵢ)/N", "∂out/∂tᵢ = −zᵢ/N")
    program = run("z = [40.0, -3.0]\nbinary_cross_entropy_with_logits(z, const([0.0, 1.0]))")
    assert program.output.item() == pytest.approx((40.0 + 3.048587351573742) / 2, rel=1e-15)
    program.output.backward(np.array(0.5))
    np.testing.assert_allclose(program.variables["z"].grad, [0.25, -0.23814353170560835], rtol=1e-15)


def test_the_language_reports_a_bad_probability_at_the_call():
    with pytest.raises(ExprError) as info:
        run("z = [0.5, 2.0]\nloss = binary_cross_entropy(z, const([1.0, 0.0]))")
    e = info.value
    assert (e.line, e.col, e.kind) == (2, 8, "argument")
    assert e.message == ("binary_cross_entropy needs probabilities in [0, 1], got 2; apply sigmoid first, "
                         "or give logits to binary_cross_entropy_with_logits")


# ----- where needs a True/False condition -------------------------------------------------------
def test_where_refuses_a_float_condition_in_the_engine():
    with pytest.raises(ValueError, match=r"where needs a True/False condition, such as a comparison"):
        lucid.where(Tensor([1.0, 0.0]), Tensor([1.0, 2.0]), Tensor([3.0, 4.0]))


def test_where_accepts_a_boolean_array_condition():
    out = lucid.where(np.array([True, False]), Tensor([1.0, 2.0]), Tensor([3.0, 4.0]))
    np.testing.assert_array_equal(out.data, [1.0, 4.0])


@pytest.mark.parametrize("source, line, column, length", [
    ("a = [1.5, 2.5]\nwhere([1, 0], a, -a)", 2, 7, 6),
    ("x = [1.0, 2.0]\ny = x * 2\nout = where(y, x, 0)", 3, 13, 1),
    ("x = 0.5\nout = where(1.0, x, 0)", 2, 13, 3),
])
def test_where_refuses_a_numeric_condition_in_the_language_pointing_at_it(source, line, column, length):
    with pytest.raises(ExprError) as info:
        run(source)
    e = info.value
    assert (e.line, e.col, e.length, e.kind) == (line, column, length, "argument")
    assert e.message == ("where(): the condition must be True/False values, a comparison such as "
                         "where(x > 0, x, 0), not numbers")
