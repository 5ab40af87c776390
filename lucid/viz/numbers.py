"""Compact, fixed-width number text for graph labels, explanations and the app's tables.

Every number gets 4 significant digits in a form whose length depends only on its
magnitude class, never on the digits, so a label keeps its size while the gradient
it shows changes from frame to frame of an animation (the layout must not jump).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

#: Arrays with at most 2 axes, at most this many rows and at most this many columns are shown in full.
GRID_MAX_ROWS = 8
GRID_MAX_COLUMNS = 8
GRID_MAX_ELEMENTS = GRID_MAX_ROWS * GRID_MAX_COLUMNS


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
    """Width of the widest number a view of ``values`` shows (1 for an empty array).

    Only the numbers that are shown are formatted: every element of a grid, else
    the three summary numbers (computed with NumPy reductions), so this costs the
    same for a 1000×1000 array as for a 3×3 one.
    """
    return max((len(format_number(v)) for v in shown_numbers(values)), default=1)


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
    summary = summary_numbers(a)
    if summary is not None:
        low, mean, high = summary
        parts = [f"min {format_number(low).rjust(w)}", f"mean {format_number(mean).rjust(w)}",
                 f"max {format_number(high).rjust(w)}"]
    else:
        parts = ["no finite values"]
    nan = int(np.isnan(a).sum()) if a.dtype.kind == "f" else 0
    inf = int(np.isinf(a).sum()) if a.dtype.kind == "f" else 0
    if nan:
        parts.append(f"{nan} nan")
    if inf:
        parts.append(f"{inf} inf")
    return "  ".join(parts)


def format_array(arr: Any, *, width: int | None = None, shape: bool = True) -> str:
    """Compact text of a value or gradient: the fixed-width format shared by graph and tables.

    - scalars: ``3.000`` (4 significant digits);
    - small tensors (≤ 2 axes, up to 8×8): a grid like NumPy's, one line per row;
    - anything larger: ``shape 9×3: min … mean … max …`` (``shape=False`` drops the prefix).
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
