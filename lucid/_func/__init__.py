"""The public op functions: ``lucid.add(a, b)`` is ``add()`` applied to ``(a, b)``.

Each function builds a fresh ``operation`` instance per call (ops keep state) and
runs its forward: ``add.forward(add(), a, b)`` is ``add()(a, b)`` without the
instance-call dispatch, which is a noticeable share of a small op's cost.
"""
from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from lucid._func import binary as _b
from lucid._func import nn as _nn
from lucid._func import reduce as _r
from lucid._func import shape as _s
from lucid._func import unary as _u
from lucid._tensor.tensor import Tensor

Axis = int | tuple[int, ...] | None


# ----- arithmetic and elementwise --------------------------------------------
def add(a: Any, b: Any) -> Tensor:
    return _b.add.forward(_b.add(), a, b)


def sub(a: Any, b: Any) -> Tensor:
    return _b.sub.forward(_b.sub(), a, b)


def mul(a: Any, b: Any) -> Tensor:
    return _b.mul.forward(_b.mul(), a, b)


def div(a: Any, b: Any) -> Tensor:
    """True division."""
    return _b.div.forward(_b.div(), a, b)


def pow(a: Any, b: Any) -> Tensor:  # noqa: A001 - the product's vocabulary
    return _b.pow.forward(_b.pow(), a, b)


def matmul(a: Any, b: Any) -> Tensor:
    return _b.matmul.forward(_b.matmul(), a, b)


def maximum(a: Any, b: Any) -> Tensor:
    return _b.maximum.forward(_b.maximum(), a, b)


def minimum(a: Any, b: Any) -> Tensor:
    return _b.minimum.forward(_b.minimum(), a, b)


def where(cond: Any, a: Any, b: Any) -> Tensor:
    """``a`` where ``cond`` holds, else ``b``; the condition gets no gradient."""
    return _b.where.forward(_b.where(), cond, a, b)


def eq(a: Any, b: Any) -> Tensor:
    return _b.eq.forward(_b.eq(), a, b)


def ne(a: Any, b: Any) -> Tensor:
    return _b.ne.forward(_b.ne(), a, b)


def lt(a: Any, b: Any) -> Tensor:
    return _b.lt.forward(_b.lt(), a, b)


def le(a: Any, b: Any) -> Tensor:
    return _b.le.forward(_b.le(), a, b)


def gt(a: Any, b: Any) -> Tensor:
    return _b.gt.forward(_b.gt(), a, b)


def ge(a: Any, b: Any) -> Tensor:
    return _b.ge.forward(_b.ge(), a, b)


def neg(a: Any) -> Tensor:
    return _u.neg.forward(_u.neg(), a)


def exp(a: Any) -> Tensor:
    return _u.exp.forward(_u.exp(), a)


def log(a: Any) -> Tensor:
    return _u.log.forward(_u.log(), a)


def sqrt(a: Any) -> Tensor:
    return _u.sqrt.forward(_u.sqrt(), a)


def abs(a: Any) -> Tensor:  # noqa: A001
    return _u.abs.forward(_u.abs(), a)


def sin(a: Any) -> Tensor:
    return _u.sin.forward(_u.sin(), a)


def cos(a: Any) -> Tensor:
    return _u.cos.forward(_u.cos(), a)


def tanh(a: Any) -> Tensor:
    return _u.tanh.forward(_u.tanh(), a)


def sigmoid(a: Any) -> Tensor:
    return _u.sigmoid.forward(_u.sigmoid(), a)


def relu(a: Any) -> Tensor:
    return _u.relu.forward(_u.relu(), a)


def leaky_relu(a: Any, slope: float = 0.01) -> Tensor:
    return _u.leaky_relu.forward(_u.leaky_relu(slope=float(slope)), a)


def softplus(a: Any) -> Tensor:
    return _u.softplus.forward(_u.softplus(), a)


def clip(a: Any, low: float | None = None, high: float | None = None) -> Tensor:
    return _u.clip.forward(_u.clip(low=low, high=high), a)


# ----- reductions ------------------------------------------------------------
def sum(a: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    return _r.sum.forward(_r.sum(axis=axis, keepdims=keepdims), a)


def mean(a: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:
    return _r.mean.forward(_r.mean(axis=axis, keepdims=keepdims), a)


def max(a: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    return _r.max.forward(_r.max(axis=axis, keepdims=keepdims), a)


def min(a: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    return _r.min.forward(_r.min(axis=axis, keepdims=keepdims), a)


def var(a: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """Population variance (divides by N)."""
    return _r.var.forward(_r.var(axis=axis, keepdims=keepdims), a)


def logsumexp(a: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:
    return _r.logsumexp.forward(_r.logsumexp(axis=axis, keepdims=keepdims), a)


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


def mse_loss(pred: Any, target: Any) -> Tensor:
    return _nn.mse_loss.forward(_nn.mse_loss(), pred, target)


def binary_cross_entropy(prob: Any, target: Any) -> Tensor:
    """BCE on probabilities (apply ``sigmoid`` first)."""
    return _nn.binary_cross_entropy.forward(_nn.binary_cross_entropy(), prob, target)


def cross_entropy(logits: Any, targets: Any) -> Tensor:
    """Softmax cross-entropy of logits ``(N, C)`` (or ``(C,)``) and integer targets."""
    return _nn.cross_entropy.forward(_nn.cross_entropy(), logits, targets)
