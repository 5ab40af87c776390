"""One entry of a tensor step, worked out in numbers: the headline a class can read off the projector.

A tensor step's arithmetic line used to end ``⇒  grad Y += (4×2) → (4×2)``: shapes, no number. This
module picks one entry of the contribution (the largest in magnitude, the first on a tie, so the
class sees the entry that matters most) and writes how it is made from the trace's own arrays:

- elementwise: ``grad t4[2,1] += grad h[2,1] · ∂h/∂t4[2,1] = 0.5000 · 0.7500 = 0.3750``;
- a broadcast summed away: ``grad b[1] += Σᵢ grad Y[i,1] = 0.1000 + (−0.2000) + … = 0.4000``
  (``· ∂…`` factors are written only when the local derivative is not 1);
- a matrix product: ``grad W[0,1] += Σₖ x[k,0] · grad Y[k,1] = 1.000·0.5000 + … = 2.000``;
- then, when the gradient already held something, ``⇒  grad t4[2,1] = 0.1000 + 0.3750 = 0.4750``.

Every number shown is an element of the trace's arrays, and the result is checked against the
contribution the engine computed: an op whose numbers do not reproduce it (or one not covered
here) gets no entry line, never a wrong one.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from lucid._tensor.tensor import Tensor
from lucid.autograd import TraceStep
from lucid.i18n import ngettext
from lucid.viz.explanation.document import U
from lucid.viz.numbers import MINUS, format_number

#: Terms of a sum written out in full up to this many; a longer sum shows its first two, "…" and its last.
MAX_TERMS = 4
_LETTERS = "ijklmn"
_SUBSCRIPT = dict(zip("ijklmn", "ᵢⱼₖₗₘₙ"))


@dataclass(frozen=True)
class EntryArithmetic:
    """The entry ``index`` of the contribution, and the text that works it out (names still plain)."""

    index: tuple[int, ...]
    parts: tuple[str, ...]  # for ``Doc.arith``: our symbols as ``str``, the program's names as ``U``
    value: float  # the contribution's entry, as the engine computed it

    @property
    def text(self) -> str:
        """``grad b[1] += Σᵢ grad Y[i,1] = … = 0.4000`` (+ ``  ⇒  grad b[1] = …`` when accumulating)."""
        return "".join(self.parts)


def _num(x: float) -> str:
    return format_number(x)


def _operand(x: float) -> str:
    text = format_number(x)
    return f"({text})" if text.startswith(("-", MINUS)) or " × " in text else text


def _index_text(index: tuple) -> str:
    return "[" + ",".join(str(i) for i in index) + "]" if index else ""


def pick_entry(contribution: np.ndarray) -> tuple[int, ...]:
    """The entry shown: the largest magnitude (NaN counts as largest, so a broken gradient is shown)."""
    c = np.asarray(contribution, dtype=np.float64)
    if c.ndim == 0:
        return ()
    score = np.where(np.isnan(c), np.inf, np.abs(c))
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(score)), c.shape))


def _sum_text(terms: list[str]) -> str:
    if len(terms) <= MAX_TERMS:
        shown = terms
    else:
        shown = [*terms[:2], "…", terms[-1]]
    text = " + ".join(shown)
    if len(terms) > MAX_TERMS:
        # one unbreakable piece: a narrow column never splits "(6" from "terms)"
        text += "\u00a0" + ngettext("({n} term)", "({n} terms)", len(terms)).format(n=len(terms)).replace(" ", "\u00a0")
    return text


def _sigma(letters: list[str]) -> str:
    return "Σ" + "".join(_SUBSCRIPT[c] for c in letters)


Parts = list[str]


def _grad(name: str, index: str = "") -> Parts:
    return ["grad ", U(name), index]


def _elementwise(s: TraceStep, idx: tuple[int, ...], n: str, p: str) -> tuple[Parts, float] | None:
    """``grad n[…] · ∂n/∂p[…]`` for one entry, summed over the broadcast axes (None when shapes do not pair)."""
    up = np.asarray(s.upstream, dtype=np.float64)
    local = np.asarray(s.local, dtype=np.float64)
    raw = np.asarray(s.contribution_raw)
    if local.shape != raw.shape:
        return None
    spread = _spread_axes(s, up, local)
    ue = np.expand_dims(up, spread) if spread else up
    if ue.ndim > local.ndim:
        return None
    try:
        ub = np.broadcast_to(ue, local.shape)
    except ValueError:
        return None
    rank, extra = raw.ndim, raw.ndim - len(idx)
    summed = sorted(s.summed_axes)
    if extra < 0 or len(summed) > len(_LETTERS) or any(a not in summed for a in range(extra)):
        return None
    letters = {a: _LETTERS[k] for k, a in enumerate(summed)}
    symbols = [letters[a] if a in letters else idx[a - extra] for a in range(rank)]
    offset = rank - ue.ndim
    up_symbols = tuple(0 if ue.shape[q] == 1 and local.shape[q + offset] > 1 else symbols[q + offset]
                       for q in range(ue.ndim) if q not in spread)
    up_part = _grad(n, _index_text(up_symbols) if up.ndim else "")
    local_part = ["∂", U(n), "/∂", U(p), _index_text(tuple(symbols))]
    positions = list(_positions(raw.shape, symbols, letters))
    values = [(float(ub[pos]), float(local[pos])) for pos in positions]
    total = float(np.sum([u * v for u, v in values]))
    if np.all(local == 1):
        terms = [_operand(u) if k else _num(u) for k, (u, _v) in enumerate(values)]
        formula = up_part
    else:
        terms = [f"{_num(u)} · {_operand(v)}" if len(values) == 1 else f"{_operand(u)}·{_operand(v)}"
                 for u, v in values]
        formula = [*up_part, " · ", *local_part]
    sigma = [_sigma([letters[a] for a in summed]) + " "] if summed else []
    return [*sigma, *formula, f" = {_sum_text(terms)}"], total


def _positions(shape: tuple[int, ...], symbols: list, letters: dict[int, str]):
    """Every index along the summed axes (fixed axes keep their number), in C order."""
    axes = [a for a in range(len(shape)) if a in letters]
    for combo in np.ndindex(*[shape[a] for a in axes]):
        it = iter(combo)
        yield tuple(next(it) if a in letters else symbols[a] for a in range(len(shape)))


def _spread_axes(s: TraceStep, up: np.ndarray, local: np.ndarray) -> tuple[int, ...]:
    """Axes a reduction without keepdims removed: its upstream gradient is copied back along them."""
    node = s.node
    params = node._op.params if node is not None and node._op is not None else {}
    if up.ndim == 0 or up.shape == local.shape or params.get("keepdims") or params.get("axis") is None:
        return ()
    axes = tuple(sorted({int(a) % local.ndim for a in np.atleast_1d(params["axis"])}))
    return axes if up.ndim + len(axes) == local.ndim else ()


def _matmul(s: TraceStep, idx: tuple[int, ...], n: str,
            name: Callable[[Tensor], str]) -> tuple[Parts, float] | None:
    """One entry of a matrix product's gradient: a row of one factor against a column of the other."""
    a, b = s.node._prev
    up = np.asarray(s.upstream, dtype=np.float64)
    if a.ndim > 2 or b.ndim > 2 or s.summed_axes or a.ndim == 0 or b.ndim == 0:
        return None
    left = s.slot == 0
    other_t = b if left else a
    other, o = np.asarray(other_t.data, dtype=np.float64), U(name(other_t))
    g = U(n)

    def single(x_part: Parts, y_part: Parts, x: float, y: float) -> tuple[Parts, float]:
        return [*x_part, " · ", *y_part, f" = {_num(x)} · {_operand(y)}"], x * y

    if a.ndim == 1 and b.ndim == 1:  # y = Σ a[i] b[i]: grad a[i] = grad y · b[i] (and the same for b)
        (i,) = idx
        g0 = float(up.reshape(-1)[0])
        if left:
            return single(["grad ", g], [o, f"[{i}]"], g0, float(other[i]))
        return single([o, f"[{i}]"], ["grad ", g], float(other[i]), g0)
    if left and b.ndim == 1:  # y[i] = Σ_j A[i,j] b[j]: grad A[i,j] = grad y[i] · b[j]
        i, j = idx
        return single(["grad ", g, f"[{i}]"], [o, f"[{j}]"], float(up[i]), float(other[j]))
    if not left and a.ndim == 1:  # y[j] = Σ_i a[i] B[i,j]: grad B[i,j] = a[i] · grad y[j]
        i, j = idx
        return single([o, f"[{i}]"], ["grad ", g, f"[{j}]"], float(other[i]), float(up[j]))
    if left and a.ndim == 1:  # grad a[i] = Σ_j grad y[j] · B[i,j]
        (i,) = idx
        pairs = [(up[j], other[i, j]) for j in range(other.shape[1])]
        formula = ["Σⱼ grad ", g, "[j] · ", o, f"[{i},j]"]
    elif left:  # Y = A @ B: grad A[r,c] = Σ_k grad Y[r,k] · B[c,k]
        r, c = idx
        pairs = [(up[r, k], other[c, k]) for k in range(other.shape[1])]
        formula = ["Σₖ grad ", g, f"[{r},k] · ", o, f"[{c},k]"]
    elif b.ndim == 1:  # y[i] = Σ_j A[i,j] b[j]: grad b[j] = Σ_i A[i,j] · grad y[i]
        (j,) = idx
        pairs = [(other[i, j], up[i]) for i in range(other.shape[0])]
        formula = ["Σᵢ ", o, f"[i,{j}] · grad ", g, "[i]"]
    else:  # Y = A @ B: grad B[r,c] = Σ_k A[k,r] · grad Y[k,c]
        r, c = idx
        pairs = [(other[k, r], up[k, c]) for k in range(other.shape[0])]
        formula = ["Σₖ ", o, f"[k,{r}] · grad ", g, f"[k,{c}]"]
    if len(pairs) == 1:  # a sum of one term is a product: no Σ, the index is 0
        formula = [f if isinstance(f, U) else _single_index(f) for f in formula]
        x, y = pairs[0]
        return [*formula, f" = {_num(x)} · {_operand(y)}"], float(x * y)
    terms = [f"{_operand(x)}·{_operand(y)}" for x, y in pairs]
    return [*formula, f" = {_sum_text(terms)}"], float(np.sum([x * y for x, y in pairs]))


