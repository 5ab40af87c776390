"""The gallery: at least the ten lessons the issue lists, each with one sentence, each runs."""
import numpy as np
import pytest

from lucid import gallery
from lucid.autograd import backward_trace
from lucid.expr import run


def test_gallery_has_the_required_lessons():
    titles = [e.title for e in gallery.EXAMPLES]
    assert len(titles) >= 12
    for wanted in ["Scalar expression", "A single neuron", "x*x: a node used twice", "A bias broadcast over a batch",
                   "A reduction", "Softmax + cross-entropy", "A 2-layer MLP on a batch", "Mean squared error",
                   "A residual connection", "A division/power chain"]:
        assert wanted in titles


def test_slugs_and_titles_are_unique():
    assert len({e.slug for e in gallery.EXAMPLES}) == len(gallery.EXAMPLES)
    assert len({e.title for e in gallery.EXAMPLES}) == len(gallery.EXAMPLES)


def test_each_lesson_is_one_sentence():
    for e in gallery.EXAMPLES:
        assert e.lesson.endswith(".")
        assert e.lesson.count(". ") == 0, e.slug


def test_default_is_the_scalar_expression_at_the_given_point():
    src = gallery.DEFAULT.source
    assert "a = 1.3" in src and "b = -0.7" in src and "c = 0.45" in src
    assert "tanh(a*b + c**2) * sigmoid(a - c) + log(b*b + 1)" in src


def test_lookup_by_slug_and_by_source():
    assert gallery.by_slug("used-twice").title == "x*x: a node used twice"
    assert gallery.by_slug("nope") is None
    assert gallery.find_source("\n" + gallery.EXAMPLES[2].source + "  \n") is gallery.EXAMPLES[2]
    assert gallery.find_source("z = 1") is None


@pytest.mark.parametrize("example", gallery.EXAMPLES, ids=lambda e: e.slug)
def test_every_example_runs_and_has_a_backward_pass(example):
    program = run(example.source, seed=0)
    assert program.output.requires_grad
    trace = backward_trace(program.output)
    assert len(trace.steps) >= 2
    for t in program.inputs:
        assert np.all(np.isfinite(t.grad))


def test_scalar_example_value():
    a, b, c = 1.3, -0.7, 0.45
    expected = np.tanh(a * b + c**2) / (1 + np.exp(-(a - c))) + np.log(b * b + 1)
    out = run(gallery.DEFAULT.source).output
    assert out.data.item() == pytest.approx(expected, rel=1e-12)


def test_node_used_twice_gets_both_contributions():
    program = run(gallery.by_slug("used-twice").source)
    program.output.backward()
    assert program.variables["x"].grad == pytest.approx(6.0)


def test_bias_gradient_sums_over_the_batch():
    program = run(gallery.by_slug("bias-broadcast").source, seed=0)
    program.output.backward()
    X, b = program.variables["X"].data, program.variables["b"].data
    h = np.tanh(X + b)
    assert program.variables["b"].grad == pytest.approx((2 * h * (1 - h**2)).sum(axis=0))


def test_softmax_cross_entropy_gradient_is_softmax_minus_targets_over_batch():
    program = run(gallery.by_slug("softmax-ce").source, seed=0)
    program.output.backward()
    z, Y = program.variables["logits"].data, program.variables["Y"].data
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    assert program.variables["logits"].grad == pytest.approx((p - Y) / 4, abs=1e-12)


def test_relu_gate_passes_gradient_only_where_the_input_was_positive():
    program = run(gallery.by_slug("relu-gate").source)
    program.output.backward()
    assert program.variables["x"].grad.tolist() == [0.0, 0.0, 3.0, 4.0]


def test_cs231n_circuit_gradients_are_the_notes_numbers():
    program = run(gallery.by_slug("cs231n-circuit").source)
    program.output.backward()
    v = program.variables
    assert v["f"].data.item() == -12.0
    assert (v["x"].grad.item(), v["y"].grad.item(), v["z"].grad.item()) == (-4.0, -4.0, 3.0)


def test_cs231n_sigmoid_neuron_gradients_are_the_notes_numbers():
    program = run(gallery.by_slug("cs231n-sigmoid").source)
    program.output.backward()
    v = program.variables
    s = 1 / (1 + np.exp(-(2.0 * -1.0 + -3.0 * -2.0 + -3.0)))  # sigmoid(1) = 0.7311
    local = s * (1 - s)  # 0.1966, the notes' closed form
    assert v["f"].data.item() == pytest.approx(s, rel=1e-12)
    expected = {"w0": -1.0 * local, "x0": 2.0 * local, "w1": -2.0 * local, "x1": -3.0 * local, "w2": local}
    for name, grad in expected.items():
        assert v[name].grad.item() == pytest.approx(grad, rel=1e-12), name
    assert [round(v[n].grad.item(), 2) for n in ("w0", "x0", "w1", "x1", "w2")] == [-0.2, 0.39, -0.39, -0.59, 0.2]
