"""lucid.viz.explain: each backward step as the chain rule in symbols and in numbers.

Worked example (scalars a = 2, b = -3): c = a × b, out = c + a, so
∂out/∂a = 1 + b = -2 (two paths) and ∂out/∂b = a = 2.
"""
import numpy as np

import lucid
from lucid import Tensor
from lucid.autograd import backward_trace
from lucid.viz import explain


def worked_trace():
    a = Tensor(2.0, requires_grad=True, name="a")
    b = Tensor(-3.0, requires_grad=True, name="b")
    c = a * b
    c.name = "c"
    return backward_trace(c + a)


def test_step_zero_explains_the_seed_at_the_output():
    e = explain(worked_trace(), 0)
    assert e.title == "Step 0 of 4: seed ∂out/∂out = 1"
    assert e.text.startswith("The backward pass starts at the output out (shape scalar). "
                             "Its gradient with respect to itself is ∂out/∂out = 1.")
    assert "4 more steps" in e.text
    assert e.node is None and e.op is None and e.upstream is None
    assert e.accumulated == 1.0


def test_non_scalar_output_seed_is_ones_and_a_given_seed_is_shown():
    x = Tensor([1.0, -2.0], requires_grad=True, name="x")
    y = x * 3.0
    e = explain(backward_trace(y), 0)
    assert "ones of shape 2" in e.text and "[1.000 1.000]" in e.text
    given = explain(backward_trace(x * 3.0, grad=np.array([0.5, -2.0])), 0)
    assert given.title == "Step 0 of 1: seed ∂out/∂out = given"
    assert "[0.5000 -2.000]" in given.text


def test_a_partial_step_names_the_paths_still_to_come():
    e = explain(worked_trace(), 2)
    assert e.title == "Step 2 of 4: ∂out/∂a from +"
    assert e.equation == "∂out/∂a += ∂out/∂out · ∂out/∂a"
    assert e.formula == "∂out/∂b = 1"  # a is the second input of +
    assert "(the op's input b)" in e.text
    assert "Local derivative ∂out/∂a = 1.000, so the product is 1.000 · 1.000 = 1.000" in e.text
    assert "This is the first contribution to ∂out/∂a" in e.text
    assert "∂out/∂a is partial: 1 more contribution will arrive along other paths (from ×)." in e.text
    assert e.is_final is False


def test_a_final_step_shows_upstream_local_product_and_accumulation():
    e = explain(worked_trace(), 3)
    assert e.title == "Step 3 of 4: ∂out/∂a from ×"
    assert e.equation == "∂out/∂a += ∂out/∂c · ∂c/∂a"
    assert e.formula == "∂out/∂a = b"
    assert "Registered rule of × for this input: ∂out/∂a = b (here out is c, a is a, b is b)." in e.text
    assert (e.upstream, e.local, e.product, e.contribution, e.accumulated) == (1.0, -3.0, -3.0, -3.0, -2.0)
    assert "so the product is 1.000 · (-3.000) = -3.000" in e.text
    assert "Accumulate (+=, never =): ∂out/∂a = 1.000 + (-3.000) = -2.000" in e.text
    assert "∂out/∂a is now final: no other path reaches it. This is the value of its .grad after backward()." in e.text
    assert "`∂out/∂a += ∂out/∂c · ∂c/∂a`" in e.markdown and "**final**" in e.markdown


def test_broadcasting_names_the_summed_axes_and_why():
    x = Tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True, name="x")
    bias = Tensor([0.5, -1.0], requires_grad=True, name="bias")
    k = Tensor([[1.0, -2.0], [0.5, 3.0], [2.0, 1.0]], name="k")
    trace = backward_trace(((x + bias) * k).sum())
    step = next(s.index for s in trace.steps if s.parent is bias)
    e = explain(trace, step)
    assert e.summed_axes == (0,)
    np.testing.assert_allclose(e.product, [[1.0, -2.0], [0.5, 3.0], [2.0, 1.0]])
    np.testing.assert_allclose(e.contribution, [3.5, 2.0])
    assert ("Broadcasting: bias has shape 2 but this gradient has shape 3×2. In the forward pass it had no axis 0, "
            "so NumPy added one in front and copied it 3 times along it.") in e.text
    assert "sum over axis 0 gives shape 2." in e.text
    assert "[3.500 2.000]" in e.text


