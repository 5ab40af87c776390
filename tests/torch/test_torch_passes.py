"""lucid.torch and the passes besides one ``loss.backward()``: ``torch.autograd.grad``, ``create_graph=True``,
``retain_grad()`` on a non-leaf, a second pass, a ``.grad`` that was not zeroed.

Each is either recorded truthfully or refused with a ``RecordError`` that says what to write instead; in every
case the user's numbers are bit for bit those of the same code run without the recorder.
"""
from __future__ import annotations

import numpy as np
import pytest

from tests.needs import require_torch

torch = require_torch()

from lucid.torch import replay  # noqa: E402
from lucid.torch.capture import RecordError, record  # noqa: E402
from lucid.torch.data import NOTE_CREATE_GRAPH, NOTE_PASSES, NOTE_STALE_GRAD  # noqa: E402


def _leaves():
    x = torch.tensor([0.5, -1.25, 2.0], requires_grad=True, dtype=torch.float64)
    w = torch.tensor([0.3, 0.8, -0.45], requires_grad=True, dtype=torch.float64)
    return x, w


def _program(x, w):
    h = torch.tanh(x * w)
    return (h * h + torch.sigmoid(w) * 1.5).sum() * 0.7, h


def _finals(trace) -> dict[str, np.ndarray]:
    """Each named node's gradient when the pass is done (the last step into it), from the replayed trace."""
    return {s.parent.name: s.accumulated for s in trace.steps if s.is_final and s.parent.name}


def test_autograd_grad_after_the_block_is_recorded_like_backward_and_leaves_no_grad():
    x0, w0 = _leaves()
    plain = torch.autograd.grad(_program(x0, w0)[0], [x0, w0])
    x, w = _leaves()
    with record(names={"x": x, "w": w}) as rec:
        loss, _ = _program(x, w)
    gx, gw = torch.autograd.grad(loss, [x, w])
    assert torch.equal(gx, plain[0]) and torch.equal(gw, plain[1])  # the user's numbers, bit for bit
    assert x.grad is None and w.grad is None  # grad() fills no .grad, with or without the recorder
    root, trace = replay(rec.graph())
    finals = _finals(trace)
    np.testing.assert_allclose(finals["x"], gx.numpy(), rtol=1e-15, atol=0)
    np.testing.assert_allclose(finals["w"], gw.numpy(), rtol=1e-15, atol=0)
    assert trace.steps[0].parent is root and root.name == "loss"


def test_autograd_grad_with_an_upstream_gradient_seeds_the_pass_with_it():
    x, w = _leaves()
    with record(names={"x": x, "w": w}) as rec:
        y = torch.exp(x * w) * 2.5
    (gx,) = torch.autograd.grad(y, x, grad_outputs=torch.tensor([0.25, -1.5, 0.75], dtype=torch.float64))
    graph = rec.graph()
    np.testing.assert_array_equal(graph.steps[0].contribution, [0.25, -1.5, 0.75])
    np.testing.assert_allclose(_finals(replay(graph)[1])["x"], gx.numpy(), rtol=1e-15)
    assert "w" not in _finals(replay(graph)[1])  # torch computed no gradient for w, so none is shown


@pytest.mark.parametrize("call, message", [
    (lambda loss, x: torch.autograd.grad(loss, x), "torch.autograd.grad inside the 'with record\\(\\)' block"),
    (lambda loss, x: loss.backward(), "backward\\(\\) inside the 'with record\\(\\)' block"),
    (lambda loss, x: torch.autograd.grad(loss, x, create_graph=True), "create_graph=True"),
])
def test_a_backward_pass_inside_the_block_is_refused_before_it_runs(call, message):
    x, w = _leaves()
    with pytest.raises(RecordError, match=message):
        with record():
            loss, _ = _program(x, w)
            call(loss, x)
    assert x.grad is None and w.grad is None  # refused before torch ran anything


