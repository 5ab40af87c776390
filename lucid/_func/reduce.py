"""Reductions. Each expands its own gradient back over the reduced axes
(keepdims + broadcast), never by repeating a flattened array."""
from __future__ import annotations

import math
from types import MappingProxyType
from typing import Any

import numpy as np

import lucid._func as F  # the ops' differentiable rules (vjp/jvp) are written with lucid ops
from lucid._backend.core import Sample, masked_product, operation, unary_func_op
from lucid._func import _rules as R
from lucid._func._bindings import REDUCTION
from lucid._func._samples import distinct, uniform
from lucid._tensor.tensor import Tensor, tensor_from_array

Axis = int | tuple[int, ...] | None
_FLOAT64 = np.dtype(np.float64)
_empty, _array = np.empty, np.array


def normalize_axis(axis: Any, ndim: int) -> tuple[int, ...]:
    """Axis argument as a sorted tuple of non-negative axes (all axes for None).

    A 0-d tensor follows NumPy's reductions (``np.sum``, ``np.max``): it has
    no axes, but the single integer axis ``0`` or ``-1`` is accepted and
    reduces nothing, as is the empty tuple. Anything else is a ``ValueError``
    that names the axis and the number of dimensions.
    """
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, bool) or not isinstance(axis, int | np.integer | tuple | list):
        raise ValueError(f"axis must be an integer or a tuple of integers, not {axis!r}")
    if ndim == 0:
        if isinstance(axis, int | np.integer) and int(axis) in (0, -1):
            return ()
        if isinstance(axis, tuple | list) and not axis:
            return ()
        raise ValueError(f"axis {axis} is out of range for a tensor with 0 dimensions "
                         "(a 0-d tensor accepts axis=None, 0 or -1)")
    axes = (axis,) if isinstance(axis, int | np.integer) else tuple(axis)
    out = []
    for ax in axes:
        if isinstance(ax, bool) or not isinstance(ax, int | np.integer):
            raise ValueError(f"axis must be an integer or a tuple of integers, not {axis!r}")
        ax = int(ax)
        if not -ndim <= ax < ndim:
            raise ValueError(f"axis {ax} is out of range for a tensor with {ndim} dimension{'s' if ndim != 1 else ''}")
        out.append(ax % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"repeated axis in {axis}")
    return tuple(sorted(out))


def single_axis(axis: Any, ndim: int) -> tuple[int, ...]:
    """One integer axis (softmax and friends) as a tuple: ``(axis,)``, or ``()`` on a 0-d tensor."""
    if isinstance(axis, bool) or not isinstance(axis, int | np.integer):
        raise ValueError(f"axis must be a single integer, not {axis!r}")
    return normalize_axis(axis, ndim)


def expand_reduced(g: np.ndarray, shape: tuple[int, ...], axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
    """Put a reduced gradient back into ``shape``: restore the axes, then broadcast.

    Returns a fresh array (an assignment broadcasts in C; ``np.expand_dims`` and
    ``np.broadcast_to`` would cost microseconds of Python per call).
    """
    g = np.asarray(g)
    out = np.empty(shape, dtype=g.dtype)
    if not g.ndim:  # a full reduction: one value everywhere
        out.fill(g)
        return out
    if not keepdims and axes:
        g = g.reshape(tuple(1 if i in axes else n for i, n in enumerate(shape)))
    out[...] = g
    return out


def _reduction_samples(rng: np.random.Generator, maker=uniform) -> list[Sample]:
    return [Sample((maker(rng, 3, 4),)), Sample((maker(rng, 3, 4),), {"axis": 0}),
            Sample((maker(rng, 3, 4),), {"axis": 1}), Sample((maker(rng, 2, 3, 4),), {"axis": (0, 2)}),
            Sample((maker(rng, 3, 4),), {"axis": -1, "keepdims": True}), Sample((maker(rng, 5),), {"axis": 0})]


class _reduction(operation):
    group, language, method = "reduction", REDUCTION, True
    # ``x.mean()`` without options: the instance reads these (``defaults_on_class``), read-only as ``operation``'s
    params = MappingProxyType({"axis": None, "keepdims": False})
    defaults_on_class = True

    def __init__(self, axis: Axis = None, keepdims: bool = False) -> None:
        self.params = {"axis": axis, "keepdims": keepdims}  # operation.__init__'s work, without the **kwargs

    def _axes(self, a: Tensor) -> tuple[int, ...]:
        axis = self.params["axis"]
        return tuple(range(a.data.ndim)) if axis is None else normalize_axis(axis, a.data.ndim)

    def reduced(self, inputs: list[Tensor]) -> tuple[tuple[int, ...], bool]:
        """The axes summed over and ``keepdims`` (the rules of a ``"reduction"`` kind read them)."""
        return self._axes(inputs[0]), self.params["keepdims"]


class sum(_reduction):
    name, symbol, kind = "sum", "Σ", "linear"
    summary = "sum over axis (all axes by default)"
    formula, derivatives = "out = Σᵢ aᵢ (over axis)", ("∂out/∂aᵢ = 1",)
    samples = staticmethod(_reduction_samples)

    @unary_func_op()
    def forward(self, a: Tensor):
        axes, keep = self._axes(a), self.params["keepdims"]
        x = a.data  # floats: np.sum without its Python wrapper; booleans must count, not "or"
        out = np.add.reduce(x, axis=axes, keepdims=keep) if x.dtype.kind == "f" else np.sum(x, axis=axes, keepdims=keep)
        self._locals = lambda: (np.ones(a.shape),)
        return tensor_from_array(out), lambda g: (expand_reduced(g, a.shape, axes, keep),)

    def vjp(self, g, inputs, out):
        a = inputs[0]
        return (R.expand_reduced(g, a.shape, self._axes(a), self.params["keepdims"]),)


class mean(_reduction):
    name, symbol, kind = "mean", "mean", "linear"
    summary = "mean over axis"
    formula, derivatives = "out = (1/N) Σᵢ aᵢ", ("∂out/∂aᵢ = 1/N",)
    samples = staticmethod(_reduction_samples)
    local_rule = staticmethod(lambda a, out: (np.full(a.shape, 1.0 / a.size),))  # the full mean; others set _locals

    @unary_func_op()
    def forward(self, a: Tensor):
        x = a.data
        shape = x.shape
        params = self.params
        dtype = x.dtype
        if dtype is _FLOAT64 and params["axis"] is None and not params["keepdims"] and shape:
            n = x.size  # the mean of everything (a batch's loss): no axis bookkeeping; locals from local_rule
            # ``float(g) / n`` is ``g / n`` to the bit, without NumPy's 0-d overhead

            # one value everywhere; its values as defaults, not a closure: see ``binary.add``
            def grad_function(g: Any, shape=shape, n=n) -> tuple[np.ndarray]:
                out = _empty(shape)
                out.fill(float(g) / n)
                return (out,)

            total = np.add.reduce(x, None)
            # the sum's NumPy scalar divided as a Python float, then made a 0-d array: the same bits, without
            # NumPy's scalar division and the array made from its result (an empty array keeps NumPy's 0/0)
            return tensor_from_array(_array(float(total) / n) if n else total / n), grad_function
        axes, keep = self._axes(a), params["keepdims"]
        n = x.size if len(axes) == x.ndim else math.prod(map(shape.__getitem__, axes))  # no comprehension: see below
        if not axes:
            out = x.copy()
        elif x.dtype.kind == "f":  # np.mean without its Python wrapper
            out = np.add.reduce(x, axis=axes, keepdims=keep) / n
        else:
            out = np.mean(x, axis=axes, keepdims=keep)
        # defaults, not a closure, here too: a name any inner function captures is a cell on every call
        self._locals = lambda shape=shape, n=n: (np.full(shape, 1.0 / n),)
        # divide before copying out
        return tensor_from_array(out), lambda g, shape=shape, n=n, axes=axes, keep=keep: (
            expand_reduced(g / n, shape, axes, keep),)

    def vjp(self, g, inputs, out):
        a = inputs[0]
        axes = self._axes(a)
        n = math.prod([a.shape[i] for i in axes])
        return (R.expand_reduced(g / n, a.shape, axes, self.params["keepdims"]),)


class _extreme(_reduction):
    """max/min: the gradient goes to the winning element (split evenly on ties)."""

    pick, kind = staticmethod(np.max), "reduction"
    samples = staticmethod(lambda rng: _reduction_samples(rng, distinct))

    @unary_func_op()
    def forward(self, a: Tensor):
        axes, keep = self._axes(a), self.params["keepdims"]
        out = self.pick(a.data, axis=axes, keepdims=keep)

        def local():
            mask = (a.data == expand_reduced(out, a.shape, axes, keep)).astype(np.float64)
            return (mask / mask.sum(axis=axes, keepdims=True),)

        # the elements that are not the extreme are blocked: selected, never inf · 0
        return tensor_from_array(out), self.select(
            local, lambda g: (masked_product(expand_reduced(g, a.shape, axes, keep), local()[0]),))

    def _shares(self, a: Tensor, out: Tensor) -> np.ndarray:
        """1 for the extreme element of each reduced slice (split evenly on ties), 0 elsewhere."""
        axes, keep = self._axes(a), self.params["keepdims"]
        mask = (a.data == expand_reduced(out.data, a.shape, axes, keep)).astype(np.float64)
        return mask / mask.sum(axis=axes, keepdims=True)

    def local(self, i, inputs, out):
        return R.Weights(self._shares(inputs[0], out))


class max(_extreme):
    name, symbol, pick = "max", "max", staticmethod(np.max)
    summary = "largest value over axis (for two tensors use maximum)"
    formula, derivatives = "out = max over axis of a", ("∂out/∂aᵢ = 1 for the maximum (split on ties), else 0",)


class min(_extreme):
    name, symbol, pick = "min", "min", staticmethod(np.min)
    summary = "smallest value over axis (for two tensors use minimum)"
    formula, derivatives = "out = min over axis of a", ("∂out/∂aᵢ = 1 for the minimum (split on ties), else 0",)


class var(_reduction):
    name, symbol, kind = "var", "var", "reduction"
    summary = "population variance over axis"
    formula, derivatives = "out = (1/N) Σᵢ (aᵢ − ā)²", ("∂out/∂aᵢ = 2(aᵢ − ā)/N",)
    samples = staticmethod(_reduction_samples)

    @unary_func_op()
    def forward(self, a: Tensor):
        axes, keep = self._axes(a), self.params["keepdims"]
        n = math.prod([a.shape[i] for i in axes]) if axes else 1
        centred = a.data - np.mean(a.data, axis=axes, keepdims=True)
        out = np.mean(centred * centred, axis=axes, keepdims=keep)
        local = lambda: (2.0 * centred / n,)  # noqa: E731
        self._locals = local
        return tensor_from_array(out), lambda g: (expand_reduced(g, a.shape, axes, keep) * local()[0],)

    def local(self, i, inputs, out):
        """∂out/∂a = 2(a − ā)/N (ā depends on a too: it matters at second order)."""
        a = inputs[0]
        axes = self._axes(a)
        n = math.prod([a.shape[i] for i in axes]) if axes else 1
        return (a - F.mean(a, axis=axes, keepdims=True)) * (2.0 / n)


class logsumexp(_reduction):
    name, symbol, kind = "logsumexp", "LSE", "reduction"
    summary = "ln Σ eˣ over axis"
    formula, derivatives = "out = ln Σᵢ e^aᵢ", ("∂out/∂aᵢ = e^aᵢ / Σⱼ e^aⱼ = softmax(a)ᵢ",)
    samples = staticmethod(_reduction_samples)

    @unary_func_op()
    def forward(self, a: Tensor):
        axes, keep = self._axes(a), self.params["keepdims"]
        out_keep = stable_logsumexp(a.data, axes)
        out = out_keep if keep else np.squeeze(out_keep, axis=axes)
        local = lambda: (np.exp(a.data - out_keep),)  # noqa: E731
        self._locals = local
        return tensor_from_array(out), lambda g: (expand_reduced(g, a.shape, axes, keep) * local()[0],)

    def local(self, i, inputs, out):
        """∂out/∂a = e^(a − out) = softmax(a) over the axes."""
        a = inputs[0]
        return F.exp(a - R.keep_axes(out, self._axes(a), self.params["keepdims"]))


def stable_logsumexp(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """ln Σ eˣ with keepdims, shifted by the max so eˣ never overflows."""
    m = np.max(x, axis=axes, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    return m + np.log(np.sum(np.exp(x - m), axis=axes, keepdims=True))
