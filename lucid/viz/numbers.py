"""Compact, fixed-width number text for graph labels, explanations and the app's tables.

Every number gets 4 significant digits in a form whose length depends only on its
magnitude class, never on the digits, so a label keeps its size while the gradient
it shows changes from frame to frame of an animation (the layout must not jump).

Written for first-year students:

- plain decimals from 1e-4 up to 1e5 (``0.0001235``, ``0.4622``, ``12346``), the form people
  read without thinking; scientific notation only outside that range, and then as a
  blackboard writes it, ``2.200 × 10⁻⁷``, never ``2.2e-07``;
- a true minus sign (``−2.000``, U+2212), as wide as a digit and unmistakable on a projector;
- one format per grid: an array (or a min/mean/max summary) whose numbers do not all fit the
  plain range is written entirely in scientific notation (``format_grid``), so ``0.4622``
  never stands beside ``6.015 × 10⁻⁷`` in one table.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from lucid.i18n import _

#: Arrays with at most 2 axes, at most this many rows and at most this many columns are shown in full.
GRID_MAX_ROWS = 8
GRID_MAX_COLUMNS = 8
GRID_MAX_ELEMENTS = GRID_MAX_ROWS * GRID_MAX_COLUMNS
#: Powers of ten (after rounding to 4 significant digits) written as plain decimals: 1e-4 <= |x| < 1e5.
PLAIN_EXPONENTS = range(-4, 5)
MINUS = "\u2212"
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _exponent(x: float) -> int:
    """The power of ten of ``x`` after rounding it to 4 significant digits (9999.7 -> 4)."""
    return int(f"{x:.3e}".split("e")[1])


def _minus(text: str) -> str:
    return MINUS + text[1:] if text.startswith("-") else text


def _special(x: float) -> str | None:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else MINUS + "inf"
    if x == 0:
        return "0"
    return None


def scientific(x: Any) -> str:
    """``x`` in scientific notation with 4 significant digits, as written by hand: ``−2.200 × 10⁻⁷``."""
    x = float(x)
    special = _special(x)
    if special is not None:
        return special
    mantissa, exponent = f"{x:.3e}".split("e")
    return f"{_minus(mantissa)} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def is_plain(x: Any) -> bool:
    """True when ``x`` is written as a plain decimal (0, nan, inf, or 1e-4 <= |x| < 1e5 once rounded)."""
    x = float(x)
    return _special(x) is not None or _exponent(x) in PLAIN_EXPONENTS


def format_number(x: Any) -> str:
    """One number with 4 significant digits: ``3.000``, ``−0.01235``, ``12346``, ``1.235 × 10⁵``, ``nan``.

    Plain decimals between 1e-4 and 1e5 (what people read fastest), otherwise
    scientific notation written ``1.235 × 10⁵``; negatives carry a true minus sign.
    """
    x = float(x)
    special = _special(x)
    if special is not None:
        return special
    exp = _exponent(x)
    if exp in PLAIN_EXPONENTS:
        return _minus(f"{x:.{max(0, 3 - exp)}f}")
    return scientific(x)


def format_grid(values: Any) -> list[str]:
    """Every number of ``values`` (flattened), all in ONE format: plain decimals if each one is plain, else
    every nonzero finite number in scientific notation."""
    flat = [float(v) for v in np.asarray(values, dtype=np.float64).reshape(-1)]
    if all(is_plain(v) for v in flat):
        return [format_number(v) for v in flat]
    return [scientific(v) for v in flat]


def parse_number(text: str) -> float:
    """The value a displayed number stands for (``−2.200 × 10⁻⁷`` -> -2.2e-07): for tests and round trips."""
    text = text.strip().replace(MINUS, "-")
    if " × 10" in text:
        mantissa, power = text.split(" × 10")
        digits = power.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789"))
        return float(mantissa) * 10.0 ** int(digits)
    return float(text)


def number_width(values: np.ndarray) -> int:
    """Width of the widest number a view of ``values`` shows (1 for an empty array).

    Only the numbers that are shown are formatted: every element of a grid, else
    the three summary numbers (computed with NumPy reductions), so this costs the
    same for a 1000×1000 array as for a 3×3 one.
    """
    return max((len(t) for t in format_grid(shown_numbers(values))), default=1)


def is_grid(shape: tuple[int, ...]) -> bool:
    """True when an array of this shape is small enough to show every element (up to 8×8)."""
    if len(shape) == 0 or len(shape) > 2 or 0 in shape:
        return False
    return shape[-1] <= GRID_MAX_COLUMNS and (len(shape) == 1 or shape[0] <= GRID_MAX_ROWS)


def summary_numbers(a: np.ndarray) -> tuple[float, float, float] | None:
    """min, mean and max of the finite elements (None when there are none), by NumPy reductions."""
    a = np.asarray(a, dtype=np.float64)
    finite = np.isfinite(a)
    if finite.all():
        return float(a.min()), float(a.mean()), float(a.max())
    values = a[finite]
    if not values.size:
        return None
    return float(values.min()), float(values.mean()), float(values.max())


def shown_numbers(values: Any) -> list[float]:
    """The numbers a view of ``values`` shows: every element of a scalar or grid, else min, mean, max."""
    a = np.asarray(values)
    if a.dtype.kind == "b":
        a = a.astype(np.float64)
    if a.ndim == 0:
        return [float(a)]
    if a.size == 0:
        return []
    if is_grid(a.shape):
        return [float(v) for v in a.reshape(-1)]
    summary = summary_numbers(a)
    return [] if summary is None else list(summary)


def shape_text(shape: tuple[int, ...]) -> str:
    """``scalar``, ``3``, ``2×3``: the shape as people say it."""
    return _("scalar") if not shape else "×".join(str(n) for n in shape)


def array_lines(arr: Any, width: int | None = None) -> list[str]:
    """The lines of ``format_array``: one for scalars and summaries, one per row for grids.

    ``width`` pads every number to that many characters (right-aligned), so two
    arrays of the same shape formatted with the same width have the same length.
    """
    a = np.asarray(arr)
    if a.dtype.kind == "b":
        a = a.astype(np.float64)
    if a.dtype.kind not in "fiu":
        raise TypeError(f"cannot format an array of type {a.dtype}")
    a = a.astype(np.float64, copy=False)
    if a.ndim == 0:
        return [format_number(a).rjust(width or 0)]
    if a.size == 0:
        return [f"({shape_text(a.shape)}) empty"]
    if not is_grid(a.shape):
        return [summary_text(a, width)]
    texts = format_grid(a)
    w = max(width or 0, max(len(t) for t in texts))
    cells = [t.rjust(w) for t in texts]
    if a.ndim == 1:
        return ["[" + " ".join(cells) + "]"]
    n = a.shape[1]
    rows = [" ".join(cells[i * n:(i + 1) * n]) for i in range(a.shape[0])]
    return ["[[" + rows[0] + "]"] + [" [" + r + "]" for r in rows[1:-1]] + [" [" + rows[-1] + "]]"] \
        if len(rows) > 1 else ["[[" + rows[0] + "]]"]


def summary_text(a: np.ndarray, width: int | None = None) -> str:
    """``min −1.235  mean 0.1200  max 2.000`` (+ the count of NaN/inf when there are any), in one format."""
    w = width or 0
    summary = summary_numbers(a)
    if summary is not None:
        low, mean, high = format_grid(summary)
        parts = [_("min {value}").format(value=low.rjust(w)), _("mean {value}").format(value=mean.rjust(w)),
                 _("max {value}").format(value=high.rjust(w))]
    else:
        parts = [_("no finite values")]
    nan = int(np.isnan(a).sum()) if a.dtype.kind == "f" else 0
    inf = int(np.isinf(a).sum()) if a.dtype.kind == "f" else 0
    if nan:
        parts.append(f"{nan} nan")
    if inf:
        parts.append(f"{inf} inf")
    return "  ".join(parts)


def format_array(arr: Any, *, width: int | None = None, shape: bool = True) -> str:
    """Compact text of a value or gradient: the fixed-width format shared by graph and tables.

    - scalars: ``3.000`` (4 significant digits; ``format_number``);
    - small tensors (≤ 2 axes, up to 8×8): a grid like NumPy's, one line per row;
    - anything larger: ``shape 9×3: min … mean … max …`` (``shape=False`` drops the prefix).
    """
    a = np.asarray(arr)
    lines = array_lines(a, width)
    if a.ndim and a.size and not is_grid(a.shape) and shape:
        return _("shape {shape}: {values}").format(shape=shape_text(a.shape), values=lines[0])
    return "\n".join(lines)


def has_nonfinite(arr: Any) -> bool:
    """True when a float array holds NaN or ±inf (flagged in red in the graph)."""
    a = np.asarray(arr)
    return a.dtype.kind in "fc" and not bool(np.all(np.isfinite(a)))
