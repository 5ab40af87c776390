"""Broadcasting forward, summing backward: the numbers behind the Broadcasting page.

Forward, NumPy copies an input along new leading axes and along its size-1
axes. Backward, every copy received its own share of the upstream gradient, so
the input's gradient is the *sum* over exactly those axes. ``match_shape`` (the
engine's own rule) does that and reports the axes; this module lays the
pieces out for a person to read and checks them against ``backward``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from lucid._backend.core import match_shape
from lucid._tensor.tensor import Tensor
from lucid.i18n import _

MAX_NDIM = 4
MAX_DIM = 6
OPS = ("+", "×")
#: Longest shape text read at all (four sizes of one digit need a dozen characters).
MAX_SHAPE_TEXT = 40
_SHAPE_TOKEN = re.compile(r"[0-9]+|[,x×*]|\S")  # one size, one separator, or anything else
_ECHO_SAFE = re.compile(r"[A-Za-z0-9 ,;.×*+-]{0,24}")  # text shown back in the (Markdown) error


def parse_shape(text: str) -> tuple[int, ...]:
    """``"3, 1, 4"``, ``"(3, 1, 4)"``, ``"3x4"`` -> a shape; ``""`` or ``"()"`` -> a scalar.

    Shapes are kept small enough to print: at most 4 axes of at most 6 each.
    """
    body = (text or "").strip().lstrip("([ \t").rstrip(")] \t")
    tokens = _SHAPE_TOKEN.findall(body) if len(text or "") <= MAX_SHAPE_TEXT else ["?"]
    # sizes, each followed by at most one separator (spaces alone separate too): "3, 1, 4", "3x4", "4,"
    sizes = [t.isascii() and t.isdigit() for t in tokens]
    well_formed = all(size or (t in ",x×*" and i > 0 and sizes[i - 1])
                      for i, (t, size) in enumerate(zip(tokens, sizes)))
    if not well_formed:
        shown = repr(text) if _ECHO_SAFE.fullmatch(text or "") else _("that text")
        raise ValueError(_("{shown} is not a shape: write sizes separated by commas, like 3, 1, 4").format(shown=shown))
    dims = tuple(int(t) for t, size in zip(tokens, sizes) if size)
    if len(dims) > MAX_NDIM:
        raise ValueError(_("at most {limit} axes, please (got {n})").format(limit=MAX_NDIM, n=len(dims)))
    for n in dims:
        if not 1 <= n <= MAX_DIM:
            raise ValueError(_("every size must be between 1 and {limit} (got {n})").format(limit=MAX_DIM, n=n))
    return dims


def format_shape(shape: tuple[int, ...]) -> str:
    """``(3, 4)``, ``(4,)`` and ``()`` the way Python prints them."""
    return str(tuple(shape))


def broadcast_shape(shape_a: tuple[int, ...], shape_b: tuple[int, ...]) -> tuple[int, ...]:
    """The result shape, or a ValueError that names the clashing axis."""
    for rank, (m, n) in enumerate(zip(reversed(shape_a), reversed(shape_b)), start=1):
        if m != n and 1 not in (m, n):
            raise ValueError(_("shapes {a} and {b} do not broadcast: axis {axis} has sizes {m} and {n}, and neither "
                               "is 1").format(a=format_shape(shape_a), b=format_shape(shape_b), axis=-rank, m=m, n=n))
    return tuple(np.broadcast_shapes(shape_a, shape_b))


def alignment(shape_a: tuple[int, ...], shape_b: tuple[int, ...]) -> list[dict[str, str]]:
    """One row per output axis: each input's size there (right-aligned) and who was copied."""
    out = broadcast_shape(shape_a, shape_b)
    rows = []
    for axis, size in enumerate(out):
        sizes = []
        notes = []
        for label, shape in (("a", shape_a), ("b", shape_b)):
            k = axis - (len(out) - len(shape))
            if k < 0:
                sizes.append("—")
                notes.append(_("{label} gets a new axis, copied {size}×").format(label=label, size=size))
            else:
                sizes.append(str(shape[k]))
                if shape[k] == 1 and size != 1:
                    notes.append(_("{label} is stretched from 1 to {size}").format(label=label, size=size))
        rows.append({"axis": str(axis), "a": sizes[0], "b": sizes[1], "result": str(size),
                     "what happens": "; ".join(notes) or _("sizes agree")})
    return rows


@dataclass(frozen=True)
class InputGradient:
    """How one input's gradient comes back: raw (output shape) -> summed -> input shape."""

    label: str
    shape: tuple[int, ...]
    raw: np.ndarray
    summed_axes: tuple[int, ...]
    grad: np.ndarray
    engine_grad: np.ndarray

    @property
    def agrees_with_engine(self) -> bool:
        return self.engine_grad.shape == self.grad.shape and bool(np.allclose(self.engine_grad, self.grad))


@dataclass(frozen=True)
class BroadcastDemo:
    a: np.ndarray
    b: np.ndarray
    op: str
    out: np.ndarray
    upstream: np.ndarray
    inputs: tuple[InputGradient, InputGradient]