def test_create_graph_shows_the_first_pass_says_so_and_double_backward_is_torchs():
    x0, w0 = _leaves()
    (g0,) = torch.autograd.grad(_program(x0, w0)[0], x0, create_graph=True)
    (g0 * torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)).sum().backward()
    x, w = _leaves()
    with record(names={"x": x, "w": w}) as rec:
        loss, _ = _program(x, w)
    (g,) = torch.autograd.grad(loss, x, create_graph=True)
    first = g.detach().clone()
    (g * torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)).sum().backward()  # second order, through g
    assert torch.equal(g, g0) and torch.equal(x.grad, x0.grad) and torch.equal(w.grad, w0.grad)
    graph = rec.graph()
    assert NOTE_CREATE_GRAPH in graph.notes and "not drawn" in NOTE_CREATE_GRAPH
    np.testing.assert_allclose(_finals(replay(graph)[1])["x"], first.numpy(), rtol=1e-15)


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True:UserWarning")  # torch's own advice
def test_backward_with_create_graph_then_a_gradient_penalty_shows_the_first_pass_and_says_so():
    v = torch.tensor([0.75, -1.5, 0.25], dtype=torch.float64)
    x0, w0 = _leaves()
    _program(x0, w0)[0].backward(create_graph=True)
    first0 = w0.grad.detach().clone()
    (w0.grad * v).sum().backward()  # through the gradient: adds ∂(grad·v)/∂w to w.grad
    x, w = _leaves()
    with record(names={"x": x, "w": w}) as rec:
        loss, _ = _program(x, w)
    loss.backward(create_graph=True)
    first = w.grad.detach().clone()
    (w.grad * v).sum().backward()
    assert torch.equal(first, first0) and torch.equal(w.grad, w0.grad) and torch.equal(x.grad, x0.grad)
    graph = rec.graph()
    assert NOTE_CREATE_GRAPH in graph.notes and NOTE_STALE_GRAD in graph.notes  # w.grad now holds more than pass 1
    np.testing.assert_allclose(_finals(replay(graph)[1])["w"], first.numpy(), rtol=1e-15)
    for leaf in (x0, w0, x, w):
        leaf.grad = None  # torch's advice after backward(create_graph=True): the cycle through .grad is broken


def test_a_non_leaf_with_retain_grad_has_the_recorded_total_as_its_grad():
    x0, w0 = _leaves()
    loss0, h0 = _program(x0, w0)
    h0.retain_grad()
    loss0.backward()
    x, w = _leaves()
    with record(names={"x": x, "w": w}) as rec:
        loss, h = _program(x, w)
        h.retain_grad()
    loss.backward()
    assert torch.equal(h.grad, h0.grad) and torch.equal(x.grad, x0.grad)  # the user's numbers, bit for bit
    root, trace = replay(rec.graph())
    into_h = [s for s in trace.steps if s.parent.name == "h"]
    assert len(into_h) == 2  # h * h: one contribution per use
    np.testing.assert_array_equal(into_h[-1].accumulated, h.grad.numpy())
    np.testing.assert_allclose(h.grad.numpy(), 2 * 0.7 * h.detach().numpy(), rtol=1e-15)


def test_a_grad_that_was_not_zeroed_is_not_shown_as_this_passs_and_a_note_says_why():
    x, w = _leaves()
    _program(x, w)[0].backward()  # an earlier step left its gradient in x.grad and w.grad
    with record(names={"x": x, "w": w}) as rec:
        loss, _ = _program(x, w)
    loss.backward()
    graph = rec.graph()
    assert NOTE_STALE_GRAD in graph.notes and "the player shows this pass's total" in NOTE_STALE_GRAD
    x_node = next(n for n in graph.nodes if n.name == "x")
    assert x_node.grad is None
    total = _finals(replay(graph)[1])["x"]
    np.testing.assert_allclose(total, x.grad.numpy() / 2, rtol=1e-14)  # the same step twice: half of .grad


def test_a_second_backward_pass_is_counted_not_mixed_into_the_first():
    x, w = _leaves()
    with record(names={"x": x, "w": w}) as rec:
        loss, _ = _program(x, w)
    loss.backward(torch.tensor(2.0, dtype=torch.float64), retain_graph=True)
    once = x.grad.clone()
    loss.backward(torch.tensor(-3.0, dtype=torch.float64))
    graph = rec.graph()
    assert graph.notes == [NOTE_PASSES, NOTE_STALE_GRAD]  # x.grad holds both passes: not the one shown
    np.testing.assert_array_equal(graph.steps[0].contribution, 2.0)
    np.testing.assert_allclose(_finals(replay(graph)[1])["x"], once.numpy(), rtol=1e-15)