def test_broadcasting_over_a_size_one_axis():
    x = Tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True, name="x")
    col = Tensor([[2.0], [-1.0]], requires_grad=True, name="col")
    trace = backward_trace((x * col).sum())
    e = explain(trace, next(s.index for s in trace.steps if s.parent is col))
    assert e.summed_axes == (1,)
    assert "its axis 1 has size 1 and was stretched to 3" in e.text
    np.testing.assert_allclose(e.contribution, [[6.0], [15.0]])


def test_non_elementwise_ops_apply_their_registered_rule():
    x = Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, name="x")
    w = Tensor([[0.5, -1.0], [2.0, 1.5]], requires_grad=True, name="W")
    trace = backward_trace((x @ w).sum())
    e = explain(trace, next(s.index for s in trace.steps if s.parent is x))
    assert e.local is None
    assert e.formula == "∂L/∂a = ∂L/∂out @ bᵀ"
    assert "@ is not elementwise, so its rule is applied to the whole upstream gradient" in e.text
    np.testing.assert_allclose(e.contribution, [[-0.5, 3.5], [-0.5, 3.5]])


def test_a_tensor_used_twice_by_one_op():
    x = Tensor(3.0, requires_grad=True, name="x")
    trace = backward_trace(x * x, grad=2.0)
    e = explain(trace, 2)
    assert "x is used 2 times by this op; this step is its use as input b." in e.text
    assert "∂out/∂x = 6.000 + 6.000 = 12.00" in e.text


def test_gradient_left_from_an_earlier_backward_call_is_named():
    x = Tensor([1.0, 2.0], requires_grad=True, name="x")
    (x * 2.0).sum().backward()
    trace = backward_trace((x * 5.0).sum())
    e = explain(trace, 2)
    assert "x already held a gradient from an earlier backward() call" in e.text
    np.testing.assert_allclose(e.accumulated, [7.0, 7.0])


def test_every_step_of_a_bigger_expression_explains_without_error():
    a, b, c = (Tensor(v, requires_grad=True, name=n) for v, n in [(1.3, "a"), (-0.7, "b"), (0.45, "c")])
    out = lucid.tanh(a * b + c ** 2) * lucid.sigmoid(a - c) + lucid.log(b * b + 1)
    trace = backward_trace(out)
    titles = [explain(trace, s).title for s in range(len(trace.steps))]
    assert titles[0] == f"Step 0 of {len(trace.steps) - 1}: seed ∂out/∂out = 1"
    assert all(t.startswith(f"Step {i} of ") for i, t in enumerate(titles))
    final = {explain(trace, s).parent: explain(trace, s).accumulated for s in range(len(trace.steps))
             if trace.steps[s].is_final}
    assert final["a"] == a.grad and final["b"] == b.grad and final["c"] == c.grad


def test_markdown_escapes_user_names_and_text_keeps_them():
    x = Tensor(2.0, requires_grad=True, name="*x*_$\\alpha$")
    trace = backward_trace(x * 4.0)
    e = explain(trace, 1)
    assert "**\\*x\\*\\_\\$\\\\alpha\\$**" in e.markdown
    assert "into its input *x*_$\\alpha$" in e.text
    assert e.title == "Step 1 of 1: ∂out/∂*x*_$\\alpha$ from ×"
    assert e.title_markdown == "Step 1 of 1: ∂out/∂\\*x\\*\\_\\$\\\\alpha\\$ from ×"
