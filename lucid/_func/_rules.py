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
from lucid._backend.core import DERIVED
from lucid._backend.grad_mode import no_grad
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


# ----- rules derived from an op's kind ----------------------------------------------------------------
# An op states its derivative once, as ``local(i, inputs, out)``: ∂out/∂inputs[i] written with lucid ops
# (a Tensor or a number to multiply by, ``Weights`` to select with, None for an input that has none).
# Everything else follows from the op's ``kind``, as PyTorch derives its forward-mode formulas
# (``auto_element_wise``, ``auto_linear``): the backward rule multiplies the upstream gradient by it, the
# forward rule multiplies each input's tangent by it, and the backward trace shows its values.


class Weights:
    """A local derivative that is data, not a formula: a 0/1 mask (relu, clip, where) or the shares of a tie
    (max, min). It is applied by *selecting* (``weighted_select``), never by multiplying, so a blocked element
    gets an exact 0 even when the gradient there is infinite or NaN."""

    __slots__ = ("array",)

    def __init__(self, array: Any) -> None:
        self.array = np.asarray(array, dtype=np.float64)


Local = Tensor | float | Weights | None


def times(v: Tensor | None, d: Local) -> Tensor | None:
    """``v · d``: a gradient or tangent times a local derivative (None when either is missing)."""
    if v is None or d is None:
        return None
    if isinstance(d, Weights):
        return weighted_select(d.array, v)
    if isinstance(d, int | float):
        return v if d == 1 else -v if d == -1 else v * d
    return v * d


def _needed(inputs: Any) -> list[bool]:
    return [x.requires_grad for x in inputs]


def elementwise_vjp(op: Any, g: Tensor, inputs: Any, out: Tensor) -> list[Tensor | None]:
    """Each input's gradient ``g · ∂out/∂input`` (the backward pass sums it over broadcast axes)."""
    return [times(g, op.local(i, inputs, out)) if need else None for i, need in enumerate(_needed(inputs))]


def elementwise_jvp(op: Any, tangents: Any, inputs: Any, out: Tensor) -> Tensor | None:
    """The output's tangent ``Σᵢ ṫᵢ · ∂out/∂inputᵢ`` (a broadcast input's tangent broadcasts with it)."""
    return tangent_sum(out.shape, *(None if t is None else times(t, op.local(i, inputs, out))
                                    for i, t in enumerate(tangents)))


def local_arrays(op: Any, *args: Any) -> tuple[np.ndarray | None, ...]:
    """An elementwise op's local derivatives as arrays of the output's shape (``operation.local_rule``'s form,
    ``(*inputs, out_array)``): what the backward trace and the explanations show.

    They are the numbers the engine itself multiplies by: its NumPy gradient function's answer to an
    upstream gradient of ones (for an elementwise op each input's gradient is then its local derivative,
    and the registry-wide test holds it to the ``local`` rule). Reading them back costs one NumPy step per
    input, where the rule would cost lucid ops per node of a long trace. A node without a gradient
    function gets the rule's values.
    """
    *inputs, out_data = args
    shape = np.shape(out_data)
    node = op.result
    grad_function = None if node is None or node.__class__ is tuple else node._grad_fn
    if grad_function is not None:
        return tuple(_spread(g, shape) for g in grad_function(np.ones(shape)))
    return rule_arrays(op, inputs, out_data)


def rule_arrays(op: Any, inputs: Any, out_data: np.ndarray, wanted: Any = None) -> tuple[np.ndarray | None, ...]:
    """The ``local`` rule's values as arrays of the output's shape (None for an input not ``wanted``)."""
    shape = np.shape(out_data)
    with no_grad():
        out = Tensor(out_data)
        return tuple(None if wanted is not None and not wanted[i] else _as_array(op.local(i, inputs, out), shape)
                     for i in range(len(inputs)))


def _spread(g: Any, shape: tuple[int, ...]) -> np.ndarray | None:
    """``g`` at ``shape`` (``np.broadcast_to`` only when it is not: its Python wrapper costs microseconds)."""
    if g is None:
        return None
    return g if np.shape(g) == shape else np.broadcast_to(g, shape)


