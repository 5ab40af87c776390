"""The notation of the registry's formulas, in one table, and a small evaluator that reads them as numbers.

Every op writes its forward formula and its derivative rules as short text (``∂out/∂a = b·aᵇ⁻¹``). Those
texts are read in three places, and all of them read this table:

- the op reference (``lucid/lessons/op_reference.py``): a text is translated only when it has a word
  outside ``NOTATION`` (prose, such as "if", "summed over the copied axes");
- the explanations (``lucid/viz/explanation/formulas.py``): a program's own names replace the ``VALUES`` and the
  inputs' generic names; the rest of the notation (``SYMBOLS``, ``FUNCTIONS``) stays as written;
- ``evaluate`` here: the rule read as arithmetic on arrays, each function word computing what its entry
  says, so a test can hold every displayed formula to the numbers the engine computes
  (``tests/engine/test_ops_derivative_text.py``).

The evaluator is a tokenizer and a recursive-descent parser over the registry's own text (never user
text, and never ``eval``): numbers and ``½``, names with subscripts (``aᵢ`` is ``a``, elementwise), ``ā``
(the mean over the reduced axes), ``+ − · /``, juxtaposition (``2(a − ā)``, ``σ(a)(1 − σ(a))``),
superscript powers (``aᵇ⁻¹``, ``b²``, ``tanh²a``), ``e^aᵢ``, ``√``, ``Σⱼ`` (a sum over the reduced axes), ``@``
and ``ᵀ``, the functions of ``FUNCTIONS``, ``[j = t]`` (1 where it holds), ``x if c else y`` and
``x where c else y``, and a closing aside that overrides the value where it holds: ``(0 where b = 0)``,
``(0 at a = 0)``, ``(½ if a = b)``. Anything else (a word of prose) raises ``NotAFormula``.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _softmax(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    e = np.exp(x - np.max(x, axis=axes, keepdims=True))
    return e / np.sum(e, axis=axes, keepdims=True)


#: The functions the formulas write, and what each computes (``softmax`` over the op's axes).
FUNCTIONS: dict[str, Callable[..., np.ndarray]] = {
    "ln": np.log, "log": np.log, "exp": np.exp, "sin": np.sin, "cos": np.cos, "tanh": np.tanh, "σ": _sigmoid,
    "sign": np.sign, "softmax": _softmax, "log_softmax": lambda x, axes: np.log(_softmax(x, axes)),
    "max": np.maximum, "min": np.minimum,
}
#: Names that stand for a value of the op call: its result, its parameters, the count ``N``. The
#: explanations put the program's names or numbers in their place (with the inputs' generic names).
VALUES = frozenset({"out", "cond", "slope", "low", "high", "N"})
#: Notation that is neither a value nor a function and is shown as written: Euler's ``e``, indices,
#: the words that name parts of an array.
SYMBOLS = frozenset({"e", "i", "j", "k", "shape", "axis", "index", "logits", "reshape", "zeros", "BCE"})
#: Every word of the formulas that is notation, not prose.
NOTATION = frozenset(FUNCTIONS) | VALUES | SYMBOLS

_WORD = re.compile(r"[A-Za-z_]{2,}")


def has_prose(text: str) -> bool:
    """Whether a registry text has words a reader must understand (not just symbols and notation)."""
    return any(word not in NOTATION for word in _WORD.findall(text))


# ----- the evaluator ---------------------------------------------------------------------------------------

class NotAFormula(ValueError):
    """The text is (partly) prose, or notation the evaluator does not read."""


_SUPERSCRIPTS = dict(zip("ᵃᵇⁱⁿ⁻¹²³⁰⁴⁵⁶⁷⁸⁹⁺", "abin−1230456789+"))
_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<number>\d+(?:\.\d+)?|½)
  | (?P<grad>∂L/∂out[ᵢⱼₖ]*)
  | (?P<sup>[ᵃᵇⁱⁿ⁻¹²³⁰⁴⁵⁶⁷⁸⁹⁺]+)
  | (?P<name>ā|σ|[A-Za-z_]+)[ᵢⱼₖ]*
  | (?P<op>[()\[\]+\-−·/@^√Σᵀ=<>≤≥,])[ᵢⱼₖ]*
""", re.VERBOSE)
_KEYWORDS = frozenset({"if", "else", "where", "at", "and"})


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise NotAFormula(f"cannot read {text[pos:]!r}")
        pos = m.end()
        kind = m.lastgroup
        if kind == "space":
            continue
        value = m.group(kind)
        if kind == "name" and value in _KEYWORDS:
            kind = "keyword"
        out.append((kind, value))
    return out


