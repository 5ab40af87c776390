"""What each tensor of a graph is called in pictures and explanations, without ambiguity.

A program may rebind a name (``a = b * a``): the old and the new ``a`` are
different tensors, and an explanation that calls both ``a`` would write
``∂a/∂a``. Names used by more than one tensor get a subscript in order of
appearance (``a₁``, ``a₂``). Unnamed results are ``t<k>``, the id the graph
draws, and ``expression_of`` says what such a node stands for (``b*b + 1``) in
the program's own syntax.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from lucid._tensor.tensor import Tensor
from lucid.viz.explanation.opinfo import spec_of
from lucid.viz.graph.text import shorten

_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
_SUPERSCRIPT_POWER = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
#: Longest expression shown for an unnamed node before deeper parts are replaced by their ids.
EXPRESSION_LIMIT = 48

#: Infix operators of the expression language, with their precedence (higher binds tighter).
_INFIX = {"add": ("+", 1), "sub": ("-", 1), "mul": ("*", 2), "div": ("/", 2), "matmul": ("@", 2),
          "pow": ("**", 4), "lt": ("<", 0), "le": ("<=", 0), "gt": (">", 0), "ge": (">=", 0), "eq": ("==", 0),
          "ne": ("!=", 0)}
_ATOM = 9


def base_name(tensor: Tensor, index: int, root: Tensor) -> str:
    """The tensor's own name, ``out`` for an unnamed output, else its graph id ``t<index>``."""
    if tensor.name:
        return str(tensor.name)
    return "out" if tensor is root else f"t{index}"


def display_names(order: list[Tensor], root: Tensor, limit: int | None = None) -> list[str]:
    """One distinct name per tensor of ``order``: shared names get subscripts ``₁``, ``₂`` … in order.

    ``limit`` shortens each name (with an ellipsis) before its subscript, so the subscript stays.
    """
    names = [base_name(t, k, root) for k, t in enumerate(order)]
    count: dict[str, int] = {}
    for n in names:
        count[n] = count.get(n, 0) + 1
    seen: dict[str, int] = {}
    out = []
    for n in names:
        short = shorten(n, limit) if limit else n
        if count[n] == 1:
            out.append(short)
            continue
        seen[n] = seen.get(n, 0) + 1
        out.append(short + str(seen[n]).translate(_SUBSCRIPTS))
    return out


def _number(value: np.ndarray) -> str:
    """A constant as the program wrote it (``2``, ``0.5``); past 1e-4..1e5 as a blackboard writes it, ``1 × 10⁻⁸``."""
    v = float(np.asarray(value).reshape(-1)[0])
    if v == 0 or not np.isfinite(v) or 1e-4 <= abs(v) < 1e5:
        return f"{v:g}"
    mantissa, power = f"{v:.5e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa} × 10{str(int(power)).translate(_SUPERSCRIPT_POWER)}"


def constant_text(t: Tensor) -> str:
    """An unnamed scalar constant as the program wrote it (``2``, ``0.5``), negatives in parentheses."""
    text = _number(t.data)
    return f"({text})" if text.startswith("-") or " × " in text else text


def expression_of(tensor: Tensor, name_of: Callable[[Tensor], tuple[str, bool]], depth: int = 6) -> str:
    """``tensor`` written in the program's syntax from its op and inputs (``tanh(a*b + c**2)``).

    ``name_of`` gives a tensor's shown name and whether the program named it;
    unnamed ones are expanded up to ``depth`` ops deep and then called by their id.
    """
    for d in range(depth, 0, -1):
        text = _expr(tensor, name_of, d, top=True)[0]
        if len(text) <= EXPRESSION_LIMIT:
            return text
    return _expr(tensor, name_of, 1, top=True)[0]


def _expr(t: Tensor, name_of: Callable[[Tensor], tuple[str, bool]], depth: int,
          top: bool = False) -> tuple[str, int]:
    """(text, precedence) of ``t``: names and constants are atoms; ops expand while ``depth`` lasts."""
    label, named = name_of(t)
    if named and not top:
        return label, _ATOM
    if t._op is None:
        if t.size == 1:
            text = _number(t.data)  # 1 × 10⁻⁸ binds like a product, a negative like unary minus
            return text, (3 if text.startswith("-") else 2 if " × " in text else _ATOM)
        return f"const({'×'.join(map(str, t.shape))})", _ATOM
    if depth <= 0:
        return label, _ATOM
    spec = spec_of(t)
    kind = type(t._op).name
    args = [_expr(p, name_of, depth - 1) for p in t._prev]
    if kind in _INFIX and len(args) == 2:
        symbol, prec = _INFIX[kind]
        (left, lp), (right, rp) = args
        # left-associative, except ** (right-associative)
        lneed = lp <= prec if kind == "pow" else lp < prec
        rneed = rp < prec if kind == "pow" else rp <= prec
        left = f"({left})" if lneed else left
        right = f"({right})" if rneed else right
        joiner = symbol if prec >= 2 and symbol != "@" else f" {symbol} "
        return f"{left}{joiner}{right}", prec
    if kind == "neg":
        inner, p = args[0]
        return ("-" + (inner if p >= 3 else f"({inner})")), 3
    if kind == "transpose" and len(t.shape) == 2 and not t._op.params.get("axes"):
        inner, p = args[0]
        return (inner if p >= _ATOM else f"({inner})") + ".T", _ATOM
    if kind == "getitem":
        inner, p = args[0]
        return (inner if p >= _ATOM else f"({inner})") + "[…]", _ATOM
    params = ", ".join(f"{k}={v}" for k, v in t._op.params.items()
                       if v is not None and v is not False and not isinstance(v, np.ndarray))
    fname = spec.name if spec is not None else kind
    inner = ", ".join(a for a, _ in args)
    if kind in ("concatenate", "stack"):
        inner = f"[{inner}]"
    return f"{fname}({inner}{', ' + params if params else ''})", _ATOM