def _as_array(d: Local, shape: tuple[int, ...]) -> np.ndarray | None:
    if d is None:
        return None
    if isinstance(d, Weights):
        return np.broadcast_to(d.array, shape)
    if isinstance(d, int | float):
        return np.full(shape, float(d))
    return np.broadcast_to(d.data, shape)


def chain_from_rule(op: Any, inputs: Any, out: np.ndarray) -> Any:
    """A NumPy gradient function computed from the op's ``local`` rule (for an op with no hand-written fast
    path: its derivative, special cases included, is then written only once)."""
    return op.chain(lambda: rule_arrays(op, inputs, out, _needed(inputs)))


def _reduced(op: Any, inputs: Any, shape: tuple[int, ...]) -> tuple[tuple[int, ...], bool]:
    """``(axes, keepdims)`` of a reduction: its own ``reduced(inputs)``, else all axes (a loss's mean)."""
    reduced = getattr(op, "reduced", None)
    return reduced(inputs) if reduced is not None else (tuple(range(len(shape))), False)


def reduction_vjp(op: Any, g: Tensor, inputs: Any, out: Tensor) -> list[Tensor | None]:
    """A reduction of an elementwise function: the upstream gradient put back over the reduced axes, times
    the local derivative of each element."""
    shape = np.broadcast_shapes(*(x.shape for x in inputs))
    axes, keepdims = _reduced(op, inputs, shape)
    spread = g if not g.ndim else expand_reduced(g, shape, axes, keepdims)  # a 0-d g broadcasts by itself
    return [times(spread, op.local(i, inputs, out)) if need else None for i, need in enumerate(_needed(inputs))]


def reduction_jvp(op: Any, tangents: Any, inputs: Any, out: Tensor) -> Tensor | None:
    """The tangents times the local derivatives, summed over the reduced axes."""
    shape = np.broadcast_shapes(*(x.shape for x in inputs))
    axes, keepdims = _reduced(op, inputs, shape)
    total = tangent_sum(shape, *(None if t is None else times(t, op.local(i, inputs, out))
                                 for i, t in enumerate(tangents)))
    return None if total is None else F.sum(total, axis=axes, keepdims=keepdims)


def _again(op: Any) -> Any:
    """A fresh instance of ``op``'s class with the same parameters (the op applied once more)."""
    return type(op)(**op.params)


def linear_jvp(op: Any, tangents: Any, inputs: Any, out: Tensor) -> Tensor:
    """A linear op's tangent is the op applied to the tangents (a missing one counts as 0)."""
    if getattr(type(op).forward, "n_in", 1) is None:  # the tensors come as one sequence (concatenate, stack)
        return _again(op)([zeros_or(t, x.shape) for t, x in zip(tangents, inputs)])
    return _again(op)(*[zeros_or(t, x.shape) for t, x in zip(tangents, inputs)])


def bilinear_jvp(op: Any, tangents: Any, inputs: Any, out: Tensor) -> Tensor | None:
    """A bilinear op (matmul): one term per moving input, the op with that input replaced by its tangent."""
    terms = []
    for i, t in enumerate(tangents):
        if t is not None:
            args = list(inputs)
            args[i] = t
            terms.append(_again(op)(*args))
    return tangent_sum(out.shape, *terms)


DERIVED.update({
    "elementwise": {"vjp": elementwise_vjp, "jvp": elementwise_jvp, "local_rule": local_arrays},
    "reduction": {"vjp": reduction_vjp, "jvp": reduction_jvp},
    "linear": {"jvp": linear_jvp},
    "bilinear": {"jvp": bilinear_jvp},
})


def at_limit_zero(removable: np.ndarray, a: Tensor, expression: Any, shape: tuple[int, ...]) -> Tensor:
    """``expression(a)``, with an exact 0 where ``removable`` holds: a removable singularity at its limit 0.

    The removable elements are computed at ``a = 1`` instead and then selected away, so they never see
    ``0⁻¹`` or ``ln 0`` (and a later derivative of them is 0 too). Elsewhere a real singularity keeps its
    infinity, without a floating-point warning.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        if not np.any(removable):
            return expression(a)
        removable = np.broadcast_to(removable, shape)
        return select(~removable, expression(F.where(constant(removable), 1.0, a)))
