"""Review findings in the engine, each pinned by the numbers it must give."""
from __future__ import annotations

import numpy as np

import lucid
from lucid import Tensor


def test_cross_entropy_reads_boolean_targets_as_classes_one_and_zero():
    logits = Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    loss = lucid.cross_entropy(logits, Tensor(np.array([True, False])))
    # row 0, class 1: ln(1 + e^-1); row 1, class 0: ln(1 + e^1); the mean of the two
    expected = (np.log1p(np.exp(-1.0)) + np.log1p(np.exp(1.0))) / 2
    assert np.isclose(loss.item(), expected)
    assert np.isclose(loss.item(), lucid.cross_entropy(Tensor([[1.0, 2.0], [3.0, 4.0]]), [1, 0]).item())
    loss.backward(np.array(0.5))
    p = np.exp([[1.0, 2.0], [3.0, 4.0]])
    p /= p.sum(axis=1, keepdims=True)
    onehot = np.array([[0.0, 1.0], [1.0, 0.0]])
    np.testing.assert_allclose(logits.grad, 0.5 * (p - onehot) / 2)
