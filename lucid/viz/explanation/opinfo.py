"""What the op registry says about an op, in the shape the pictures and explanations need.

The registry's derivative text names an op's inputs (``∂out/∂a = b``); we read
those names back so an edge of a subtraction can say which side is ``a`` and an
explanation can say "in the formula, ``a`` is your ``x``".
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lucid._backend.core import REGISTRY, OpSpec
from lucid.i18n import pgettext

if TYPE_CHECKING:
    from lucid._tensor.tensor import Tensor

#: Ops whose inputs can be swapped without changing the result: their edges need no side names.
COMMUTATIVE = frozenset({"add", "mul", "maximum", "minimum", "eq", "ne"})

_WRT = re.compile(r"∂[^/\s]+/∂([A-Za-z]+)")
_NO_GRAD = re.compile(r"^([A-Za-z]+):")
_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def spec_of(tensor: Tensor) -> OpSpec | None:
    """The registry entry of the op that made ``tensor`` (None for leaves); for an op the program defined
    (``def``, never registered) the entry its definition describes."""
    op = tensor._op
    if op is None:
        return None
    return REGISTRY.get(type(op).name) or getattr(op, "custom_spec", None)


def op_label(tensor: Tensor) -> str:
    """The op's display text with its parameters, e.g. ``Σ(axis=0)`` (empty for leaves)."""
    op = tensor._op
    return "" if op is None else op.describe()


def input_names(spec: OpSpec | None, n_inputs: int) -> list[str]:
    """The formula's name of each input slot: ``['a', 'b']`` for ``mul``, ``['a₀', 'a₁', …]`` for ``concat``."""
    names: list[str] = []
    for text in (spec.derivatives if spec else ()):
        m = _WRT.search(text) or _NO_GRAD.search(text)
        if m:
            names.append(m.group(1))
    if len(names) >= n_inputs and len(set(names[:n_inputs])) == n_inputs:
        return names[:n_inputs]
    if n_inputs == 1:
        return names[:1] or ["a"]
    if len(set(names)) == 1:  # one formula for all inputs (concat, stack)
        return [names[0] + str(i).translate(_SUBSCRIPTS) for i in range(n_inputs)]
    return [chr(ord("a") + i) if i < 26 else f"x{i}" for i in range(n_inputs)]


def derivative_text(spec: OpSpec | None, slot: int) -> str:
    """The registered derivative formula for input ``slot`` ('' when the registry has none)."""
    if spec is None or not spec.derivatives:
        return ""
    if slot < len(spec.derivatives):
        return spec.derivatives[slot]
    return spec.derivatives[0] if len(spec.derivatives) == 1 else ""


def output_symbol(spec: OpSpec | None) -> str:
    """How the formulas call the op's result (``out``) or the loss (``L``)."""
    text = " ".join(spec.derivatives) if spec else ""
    return "out" if "∂out" in text else ("L" if "∂L" in text else "out")


def slot_word(slot: int) -> str:
    """How a picture names an input position of a non-commutative op: ``1st``, ``2nd``, ``3rd``.

    Positions, not the registry's generic names: for ``out = b - a`` an edge marked
    ``a`` would sit on the student's ``b``.
    """
    words = {0: pgettext("edge", "1st"), 1: pgettext("edge", "2nd"), 2: pgettext("edge", "3rd")}
    return words.get(slot) or pgettext("edge", "{k}th").format(k=slot + 1)
