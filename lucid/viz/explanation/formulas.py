"""The op registry's formulas rewritten in a program's own names (and, for scalars, its numbers).

The registry writes each rule once with generic names (``∂out/∂a = 1/b``,
``∂L/∂a = ∂L/∂out @ bᵀ``). A student who named their variables ``a``, ``b`` and
``out`` must never see those generic names next to their own, so every rule is
shown substituted, all names at once (so ``out = b - a`` reads correctly):

- the op's inputs become the names of the tensors in those slots, its result
  the name of the result, ``N`` the number of elements averaged, ``slope``,
  ``low``, ``high`` the op's parameters, ``ā`` ``mean(…)``;
- ``∂L/∂x`` (a gradient of the final output) becomes ``grad x``;
- superscripts become ``^`` (``aᵇ⁻¹`` → ``a^(b−1)``) and ``ln a`` → ``ln(a)``, so a
  longer name stays readable.

``numbers=True`` puts each scalar's value in place of its name (negatives in
parentheses), for the ``= 1/1.490`` part of a step's arithmetic.
"""
from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from lucid._func.notation import FUNCTIONS, SYMBOLS, VALUES
from lucid._tensor.tensor import Tensor
from lucid.i18n import _
from lucid.viz.explanation.opinfo import derivative_text, input_names, output_symbol, spec_of
from lucid.viz.numbers import MINUS, format_number

_SUPER = dict(zip("ᵃᵇ⁻¹²³⁰⁴⁵⁶⁷⁸⁹ⁱⁿ", "ab−1230456789in"))
_SUPER_RUN = re.compile("[" + "".join(_SUPER) + "]*[ᵃᵇⁱⁿ][" + "".join(_SUPER) + "]*")
_FUNCTION_SPACE = re.compile(r"(?<![A-Za-z])(ln|sin|cos|tanh²|tanh)\s?([A-Za-z]+[ᵢⱼ]*)(?![A-Za-z(ᵢⱼ])")
_TOKEN = re.compile(r"∂L/∂([A-Za-z]+[₀-₉]*)|ā|[A-Za-z]+[₀-₉]*")
_ASIDE = re.compile(r"\s*\([^()]*\b(?:if|at|where)\b[^()]*\)\s*$")
def _is_word(token: str) -> bool:
    """A token of the registry's text that is never a name: notation shown as written (the engine's one
    notation table, ``lucid/_func/notation.py``), or a word of prose (two letters or more, not a value)."""
    return token in FUNCTIONS or token in SYMBOLS or (len(token.rstrip("₀₁₂₃₄₅₆₇₈₉")) > 1 and token not in VALUES)


def _superscripts(text: str) -> str:
    """``aᵇ⁻¹`` → ``a^(b−1)``, ``eᵃ`` → ``e^a`` (only runs holding a letter; ``b²`` stays)."""
    def repl(m: re.Match[str]) -> str:
        inner = "".join(_SUPER[c] for c in m.group(0))
        return "^" + (inner if len(inner) == 1 else f"({inner})")
    return _SUPER_RUN.sub(repl, text)


