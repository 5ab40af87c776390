"""grad(y, x) in the expression language: the gradient as a value, drawn as the backward pass."""
import numpy as np
import pytest

import lucid
from lucid import gallery
from lucid.autograd import backward_trace, gradcheck
from lucid.expr import ExprError, run
from lucid.viz.graph.dot import to_dot
from lucid.viz.graph.style import DERIVATIVE_CLUSTER

PENALTY = ("w = [0.5, -1.0]\n"
           "x = [1.0, 2.0]\n"
           "loss = sum(tanh(w * x))\n"
           "g = grad(loss, w)\n"
           "penalty = sum(g * g)\n")


def test_grad_gives_the_gradient_as_a_value():
    program = run(PENALTY)
    w, x = np.array([0.5, -1.0]), np.array([1.0, 2.0])
    g = x * (1 - np.tanh(w * x) ** 2)
    np.testing.assert_allclose(program.variables["g"].data, g, rtol=1e-15)
    np.testing.assert_allclose(program.output.data, np.sum(g * g), rtol=1e-15)


def test_a_penalty_on_a_gradient_is_differentiated_again():
    program = run(PENALTY)
    program.output.backward()
    w, x = np.array([0.5, -1.0]), np.array([1.0, 2.0])
    t = np.tanh(w * x)
    # penalty = Σ x²(1 − t²)²: ∂/∂w = Σ x² · 2(1 − t²) · (−2t) · (1 − t²) · x
    expected = x ** 2 * 2 * (1 - t ** 2) * (-2 * t) * (1 - t ** 2) * x
    np.testing.assert_allclose(program.inputs[0].grad, expected, rtol=1e-13)
    report = gradcheck(program.function(), program.inputs)
    assert report.ok, [r.max_abs_error for r in report.inputs]


def test_the_hessian_vector_product_example_gives_its_numbers():
    program = run(gallery.by_slug("hessian-vector").source)
    np.testing.assert_allclose(program.output.data, [5.0, -11.0], rtol=1e-15)


def test_third_derivative_of_a_cube():
    program = run("x = 1.5\nd1 = grad(x ** 3, x)\nd2 = grad(d1, x)\ngrad(d2, x)")
    assert program.output.data == 6.0
    np.testing.assert_allclose(program.variables["d2"].data, 9.0)


def test_a_value_that_does_not_depend_on_x_has_zero_gradient():
    program = run("x = [1.0, 2.0]\ny = 3.0\ngrad(y * y, x) + y")
    np.testing.assert_array_equal(program.output.data, [3.0, 3.0])


def test_grad_with_respect_to_a_constant_is_refused_at_its_argument():
    with pytest.raises(ExprError) as info:
        run("x = 1.0\ngrad(x * 2, 3.0)")
    assert info.value.kind == "argument" and info.value.line == 2 and info.value.col == 13
    assert "x must have a gradient" in str(info.value)


def test_nested_gradients_are_charged_for_their_nodes():
    source = "x = [1.0, 2.0]\ny = sum(x ** 3)\n" + "y = sum(grad(y, x) * x)\n" * 8
    with pytest.raises(ExprError) as info:
        run(source)
    assert info.value.kind == "limit"


def test_a_rerun_without_grad_mode_still_differentiates():
    program = run(PENALTY)
    with lucid.no_grad():
        again = program.function()(*program.inputs)
    assert again.data == program.output.data
    assert program.batched_function(0) is None  # re-runs through grad() are never stacked


def test_the_derivative_nodes_are_drawn_as_the_backward_pass():
    program = run(PENALTY)
    source = to_dot(program.output, backward_trace(program.output), 2).source
    assert DERIVATIVE_CLUSTER in source and 'class=derivative' in source
    assert source.count("derivative") >= 4  # the cluster and its nodes
    plain = to_dot(run("x = [1.0, 2.0]\nsum(x * x)").output).source
    assert "derivative" not in plain


def test_the_gradient_of_matrix_products_is_charged_for_its_products():
    program = run("A = randn(20, 20)\ny = sum(A @ A)\ng = grad(y, A)")
    assert program._plan.matmul_work == 3 * 20 ** 3  # the product, and the two of its backward
    with pytest.raises(ExprError) as info:
        run("A = randn(200, 200)\ny = sum(A @ A @ A @ A @ A)\ng = grad(y, A)")
    assert info.value.kind == "limit" and "multiply-adds" in str(info.value)


def test_a_rerun_with_constant_inputs_gives_the_same_values():
    # finite differences re-run a program with plain tensors: grad(loss, w) must still be ∂loss/∂w there
    program = run(PENALTY)
    with lucid.no_grad():
        again = program.function()(*[lucid.Tensor(t.data.copy()) for t in program.inputs])
    assert again.data == program.output.data


def test_finite_differences_of_an_input_used_after_grad_are_right():
    program = run(PENALTY + "c = 1.5\nout = penalty * c\n")
    c = program.variables["c"]
    assert program.batched_function(next(i for i, t in enumerate(program.inputs) if t is c)) is None
    from lucid.session.inputs_table import input_rows
    rows = {r.name: r for r in input_rows(PENALTY + "c = 1.5\nout = penalty * c\n", 0)}
    np.testing.assert_allclose(rows["c"].numerical, program.variables["penalty"].data, rtol=1e-8)
    assert all(r.max_rel_error < 1e-6 for r in rows.values())
