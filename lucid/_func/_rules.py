"""Building blocks of the ops' differentiable rules (``vjp`` and ``jvp``), written with lucid ops.

Each op's ``grad_function`` works on NumPy arrays: the fast first-order pass. Its ``vjp`` and
``jvp`` methods say the same derivative again with lucid ops on Tensors, so what they return is
itself a graph node (``_op``/``_prev`` like any other) that can be drawn, stepped and
differentiated again: ``lucid.autograd.grad(..., create_graph=True)`` runs ``vjp``, forward mode
(``lucid.autograd.jvp``) runs ``jvp``. The helpers here are the pieces several rules share:
bringing a gradient back to an input's shape, undoing a reduction, selecting on a mask.
"""
from __future__ import annotations

from typing import Any

import numpy as np

import lucid._func as F  # the public op functions; a rule only runs after the package has loaded
from lucid._tensor.tensor import Tensor


def sum_to(g: Tensor, shape: tuple[int, ...]) -> Tensor:
    """``g`` summed over the axes broadcasting added, as lucid ops (``match_shape`` for Tensors)."""
    gshape = g.shape
    if gshape == shape:
        return g
    if not gshape:  # one value standing for the same value everywhere
        return F.broadcast_to(g, shape)
    extra = len(gshape) - len(shape)
    if extra < 0:
        return F.reshape(g, shape)
    axes = tuple(range(extra)) + tuple(extra + i for i, n in enumerate(shape) if n == 1 and gshape[extra + i] != 1)
    out = F.sum(g, axis=axes) if axes else g
    return out if out.shape == shape else F.reshape(out, shape)


def broadcast_like(t: Tensor, shape: tuple[int, ...]) -> Tensor:
    """``t`` copied out to ``shape`` (a tangent of a broadcast input has the output's shape)."""
    return t if t.shape == shape else F.broadcast_to(t, shape)


def expand_reduced(g: Tensor, shape: tuple[int, ...], axes: tuple[int, ...], keepdims: bool) -> Tensor:
    """A reduced gradient put back over ``shape``: restore the reduced axes, then broadcast."""
    if g.ndim and not keepdims and axes:
        g = F.reshape(g, tuple(1 if i in axes else n for i, n in enumerate(shape)))
    return broadcast_like(g, shape)


def keep_axes(t: Tensor, axes: tuple[int, ...], keepdims: bool) -> Tensor:
    """A reduction's result with its reduced axes back as size 1 (so it broadcasts over the input)."""
    if keepdims or not axes:
        return t
    return F.unsqueeze(t, axes) if t.ndim else F.reshape(t, (1,) * len(axes))


def constant(array: Any) -> Tensor:
    """A Tensor that is data, not a graph node (a mask, a one-hot table): its derivative is 0."""
    return Tensor(np.asarray(array))


def select(mask: np.ndarray, g: Tensor) -> Tensor:
    """``g`` where ``mask`` holds and an exact 0 elsewhere: a blocked branch is selected, never
    multiplied, so an infinite or NaN ``g`` there still gives 0 (as the first-order pass does)."""
    return F.where(constant(np.asarray(mask, dtype=bool)), g, 0.0)


def weighted_select(weights: np.ndarray, g: Tensor) -> Tensor:
    """``g · weights`` where a weight is not 0, an exact 0 where it is (max/min: ties split ½)."""
    weights = np.asarray(weights)
    if np.all((weights == 0) | (weights == 1)):
        return select(weights != 0, g)
    return select(weights != 0, g * constant(weights))


def tangent_sum(shape: tuple[int, ...], *terms: Tensor | None) -> Tensor | None:
    """The sum of the tangent terms that exist, at the output's ``shape`` (None when none exist)."""
    total = None
    for term in terms:
        if term is not None:
            total = term if total is None else total + term
    return None if total is None else broadcast_like(total, shape)


def zeros_or(t: Tensor | None, shape: tuple[int, ...]) -> Tensor:
    """A tangent, or a constant 0 of ``shape`` for an input that has none (concatenate, stack)."""
    return constant(np.zeros(shape)) if t is None else t
