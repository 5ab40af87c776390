"""Forward mode one node at a time: the tangent record and its explanations, and the Playground panel."""
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from lucid import gallery
from lucid.autograd import jvp
from lucid.autograd.forward_trace import forward_trace
from lucid.expr import run
from lucid.viz.explanation.forward_explain import ForwardExplainer, dotted
from lucid.viz.numbers import format_array

SOURCE = "x = [0.5, -1.0, 2.0]\nw = 1.5\ny = tanh(x * w)\nout = sum(y * y)"


def _trace(direction=(1.0, 0.0, 0.0)):
    program = run(SOURCE)
    return program, forward_trace(program.output, {program.variables["x"]: np.array(direction)})


def test_each_node_gets_its_tangent_once_in_forward_order():
    program, trace = _trace()
    nodes = [s.node for s in trace.steps]
    assert len(nodes) == len(set(map(id, nodes))) == 4  # x·w, tanh, y·y, sum: w's constant path never moves
    positions = [next(i for i, t in enumerate(trace.order) if t is n) for n in nodes]
    assert positions == sorted(positions)
    assert trace.steps[-1].node is program.output


def test_the_output_tangent_is_the_directional_derivative():
    x = np.array([0.5, -1.0, 2.0])
    direction = np.array([0.3, -1.0, 2.0])
    _, trace = _trace(direction)
    t = np.tanh(1.5 * x)
    np.testing.assert_allclose(trace.output_tangent, np.sum(2 * t * (1 - t * t) * 1.5 * direction), rtol=1e-14)
    _, by_jvp = jvp(lambda a: (a * 1.5).tanh().__pow__(2.0).sum(), x, direction)
    np.testing.assert_allclose(trace.output_tangent, by_jvp.data, rtol=1e-14)


def test_tangents_appear_step_by_step():
    program, trace = _trace()
    y = program.variables["y"]
    assert trace.tangent_of(y, step=1) is None
    np.testing.assert_allclose(trace.tangent_of(y, step=2), [1.5 * (1 - np.tanh(0.75) ** 2), 0.0, 0.0], rtol=1e-14)
    np.testing.assert_array_equal(trace.tangent_of(program.variables["x"], step=0), [1.0, 0.0, 0.0])


def test_a_seed_must_have_its_inputs_shape():
    program = run(SOURCE)
    with pytest.raises(ValueError, match="shape"):
        forward_trace(program.output, {program.variables["x"]: [1.0, 0.0]})


def test_a_seed_the_output_does_not_use_moves_nothing():
    program = run("a = 1.5\nb = 2.0\nout = a * a\n")
    a, b = program.variables["a"], program.variables["b"]
    alone = forward_trace(program.output, {b: 1.0})
    assert alone.steps == [] and alone.seeds == {}
    np.testing.assert_array_equal(alone.output_tangent, 0.0)
    both = forward_trace(program.output, {a: 1.0, b: 1.0})
    assert list(both.seeds) == [id(a)]
    assert float(both.output_tangent) == 3.0  # d(a·a)/da = 2a = 3, b adds nothing
    other = forward_trace(program.output, {run("z = 1.0\nz * 2").inputs[0]: 1.0})
    np.testing.assert_array_equal(other.output_tangent, 0.0)


def test_dot_notation_for_one_letter_names_and_words_for_longer_ones():
    assert dotted("x") == "ẋ"
    assert dotted("loss") == "tangent(loss)"


def test_the_explanation_puts_the_arithmetic_first():
    _, trace = _trace()
    explainer = ForwardExplainer(trace)
    seed = explainer.seed_text()
    assert seed.arithmetic.startswith("ẋ = [1")
    tanh_step = explainer.step_text(2)
    assert tanh_step.title == "Step 2 of 4: ẏ from tangent(t2)"
    assert tanh_step.arithmetic.startswith("ẏ = ∂y/∂t2 ⊙ tangent(t2): [")
    assert tanh_step.arithmetic.endswith("→ [0.8949      0      0]")
    assert tanh_step.lines[0] == "Forward: y = tanh(t2)."
    product = explainer.step_text(1)
    assert product.lines[0] == "Forward: t2 = x × w."
    assert any("w does not move" in line for line in product.lines)
    total = explainer.step_text(4)
    assert total.arithmetic == "tangent(out) = Σ pushed forward on tangent(t4) = [1.137     0     0] → 1.137"


