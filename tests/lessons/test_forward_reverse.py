"""Forward vs reverse mode on the gallery's programs: the same Jacobian, different numbers of passes."""
import numpy as np
import pytest

from lucid import gallery
from lucid.expr import run
from lucid.lessons.forward_reverse import compare_modes


def test_three_inputs_one_output_needs_one_backward_pass():
    comparison = compare_modes(run(gallery.by_slug("reverse-3-to-1").source))
    x = np.array([0.5, -1.0, 2.0])
    assert (comparison.n_inputs, comparison.n_outputs) == (3, 1)
    assert (comparison.forward.passes, comparison.reverse.passes) == (3, 1)
    assert comparison.picked == "reverse" and "1 backward pass" in comparison.reason
    np.testing.assert_allclose(comparison.reverse.matrix, [np.cos(x) * x + np.sin(x)], rtol=1e-15)
    assert comparison.agree


def test_one_input_three_outputs_needs_one_forward_pass():
    comparison = compare_modes(run(gallery.by_slug("forward-1-to-3").source))
    assert (comparison.n_inputs, comparison.n_outputs) == (1, 3)
    assert (comparison.forward.passes, comparison.reverse.passes) == (1, 3)
    assert comparison.picked == "forward" and "1 forward pass" in comparison.reason
    np.testing.assert_allclose(comparison.forward.matrix, [[-np.sin(0.5)], [np.cos(0.5)], [1.0]], rtol=1e-15)
    assert comparison.agree


def test_modes_agree_on_a_program_that_takes_a_gradient():
    comparison = compare_modes(run(gallery.by_slug("hessian-vector").source))
    # hv = H(x)·v with H = diag(6x) + [[0, 1], [1, 0]]: its Jacobian in x is diag(6v)
    np.testing.assert_allclose(comparison.forward.matrix, [[6.0, 0.0], [0.0, 12.0]], rtol=1e-14, atol=1e-14)
    assert comparison.agree


def test_a_program_without_inputs_has_no_jacobian():
    with pytest.raises(ValueError, match="no inputs"):
        compare_modes(run("const(2.0) * 3"))