class Substitution:
    """The generic names of one op's formulas, mapped to one program's names and values."""

    def __init__(self, node: Tensor, name: Callable[[Tensor], str]) -> None:
        spec = spec_of(node)
        prev = list(node._prev)
        self.node = node
        self.out = output_symbol(spec)
        self.names: dict[str, str] = {}
        self.tensors: dict[str, Tensor] = {}
        generic = input_names(spec, len(prev))
        for g, t in zip(generic, prev):
            self.names[g] = name(t)
            self.tensors[g] = t
        self.names["out"] = name(node)
        self.tensors["out"] = node
        self.numbers: dict[str, float] = {}
        params = node._op.params if node._op is not None else {}
        for key in ("slope", "low", "high"):
            if params.get(key) is not None:
                self.numbers[key] = float(params[key])
        n = _count(type(node._op).name if node._op is not None else "", prev, node)
        if n is not None:
            self.numbers["N"] = float(n)
        if spec is not None and spec.name == "cross_entropy":  # its rules call the integer targets t
            self.names.setdefault("t", self.names.get("targets", "targets"))
        self.first = generic[0] if generic else "a"
        #: tokens of the last rewritten text that were neither a known word nor mapped (a generic name left over)
        self.unknown: set[str] = set()

    def grad(self, generic: str) -> str:
        return f"grad {self.names.get(generic, generic)}"

    def rewrite(self, text: str, *, numbers: bool = False) -> str:
        """``text`` in the program's names (``numbers=True``: scalars' values instead of names)."""
        text = _FUNCTION_SPACE.sub(r"\1(\2)", _superscripts(text))
        text = text.replace(") N)", ")·N)").replace("with a ", "with one ")
        names = self.names

        def value(generic: str) -> str | None:
            if generic in self.numbers:
                v = self.numbers[generic]
                return str(int(v)) if generic == "N" else _operand(v)
            if not numbers:
                return names.get(generic)
            t = self.tensors.get(generic)
            if t is not None and t.size == 1:
                return _operand(float(np.asarray(t.data).reshape(-1)[0]))
            return names.get(generic)

        def repl(m: re.Match[str]) -> str:
            whole = m.group(0)
            if whole.startswith("∂L/∂"):
                g = m.group(1)
                return f"grad {names.get(g, g)}"
            if whole == "ā":
                return f"mean({value(self.first) if numbers else names.get(self.first, self.first)})"
            if _is_word(whole) and whole not in names:
                return whole
            shown = value(whole)
            if shown is None:
                self.unknown.add(whole)
                return whole
            follow = m.string[m.end():m.end() + 1]
            if len(shown) > 1 and (follow == "(" or follow.isascii() and follow.isalpha()):
                shown += "·"
            return shown

        return _TOKEN.sub(repl, text)


def _operand(v: float) -> str:
    text = format_number(v)
    return f"({text})" if text.startswith(("-", MINUS)) or " × " in text else text


