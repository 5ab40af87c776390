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
from lucid._func import _bindings
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


# ----- the ops: one entry per registered op that says how a program calls it ------------------------
# An op class declares its language entry (``language``: a shape rule and its parameters) and ``summary``;
# the entry is made from them here, and an op registered later (``lucid/_func/_bindings.py``) gets one too.
VERBS = {"add": N_("add"), "sub": N_("subtract"), "mul": N_("multiply"), "div": N_("divide"),
         "pow": N_("raise to a power"), "maximum": N_("take the maximum of"), "minimum": N_("take the minimum of"),
         "eq": N_("compare"), "ne": N_("compare"), "lt": N_("compare"), "le": N_("compare"), "gt": N_("compare"),
         "ge": N_("compare"), "where": N_("select between"), "mse_loss": N_("compare (mse_loss)"),
         "binary_cross_entropy": N_("compare (binary_cross_entropy)"),
         "binary_cross_entropy_with_logits": N_("compare (binary_cross_entropy_with_logits)")}


def _broadcasting(name: str) -> Callable[[list[Shape], dict], Shape]:
    return lambda shapes, _: sh.broadcast(L_(VERBS.get(name, name)), *shapes)


def _scalar_loss(name: str) -> Callable[[list[Shape], dict], Shape]:
    def rule(shapes: list[Shape], _: dict) -> Shape:
        sh.broadcast(L_(VERBS.get(name, name)), *shapes)
        return ()
    return rule


def _softmax_shape(name: str) -> Callable[[list[Shape], dict], Shape]:
    def rule(shapes: list[Shape], o: dict) -> Shape:
        sh.one_axis(shapes[0], o["axis"], name)
        return shapes[0]
    return rule


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


def _positive_axes(axes: tuple[int, ...] | None, ndim: int) -> tuple[int, ...] | None:
    """Axes as 0..ndim-1, so graph labels show one spelling of the same permutation."""
    return None if axes is None else tuple(a % ndim for a in axes)


#: The shape rules an op's ``Language`` may name: each takes the op's name and gives
#: ``shape(tensor_shapes, options)``, which says the result's shape or raises ``ShapeProblem``.
SHAPE_RULES: dict[str, Callable[[str], Callable[[list[Shape], dict[str, Any]], Shape]]] = {
    "same": lambda name: _same,
    "broadcast": _broadcasting,
    "scalar_loss": _scalar_loss,
    "reduce": lambda name: lambda shapes, o: sh.reduce(shapes[0], o["axis"], o["keepdims"], name),
    "softmax": _softmax_shape,
    "matmul": lambda name: lambda shapes, _: sh.matmul(shapes[0], shapes[1])[0],
    "cross_entropy": lambda name: _cross_entropy_shape,
    "reshape": lambda name: lambda shapes, o: sh.reshape(shapes[0], o["shape"]),
    "permute": lambda name: lambda shapes, o: sh.permute(shapes[0], o["axes"]),
    "swapaxes": lambda name: lambda shapes, o: sh.swapaxes(shapes[0], o["axis1"], o["axis2"]),
    "squeeze": lambda name: lambda shapes, o: sh.squeeze(shapes[0], o["axis"]),
    "unsqueeze": lambda name: lambda shapes, o: sh.unsqueeze(shapes[0], o["axis"]),
    "broadcast_to": lambda name: lambda shapes, o: sh.broadcast_to(shapes[0], o["shape"]),
    "concatenate": lambda name: lambda shapes, o: sh.concatenate(shapes, o["axis"]),
    "stack": lambda name: lambda shapes, o: sh.stack(shapes, o["axis"]),
}
#: The language groups ops of these registry groups under "elementwise" (what a reader looks for).
_GROUPS = {"arithmetic": "elementwise", "activation": "elementwise"}
#: Calls that do more than pass the tensors and the options, in order, to the op's public function.
_CALLS: dict[str, Callable[[list[Any], dict[str, Any]], Any]] = {
    "transpose": lambda t, o: lucid.transpose(t[0], _positive_axes(o["axes"], t[0].ndim)),
}


def _param(declared: Any) -> Param:
    if isinstance(declared, str):
        return Param(declared, TENSOR)
    return Param(*declared)


def _op_call(fn: Callable[..., Any], params: tuple[Param, ...]) -> Callable[[list[Any], dict[str, Any]], Any]:
    """The tensors (one list for a ``tensors`` parameter), then the options in order, to ``fn``."""
    options = [p.name for p in params if p.kind not in TENSOR_KINDS]
    if any(p.kind == TENSORS for p in params):
        return lambda t, o: fn(t, *[o[name] for name in options])
    return lambda t, o: fn(*t, *[o[name] for name in options])


def _add_op(cls: type) -> None:
    """The language entries of an op class (its name and aliases), when it declares ``language``."""
    declared = cls.language
    if declared is None:
        return
    params = tuple(_param(p) for p in declared.params)
    fn = _bindings.PUBLIC[cls.name]
    for name in (cls.name, *cls.aliases):
        _add(FunctionSpec(name, params, _GROUPS.get(cls.group, cls.group), cls.summary,
                          SHAPE_RULES[declared.shape](name), call=_CALLS.get(cls.name) or _op_call(fn, params),
                          op=cls.name, varargs=declared.varargs, engine=fn))
        if cls.method:
            METHODS[name] = FUNCTIONS[name]


def _remove_op(name: str) -> None:
    FUNCTIONS.pop(name, None)
    METHODS.pop(name, None)


# Methods: x.name(...) is FUNCTIONS[name] with x as its first tensor (the ops with ``method = True``).
METHODS: dict[str, FunctionSpec] = {}
for _spec in list(lucid.REGISTRY.values()):
    _add_op(_spec.cls)
_bindings.ON_BIND.append(_add_op)
_bindings.ON_UNBIND.append(_remove_op)

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

# Attributes: x.T is FUNCTIONS["transpose"] with no options.
ATTRIBUTES: dict[str, FunctionSpec] = {"T": FUNCTIONS["transpose"]}

# Operators and the functions they call.
BINARY_OPERATORS: dict[str, str] = {"+": "add", "-": "sub", "*": "mul", "/": "div", "**": "pow", "@": "matmul",
                                    "<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne"}
UNARY_OPERATORS: dict[str, str] = {"-": "neg"}
SYNTAX_OPS = ("getitem",)  # reached through x[...] rather than by name
