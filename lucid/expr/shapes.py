"""Shape rules of the engine's ops, worked out from shapes alone.

The checker runs these before anything is evaluated, so a program that would
make a 10¹⁰-element array is refused without allocating it, and a mismatch is
reported with both shapes and the operator that joined them.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from lucid.i18n import L_, LN_, Message

Shape = tuple[int, ...]


class ShapeProblem(Exception):
    """A shape or argument problem; the checker adds the position."""

    def __init__(self, message: str | Message, kind: str = "shape") -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind


def size(shape: Shape) -> int:
    return math.prod(shape)


def broadcast(verb: str | Message, *shapes: Shape) -> Shape:
    """NumPy broadcasting, or "cannot add shapes (3, 4) and (2,)"."""
    ndim = max(len(s) for s in shapes)
    out = []
    for axis in range(-ndim, 0):
        sizes = {s[axis] for s in shapes if len(s) >= -axis} - {1}
        if len(sizes) > 1:
            listed = L_("{items} and {last}", items=", ".join(str(s) for s in shapes[:-1]), last=shapes[-1])
            ordered = sorted(sizes)
            both = L_("{items} and {last}", items=", ".join(map(str, ordered[:-1])), last=ordered[-1])
            raise ShapeProblem(L_("cannot {verb} shapes {listed}: sizes {sizes} do not match (sizes must be "
                                  "equal or 1)", verb=verb, listed=listed, sizes=both))
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def matmul(a: Shape, b: Shape) -> tuple[Shape, int]:
    """Result shape of ``a @ b`` and its number of multiply-adds."""
    if not a or not b:
        raise ShapeProblem(L_("cannot matmul shapes {a} and {b}: '@' needs at least 1-D operands; use '*' "
                              "for scalars",
                              a=a, b=b))
    k_a = a[-1]
    k_b = b[0] if len(b) == 1 else b[-2]
    if k_a != k_b:
        raise ShapeProblem(L_("cannot matmul shapes {a} and {b}: inner sizes {k_a} and {k_b} differ",
                              a=a, b=b, k_a=k_a, k_b=k_b))
    batch_a, batch_b = a[:-2], b[:-2]
    try:
        batch = tuple(np.broadcast_shapes(batch_a, batch_b))
    except ValueError:
        raise ShapeProblem(L_("cannot matmul shapes {a} and {b}: batch shapes {batch_a} and {batch_b} do not "
                              "broadcast",
                              a=a, b=b, batch_a=batch_a, batch_b=batch_b)) from None
    rows = (a[-2],) if len(a) >= 2 else ()
    cols = (b[-1],) if len(b) >= 2 else ()
    out = batch + rows + cols
    return out, size(out) * k_a


def axes(shape: Shape, axis: Any, what: str, scalar_axis: bool = False) -> tuple[int, ...]:
    """Normalised, sorted axes of ``axis`` (None means all), with errors naming ``what``.

    With ``scalar_axis`` a 0-d shape follows NumPy's reductions and the engine
    (``lucid._func.reduce.normalize_axis``): the single integer axis 0 or -1 is
    accepted and names no axis at all.
    """
    ndim = len(shape)
    if axis is None:
        return tuple(range(ndim))
    if scalar_axis and ndim == 0 and not isinstance(axis, tuple) and axis in (0, -1):
        return ()
    items = axis if isinstance(axis, tuple) else (axis,)
    out = []
    for ax in items:
        if not -ndim <= ax < ndim:
            hint = L_(" (a 0-d tensor accepts axis=None, 0 or -1)") if scalar_axis and ndim == 0 else ""
            raise ShapeProblem(LN_("{what}: axis {ax} is out of range for shape {shape} ({n} dimension){hint}",
                                   "{what}: axis {ax} is out of range for shape {shape} ({n} dimensions){hint}", ndim,
                                   what=what, ax=ax, shape=shape, hint=hint))
        out.append(ax % ndim)
    if len(set(out)) != len(out):
        raise ShapeProblem(L_("{what}: axis {axis} repeats an axis",
                              what=what, axis=axis), "argument")
    return tuple(sorted(out))


def reduce(shape: Shape, axis: Any, keepdims: bool, what: str) -> Shape:
    chosen = axes(shape, axis, what, scalar_axis=True)
    if keepdims:
        return tuple(1 if i in chosen else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in chosen)


def one_axis(shape: Shape, axis: int, what: str) -> None:
    """A single axis for softmax-like functions; a 0-d tensor takes axis 0 or -1 (and is its own softmax)."""
    axes(shape, axis, what, scalar_axis=True)


def reshape(shape: Shape, new: Sequence[int]) -> Shape:
    new = tuple(new)
    if sum(1 for n in new if n == -1) > 1:
        raise ShapeProblem(L_("reshape: only one size may be -1"), "argument")
    if any(n < -1 for n in new):
        raise ShapeProblem(L_("reshape: sizes must be positive (or one -1), not {new}",
                              new=new), "argument")
    known = size(tuple(n for n in new if n != -1))
    total = size(shape)
    if -1 in new:
        if known == 0 or total % known:
            raise ShapeProblem(L_("cannot reshape shape {shape} into {new}",
                                  shape=shape, new=new))
        new = tuple(total // known if n == -1 else n for n in new)
    if size(new) != total:
        raise ShapeProblem(L_("cannot reshape shape {shape} ({total} elements) into {new} ({value} elements)",
                              shape=shape, total=total, new=new, value=size(new)))
    return new


def permute(shape: Shape, perm: Sequence[int] | None) -> Shape:
    """Shape after ``transpose(axes=perm)``, validating the permutation."""
    if perm is None:
        return tuple(reversed(shape))
    perm = tuple(perm)
    if len(perm) != len(shape):
        raise ShapeProblem(L_("transpose: axes {perm} do not match shape {shape}",
                              perm=perm, shape=shape))
    for ax in perm:
        if not -len(shape) <= ax < len(shape):
            raise ShapeProblem(L_("transpose: axis {ax} is out of range for shape {shape}",
                                  ax=ax, shape=shape))
    normal = [ax % len(shape) for ax in perm]
    if sorted(normal) != list(range(len(shape))):
        raise ShapeProblem(L_("transpose: axes {perm} are not a permutation of the axes of shape {shape}",
                              perm=perm, shape=shape))
    return tuple(shape[i] for i in normal)


def swapaxes(shape: Shape, i: int, j: int) -> Shape:
    a, b = axes(shape, i, "swapaxes"), axes(shape, j, "swapaxes")
    out = list(shape)
    out[a[0]], out[b[0]] = out[b[0]], out[a[0]]
    return tuple(out)


def squeeze(shape: Shape, axis: Any) -> Shape:
    if axis is None:
        return tuple(n for n in shape if n != 1)
    chosen = axes(shape, axis, "squeeze", scalar_axis=True)
    for ax in chosen:
        if shape[ax] != 1:
            raise ShapeProblem(L_("squeeze: axis {ax} of shape {shape} has size {shape2}, not 1",
                                  ax=ax, shape=shape, shape2=shape[ax]))
    return tuple(n for i, n in enumerate(shape) if i not in chosen)


def unsqueeze(shape: Shape, axis: Any) -> Shape:
    items = axis if isinstance(axis, tuple) else (axis,)
    ndim = len(shape) + len(items)
    chosen = axes((1,) * ndim, items, "unsqueeze")
    rest = iter(shape)
    return tuple(1 if i in chosen else next(rest) for i in range(ndim))


def broadcast_to(shape: Shape, target: Sequence[int]) -> Shape:
    target = tuple(target)
    if any(n < 0 for n in target):
        raise ShapeProblem(L_("broadcast_to: sizes must not be negative, not {target}",
                              target=target), "argument")
    if len(target) < len(shape) or broadcast(L_("broadcast"), shape, target) != target:
        raise ShapeProblem(L_("cannot broadcast shape {shape} to {target}",
                              shape=shape, target=target))
    return target


def concatenate(shapes: Sequence[Shape], axis: int) -> Shape:
    first = shapes[0]
    if not first:
        raise ShapeProblem(L_("concatenate needs at least 1-D tensors, not scalars"))
    ax = axes(first, axis, "concatenate")[0]
    for other in shapes[1:]:
        if len(other) != len(first) or any(a != b for i, (a, b) in enumerate(zip(first, other)) if i != ax):
            raise ShapeProblem(L_("cannot concatenate shapes {first} and {other} along axis {axis}",
                                  first=first, other=other, axis=axis))
    return first[:ax] + (sum(s[ax] for s in shapes),) + first[ax + 1:]


def stack(shapes: Sequence[Shape], axis: int) -> Shape:
    first = shapes[0]
    for other in shapes[1:]:
        if other != first:
            raise ShapeProblem(L_("cannot stack shapes {first} and {other}: they must be equal",
                                  first=first, other=other))
    ax = axes((1,) * (len(first) + 1), axis, "stack")[0]
    return first[:ax] + (len(shapes),) + first[ax:]


def index(shape: Shape, key: Any) -> Shape:
    """Shape of ``x[key]``, found by indexing a zero-byte stand-in so nothing real is allocated."""
    stand_in = np.empty(shape, dtype=[])
    try:
        return stand_in[key].shape
    except IndexError as exc:
        raise ShapeProblem(L_("bad index for shape {shape}: {exc}",
                              shape=shape, exc=exc)) from None
    except (ValueError, TypeError) as exc:
        raise ShapeProblem(L_("bad index for shape {shape}: {exc}",
                              shape=shape, exc=exc), "argument") from None


def full_shape(sizes: Sequence[int], what: str) -> Shape:
    """A constructor's shape, refusing negative sizes."""
    shape = tuple(sizes)
    for n in shape:
        if n < 0:
            raise ShapeProblem(L_("{what}: sizes must not be negative, not {shape}",
                                  what=what, shape=shape), "argument")
    return shape