def _count(kind: str, prev: list[Tensor], node: Tensor) -> int | None:
    """The N of a registry rule: how many elements were averaged."""
    if not prev:
        return None
    if kind in ("mean", "var"):
        return max(prev[0].size // max(node.size, 1), 1)
    if kind in ("mse_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits"):
        return prev[0].size
    if kind == "cross_entropy":
        return prev[0].shape[0] if prev[0].ndim == 2 else 1
    return None


def has_generic_names(text: str) -> bool:
    """True when ``text`` still holds a registry-only name (used by tests)."""
    return bool(re.search(r"∂L/|∂out\b|\bout\b", text))


def local_rule(node: Tensor, slot: int, name: Callable[[Tensor], str], *,
               translated: bool = False) -> tuple[str, str, str] | None:
    """The registered rule for input ``slot`` in the program's names: (lhs, rhs, rhs with numbers).

    The lhs is ``∂n/∂p`` (a local derivative) or ``grad p`` for rules written on
    the whole gradient (``∂L/∂…``, matmul and shape ops). None when the registry
    has no formula for this input.

    ``translated=True`` (the step explanations) takes a whole-gradient rule in words
    (``∂L/∂out summed over the copied axes``) from the reader's catalog, the Op reference's
    translation, when it substitutes cleanly; local derivatives, whose numbers are shown
    too, and callers that compare rules (grading) keep the registry's text.
    """
    spec = spec_of(node)
    raw = derivative_text(spec, slot)
    if not raw or "=" not in raw:
        return None
    if translated and raw.startswith("∂L/"):
        shown = _rule_in_names(node, slot, name, spec, _translated(raw))
        if shown is not None:
            return shown
    return _rule_in_names(node, slot, name, spec, raw)


def _translated(text: str) -> str:
    """``text`` from the reader's catalog (the registry's English when it has no entry)."""
    return _(text)


def _rule_in_names(node: Tensor, slot: int, name: Callable[[Tensor], str], spec,
                   raw: str) -> tuple[str, str, str] | None:
    lhs, _eq, rhs = raw.partition(" = ")
    sub = Substitution(node, name)
    prev = list(node._prev)
    generic = input_names(spec, len(prev))
    slot_name = generic[slot] if slot < len(generic) else None
    n, p = name(node), name(prev[slot])
    if lhs.startswith("∂L/"):
        new_lhs = f"grad {p} +="
    else:
        sub_index = re.search(r"[ᵢⱼₖ]+$", lhs)
        new_lhs = f"∂{n}/∂{p}" + (sub_index.group(0) if sub_index else "")
    rhs = _concat_slot(rhs, slot_name)
    if spec is not None and spec.name == "stack":
        rhs = rhs.replace("[k]", f"[{slot}]")
    symbolic = sub.rewrite(rhs)
    last = _top_level_parts(_ASIDE.sub("", rhs))[-1]
    numeric = sub.rewrite(last, numbers=True)
    if sub.unknown:
        return None
    return new_lhs, symbolic, numeric


def _top_level_parts(text: str) -> list[str]:
    """``text`` split at `` = `` outside brackets (``1 if a > b else 0  (½ if a = b)`` is one part)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch in "([") - (ch in ")]")
        if depth == 0 and text.startswith(" = ", i):
            parts.append(text[start:i])
            start = i + 3
    parts.append(text[start:])
    return [p for p in parts if p] or [text]


def _concat_slot(rhs: str, slot_name: str | None) -> str:
    """concat/stack rules say ``aₖ`` for the input of this step: name that input."""
    if slot_name and slot_name.rstrip("₀₁₂₃₄₅₆₇₈₉") != slot_name:
        return rhs.replace(slot_name.rstrip("₀₁₂₃₄₅₆₇₈₉") + "ₖ", slot_name)
    return rhs


def forward_rule(node: Tensor, name: Callable[[Tensor], str], *, translated: bool = False) -> str:
    """The op's forward formula in the program's names (``c = b − a`` for ``c = b - a``).

    ``translated=True``: a formula in words from the reader's catalog when it substitutes cleanly."""
    spec = spec_of(node)
    if spec is None or not spec.formula:
        return ""
    if translated:
        shown = _formula_in_names(node, name, _translated(spec.formula))
        if shown:
            return shown
    return _formula_in_names(node, name, spec.formula)


#: An n-ary op's list of inputs in the registry's formula (``[a₁, a₂, …]`` of concatenate and stack).
_INPUT_LIST = re.compile(r"\[([A-Za-z]+)₁, \1₂, …\]")
_LIST_MARK = "\x00"  # stands for the input list while the rest is rewritten (no name token matches it)


def _formula_in_names(node: Tensor, name: Callable[[Tensor], str], formula: str) -> str:
    text = formula.split("   ")[0]
    sub = Substitution(node, name)
    lhs, eq, rhs = text.partition(" = ")
    if not eq:
        return ""
    # ``[a₁, a₂, …]`` counts from 1 while the slots' generic names count from 0 (a₀, a₁, …): matched
    # name by name it read ``[b, c, …]`` for concatenate([a, b, c]). The list is every input, in order.
    rhs = _INPUT_LIST.sub(_LIST_MARK, rhs)
    index = re.search(r"[ᵢⱼₖ]+$", lhs)
    text = f"{name(node)}{index.group(0) if index else ''} = {sub.rewrite(rhs)}"
    if _LIST_MARK in text:
        text = text.replace(_LIST_MARK, "[" + ", ".join(name(t) for t in node._prev) + "]")
        axis = node._op.params.get("axis") if node._op is not None else None
        if isinstance(axis, int | np.integer):  # "joined along axis" says which one
            text = re.sub(r"\baxis\b(?! \d)", f"axis {int(axis)}", text)
    return "" if sub.unknown else text