FORWARD_OPEN = "pg_forward_open"
"""The session key of the Playground's Forward mode panel being open (``forward_mode_view.open_key("pg")``)."""


def test_the_playground_panel_steps_a_tangent_forward():
    page = str(Path(__file__).resolve().parents[2] / "pages" / "playground.py")
    at = AppTest.from_file(page, default_timeout=60)
    at.query_params["example"] = "reverse-3-to-1"
    at.session_state[FORWARD_OPEN] = True  # the reader opens the folded panel (its content is drawn only then)
    at.run()
    assert not at.exception
    picker = next(box for box in at.selectbox if box.label.startswith("Move this input number"))
    assert picker.options == ["x[0]", "x[1]", "x[2]", "every input number at once (each moves by 1)"]
    picker.set_value("x[1]").run()
    slider = next(s for s in at.slider if s.label == "Forward step")
    assert slider.value == slider.max == 3
    (arithmetic,) = [c.value for c in at.code if c.value.startswith("ḟ")]
    expected = format_array(np.array(np.cos(-1.0) * -1.0 + np.sin(-1.0)), shape=False)  # ∂f/∂x₁ = x₁cos x₁ + sin x₁
    assert expected == "−1.382"
    assert arithmetic == f"ḟ = Σ pushed forward on tangent(t2) = [     0 {expected}      0] → {expected}"
    captions = " ".join(c.value for c in at.caption)
    assert "3 forward passes or 1 backward pass" in captions


def test_every_op_that_is_not_elementwise_has_its_forward_rule_in_words():
    import lucid
    from lucid.viz.explanation.forward_explain import ELEMENTWISE_GROUPS, FORWARD_RULES

    other = {n for n, spec in lucid.REGISTRY.items()
             if spec.samples is not None and spec.group not in ELEMENTWISE_GROUPS}
    assert other == set(FORWARD_RULES)


def test_a_matrix_product_step_names_its_forward_rule():
    program = run("A = [[1.0, 2.0], [0.5, -1.0]]\nv = [0.3, 0.7]\nout = sum(A @ v)")
    trace = forward_trace(program.output, {program.variables["A"]: np.array([[1.0, 0.0], [0.0, 0.0]])})
    text = ForwardExplainer(trace).step_text(1)
    assert "tangent(t2) = ȧ @ b + a @ ḃ." in " ".join(text.lines)
    np.testing.assert_allclose(trace.output_tangent, 0.3)  # only A[0, 0] moves, times v[0]


def test_the_playground_panel_builds_the_jacobian_both_ways():
    page = str(Path(__file__).resolve().parents[2] / "pages" / "playground.py")
    at = AppTest.from_file(page, default_timeout=60)
    at.query_params["example"] = "forward-1-to-3"
    at.session_state[FORWARD_OPEN] = True  # the reader opens the folded panel (its content is drawn only then)
    at.run()
    next(t for t in at.toggle if t.label == "Build the whole Jacobian both ways").set_value(True).run()
    assert not at.exception
    headings = [m.value for m in at.markdown if m.value.startswith("**") and "mode:" in m.value]
    assert headings == ["**forward mode: 1 forward pass**", "**reverse mode: 3 backward passes**"]
    blocks = [c.value for c in at.code if c.value.count("\n") == 2]
    assert len(blocks) == 2 and blocks[0] == blocks[1]  # the same 3×1 Jacobian: −sin t, cos t, 2t
    assert any(c.value.startswith("The two Jacobians agree.") for c in at.caption)


def test_the_playground_panel_pushes_a_direction_over_every_input():
    page = str(Path(__file__).resolve().parents[2] / "pages" / "playground.py")
    at = AppTest.from_file(page, default_timeout=60)
    at.query_params["example"] = "gradient-penalty"
    at.session_state[FORWARD_OPEN] = True  # the reader opens the folded panel (its content is drawn only then)
    at.run()
    picker = next(box for box in at.selectbox if box.label.startswith("Move this input number"))
    picker.set_value("every input number at once (each moves by 1)").run()
    assert not at.exception
    program = run(gallery.by_slug("gradient-penalty").source)
    program.output.backward()
    expected = sum(float(t.grad.sum()) for t in program.inputs)  # Σ of the gradient = J · (1, …, 1)
    (arithmetic,) = [c.value for c in at.code if c.value.startswith("tangent(out)")]
    assert arithmetic.endswith("→ " + format_array(np.array(expected), shape=False))