def _single_index(text: str) -> str:
    for letter in "ijk":
        text = text.replace(f"Σ{_SUBSCRIPT[letter]} ", "").replace(f"[{letter},", "[0,")
        text = text.replace(f",{letter}]", ",0]").replace(f"[{letter}]", "[0]")
    return text


def entry_arithmetic(s: TraceStep, before: np.ndarray | None, name: Callable[[Tensor], str],
                     matmul: bool) -> EntryArithmetic | None:
    """The worked entry of a tensor step (None for a seed, ops not covered, or numbers that disagree)."""
    contribution = np.asarray(s.contribution)
    if s.node is None or contribution.size == 0 or contribution.dtype.kind not in "fiub":
        return None
    n, p = name(s.node), name(s.parent)
    idx = pick_entry(contribution)
    if s.local is not None:
        worked = _elementwise(s, idx, n, p)
    elif matmul:
        worked = _matmul(s, idx, n, name)
    else:
        worked = None
    if worked is None:
        return None
    parts, total = worked
    value = float(contribution[idx])
    if not np.isclose(total, value, rtol=1e-9, atol=1e-12, equal_nan=True):
        return None
    entry = _grad(p, _index_text(idx))
    if not parts[-1].endswith(f" = {_num(value)}"):
        parts.append(f" = {_num(value)}")
    line = [*entry, " += ", *parts]
    if before is not None:
        old, now = float(np.asarray(before)[idx]), float(np.asarray(s.accumulated)[idx])
        line += ["  ⇒  ", *entry, f" = {_num(old)} + {_operand(value)} = {_num(now)}"]
    return EntryArithmetic(idx, tuple(line), value)
