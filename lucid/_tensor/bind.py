"""Bind Python's operators on Tensor to the functions of ``lucid`` (the named methods come from the ops).

Kept apart from the class so the class module does not import the ops (the ops
import the class).
"""
from __future__ import annotations

from typing import Any

from lucid import _func as F
from lucid._backend.core import reflected_op_function
from lucid._tensor.tensor import Tensor
from lucid.autograd.backward import run_backward


def _swap(fn: Any) -> Any:
    """``other ∘ self`` as the method ``self.__rop__(other)`` (one frame, see ``reflected_op_function``)."""
    return reflected_op_function(fn)


def bind() -> None:
    ops = {
        "__add__": F.add, "__radd__": _swap(F.add), "__sub__": F.sub, "__rsub__": _swap(F.sub),
        "__mul__": F.mul, "__rmul__": _swap(F.mul), "__truediv__": F.div, "__rtruediv__": _swap(F.div),
        "__pow__": F.pow, "__rpow__": _swap(F.pow), "__matmul__": F.matmul, "__rmatmul__": _swap(F.matmul),
        "__neg__": F.neg, "__getitem__": F.getitem,
        "__eq__": F.eq, "__ne__": F.ne, "__lt__": F.lt, "__le__": F.le, "__gt__": F.gt, "__ge__": F.ge,
        "__abs__": F.abs,
    }
    for dunder, fn in ops.items():
        setattr(Tensor, dunder, fn)
    # the methods (``x.exp()``, ``x.sum(axis=0)``...) are each op's own: ``method = True`` on its class
    # (``lucid/_func/_bindings.py`` binds them)
    Tensor.backward = run_backward  # same signature (tensor, grad=None): no wrapper frame, no import per call
    Tensor.T = property(lambda self: F.transpose(self))
    Tensor.__hash__ = object.__hash__
