"""A ``torch.autograd.Function`` of the user's own is one node, named by its class, stepped with its ``backward``.

``Function.apply`` never passes through ``TorchFunctionMode``; without care its result would enter the drawing as
a leaf and every path through it would silently vanish. The recorder rebuilds the call from its autograd node
when a recorded call uses the result, or refuses when it cannot find the Function's inputs.
"""
from __future__ import annotations

import numpy as np
import pytest

from tests.needs import require_torch

torch = require_torch()

from lucid.i18n import use_language  # noqa: E402
from lucid.torch import replay  # noqa: E402
from lucid.torch.capture import RecordError, record  # noqa: E402


class Cube(torch.autograd.Function):
    """x³ with its own rule (3x²), so the test can tell the Function's gradient from any other."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x ** 2


def _leaves():
    return (torch.tensor([0.5, -1.25, 2.0], dtype=torch.float64, requires_grad=True),
            torch.tensor([0.3, 0.8, -0.45], dtype=torch.float64, requires_grad=True))


def test_a_function_is_one_node_and_its_gradient_is_its_own_backwards():
    x0, w0 = _leaves()
    (Cube.apply(x0 * w0) * 0.5).sum().backward()
    x, w = _leaves()
    with record(names={"x": x, "w": w}) as rec:
        out = (Cube.apply(x * w) * 0.5).sum()
    out.backward()
    assert torch.equal(x.grad, x0.grad) and torch.equal(w.grad, w0.grad)  # the user's numbers, bit for bit
    graph = rec.graph()
    assert [n.op for n in graph.nodes if n.kind == "op"] == ["mul", "Cube", "mul", "sum"]
    cube = next(n for n in graph.nodes if n.op == "Cube")
    np.testing.assert_array_equal(cube.value, ((x * w) ** 3).detach().numpy())
    root, trace = replay(graph)
    into_product = next(s for s in trace.steps if s.node is not None and s.node._op.describe() == "Cube")
    xw = (x * w).detach().numpy()
    np.testing.assert_allclose(into_product.contribution, 0.5 * 3 * xw ** 2, rtol=1e-15)
    finals = {s.parent.name: s.accumulated for s in trace.steps if s.is_final and s.parent.name}
    np.testing.assert_array_equal(finals["x"], x.grad.numpy())
    np.testing.assert_array_equal(finals["w"], w.grad.numpy())


def test_a_function_of_a_functions_result_is_refused_by_name():
    x, _ = _leaves()
    with pytest.raises(RecordError) as refused:
        with record():
            (Cube.apply(Cube.apply(x)) * 2.0).sum()
    assert str(refused.value).startswith("'Cube' is a torch.autograd.Function whose inputs the recorder cannot see")
    with use_language("ko"):
        assert str(refused.value).startswith("'Cube'는 기록기가 입력을 볼 수 없는 `torch.autograd.Function`입니다")
