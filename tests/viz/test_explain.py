"""lucid.viz.explanation.explain: each backward step as the chain rule in symbols and in numbers.

Worked example (scalars a = 2, b = -3): c = a × b, out = c + a, so
grad a = 1 + b = -2 (two paths) and grad b = a = 2. ``grad x`` is a total gradient,
``∂c/∂x`` a local derivative.
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
    assert e.title == "Step 0 of 4: seed grad out = 1"
    assert e.text.startswith("grad out = 1.000\n\nThe backward pass starts at the output out (shape scalar). "
                             "Its gradient with respect to itself is grad out = 1.")
    assert "4 more steps" in e.text
    assert e.node is None and e.op is None and e.upstream is None
    assert e.accumulated == 1.0


def test_non_scalar_output_seed_is_ones_and_a_given_seed_is_shown():
    x = Tensor([1.0, -2.0], requires_grad=True, name="x")
    y = x * 3.0
    e = explain(backward_trace(y), 0)
    assert "ones of shape 2" in e.text and "[1.000 1.000]" in e.text
    given = explain(backward_trace(x * 3.0, grad=np.array([0.5, -2.0])), 0)
    assert given.title == "Step 0 of 1: seed grad out = given"
    assert "[0.5000 −2.000]" in given.text


def test_a_partial_step_names_the_paths_still_to_come():
    e = explain(worked_trace(), 2)
    assert e.title == "Step 2 of 4: out → a through +"
    assert e.equation == "grad a += grad out · ∂out/∂a"
    assert e.formula == "∂out/∂a = 1"  # the registry's ∂out/∂b = 1: a is the second input of +
    assert e.arithmetic == "grad out · ∂out/∂a = 1.000 · 1.000 = 1.000  ⇒  grad a = 1.000"
    assert "Forward: out = c + a" in e.text
    assert "This is the first contribution to grad a" in e.text
    assert "grad a is partial: 1 more contribution will arrive along other paths (from c (×))." in e.text
    assert e.is_final is False


def test_a_final_step_leads_with_the_arithmetic_then_explains_it():
    e = explain(worked_trace(), 3)
    assert e.title == "Step 3 of 4: c → a through ×"
    assert e.equation == "grad a += grad c · ∂c/∂a"
    assert e.formula == "∂c/∂a = b"
    # upstream × local = contribution, then the accumulation, as the first line
    assert e.text.split("\n\n")[0] == e.arithmetic == \
        "grad c · ∂c/∂a = 1.000 · (−3.000) = −3.000  ⇒  grad a = 1.000 + (−3.000) = −2.000"
    assert "Local derivative (the rule of ×): ∂c/∂a = b = −3.000" in e.text
    assert (e.upstream, e.local, e.product, e.contribution, e.accumulated) == (1.0, -3.0, -3.0, -3.0, -2.0)
    assert "Accumulate (+=, never =): grad a = 1.000 + (−3.000) = −2.000" in e.text
    assert "grad a is now final: no other path reaches it. This is the value of its .grad after backward()." in e.text
    assert e.markdown.startswith("#### grad c · ∂c/∂a = 1.000 · (−3.000) = −3.000")
    assert "`grad a += grad c · ∂c/∂a`" in e.markdown and "**final**" in e.markdown


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


def test_matmul_shows_both_factors_with_shapes_and_the_other_factors_value():
    x = Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, name="x")
    w = Tensor([[0.5, -1.0, 2.0], [2.0, 1.5, -0.5]], requires_grad=True, name="W")
    h = x @ w
    h.name = "h"
    trace = backward_trace((h * Tensor([[1.0, -2.0, 0.5], [3.0, 1.0, -1.0]])).sum())
    e = explain(trace, next(s.index for s in trace.steps if s.parent is x))
    assert e.local is None
    assert e.equation == "grad x += grad h @ Wᵀ"
    # the shapes, then the largest entry worked out: row 1 of grad h against row 1 of W
    assert e.arithmetic == ("2×3 @ 3×2 → 2×2  ⇒  grad x[1,1] += Σₖ grad h[1,k] · W[1,k] = "
                            "3.000·2.000 + 1.000·1.500 + (−1.000)·(−0.5000) = 8.000")
    assert "The other factor, W (shape 2×3), as it was in the forward pass:" in e.text
    assert "    [[ 0.5000  −1.000   2.000]\n     [  2.000   1.500 −0.5000]]" in e.text
    np.testing.assert_allclose(e.contribution, np.array([[1.0, -2.0, 0.5], [3.0, 1.0, -1.0]]) @ w.data.T)
    ew = explain(trace, next(s.index for s in trace.steps if s.parent is w))
    assert ew.arithmetic.startswith("2×2 @ 2×3 → 2×3  ⇒  grad W[")
    assert "The other factor, x (shape 2×2)" in ew.text


def test_a_tensor_used_twice_by_one_op():
    x = Tensor(3.0, requires_grad=True, name="x")
    y = x * x
    y.name = "y"
    trace = backward_trace(y, grad=2.0)
    first, second = explain(trace, 1), explain(trace, 2)
    assert "x is used 2 times by this op; this step is its use as the 2nd operand." in second.text
    # the contribution and the running total never share a symbol: 6 is added, 12 is the total
    assert first.arithmetic == "grad y · ∂y/∂x = 2.000 · 3.000 = 6.000  ⇒  grad x = 6.000"
    assert second.arithmetic == "grad y · ∂y/∂x = 2.000 · 3.000 = 6.000  ⇒  grad x = 6.000 + 6.000 = 12.00"
    assert "grad x = 6.000 + 6.000 = 12.00" in second.text


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
    assert titles[0] == f"Step 0 of {len(trace.steps) - 1}: seed grad out = 1"
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
    assert e.title == "Step 1 of 1: out → *x*_$\\alpha$ through ×"
    assert e.title_markdown == "Step 1 of 1: out → \\*x\\*\\_\\$\\\\alpha\\$ through ×"
    assert e.markdown.startswith("#### grad out · ∂out/∂\\*x\\*\\_\\$\\\\alpha\\$ = ")


def test_an_accumulation_step_writes_the_sum_as_its_headline():
    x = Tensor(0.5, requires_grad=True, name="x")
    y = x + Tensor(-2.0) * x
    y.name = "y"
    trace = backward_trace(y)
    first = explain(trace, 1)
    assert first.arithmetic == "grad y · ∂y/∂x = 1.000 · 1.000 = 1.000  ⇒  grad x = 1.000"
    last = explain(trace, 3)
    assert last.arithmetic == "grad t2 · ∂t2/∂x = 1.000 · (−2.000) = −2.000  ⇒  grad x = 1.000 + (−2.000) = −1.000"
    assert last.html.startswith('<div class="lgl-explain"><div class="lgl-arith">')
    assert "grad x = 1.000 + (−2.000) = −1.000" in last.html


def test_short_vectors_accumulate_as_a_written_sum_and_big_arrays_keep_the_arrow():
    v = Tensor([0.5, -2.0], requires_grad=True, name="v")
    out = (v * v).sum()
    e = explain(backward_trace(out), 3)
    # a tensor step works its largest entry out, the accumulation included
    assert e.arithmetic.endswith("⇒  grad v[1] = −2.000 + (−2.000) = −4.000")
    m = Tensor(np.arange(1.0, 7.0).reshape(2, 3) / 4, requires_grad=True, name="m")
    e = explain(backward_trace((m * m).sum()), 3)
    assert e.arithmetic.endswith("⇒  grad m[1,2] = 1.500 + 1.500 = 3.000")


def test_numbers_outside_1e_minus_4_to_1e5_are_written_with_powers_of_ten():
    x = Tensor(3e-6, requires_grad=True, name="x")
    y = x * Tensor(2.0)
    y.name = "y"
    e = explain(backward_trace(y), 0)
    assert e.arithmetic == "grad y = 1.000"
    text = explain(backward_trace(x * x), 1).text
    assert "3.000 × 10⁻⁶" in text and "e-06" not in text and "e-6" not in text


def test_tiny_constants_in_expressions_are_written_with_powers_of_ten():
    from lucid.expr import run

    program = run("x = 0.5\ny = log(x * 1e-8 + 2e-9)\n")
    e = explain(backward_trace(program.output), 1)
    assert "(= x*(1 × 10⁻⁸) + 2 × 10⁻⁹)" in e.text
    assert e.arithmetic == "grad y · ∂y/∂t4 = 1.000 · (1.429 × 10⁸) = 1.429 × 10⁸  ⇒  grad t4 = 1.429 × 10⁸"
