"""The explicit table of everything a program may call.

A call in a program is looked up here by name and nowhere else: there is no
attribute access on modules or objects, so a name in the text can only ever
reach an entry of ``FUNCTIONS`` (``tanh(x)``), ``METHODS`` (``x.sum()``) or
``ATTRIBUTES`` (``x.T``). Each entry says which arguments are tensors, which
are fixed options (``axis=``, ``keepdims=`` ...: literals only, allowed as
keywords), how the result's shape follows from the arguments' shapes (so the
checker can refuse a program before allocating anything) and which engine
function computes it. The op-reference panel lists this table.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import lucid
from lucid.expr import shapes as sh
from lucid.expr.shapes import Shape, ShapeProblem
from lucid.i18n import L_, N_

REQUIRED = object()

# Parameter kinds. Tensor kinds take expressions; the others take literals.
TENSOR, TENSORS, TARGETS, CONDITION = "tensor", "tensors", "targets", "condition"
INT, FLOAT, OPT_FLOAT, BOOL, AXIS, INTS, OPT_INTS = "int", "float", "float or None", "bool", "axis", "ints", \
    "ints or None"
TENSOR_KINDS = (TENSOR, TENSORS, TARGETS, CONDITION)


@dataclass(frozen=True)
class Param:
    name: str
    kind: str
    default: Any = REQUIRED

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def describe(self) -> str:
        if self.required:
            return self.name
        return f"{self.name}={self.default!r}"


@dataclass(frozen=True)
class FunctionSpec:
    """One callable name of the language.

    ``shape(tensor_shapes, options)`` gives the result's shape or raises
    ``ShapeProblem``; ``call(tensors, options)`` computes it with the engine
    (for ops) and ``make(rng, options)`` builds the data (for constructors).
    Parameters listed after the tensors are options; ``varargs`` names the one
    that also soaks up extra positional literals (``randn(3, 2)``,
    ``x.reshape(2, 3)``).
    """

    name: str
    params: tuple[Param, ...]
    group: str
    summary: str
    shape: Callable[[list[Shape], dict[str, Any]], Shape] = field(repr=False)
    call: Callable[[list[Any], dict[str, Any]], Any] | None = field(default=None, repr=False)
    make: Callable[[np.random.Generator, dict[str, Any]], np.ndarray] | None = field(default=None, repr=False)
    op: str | None = None
    varargs: str | None = None
    engine: Callable[..., Any] | None = field(default=None, repr=False)
    """The public ``lucid`` function that computes it (None for constructors and const)."""

    @property
    def keywords(self) -> tuple[str, ...]:
        """Keyword arguments this function accepts (its options)."""
        return tuple(p.name for p in self.params if p.kind not in TENSOR_KINDS)

    @property
    def is_constructor(self) -> bool:
        return self.make is not None

    def signature(self) -> str:
        parts = []
        for p in self.params:
            parts.append(f"*{p.name}" if p.name == self.varargs else p.describe())
        return f"{self.name}({', '.join(parts)})"


FUNCTIONS: dict[str, FunctionSpec] = {}


def _add(spec: FunctionSpec) -> None:
    FUNCTIONS[spec.name] = spec


def _same(shapes: list[Shape], _: dict) -> Shape:
    return shapes[0]


# ----- elementwise of one tensor --------------------------------------------------
for _name, _fn, _summary in [
    ("exp", lucid.exp, "eˣ elementwise"), ("log", lucid.log, "natural logarithm"),
    ("sqrt", lucid.sqrt, "square root"), ("abs", lucid.abs, "absolute value"),
    ("sin", lucid.sin, "sine"), ("cos", lucid.cos, "cosine"),
    ("tanh", lucid.tanh, "hyperbolic tangent"), ("sigmoid", lucid.sigmoid, "logistic 1/(1 + e⁻ˣ)"),
    ("relu", lucid.relu, "max(x, 0)"), ("softplus", lucid.softplus, "ln(1 + eˣ)"),
    ("neg", lucid.neg, "−x (same as unary minus)"),
]:
    _add(FunctionSpec(_name, (Param("x", TENSOR),), "elementwise", _summary, _same,
                      call=lambda t, o, fn=_fn: fn(t[0]), op=_name, engine=_fn))

_add(FunctionSpec("leaky_relu", (Param("x", TENSOR), Param("slope", FLOAT, 0.01)), "elementwise",
                  "x if x > 0 else slope·x", _same,
                  call=lambda t, o: lucid.leaky_relu(t[0], slope=o["slope"]), op="leaky_relu",
                  engine=lucid.leaky_relu))
_add(FunctionSpec("clip", (Param("x", TENSOR), Param("low", OPT_FLOAT, None), Param("high", OPT_FLOAT, None)),
                  "elementwise", "x limited to [low, high]", _same,
                  call=lambda t, o: lucid.clip(t[0], low=o["low"], high=o["high"]), op="clip",
                  engine=lucid.clip))

# ----- elementwise of two or three tensors (broadcasting) -------------------------
VERBS = {"add": N_("add"), "sub": N_("subtract"), "mul": N_("multiply"), "div": N_("divide"),
         "pow": N_("raise to a power"), "maximum": N_("take the maximum of"), "minimum": N_("take the minimum of"),
         "eq": N_("compare"), "ne": N_("compare"), "lt": N_("compare"), "le": N_("compare"), "gt": N_("compare"),
         "ge": N_("compare"), "where": N_("select between"), "mse_loss": N_("compare (mse_loss)"),
         "binary_cross_entropy": N_("compare (binary_cross_entropy)"),
         "binary_cross_entropy_with_logits": N_("compare (binary_cross_entropy_with_logits)")}


def _broadcasting(name: str) -> Callable[[list[Shape], dict], Shape]:
    return lambda shapes, _: sh.broadcast(L_(VERBS[name]), *shapes)


def _scalar_loss(name: str) -> Callable[[list[Shape], dict], Shape]:
    def rule(shapes: list[Shape], _: dict) -> Shape:
        sh.broadcast(L_(VERBS[name]), *shapes)
        return ()
    return rule


for _name, _fn, _summary in [
    ("add", lucid.add, "a + b"), ("sub", lucid.sub, "a − b"), ("mul", lucid.mul, "a · b"),
    ("div", lucid.div, "a / b"), ("pow", lucid.pow, "a ** b"),
    ("maximum", lucid.maximum, "elementwise larger of a and b"),
    ("minimum", lucid.minimum, "elementwise smaller of a and b"),
]:
    _add(FunctionSpec(_name, (Param("a", TENSOR), Param("b", TENSOR)), "elementwise", _summary,
                      _broadcasting(_name), call=lambda t, o, fn=_fn: fn(t[0], t[1]), op=_name, engine=_fn))

for _name, _fn, _symbol in [("eq", lucid.eq, "=="), ("ne", lucid.ne, "!="), ("lt", lucid.lt, "<"),
                            ("le", lucid.le, "<="), ("gt", lucid.gt, ">"), ("ge", lucid.ge, ">=")]:
    _add(FunctionSpec(_name, (Param("a", TENSOR), Param("b", TENSOR)), "comparison",
                      f"a {_symbol} b as True/False (only for where's condition)", _broadcasting(_name),
                      call=lambda t, o, fn=_fn: fn(t[0], t[1]), op=_name, engine=_fn))

_add(FunctionSpec("where", (Param("cond", CONDITION), Param("a", TENSOR), Param("b", TENSOR)), "elementwise",
                  "a where cond holds, else b", _broadcasting("where"),
                  call=lambda t, o: lucid.where(t[0], t[1], t[2]), op="where",
                  engine=lucid.where))
_add(FunctionSpec("matmul", (Param("a", TENSOR), Param("b", TENSOR)), "linear algebra", "matrix product a @ b",
                  lambda shapes, _: sh.matmul(shapes[0], shapes[1])[0],
                  call=lambda t, o: lucid.matmul(t[0], t[1]), op="matmul",
                  engine=lucid.matmul))

# ----- reductions -----------------------------------------------------------------
for _name, _fn, _summary in [
    ("sum", lucid.sum, "sum over axis (all axes by default)"), ("mean", lucid.mean, "mean over axis"),
    ("max", lucid.max, "largest value over axis (for two tensors use maximum)"),
    ("min", lucid.min, "smallest value over axis (for two tensors use minimum)"),
    ("var", lucid.var, "population variance over axis"), ("logsumexp", lucid.logsumexp, "ln Σ eˣ over axis"),
]:
    _add(FunctionSpec(_name, (Param("x", TENSOR), Param("axis", AXIS, None), Param("keepdims", BOOL, False)),
                      "reduction", _summary,
                      lambda shapes, o, n=_name: sh.reduce(shapes[0], o["axis"], o["keepdims"], n),
                      call=lambda t, o, fn=_fn: fn(t[0], axis=o["axis"], keepdims=o["keepdims"]), op=_name, engine=_fn))


def _softmax_shape(name: str) -> Callable[[list[Shape], dict], Shape]:
    def rule(shapes: list[Shape], o: dict) -> Shape:
        sh.one_axis(shapes[0], o["axis"], name)
        return shapes[0]
    return rule


_add(FunctionSpec("softmax", (Param("x", TENSOR), Param("axis", INT, -1)), "neural network",
                  "e^x / Σ e^x along axis", _softmax_shape("softmax"),
                  call=lambda t, o: lucid.softmax(t[0], axis=o["axis"]), op="softmax",
                  engine=lucid.softmax))
_add(FunctionSpec("log_softmax", (Param("x", TENSOR), Param("axis", INT, -1)), "neural network",
                  "x − logsumexp(x) along axis", _softmax_shape("log_softmax"),
                  call=lambda t, o: lucid.log_softmax(t[0], axis=o["axis"]), op="log_softmax",
                  engine=lucid.log_softmax))

# ----- losses ----------------------------------------------------------------------
_add(FunctionSpec("mse_loss", (Param("pred", TENSOR), Param("target", TENSOR)), "loss",
                  "mean of (pred − target)²", _scalar_loss("mse_loss"),
                  call=lambda t, o: lucid.mse_loss(t[0], t[1]), op="mse_loss",
                  engine=lucid.mse_loss))
_add(FunctionSpec("binary_cross_entropy", (Param("prob", TENSOR), Param("target", TENSOR)), "loss",
                  "BCE of probabilities in [0, 1] (apply sigmoid first)", _scalar_loss("binary_cross_entropy"),
                  call=lambda t, o: lucid.binary_cross_entropy(t[0], t[1]), op="binary_cross_entropy",
                  engine=lucid.binary_cross_entropy))
_add(FunctionSpec("binary_cross_entropy_with_logits", (Param("logits", TENSOR), Param("target", TENSOR)), "loss",
                  "BCE of sigmoid(logits), computed from the logits: exact where the sigmoid saturates",
                  _scalar_loss("binary_cross_entropy_with_logits"),
                  call=lambda t, o: lucid.binary_cross_entropy_with_logits(t[0], t[1]),
                  op="binary_cross_entropy_with_logits", engine=lucid.binary_cross_entropy_with_logits))


def _cross_entropy_shape(shapes: list[Shape], o: dict) -> Shape:
    logits, targets = shapes
    if len(logits) not in (1, 2):
        raise ShapeProblem(L_("cross_entropy needs logits of shape (N, C) or (C,), not {logits}",
                              logits=logits))
    rows = logits[0] if len(logits) == 2 else 1
    if sh.size(targets) != rows:
        raise ShapeProblem(L_("cross_entropy got {rows} row(s) of logits {logits} but {value} target(s) of "
                              "shape {targets}",
                              rows=rows, logits=logits, value=sh.size(targets), targets=targets))
    classes = logits[-1]
    known = o.get("targets")
    if known is not None and known.size and (known.min() < 0 or known.max() >= classes):
        raise ShapeProblem(L_("cross_entropy targets must be class indices in 0..{value}",
                              value=classes - 1), "argument")
    return ()


_add(FunctionSpec("cross_entropy", (Param("logits", TENSOR), Param("targets", TARGETS)), "loss",
                  "softmax cross-entropy of logits (N, C) and integer class targets", _cross_entropy_shape,
                  call=lambda t, o: lucid.cross_entropy(t[0], t[1]), op="cross_entropy",
                  engine=lucid.cross_entropy))

# ----- shape ----------------------------------------------------------------------
_add(FunctionSpec("reshape", (Param("x", TENSOR), Param("shape", INTS)), "shape", "same values, new shape",
                  lambda shapes, o: sh.reshape(shapes[0], o["shape"]),
                  call=lambda t, o: lucid.reshape(t[0], o["shape"]), op="reshape",
                  engine=lucid.reshape, varargs="shape"))
def _positive_axes(axes: tuple[int, ...] | None, ndim: int) -> tuple[int, ...] | None:
    """Axes as 0..ndim-1, so graph labels show one spelling of the same permutation."""
    return None if axes is None else tuple(a % ndim for a in axes)


_add(FunctionSpec("transpose", (Param("x", TENSOR), Param("axes", OPT_INTS, None)), "shape",
                  "axes reversed (or permuted by axes)", lambda shapes, o: sh.permute(shapes[0], o["axes"]),
                  call=lambda t, o: lucid.transpose(t[0], _positive_axes(o["axes"], t[0].ndim)), op="transpose",
                  engine=lucid.transpose, varargs="axes"))
_add(FunctionSpec("swapaxes", (Param("x", TENSOR), Param("axis1", INT), Param("axis2", INT)), "shape",
                  "two axes swapped", lambda shapes, o: sh.swapaxes(shapes[0], o["axis1"], o["axis2"]),
                  call=lambda t, o: lucid.swapaxes(t[0], o["axis1"], o["axis2"]), op="swapaxes",
                  engine=lucid.swapaxes))
_add(FunctionSpec("squeeze", (Param("x", TENSOR), Param("axis", AXIS, None)), "shape", "size-1 axes removed",
                  lambda shapes, o: sh.squeeze(shapes[0], o["axis"]),
                  call=lambda t, o: lucid.squeeze(t[0], o["axis"]), op="squeeze",
                  engine=lucid.squeeze))
for _name in ("unsqueeze", "expand_dims"):
    _add(FunctionSpec(_name, (Param("x", TENSOR), Param("axis", AXIS)), "shape", "a size-1 axis inserted",
                      lambda shapes, o: sh.unsqueeze(shapes[0], o["axis"]),
                      call=lambda t, o: lucid.unsqueeze(t[0], o["axis"]), op="unsqueeze",
                      engine=lucid.unsqueeze))
_add(FunctionSpec("broadcast_to", (Param("x", TENSOR), Param("shape", INTS)), "shape",
                  "copied along new or size-1 axes", lambda shapes, o: sh.broadcast_to(shapes[0], o["shape"]),
                  call=lambda t, o: lucid.broadcast_to(t[0], o["shape"]), op="broadcast_to",
                  engine=lucid.broadcast_to, varargs="shape"))
_add(FunctionSpec("concatenate", (Param("tensors", TENSORS), Param("axis", INT, 0)), "shape",
                  "[a, b, ...] joined along an existing axis", lambda shapes, o: sh.concatenate(shapes, o["axis"]),
                  call=lambda t, o: lucid.concatenate(t, axis=o["axis"]), op="concatenate",
                  engine=lucid.concatenate))
_add(FunctionSpec("stack", (Param("tensors", TENSORS), Param("axis", INT, 0)), "shape",
                  "[a, b, ...] stacked along a new axis", lambda shapes, o: sh.stack(shapes, o["axis"]),
                  call=lambda t, o: lucid.stack(t, axis=o["axis"]), op="stack",
                  engine=lucid.stack))

# ----- constructors (leaves: they require grad unless wrapped in const) ------------
_SHAPE_PARAM = (Param("shape", INTS, ()),)


def _shape_of(name: str) -> Callable[[list[Shape], dict], Shape]:
    return lambda _, o: sh.full_shape(o["shape"], name)


def _arange_count(o: dict) -> int:
    start, stop, step = (0.0, o["start"], o["step"]) if o["stop"] is None else (o["start"], o["stop"], o["step"])
    if step == 0:
        raise ShapeProblem(L_("arange: step must not be 0"), "argument")
    count = (stop - start) / step
    if not math.isfinite(count):
        raise ShapeProblem(L_("arange: the range is too large"), "limit")
    if count > 1e15:
        raise ShapeProblem(L_("arange would make about {count} values",
                              count=format(count, ".3g")), "limit")
    return max(0, math.ceil(count))


def _arange_make(rng: np.random.Generator, o: dict) -> np.ndarray:
    start, step = (0.0, o["step"]) if o["stop"] is None else (o["start"], o["step"])
    return start + np.arange(_arange_count(o), dtype=np.float64) * step


def _linspace_shape(_: list[Shape], o: dict) -> Shape:
    if o["num"] < 0:
        raise ShapeProblem(L_("linspace: num must not be negative"), "argument")
    return (o["num"],)


def _eye_shape(_: list[Shape], o: dict) -> Shape:
    return sh.full_shape((o["n"], o["n"] if o["m"] is None else o["m"]), "eye")


_add(FunctionSpec("randn", _SHAPE_PARAM, "constructor", "standard normal samples, e.g. randn(3, 2)",
                  _shape_of("randn"), make=lambda rng, o: rng.standard_normal(o["shape"]), varargs="shape"))
_add(FunctionSpec("rand", _SHAPE_PARAM, "constructor", "uniform samples in [0, 1), e.g. rand(3)",
                  _shape_of("rand"), make=lambda rng, o: rng.random(o["shape"]), varargs="shape"))
_add(FunctionSpec("zeros", _SHAPE_PARAM, "constructor", "all zeros, e.g. zeros(2, 3)",
                  _shape_of("zeros"), make=lambda rng, o: np.zeros(o["shape"]), varargs="shape"))
_add(FunctionSpec("ones", _SHAPE_PARAM, "constructor", "all ones, e.g. ones(4)",
                  _shape_of("ones"), make=lambda rng, o: np.ones(o["shape"]), varargs="shape"))
_add(FunctionSpec("full", (Param("shape", INTS), Param("value", FLOAT)), "constructor",
                  "every element equal to value, e.g. full((2, 3), 0.5)", _shape_of("full"),
                  make=lambda rng, o: np.full(o["shape"], float(o["value"]))))
_add(FunctionSpec("arange", (Param("start", FLOAT), Param("stop", OPT_FLOAT, None), Param("step", FLOAT, 1)),
                  "constructor", "evenly spaced values start, start+step, ... below stop (like range)",
                  lambda _, o: (_arange_count(o),), make=_arange_make))
_add(FunctionSpec("linspace", (Param("start", FLOAT), Param("stop", FLOAT), Param("num", INT, 50)), "constructor",
                  "num evenly spaced values from start to stop inclusive", _linspace_shape,
                  make=lambda rng, o: np.linspace(float(o["start"]), float(o["stop"]), o["num"])))
_add(FunctionSpec("eye", (Param("n", INT), Param("m", "int or None", None)), "constructor",
                  "identity matrix n × m", _eye_shape,
                  make=lambda rng, o: np.eye(o["n"], o["n"] if o["m"] is None else o["m"])))

# ----- marking constants ----------------------------------------------------------
_add(FunctionSpec("const", (Param("x", TENSOR),), "special",
                  "the value of x as a constant: no gradient flows into it (a detached copy)", _same))

# ----- derivatives as values -------------------------------------------------------
def _grad_call(tensors: list[Any], options: dict) -> Any:
    """``grad(y, x)``: ∂(Σ y)/∂x, recorded (``create_graph``) so it is part of the graph and differentiable."""
    from lucid.autograd.grad import gradient_value  # lucid.autograd imports the engine, not the language

    return gradient_value(tensors[0], tensors[1])


_add(FunctionSpec("grad", (Param("y", TENSOR), Param("x", TENSOR)), "derivative",
                  "the gradient ∂(Σ y)/∂x as a value, shaped like x (its backward pass is drawn as nodes)",
                  lambda shapes, _: shapes[1], call=_grad_call, engine=lucid.autograd.grad))

# Methods: x.name(...) is FUNCTIONS[name] with x as its first tensor.
METHODS: dict[str, FunctionSpec] = {name: FUNCTIONS[name] for name in (
    "sum", "mean", "max", "min", "var", "logsumexp", "reshape", "transpose", "swapaxes", "squeeze", "unsqueeze",
    "expand_dims", "broadcast_to", "exp", "log", "sqrt", "abs", "sin", "cos", "tanh", "sigmoid", "relu",
    "leaky_relu", "softplus", "clip", "softmax", "log_softmax", "matmul", "maximum", "minimum", "pow")}

# Attributes: x.T is FUNCTIONS["transpose"] with no options.
ATTRIBUTES: dict[str, FunctionSpec] = {"T": FUNCTIONS["transpose"]}

# Operators and the functions they call.
BINARY_OPERATORS: dict[str, str] = {"+": "add", "-": "sub", "*": "mul", "/": "div", "**": "pow", "@": "matmul",
                                    "<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne"}
UNARY_OPERATORS: dict[str, str] = {"-": "neg"}
SYNTAX_OPS = ("getitem",)  # reached through x[...] rather than by name