class _Parser:
    """Recursive descent over one formula's tokens, computing as it goes (NumPy arrays)."""

    def __init__(self, text: str, env: Mapping[str, Any], axes: tuple[int, ...]) -> None:
        self.tokens, self.i, self.env, self.axes = _tokens(text), 0, env, axes

    def peek(self, offset: int = 0) -> tuple[str, str]:
        j = self.i + offset
        return self.tokens[j] if j < len(self.tokens) else ("end", "")

    def take(self, value: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if value is not None and token[1] != value:
            raise NotAFormula(f"expected {value!r}, found {token[1]!r}")
        self.i += 1
        return token

    def at(self, *values: str) -> bool:
        return self.peek()[1] in values and self.peek()[0] != "name"

    def formula(self) -> Any:
        value = self.conditional()
        if self.at("(") and self._is_aside():  # a closing aside: (0 where b = 0), (½ if a = b), (0 at a = 0)
            self.take("(")
            special = self.arith()
            self.take()  # if / where / at
            holds = self.condition()
            self.take(")")
            value = np.where(holds, special, value)
        return value

    def _is_aside(self) -> bool:
        depth = 0
        for kind, value in self.tokens[self.i:]:
            depth += (value in "([") - (value in ")]") if kind == "op" else 0
            if depth == 1 and kind == "keyword" and value in ("if", "where", "at"):
                return True
            if depth == 0 and value == ")":
                return False
        return False

    def conditional(self) -> Any:
        value = self.arith()
        if self.peek() in (("keyword", "if"), ("keyword", "where")):
            self.take()
            holds = self.condition()
            self.take("else")
            return np.where(holds, value, self.conditional())
        return value

    def condition(self) -> Any:
        holds = self.comparison()
        while self.peek() == ("keyword", "and"):
            self.take()
            holds = holds & self.comparison()
        return holds

    def comparison(self) -> Any:
        left = self.arith()
        result = None
        while self.at("=", "<", ">", "≤", "≥"):
            op = self.take()[1]
            right = self.arith()
            step = {"=": np.equal, "<": np.less, ">": np.greater, "≤": np.less_equal, "≥": np.greater_equal}[op](
                left, right)
            result = step if result is None else result & step
            left = right
        return np.asarray(left, dtype=bool) if result is None else result

    def arith(self) -> Any:
        value = self.term()
        while self.at("+", "−", "-"):
            op = self.take()[1]
            right = self.term()
            value = value + right if op == "+" else value - right
        return value

    def _starts_operand(self) -> bool:
        kind, value = self.peek()
        if kind == "op" and value == "(":
            return not self._is_aside()  # a closing aside is not a factor
        return kind in ("number", "name", "grad") or (kind == "op" and value in ("√", "Σ", "["))

    def term(self) -> Any:
        value = self.unary()
        while True:
            if self.at("·", "/", "@"):
                op = self.take()[1]
                right = self.unary()
                value = value * right if op == "·" else value / right if op == "/" else value @ right
            elif self._starts_operand():  # juxtaposition: 2(a − ā), σ(a)(1 − σ(a)), pᵢ(1 − pᵢ) N
                value = value * self.unary()
            else:
                return value

    def unary(self) -> Any:
        if self.at("−", "-"):
            self.take()
            return -self.unary()
        return self.power()

    def power(self) -> Any:
        value = self.postfix()
        if self.peek()[0] == "sup":
            value = value ** self._superscript(self.take()[1])
        elif self.at("^"):
            self.take()
            value = value ** self.unary()
        return value

    def _superscript(self, text: str) -> Any:
        return _Parser("".join(_SUPERSCRIPTS[c] for c in text), self.env, self.axes).whole()

    def postfix(self) -> Any:
        value = self.primary()
        while self.at("ᵀ"):
            self.take()
            value = np.swapaxes(value, -1, -2)
        return value

    def primary(self) -> Any:
        kind, value = self.take()
        if kind == "number":
            return 0.5 if value == "½" else float(value)
        if kind == "grad":
            return self.env["∂L/∂out"]
        if kind == "op" and value == "(":
            inner = self.formula()
            self.take(")")
            return inner
        if kind == "op" and value == "[":  # Iverson bracket: 1 where the condition holds
            holds = self.condition()
            self.take("]")
            return holds.astype(np.float64)
        if kind == "op" and value == "√":
            return np.sqrt(self.power())
        if kind == "op" and value == "Σ":
            return np.sum(self.term(), axis=self.axes, keepdims=True)
        if kind == "name" and value in FUNCTIONS:
            return self._call(value)
        if kind == "name" and value in self.env:
            return self.env[value]
        raise NotAFormula(f"{value!r} is not notation the evaluator reads")

    def _call(self, name: str) -> Any:
        exponent = self._superscript(self.take()[1]) if self.peek()[0] == "sup" else None  # tanh²a
        if self.at("("):
            self.take("(")
            arguments = [self.formula()]
            while self.at(","):
                self.take()
                arguments.append(self.formula())
            self.take(")")
        else:
            arguments = [self.power()]  # ln a, cos a
        if name in ("softmax", "log_softmax"):
            arguments.append(self.axes)
        value = FUNCTIONS[name](*arguments)
        return value if exponent is None else value ** exponent

    def whole(self) -> Any:
        value = self.formula()
        if self.peek()[0] != "end":
            raise NotAFormula(f"cannot read past {self.peek()[1]!r}")
        return value


def evaluate(text: str, env: Mapping[str, Any], axes: tuple[int, ...] = ()) -> Any:
    """The value of one side of a rule (``b·aᵇ⁻¹  (0 where b = 0)``) with the names in ``env`` bound to arrays.

    ``axes`` are the axes ``Σ``, ``softmax`` and ``ā`` run over (the op's reduced axes). Raises
    ``NotAFormula`` for prose.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return _Parser(text, env, axes).whole()


def sides(rule: str) -> tuple[str, list[str]]:
    """``"∂out/∂b = −a/b² = −out/b"`` as ``("∂out/∂b", ["−a/b²", "−out/b"])``: each right side must agree."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(rule):
        depth += (ch in "([") - (ch in ")]")
        if depth == 0 and rule.startswith(" = ", i):
            parts.append(rule[start:i])
            start = i + 3
    parts.append(rule[start:])
    return parts[0], parts[1:]
