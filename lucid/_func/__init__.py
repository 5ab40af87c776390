"""The public op functions: ``lucid.add(a, b)`` is ``add()`` applied to ``(a, b)``.

Nothing here is written per op: defining an op class registers it, and ``_bindings`` makes its
public function from it (``lucid/_func/_bindings.py``), here and in ``lucid``. Each function
builds a fresh ``operation`` instance per call (ops keep state) and runs its forward:
``add.forward(add(), a, b)`` is ``add()(a, b)`` without the instance-call dispatch, which is a
noticeable share of a small op's cost. The ops without parameters go one step further
(``op_function``): the instance is made inside the forward's own bookkeeping frame.
"""
from __future__ import annotations

from lucid._func import _bindings
from lucid._func import binary as _b  # noqa: F401  (defining the op classes registers them)
from lucid._func import nn as _nn  # noqa: F401
from lucid._func import reduce as _r  # noqa: F401
from lucid._func import shape as _s  # noqa: F401
from lucid._func import unary as _u  # noqa: F401

__all__: list[str] = []  # filled by the bindings: one name per op and alias (``add``, ..., ``expand_dims``)
_bindings.bind_all()