def example_values(shape: tuple[int, ...], start: float = 1.0, step: float = 1.0) -> np.ndarray:
    """``start, start+step, …`` laid out in ``shape``: small, distinct, easy to follow by eye."""
    size = int(np.prod(shape)) if shape else 1
    return (start + step * np.arange(size, dtype=np.float64)).reshape(shape)


def broadcast_demo(shape_a: tuple[int, ...], shape_b: tuple[int, ...], op: str = "+") -> BroadcastDemo:
    """Forward ``a op b`` with broadcasting, then backward with a non-ones upstream gradient.

    Each input's raw gradient (upstream × local derivative, in the output's
    shape) is brought back with ``match_shape``; the engine's own ``backward``
    is run alongside so the page can show that the two agree.
    """
    if op not in OPS:
        raise ValueError(f"op must be one of {OPS}")
    out_shape = broadcast_shape(shape_a, shape_b)
    a = example_values(shape_a, 1.0)
    b = example_values(shape_b, 10.0, 10.0)
    upstream = example_values(out_shape, 0.5, 0.5)
    ta, tb = Tensor(a.copy(), requires_grad=True), Tensor(b.copy(), requires_grad=True)
    result = ta + tb if op == "+" else ta * tb
    result.backward(upstream)
    if op == "+":
        raws = (upstream, upstream)
    else:
        raws = (upstream * np.broadcast_to(b, out_shape), upstream * np.broadcast_to(a, out_shape))
    grads = []
    for label, shape, raw, tensor in (("a", shape_a, raws[0], ta), ("b", shape_b, raws[1], tb)):
        matched, axes = match_shape(raw, shape)
        grads.append(InputGradient(label, shape, np.array(raw), tuple(axes), matched, np.array(tensor.grad)))
    return BroadcastDemo(a, b, op, result.data, upstream, (grads[0], grads[1]))


def summed_axes_text(item: InputGradient, out_shape: tuple[int, ...]) -> str:
    """Plain words for which axes were summed and why."""
    if not item.summed_axes:
        if item.raw.shape == item.shape:
            return _("{label} already has the output's shape: nothing to sum.").format(label=item.label)
        return _("{label}: same values, the missing size-1 axes are restored by a reshape.").format(label=item.label)
    extra = len(out_shape) - len(item.shape)
    parts = []
    new = [ax for ax in item.summed_axes if ax < extra]
    stretched = [ax for ax in item.summed_axes if ax >= extra]
    if new:
        parts.append(_("axes {axes} are new leading axes for {label}").format(axes=new, label=item.label))
    if stretched:
        parts.append(_("axes {axes} were size 1 in {label} and stretched").format(axes=stretched, label=item.label))
    tail = (_("; summing drops the new axes, leaving {shape}.") if new
            else _("; the summed axes stay as size 1, leaving {shape}.")).format(shape=format_shape(item.shape))
    reasons = (_("{first} and {second}").format(first=parts[0], second=parts[1]) if len(parts) == 2
               else parts[0])
    return _("sum over axes {axes}: {reasons}").format(axes=list(item.summed_axes), reasons=reasons) + tail


# ----- the case table of gradient-shape matching --------------------------------
@dataclass(frozen=True)
class ShapeCase:
    """One branch of ``match_shape``, with a concrete gradient pushed through it."""

    case: str
    example: str
    input_shape: tuple[int, ...]
    grad_in: np.ndarray
    grad_out: np.ndarray
    summed_axes: tuple[int, ...]
    rule: str


def shape_cases() -> list[ShapeCase]:
    """The cases of gradient-shape matching, each computed live by ``match_shape``."""
    specs = [
        (_("same shape"), _("a * b, both (2, 3)"), (2, 3), example_values((2, 3), 0.5, 0.5),
         _("nothing to do: the gradient already fits")),
        (_("scalar input"), _("s * x, s is () and x is (2, 3)"), (), example_values((2, 3), 0.5, 0.5),
         _("s was copied to every element: sum over all axes")),
        (_("scalar gradient"), _("a 0-d gradient for a (2, 3) input"), (2, 3), np.array(2.5),
         _("one number stands for every element: broadcast it to the input's shape")),
        (_("reshape"), _("a (3,) gradient for a (1, 3) input"), (1, 3), example_values((3,), 0.5, 0.5),
         _("same values, fewer axes: restore the size-1 axes")),
        (_("broadcast-and-sum"), _("x + bias, x is (3, 4) and bias is (1, 4)"), (1, 4),
         example_values((3, 4), 0.5, 0.5), _("the bias row was copied to 3 rows: sum over axis 0")),
        (_("broadcast-and-sum"), _("x + c, x is (2, 4, 3) and c is (4, 1)"), (4, 1),
         example_values((2, 4, 3), 0.5, 0.5), _("new leading axis 0 and stretched axis 2: sum over both")),
    ]
    cases = []
    for name, example, shape, grad, rule in specs:
        out, axes = match_shape(grad, shape)
        cases.append(ShapeCase(name, example, shape, grad, out, tuple(axes), rule))
    return cases
