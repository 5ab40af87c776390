"""Full-batch SGD loops for the three twins of one MLP (arrays, NumPy by hand, scalars).

Shared by the benchmark and the training page so both train exactly the same
way: each loop returns the loss at every step (measured before that step's update).
"""
from __future__ import annotations

import numpy as np

from lucid._func import binary_cross_entropy
from lucid._tensor.tensor import Tensor
from lucid.nn.layers import MLP
from lucid.nn.reference import NumpyMLP
from lucid.nn.scalar import ScalarMLP
from lucid.optim.sgd import SGD


def train_tensor(model: MLP, x: np.ndarray, y: np.ndarray, steps: int, lr: float) -> list[float]:
    """Train a ``lucid.nn.MLP`` (sigmoid output) with BCE and ``lucid.optim.SGD``."""
    opt = SGD(model.parameters(), lr=lr)
    xt, yt = Tensor(x), Tensor(y)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = binary_cross_entropy(model(xt), yt)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def train_numpy(net: NumpyMLP, x: np.ndarray, y: np.ndarray, steps: int, lr: float) -> list[float]:
    """Train the hand-written NumPy MLP with the same loss and update."""
    losses = []
    for _ in range(steps):
        loss, grads = net.loss_and_grads(x, y)
        net.sgd_step(grads, lr)
        losses.append(loss)
    return losses


def train_scalar(net: ScalarMLP, x: np.ndarray, y: np.ndarray, steps: int, lr: float) -> list[float]:
    """Train the 0-d-tensor MLP with the same loss and ``lucid.optim.SGD``."""
    opt = SGD(net.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = net.bce_loss(x, y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses
