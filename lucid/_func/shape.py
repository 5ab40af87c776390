"""Ops that move values around without changing them: the gradient moves back."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import lucid._func as F  # the ops' differentiable rules (vjp/jvp) are written with lucid ops
from lucid._backend.core import Sample, operation, poly_func_op, unary_func_op
from lucid._func._bindings import Language
from lucid._func._samples import uniform
from lucid._tensor.tensor import Tensor, tensor_from_array


class reshape(operation):
    name, symbol, group = "reshape", "reshape", "shape"
    kind = "linear"
    summary, method = "same values, new shape", True
    language = Language("reshape", ("x", ("shape", "ints")), varargs="shape")
    formula, derivatives = "out = a viewed with a new shape", ("∂L/∂a = (∂L/∂out).reshape(a.shape)",)
    samples = staticmethod(lambda rng: [Sample((uniform(rng, 3, 4), (2, 6))),
                                        Sample((uniform(rng, 2, 3, 2), -1))])

    def __init__(self, shape: tuple[int, ...]) -> None:
        super().__init__(shape=tuple(shape))

    @staticmethod
    def public(a: Any, *shape: Any) -> Tensor:
        """``reshape(x, (2, 3))`` or ``reshape(x, 2, 3)``: same values, new shape."""
        if len(shape) == 1 and isinstance(shape[0], Sequence):
            shape = tuple(shape[0])
        return reshape.forward(reshape(shape=tuple(int(n) for n in shape)), a)

    @unary_func_op()
    def forward(self, a: Tensor):
        return tensor_from_array(a.data.reshape(self.params["shape"])), lambda g: (g.reshape(a.shape),)

    def vjp(self, g, inputs, out):
        return (F.reshape(g, inputs[0].shape),)



class transpose(operation):
    name, symbol, group = "transpose", "ᵀ", "shape"
    kind = "linear"
    summary, method = "axes reversed (or permuted by axes)", True
    language = Language("permute", ("x", ("axes", "ints or None", None)), varargs="axes")
    formula, derivatives = "out = a with axes permuted", ("∂L/∂a = (∂L/∂out) with the inverse permutation",)
    samples = staticmethod(lambda rng: [Sample((uniform(rng, 3, 4),)),
                                        Sample((uniform(rng, 2, 3, 4),), {"axes": (1, 2, 0)}),
                                        Sample((uniform(rng, 2, 3, 4),), {"axes": (-1, 0, 1)})])

    def __init__(self, axes: tuple[int, ...] | None = None) -> None:
        super().__init__(axes=None if axes is None else tuple(axes))

    @unary_func_op()
    def forward(self, a: Tensor):
        axes = self.params["axes"] or tuple(reversed(range(a.ndim)))
        inverse = tuple(np.argsort([ax % a.ndim for ax in axes]))  # negative axes name the same axis
        return tensor_from_array(np.transpose(a.data, axes)), lambda g: (np.transpose(g, inverse),)

    def vjp(self, g, inputs, out):
        a = inputs[0]
        axes = self.params["axes"] or tuple(reversed(range(a.ndim)))
        return (F.transpose(g, tuple(int(i) for i in np.argsort([ax % a.ndim for ax in axes]))),)



class swapaxes(operation):
    name, symbol, group = "swapaxes", "swap", "shape"
    kind = "linear"
    summary, method = "two axes swapped", True
    language = Language("swapaxes", ("x", ("axis1", "int"), ("axis2", "int")))
    formula, derivatives = "out = a with two axes swapped", ("∂L/∂a = (∂L/∂out) with the same axes swapped",)
    samples = staticmethod(lambda rng: [Sample((uniform(rng, 2, 3, 4),), {"axis1": 0, "axis2": 2})])

    def __init__(self, axis1: int, axis2: int) -> None:
        super().__init__(axis1=axis1, axis2=axis2)

    @unary_func_op()
    def forward(self, a: Tensor):
        i, j = self.params["axis1"], self.params["axis2"]
        return tensor_from_array(np.swapaxes(a.data, i, j)), lambda g: (np.swapaxes(g, i, j),)

    def vjp(self, g, inputs, out):
        return (F.swapaxes(g, self.params["axis1"], self.params["axis2"]),)



class squeeze(operation):
    name, symbol, group = "squeeze", "squeeze", "shape"
    kind = "linear"
    summary, method = "size-1 axes removed", True
    language = Language("squeeze", ("x", ("axis", "axis", None)))
    formula, derivatives = "out = a without size-1 axes", ("∂L/∂a = (∂L/∂out).reshape(a.shape)",)
    samples = staticmethod(lambda rng: [Sample((uniform(rng, 3, 1, 2),)), Sample((uniform(rng, 1, 4),), {"axis": 0})])

    def __init__(self, axis: int | tuple[int, ...] | None = None) -> None:
        super().__init__(axis=axis)

    @unary_func_op()
    def forward(self, a: Tensor):
        return tensor_from_array(np.squeeze(a.data, axis=self.params["axis"])), lambda g: (g.reshape(a.shape),)

    def vjp(self, g, inputs, out):
        return (F.reshape(g, inputs[0].shape),)



class unsqueeze(operation):
    name, symbol, group = "unsqueeze", "unsqueeze", "shape"
    kind = "linear"
    summary, method, aliases = "a size-1 axis inserted", True, ("expand_dims",)
    language = Language("unsqueeze", ("x", ("axis", "axis")))
    formula, derivatives = "out = a with a new size-1 axis", ("∂L/∂a = (∂L/∂out).reshape(a.shape)",)
    samples = staticmethod(lambda rng: [Sample((uniform(rng, 3, 2),), {"axis": 1})])

    def __init__(self, axis: int | tuple[int, ...]) -> None:
        super().__init__(axis=axis)

    @unary_func_op()
    def forward(self, a: Tensor):
        return tensor_from_array(np.expand_dims(a.data, self.params["axis"])), lambda g: (g.reshape(a.shape),)

    def vjp(self, g, inputs, out):
        return (F.reshape(g, inputs[0].shape),)



class broadcast_to(operation):
    name, symbol, group = "broadcast_to", "broadcast", "shape"
    kind = "linear"
    summary, method = "copied along new or size-1 axes", True
    language = Language("broadcast_to", ("x", ("shape", "ints")), varargs="shape")
    formula, derivatives = "out = a copied along new / size-1 axes", ("∂L/∂a = ∂L/∂out summed over the copied axes",)
    samples = staticmethod(lambda rng: [Sample((uniform(rng, 1, 4),), {"shape": (3, 4)}),
                                        Sample((uniform(rng, 3, 1),), {"shape": (2, 3, 5)})])

    def __init__(self, shape: tuple[int, ...]) -> None:
        super().__init__(shape=tuple(shape))

    @unary_func_op()
    def forward(self, a: Tensor):
        out = np.broadcast_to(a.data, self.params["shape"]).copy()
        return tensor_from_array(out), lambda g: (g,)  # shape matching sums the copied axes

    def vjp(self, g, inputs, out):
        return (g,)  # the backward pass sums the copied axes (``sum_to``)



class concatenate(operation):
    name, symbol, group = "concatenate", "concat", "shape"
    kind = "linear"
    summary = "[a, b, ...] joined along an existing axis"
    language = Language("concatenate", (("tensors", "tensors"), ("axis", "int", 0)))
    formula, derivatives = "out = [a₁, a₂, …] joined along axis", ("∂L/∂aₖ = the slice of ∂L/∂out where aₖ sits",)
    samples = staticmethod(lambda rng: [Sample(([uniform(rng, 2, 3), uniform(rng, 4, 3)],)),
                                        Sample(([uniform(rng, 2, 1), uniform(rng, 2, 3)],), {"axis": 1})])

    def __init__(self, axis: int = 0) -> None:
        super().__init__(axis=axis)

    @poly_func_op()
    def forward(self, tensors: list[Tensor]):
        axis = self.params["axis"]
        if any(t.ndim == 0 for t in tensors):
            raise ValueError("concatenate needs tensors of at least 1 dimension; use stack to join 0-d tensors")
        cuts = np.cumsum([t.shape[axis] for t in tensors])[:-1]
        out = np.concatenate([t.data for t in tensors], axis=axis)
        return tensor_from_array(out), lambda g: np.split(g, cuts, axis=axis)

    def vjp(self, g, inputs, out):
        axis = self.params["axis"] % out.ndim
        parts, start = [], 0
        for t in inputs:
            stop = start + t.shape[axis]
            parts.append(F.getitem(g, (slice(None),) * axis + (slice(start, stop),)))
            start = stop
        return parts



class stack(operation):
    name, symbol, group = "stack", "stack", "shape"
    kind = "linear"
    summary = "[a, b, ...] stacked along a new axis"
    language = Language("stack", (("tensors", "tensors"), ("axis", "int", 0)))
    formula, derivatives = "out = [a₁, a₂, …] along a new axis", ("∂L/∂aₖ = (∂L/∂out)[k] along that axis",)
    samples = staticmethod(lambda rng: [Sample(([uniform(rng, 2, 3), uniform(rng, 2, 3), uniform(rng, 2, 3)],),
                                               {"axis": 1})])

    def __init__(self, axis: int = 0) -> None:
        super().__init__(axis=axis)

    @poly_func_op()
    def forward(self, tensors: list[Tensor]):
        axis = self.params["axis"]
        out = np.stack([t.data for t in tensors], axis=axis)
        return tensor_from_array(out), lambda g: [np.take(g, k, axis=axis) for k in range(len(tensors))]

    def vjp(self, g, inputs, out):
        axis = self.params["axis"] % out.ndim
        return [F.getitem(g, (slice(None),) * axis + (k,)) for k in range(len(inputs))]



def normalize_index(index: Any) -> Any:
    """Turn Tensors inside an index into plain arrays (integer or boolean)."""
    def one(item: Any) -> Any:
        if isinstance(item, Tensor):
            data = item.data
            return data if data.dtype.kind == "b" else data.astype(np.intp)
        if isinstance(item, list):
            arr = np.asarray(item)
            return arr.astype(np.intp) if arr.dtype.kind == "f" else arr
        return item
    return tuple(one(i) for i in index) if isinstance(index, tuple) else one(index)


class getitem(operation):
    name, symbol, group = "getitem", "[ ]", "shape"
    kind = "linear"
    summary = "a[index] (x[...] in a program)"
    formula, derivatives = "out = a[index]", ("∂L/∂a = zeros with ∂L/∂out added at index (repeats accumulate)",)
    samples = staticmethod(lambda rng: [
        Sample((uniform(rng, 4, 3),), {"index": 1}), Sample((uniform(rng, 4, 3),), {"index": (slice(1, 3), 2)}),
        Sample((uniform(rng, 5),), {"index": [0, 0, 3, 0]}),
        Sample((uniform(rng, 3, 2),), {"index": np.array([[True, False], [False, True], [True, True]])})])

    def __init__(self, index: Any) -> None:
        super().__init__(index=normalize_index(index))

    @unary_func_op()
    def forward(self, a: Tensor):
        index = self.params["index"]

        def grad_function(g: np.ndarray):
            grad = np.zeros(a.shape)
            np.add.at(grad, index, g)  # x[[0, 0]] must add twice, not assign twice
            return (grad,)

        return tensor_from_array(np.asarray(a.data[index])), grad_function

    def vjp(self, g, inputs, out):
        return (scatter_add.forward(scatter_add(self.params["index"], inputs[0].shape), g),)



class scatter_add(operation):
    """``getitem``'s backward as an op: zeros of the input's shape with the gradient added at the index.

    Only the differentiable rules make it (``x[i]``'s gradient, drawn in a derivative graph), so
    it has no ``name``: it is not in the registry, the language or the op reference. Its own
    derivatives are ``getitem`` again, so ``x[i]`` differentiates to any order; getitem's
    second-order check covers it.
    """

    symbol, group, kind = "scatter", "shape", "linear"
    formula, derivatives = "out = zeros(shape) with g added at index", ("∂L/∂g = (∂L/∂out)[index]",)

    def __init__(self, index: Any, shape: tuple[int, ...]) -> None:
        super().__init__(index=index, shape=tuple(shape))

    @unary_func_op()
    def forward(self, g: Tensor):
        index = self.params["index"]
        out = np.zeros(self.params["shape"])
        np.add.at(out, index, g.data)  # repeated indices accumulate
        return tensor_from_array(out), lambda u: (np.asarray(u[index]),)

    def vjp(self, g, inputs, out):
        return (F.getitem(g, self.params["index"]),)

