"""The public op functions: ``lucid.add(a, b)`` is ``add()`` applied to ``(a, b)``.

Each function builds a fresh ``operation`` instance per call (ops keep state) and
runs its forward: ``add.forward(add(), a, b)`` is ``add()(a, b)`` without the
instance-call dispatch, which is a noticeable share of a small op's cost. The ops
without parameters go one step further (``op_function``): the instance is made
inside the forward's own bookkeeping frame.
"""
from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from lucid._backend.core import op_function
from lucid._func import binary as _b
from lucid._func import nn as _nn
from lucid._func import reduce as _r
from lucid._func import shape as _s
from lucid._func import unary as _u
from lucid._tensor.tensor import Tensor

Axis = int | tuple[int, ...] | None


# ----- arithmetic and elementwise --------------------------------------------
add = op_function(_b.add, "add")


sub = op_function(_b.sub, "sub")


mul = op_function(_b.mul, "mul")


div = op_function(_b.div, "div", "True division.")


pow = op_function(_b.pow, "pow")


matmul = op_function(_b.matmul, "matmul")


maximum = op_function(_b.maximum, "maximum")


minimum = op_function(_b.minimum, "minimum")


def where(cond: Any, a: Any, b: Any) -> Tensor:
    """``a`` where ``cond`` holds, else ``b``; the condition gets no gradient."""
    return _b.where.forward(_b.where(), cond, a, b)


eq = op_function(_b.eq, "eq")


ne = op_function(_b.ne, "ne")


lt = op_function(_b.lt, "lt")


le = op_function(_b.le, "le")


gt = op_function(_b.gt, "gt")


ge = op_function(_b.ge, "ge")


neg = op_function(_u.neg, "neg")


exp = op_function(_u.exp, "exp")


log = op_function(_u.log, "log")


sqrt = op_function(_u.sqrt, "sqrt")


abs = op_function(_u.abs, "abs")


sin = op_function(_u.sin, "sin")


cos = op_function(_u.cos, "cos")


tanh = op_function(_u.tanh, "tanh")


sigmoid = op_function(_u.sigmoid, "sigmoid")


relu = op_function(_u.relu, "relu")


def leaky_relu(a: Any, slope: float = 0.01) -> Tensor:
    return _u.leaky_relu.forward(_u.leaky_relu(slope=float(slope)), a)


softplus = op_function(_u.softplus, "softplus")


def clip(a: Any, low: float | None = None, high: float | None = None) -> Tensor:
    return _u.clip.forward(_u.clip(low=low, high=high), a)


# ----- reductions ------------------------------------------------------------
def sum(a: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    return _r.sum.forward(_r.sum(axis, keepdims), a)


def mean(a: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:
    return _r.mean.forward(_r.mean(axis, keepdims), a)


def max(a: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    return _r.max.forward(_r.max(axis, keepdims), a)


def min(a: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    return _r.min.forward(_r.min(axis, keepdims), a)


def var(a: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """Population variance (divides by N)."""
    return _r.var.forward(_r.var(axis, keepdims), a)


def logsumexp(a: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:
    return _r.logsumexp.forward(_r.logsumexp(axis, keepdims), a)


# ----- shape -----------------------------------------------------------------
def reshape(a: Any, *shape: Any) -> Tensor:
    """``reshape(x, (2, 3))`` or ``reshape(x, 2, 3)``."""
    if len(shape) == 1 and isinstance(shape[0], Sequence):
        shape = tuple(shape[0])
    return _s.reshape.forward(_s.reshape(shape=tuple(builtins.int(n) for n in shape)), a)


def transpose(a: Any, axes: Sequence[int] | None = None) -> Tensor:
    return _s.transpose.forward(_s.transpose(axes=axes), a)


def swapaxes(a: Any, axis1: int, axis2: int) -> Tensor:
    return _s.swapaxes.forward(_s.swapaxes(axis1=axis1, axis2=axis2), a)


def squeeze(a: Any, axis: Axis = None) -> Tensor:
    return _s.squeeze.forward(_s.squeeze(axis=axis), a)


def unsqueeze(a: Any, axis: int | tuple[int, ...]) -> Tensor:
    return _s.unsqueeze.forward(_s.unsqueeze(axis=axis), a)


expand_dims = unsqueeze


def broadcast_to(a: Any, shape: Sequence[int]) -> Tensor:
    return _s.broadcast_to.forward(_s.broadcast_to(shape=tuple(shape)), a)


def concatenate(tensors: Sequence[Any], axis: int = 0) -> Tensor:
    return _s.concatenate.forward(_s.concatenate(axis=axis), tensors)


def stack(tensors: Sequence[Any], axis: int = 0) -> Tensor:
    return _s.stack.forward(_s.stack(axis=axis), tensors)


def getitem(a: Any, index: Any) -> Tensor:
    return _s.getitem.forward(_s.getitem(index=index), a)


# ----- neural network --------------------------------------------------------
def softmax(a: Any, axis: int = -1) -> Tensor:
    return _nn.softmax.forward(_nn.softmax(axis=axis), a)


def log_softmax(a: Any, axis: int = -1) -> Tensor:
    return _nn.log_softmax.forward(_nn.log_softmax(axis=axis), a)


mse_loss = op_function(_nn.mse_loss, "mse_loss")


binary_cross_entropy = op_function(_nn.binary_cross_entropy, "binary_cross_entropy",
                                   "BCE on probabilities (apply ``sigmoid`` first).")


binary_cross_entropy_with_logits = op_function(
    _nn.binary_cross_entropy_with_logits, "binary_cross_entropy_with_logits",
    "BCE of ``sigmoid(logits)`` from the logits, stable and exact where the sigmoid saturates.")


cross_entropy = op_function(_nn.cross_entropy, "cross_entropy",
                            "Softmax cross-entropy of logits ``(N, C)`` (or ``(C,)``) and integer targets.")
