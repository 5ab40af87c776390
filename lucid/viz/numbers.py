"""Compact, fixed-width number text for graph labels, explanations and the app's tables.

Every number gets 4 significant digits in a form whose length depends only on its
magnitude class, never on the digits, so a label keeps its size while the gradient
it shows changes from frame to frame of an animation (the layout must not jump).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

#: Arrays with at most this many elements (and at most 2 axes) are drawn as a grid.
GRID_MAX_ELEMENTS = 12
#: Grids wider than this many columns are summarised instead.
GRID_MAX_COLUMNS = 6


def format_number(x: Any) -> str:
    """One number with 4 significant digits: ``3.000``, ``-0.01235``, ``1.235e5``, ``nan``.

    Fixed notation between 0.01 and 9999.5 (what people read fastest), otherwise
    a short scientific form without ``+`` or leading exponent zeros.
    """
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"
    mantissa, exponent = f"{x:.3e}".split("e")
    exp = int(exponent)  # exponent after rounding to 4 significant digits
    if -2 <= exp <= 3:
        return f"{x:.{3 - exp}f}"
    return f"{mantissa}e{exp}"


def number_width(values: np.ndarray) -> int:
    """Width of the widest formatted number in ``values`` (1 for an empty array)."""
    flat = np.asarray(values, dtype=np.float64).reshape(-1)
    return max((len(format_number(v)) for v in flat), default=1)


def is_grid(shape: tuple[int, ...]) -> bool:
    """True when an array of this shape is small enough to show every element."""
    size = int(np.prod(shape)) if shape else 1
    if len(shape) == 0 or size == 0:
        return False
    return len(shape) <= 2 and size <= GRID_MAX_ELEMENTS and shape[-1] <= GRID_MAX_COLUMNS


def shape_text(shape: tuple[int, ...]) -> str:
    """``scalar``, ``3``, ``2×3``: the shape as people say it."""
    return "scalar" if not shape else "×".join(str(n) for n in shape)


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
    w = max(width or 0, number_width(a))
    cell = lambda v: format_number(v).rjust(w)  # noqa: E731
    if a.ndim == 1:
        return ["[" + " ".join(cell(v) for v in a) + "]"]
    rows = [" ".join(cell(v) for v in row) for row in a]
    return ["[[" + rows[0] + "]"] + [" [" + r + "]" for r in rows[1:-1]] + [" [" + rows[-1] + "]]"] \
        if len(rows) > 1 else ["[[" + rows[0] + "]]"]


def summary_text(a: np.ndarray, width: int | None = None) -> str:
    """``min -1.235  mean 0.1200  max 2.000`` (+ the count of NaN/inf when there are any)."""
    w = width or 0
    finite = a[np.isfinite(a)]
    if finite.size:
        parts = [f"min {format_number(finite.min()).rjust(w)}", f"mean {format_number(finite.mean()).rjust(w)}",
                 f"max {format_number(finite.max()).rjust(w)}"]
    else:
        parts = ["no finite values"]
    nan, inf = int(np.isnan(a).sum()), int(np.isinf(a).sum())
    if nan:
        parts.append(f"{nan} nan")
    if inf:
        parts.append(f"{inf} inf")
    return "  ".join(parts)


def format_array(arr: Any, *, width: int | None = None, shape: bool = True) -> str:
    """Compact text of a value or gradient: the fixed-width format shared by graph and tables.

    - scalars: ``3.000`` (4 significant digits);
    - small tensors (≤ 12 elements, ≤ 2 axes): a grid like NumPy's, one line per row;
    - anything larger: ``shape 4×3: min … mean … max …`` (``shape=False`` drops the prefix).
    """
    a = np.asarray(arr)
    lines = array_lines(a, width)
    if a.ndim and a.size and not is_grid(a.shape) and shape:
        return f"shape {shape_text(a.shape)}: {lines[0]}"
    return "\n".join(lines)


def has_nonfinite(arr: Any) -> bool:
    """True when a float array holds NaN or ±inf (flagged in red in the graph)."""
    a = np.asarray(arr)
    return a.dtype.kind in "fc" and not bool(np.all(np.isfinite(a)))
