"""Syntax tree -> checked plan: names resolved, shapes inferred, limits enforced.

Nothing is evaluated here and no tensor data is allocated (list literals,
bounded by the source length, are the exception). The result is a ``Plan``: a
flat list of instructions in evaluation order, each knowing its inputs (earlier
instruction slots), its fixed options and where in the source it came from, so
the evaluator can point any runtime problem at the right spot and
``Program.function()`` can re-run the plan without re-parsing.

The leaf rule lives here: a number, list literal or constructor assigned to a
name, and any list literal or constructor inside an expression, is a leaf that
requires grad; a bare number inside a larger expression is a constant;
everything under ``const(...)`` is constant.
"""
from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import lucid
from lucid.expr import defined
from lucid.expr import shapes as sh
from lucid.expr import syntax as S
from lucid.expr.errors import ExprError, line_text
from lucid.expr.functions import (
    AXIS,
    BINARY_OPERATORS,
    BOOL,
    CONDITION,
    FLOAT,
    FUNCTIONS,
    INT,
    INTS,
    METHODS,
    OPT_FLOAT,
    OPT_INTS,
    TARGETS,
    TENSOR,
    TENSOR_KINDS,
    TENSORS,
    FunctionSpec,
    Param,
)
from lucid.expr.limits import Limits
from lucid.expr.shapes import Shape, ShapeProblem
from lucid.i18n import L_, LN_, Message, english

_MAX_EXACT_INT = 2 ** 53
_RESERVED = {"True", "False", "None"}


@dataclass(eq=False)
class Instr:
    """One step of a plan. ``kind``: ``leaf`` (data made once, before the first run), ``op`` (an engine
    call), ``detach`` (``const`` of a computed value) or ``bind`` (a name given to a value)."""

    kind: str
    args: tuple[int, ...]
    line: int
    col: int
    length: int
    label: str = ""
    op: str = ""
    shape: Shape = ()
    grad: bool = False
    call: Callable[..., Any] | None = None
    make: Callable[[np.random.Generator], np.ndarray] | None = None
    data: np.ndarray | None = None
    name: str = ""
    check_exponent: bool = False
    elementwise: bool = False
    """A call of a defined op (``def``): elementwise whatever its name, so re-runs may be batched."""


@dataclass
class Plan:
    """A checked program ready to evaluate; ``output`` is the slot of the root."""

    source: str
    limits: Limits
    instrs: list[Instr] = field(default_factory=list)
    output: int = -1
    total_elements: int = 0
    graph_nodes: int = 0
    matmul_work: int = 0
    trace_elements: int = 0
    """Array elements the step-by-step record of the backward pass will keep (``backward_record_elements``)."""
    uses_grad: bool = False
    """The program calls ``grad(y, x)``: it must run with the graph recorded even when re-run under no_grad."""
    definitions: dict[str, Any] = field(default_factory=dict)
    """The ops the program defines (``def``), by name: ``lucid.expr.defined.Definition``."""


GRAD_GROWTH = 4
"""Nodes (and elements, and recorded numbers) ``grad(y, x)`` is charged per one the program has so far.

A gradient is the backward pass written as nodes: each op's rule adds one (``neg``) to about ten
(``pow``) of them and leaves and constants add none, so four per node so far is a generous
estimate the checker can make before anything runs (a nested ``grad`` multiplies it again)."""


@dataclass(frozen=True)
class Value:
    """What the checker knows about an expression's result before it exists.

    ``literal`` is the number itself when the value is a number literal (so ``x ** 5000`` can be refused
    before evaluation); ``mask`` marks True/False results of comparisons.
    """

    slot: int
    shape: Shape
    grad: bool
    mask: bool = False
    literal: float | None = None


def backward_record_elements(group: str, name: str, grad_inputs: list[Shape], out: Shape) -> int:
    """Elements ``backward_trace`` keeps for one op, predicted from shapes alone (an upper bound).

    The op's upstream gradient once, and for every input that receives a gradient: the raw gradient
    (output-sized for elementwise ops, input-sized for shape ops, indexing and reductions, batch ×
    matrix for a broadcast matrix product), the local derivative (elementwise ops and reductions), the
    contribution unbroadcast to the input (kept apart only when the raw gradient has another size: the
    record shares it otherwise) and the input's running total.
    """
    n_out = sh.size(out)
    total = n_out
    for shape in grad_inputs:
        n_in = sh.size(shape)
        if group == "shape" or name == "getitem":
            raw, local = n_in, 0
        elif group == "reduction":
            raw = local = n_in
        elif name == "matmul":
            raw, local = max(n_in, n_out, sh.size(out[:-2]) * sh.size(shape[-2:])), 0
        else:
            raw = local = max(n_in, n_out)
        total += raw + local + (n_in if raw != n_in else 0) + n_in
    return total


def _shorten(text: str, most: int = 24) -> str:
    return text if len(text) <= most else text[:most - 3] + "..."


def _suggest(name: str, candidates: Any) -> str:
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return L_("; did you mean '{name}'?", name=close[0]) if close else ""


class Compiler:
    def __init__(self, source: str, limits: Limits) -> None:
        self.source = source
        self.limits = limits
        self.plan = Plan(source, limits)
        self.env: dict[str, Value] = {}
        self.defined: dict[str, Any] = {}  # name -> lucid.expr.defined.Definition
        self.defined_specs: dict[str, FunctionSpec] = {}
        # (op name, parameter shapes) -> (formula, rules) of a defined op, shared by the formula compilers: a
        # rule may call its own op (sigmoid′ = s(x)·(1 − s(x))), which must not compile that op's rules again
        self.defined_formulas: dict[tuple[str, tuple[Shape, ...]], tuple[Any, list[Any]]] = {}

    # ----- errors and bookkeeping ---------------------------------------------------
    def error(self, at: Any, message: str | Message, kind: str = "syntax", length: int | None = None) -> ExprError:
        if length is None:
            length = at.length if isinstance(at, S.Node) else 1
        return ExprError(message, at.line, at.col, line_text(self.source, at.line), kind, length)

    def emit(self, instr: Instr, at: Any, grad: bool, mask: bool = False, literal: float | None = None,
             extra_elements: int = 0, trace_elements: int = 0) -> Value:
        """Append a tensor-producing instruction after checking its size against the limits.

        ``trace_elements``: what the backward record will keep for this op (``backward_record_elements``).
        """
        limits, plan = self.limits, self.plan
        n = sh.size(instr.shape)
        if len(instr.shape) > limits.max_ndim:
            raise self.error(at, L_("{label} would make a tensor with {count} dimensions (the limit is {max_ndim})",
                                    label=instr.label, count=len(instr.shape), max_ndim=limits.max_ndim), "limit")
        if n > limits.max_tensor_elements:
            raise self.error(at, L_("{label} would make a tensor of shape {shape} with {n} elements (the limit is "
                                    "{limit})", label=instr.label, shape=instr.shape, n=format(n, ","),
                                    limit=format(limits.max_tensor_elements, ",")), "limit")
        if n == 0:
            raise self.error(at, L_("{label} would make an empty tensor of shape {shape}; empty tensors are not "
                                    "supported",
                                    label=instr.label, shape=instr.shape), "shape")
        plan.total_elements += n + extra_elements
        if plan.total_elements > limits.max_total_elements:
            raise self.error(at, L_("the program's tensors would hold more than {max_total_elements} elements in "
                                    "total",
                                    max_total_elements=format(limits.max_total_elements, ",")), "limit")
        plan.trace_elements += trace_elements
        if plan.trace_elements > limits.max_trace_elements:
            raise self.error(at, L_("{label}: the step-by-step record of the backward pass would keep more than "
                                    "{limit} numbers (the trace limit); use fewer or smaller tensors",
                                    label=instr.label, limit=format(limits.max_trace_elements, ",")), "limit")
        plan.graph_nodes += 1
        if plan.graph_nodes > limits.max_graph_nodes:
            raise self.error(at, L_("the graph would have more than {max_graph_nodes} nodes",
                                    max_graph_nodes=format(limits.max_graph_nodes, ",")), "limit")
        plan.instrs.append(instr)
        return Value(len(plan.instrs) - 1, instr.shape, grad, mask, literal)

    def instr(self, kind: str, at: Any, label: str, shape: Shape, **fields: Any) -> Instr:
        length = at.length if isinstance(at, S.Node) else 1
        return Instr(kind, fields.pop("args", ()), at.line, at.col, length, label=label,
                     shape=shape, **fields)

    # ----- statements ----------------------------------------------------------------
    def program(self, statements: list[S.Statement]) -> Plan:
        if any(isinstance(st, S.Define | S.Rule) for st in statements):
            self.defined = defined.collect(self, statements)
            self.defined_specs = {name: defined.function_spec(d) for name, d in self.defined.items()}
            self.plan.definitions = self.defined
            for d in self.defined.values():  # checked once for scalars too, so an unused definition is checked
                d.forward, d.rule_formulas = self.defined_formulas_for(d, [()] * len(d.params), ())
            statements = [st for st in statements if not isinstance(st, S.Define | S.Rule)]
            if not statements:
                first = next(iter(self.defined.values())).node
                raise ExprError(L_("the program defines {name} but computes nothing: add a line that uses it, like "
                                   "y = {name}(0.5)", name=first.name), first.line, first.col,
                                line_text(self.source, first.line), "syntax", len(first.name))
        if not statements:
            raise ExprError(L_("the program is empty: write an expression, like tanh(0.5)"), 1, 1,
                            line_text(self.source, 1), "syntax")
        value = None
        for i, st in enumerate(statements):
            if isinstance(st, S.ExprStmt):
                if i != len(statements) - 1:
                    raise self.error(st, L_("only the last line may be a bare expression; give this value a name, "
                                            "like y = ..."), length=st.value.length if st.value.line == st.line else 1)
                value = self.expr(st.value)
            else:
                value = self.assign(st)
        if value.mask:
            last = statements[-1]
            raise self.error(last, L_("the output is a comparison (True/False values), which has no gradient; use it "
                                      "as the condition of where(...)"), "argument")
        self.plan.output = value.slot
        self.plan.trace_elements += 2 * sh.size(value.shape)  # the seed gradient and the output's running total
        return self.plan

    def assign(self, st: S.Assign) -> Value:
        name = st.name
        if name in FUNCTIONS:
            raise self.error(st, L_("'{name}' is the name of a function; choose another name for the variable",
                                    name=name),
                             "name", len(name))
        if name in self.defined:
            raise self.error(st, L_("'{name}' is the name of an op this program defines; choose another name for "
                                    "the variable", name=name), "name", len(name))
        if name in _RESERVED:
            raise self.error(st, L_("cannot assign to {name}",
                                    name=name), "syntax", len(name))
        node = st.value
        value = self.leaf_number(node, grad=True) if isinstance(node, S.Num) else self.expr(node)
        self.plan.instrs.append(Instr("bind", (value.slot,), st.line, st.col, len(name), name=name))
        self.env[name] = value
        return value

    # ----- expressions ---------------------------------------------------------------
    def expr(self, node: S.Node, in_const: bool = False) -> Value:
        if isinstance(node, S.Num):
            return self.leaf_number(node, grad=False)
        if isinstance(node, S.Name):
            return self.name(node)
        if isinstance(node, S.Binary):
            left = self.expr(node.left, in_const)
            right = self.expr(node.right, in_const)
            spec = FUNCTIONS[BINARY_OPERATORS[node.op]]
            return self.apply(spec, node, [left, right], {}, f"'{node.op}'")
        if isinstance(node, S.Unary):
            operand = self.expr(node.operand, in_const)
            return self.apply(FUNCTIONS["neg"], node, [operand], {}, "unary '-'")
        if isinstance(node, S.Call):
            return self.call(node, in_const)
        if isinstance(node, S.Method):
            return self.method(node, in_const)
        if isinstance(node, S.Attribute):
            return self.attribute(node, in_const)
        if isinstance(node, S.Index):
            return self.index(node, in_const)
        if isinstance(node, S.ListLit):
            return self.leaf_list(node, grad=not in_const)
        if isinstance(node, S.Keyword):
            raise self.error(node, L_("{value} can only be an option value, like keepdims=True or axis=None",
                                      value=node.value),
                             "argument")
        if isinstance(node, S.TupleLit):
            raise self.error(node, L_("tuples like (2, 3) are only allowed as shape or axis arguments"), "argument")
        raise self.error(node, L_("slices and '...' are only allowed inside an index, like x[1:3]"))

    def name(self, node: S.Name) -> Value:
        value = self.env.get(node.id)
        if value is not None:
            return value
        if node.id in FUNCTIONS:
            raise self.error(node, L_("'{name}' is a function: call it, like {name}(x)",
                                      name=node.id), "name")
        raise self.error(node, L_("name '{name}' is not defined{hint}",
                                  name=node.id, hint=_suggest(node.id, self.env)), "name")

    def leaf_number(self, node: S.Num, grad: bool) -> Value:
        data = np.array(node.value, dtype=np.float64)
        label = "the number" if not grad else "the leaf"
        ins = self.instr("leaf", node, label, (), grad=grad, make=lambda rng, d=data: d.copy())
        return self.emit(ins, node, grad, literal=node.value)

    def leaf_list(self, node: S.ListLit, grad: bool) -> Value:
        data = self.literal_array(node, ints=False)
        ins = self.instr("leaf", node, "the list", data.shape, grad=grad, make=lambda rng, d=data: d.copy())
        return self.emit(ins, node, grad)

    def literal_array(self, node: S.Node, ints: bool) -> np.ndarray:
        """A rectangular nested list of number literals as an array (intp for indices)."""
        shape, flat = self._walk_literal(node, ints)
        return np.array(flat, dtype=np.intp if ints else np.float64).reshape(shape)

    def _walk_literal(self, node: S.Node, ints: bool) -> tuple[Shape, list[float]]:
        if isinstance(node, S.Num):
            return (), [self.int_value(node, "an index") if ints else node.value]
        if not isinstance(node, S.ListLit):
            what = L_("index lists may contain only whole numbers") if ints else \
                L_("list literals may contain only numbers (to combine tensors use stack([a, b]))")
            raise self.error(node, what, "argument")
        if not node.items:
            raise self.error(node, L_("empty lists are not allowed"), "argument")
        parts = [self._walk_literal(item, ints) for item in node.items]
        first = parts[0][0]
        flat: list[float] = []
        for item, (shape, values) in zip(node.items, parts):
            if shape != first:
                raise self.error(item, L_("the rows of a list literal must have the same shape: {first} and {shape}",
                                          first=first, shape=shape),
                                 "shape")
            flat.extend(values)
        return (len(parts),) + first, flat

    # ----- applying functions -------------------------------------------------------
    def check_allowed(self, spec: FunctionSpec, at: S.Node, label: str) -> None:
        """A hook: the formula of a defined op allows only elementwise functions (``FormulaCompiler``)."""

    def apply(self, spec: FunctionSpec, at: S.Node, values: list[Value], options: dict[str, Any],
              label: str) -> Value:
        self.check_allowed(spec, at, label)
        for k, v in enumerate(values):
            if v.mask and not (spec.name == "where" and k == 0):
                raise self.error(at, L_("{label}: comparison results (True/False) can only be used as the condition of "
                                        "where(...), like where(x > 0, x, 0)",
                                        label=label), "argument")
        try:
            shape = spec.shape([v.shape for v in values], options)
        except ShapeProblem as problem:
            message = problem.message
            if not english(message).startswith(("cannot", spec.name)):
                message = L_("{label}: {message}", label=label, message=message)
            raise self.error(at, message, problem.kind) from None
        extra = sum(sh.size(v.shape) for v in values)  # the gradients backward sends to the inputs
        if spec.name == "matmul":
            self.plan.matmul_work += sh.matmul(values[0].shape, values[1].shape)[1]
            if self.plan.matmul_work > self.limits.max_matmul_work:
                raise self.error(at, L_("{label}: the matrix products would need more than {max_matmul_work} "
                                        "multiply-adds",
                                        label=label, max_matmul_work=format(self.limits.max_matmul_work, ",")), "limit")
        if spec.name == "pow":
            exponent = values[1].literal
            if exponent is not None and abs(exponent) > self.limits.max_exponent:
                raise self.error(at, L_("the exponent {exponent} is too large (the limit is {limit})",
                                        exponent=format(exponent, "g"),
                                        limit=format(self.limits.max_exponent, "g")), "limit")
        grad = spec.group != "comparison" and any(v.grad for v in values)
        call = spec.call
        ins = self.instr("op", at, label, shape, args=tuple(v.slot for v in values), op=spec.op or spec.name,
                         grad=grad, call=lambda *ts: call(list(ts), options),
                         check_exponent=spec.name == "pow")
        literal = None
        if spec.name == "neg" and values[0].literal is not None:
            literal = -values[0].literal
        traced = backward_record_elements(spec.group, spec.name, [v.shape for v in values if v.grad], shape) \
            if grad else 0
        return self.emit(ins, at, grad, mask=spec.group == "comparison", literal=literal, extra_elements=extra,
                         trace_elements=traced)

    def call(self, node: S.Call, in_const: bool) -> Value:
        if node.func in self.defined_specs:
            return self.defined_call(node, in_const)
        spec = FUNCTIONS.get(node.func)
        if spec is not None and spec.name in ("const", "grad") or spec is not None and spec.is_constructor:
            self.check_allowed(spec, node, f"{spec.name}()")
        if spec is None:
            if node.func in self.env:
                raise self.error(node, L_("'{name}' is a variable, not a function",
                                          name=node.func), "name")
            raise self.error(node, L_("unknown function '{name}'{hint}",
                                      name=node.func, hint=_suggest(node.func, FUNCTIONS)), "name")
        label = f"{spec.name}()"
        if spec.name == "const":
            values, _ = self.bind_args(spec, node, node.args, node.kwargs, None, True)
            value = values[0]
            if not value.grad:
                return value
            ins = self.instr("detach", node, label, value.shape, args=(value.slot,))
            return self.emit(ins, node, False, literal=value.literal)
        values, options = self.bind_args(spec, node, node.args, node.kwargs, None, in_const)
        if spec.name == "grad":
            return self.derivative(spec, node, values, label)
        if spec.name == "where" and not values[0].mask:  # numbers as a condition: 0.5 is neither True nor False
            raise self.error(node.args[0], L_("{label}: the condition must be True/False values, a comparison such as "
                                              "where(x > 0, x, 0), not numbers",
                                              label=label), "argument")
        if spec.is_constructor:
            try:
                shape = spec.shape([], options)
            except ShapeProblem as problem:
                message = problem.message if english(problem.message).startswith(spec.name) else \
                    L_("{label}: {message}", label=label, message=problem.message)
                raise self.error(node, message, problem.kind) from None
            make = spec.make
            ins = self.instr("leaf", node, label, shape, grad=not in_const,
                             make=lambda rng: make(rng, options))
            return self.emit(ins, node, not in_const)
        return self.apply(spec, node, values, options, label)

    def defined_formulas_for(self, definition: Any, shapes: list[Shape], out_shape: Shape) -> tuple[Any, list[Any]]:
        """The op's formula and rules checked for these parameter shapes, once per shapes. The rules' list is
        filled after the formula is known, so a rule that calls its own op finds it (and nothing loops)."""
        key = (definition.name, tuple(shapes))
        known = self.defined_formulas.get(key)
        if known is not None:
            return known
        scope = [(p, shape) for p, shape in zip(definition.params, shapes)]
        forward = defined.compile_formula(self, definition, definition.node.body, scope, None)
        rules: list[Any] = []
        self.defined_formulas[key] = (forward, rules)
        for p in definition.params:
            rules.append(defined.compile_formula(self, definition, definition.rules[p].value,
                                                 scope + [(defined.OUT, out_shape)], definition.rules[p]))
        return forward, rules

    def defined_call(self, node: S.Call, in_const: bool) -> Value:
        """A call of an op the program defines: one node, its formula and rules checked for these shapes and
        charged as if written out here."""
        spec = self.defined_specs[node.func]
        definition = self.defined[node.func]
        label = f"{spec.name}()"
        values, _ = self.bind_args(spec, node, node.args, node.kwargs, None, in_const)
        try:
            out_shape = spec.shape([v.shape for v in values], {})
        except ShapeProblem as problem:
            raise self.error(node, L_("{label}: {message}", label=label, message=problem.message),
                             problem.kind) from None
        forward, rules = self.defined_formulas_for(definition, [v.shape for v in values], out_shape)
        plan, limits = self.plan, self.limits
        for formula in (forward, *rules):
            plan.total_elements += formula.plan.total_elements
            plan.graph_nodes += formula.plan.graph_nodes
            plan.matmul_work += formula.plan.matmul_work
        if plan.graph_nodes > limits.max_graph_nodes:
            raise self.error(node, L_("{label}: with its formula and rules the program would have more than {limit} "
                                      "nodes", label=label, limit=format(limits.max_graph_nodes, ",")), "limit")
        if plan.total_elements > limits.max_total_elements:
            raise self.error(node, L_("{label}: with its formula and rules the program's tensors would hold more "
                                      "than {limit} elements in total", label=label,
                                      limit=format(limits.max_total_elements, ",")), "limit")
        grad = any(v.grad for v in values)
        make = defined.defined_op

        def call(*tensors: Any) -> Any:
            return make(definition, forward, rules)(list(tensors))

        for v in values:
            if v.mask:
                raise self.error(node, L_("{label}: comparison results (True/False) can only be used as the condition "
                                          "of where(...), like where(x > 0, x, 0)", label=label), "argument")
        ins = self.instr("op", node, label, out_shape, args=tuple(v.slot for v in values), op=spec.name, grad=grad,
                         call=call, elementwise=True)
        traced = backward_record_elements("elementwise", spec.name, [v.shape for v in values if v.grad],
                                          out_shape) if grad else 0
        return self.emit(ins, node, grad, extra_elements=sum(sh.size(v.shape) for v in values),
                         trace_elements=traced)

    def derivative(self, spec: FunctionSpec, node: S.Call, values: list[Value], label: str) -> Value:
        """``grad(y, x)``: checked like an op, and charged for the backward-pass nodes it will record."""
        if not values[1].grad:
            raise self.error(node.args[1] if len(node.args) > 1 else node,
                             L_("{label}: x must have a gradient: a leaf such as w = [0.5, -1.0] or a value computed "
                                "from one, not a constant", label=label), "argument")
        plan, limits = self.plan, self.limits
        growth = (plan.graph_nodes, plan.total_elements, plan.trace_elements, plan.matmul_work)
        value = self.apply(spec, node, values, {}, label)
        plan.uses_grad = True
        plan.graph_nodes += GRAD_GROWTH * growth[0]
        plan.total_elements += GRAD_GROWTH * growth[1]
        plan.trace_elements += GRAD_GROWTH * growth[2]
        plan.matmul_work += 2 * growth[3]  # the backward of a matrix product is two products of its size
        if plan.matmul_work > limits.max_matmul_work:
            raise self.error(node, L_("{label}: the gradient's matrix products would need more than {limit} "
                                      "multiply-adds", label=label, limit=format(limits.max_matmul_work, ",")), "limit")
        if plan.graph_nodes > limits.max_graph_nodes:
            raise self.error(node, L_("{label}: the gradient's own graph would take the program past {limit} nodes",
                                      label=label, limit=format(limits.max_graph_nodes, ",")), "limit")
        if plan.total_elements > limits.max_total_elements:
            raise self.error(node, L_("{label}: the gradient's own graph would hold more than {limit} elements in "
                                      "total", label=label, limit=format(limits.max_total_elements, ",")), "limit")
        if plan.trace_elements > limits.max_trace_elements:
            raise self.error(node, L_("{label}: the step-by-step record of the backward pass would keep more than "
                                      "{limit} numbers (the trace limit)",
                                      label=label, limit=format(limits.max_trace_elements, ",")), "limit")
        return value

    def method(self, node: S.Method, in_const: bool) -> Value:
        spec = METHODS.get(node.name)
        if spec is None:
            if node.name == "T":
                raise self.error(node, L_("'.T' is not a method: write x.T without parentheses"), "name")
            close = difflib.get_close_matches(node.name, list(METHODS), n=1, cutoff=0.6)
            hint = L_("; did you mean '.{name}()'?", name=close[0]) if close else ""
            raise self.error(node, L_("unknown method '.{name}()'{hint}",
                                      name=node.name, hint=hint), "name")
        receiver = self.expr(node.receiver, in_const)
        values, options = self.bind_args(spec, node, node.args, node.kwargs, receiver, in_const)
        return self.apply(spec, node, values, options, f".{node.name}()")

    def attribute(self, node: S.Attribute, in_const: bool) -> Value:
        if node.name in METHODS:
            raise self.error(node, L_("'.{name}' is a method: call it, like x.{name}()",
                                      name=node.name), "name")
        if node.name != "T":
            close = difflib.get_close_matches(node.name, list(METHODS), n=1, cutoff=0.6)
            hint = L_("; did you mean '.{name}()'?", name=close[0]) if close else ""
            raise self.error(node, L_("unknown attribute '.{name}' (the only attribute is .T){hint}",
                                      name=node.name, hint=hint), "name")
        receiver = self.expr(node.receiver, in_const)
        return self.apply(FUNCTIONS["transpose"], node, [receiver], {"axes": None}, ".T")

    def index(self, node: S.Index, in_const: bool) -> Value:
        receiver = self.expr(node.receiver, in_const)
        items = [self.index_item(item) for item in node.items]
        key = tuple(items) if node.is_tuple else items[0]
        label = "indexing [...]"
        if receiver.mask:
            raise self.error(node, L_("{label}: comparison results (True/False) can only be used as the condition of "
                                      "where(...)",
                                      label=label), "argument")
        try:
            shape = sh.index(receiver.shape, key)
        except ShapeProblem as problem:
            raise self.error(node, problem.message, problem.kind) from None
        ins = self.instr("op", node, label, shape, args=(receiver.slot,), op="getitem", grad=receiver.grad,
                         call=lambda t: lucid.getitem(t, key))
        traced = backward_record_elements("shape", "getitem", [receiver.shape], shape) if receiver.grad else 0
        return self.emit(ins, node, receiver.grad, extra_elements=sh.size(receiver.shape), trace_elements=traced)

    def index_item(self, node: S.Node) -> Any:
        if isinstance(node, S.Num):
            return self.int_value(node, "an index")
        if isinstance(node, S.EllipsisNode):
            return Ellipsis
        if isinstance(node, S.Keyword) and node.value is None:
            return None
        if isinstance(node, S.Slice):
            parts = [None if p is None or (isinstance(p, S.Keyword) and p.value is None)
                     else self.int_value(p, "a slice bound") for p in (node.start, node.stop, node.step)]
            if parts[2] == 0:
                raise self.error(node.step, L_("a slice step cannot be zero"), "argument")
            return slice(*parts)
        if isinstance(node, S.ListLit):
            return self.literal_array(node, ints=True)
        raise self.error(node, L_("indices must be literals: x[0], x[1:3], x[:, 0] or x[[0, 2]]; computed or "
                                  "tensor indices are not supported"), "argument")

    # ----- arguments -----------------------------------------------------------------
    def bind_args(self, spec: FunctionSpec, at: S.Node, args: list[S.Node], kwargs: list[S.KeywordArg],
                  receiver: Value | None, in_const: bool) -> tuple[list[Value], dict[str, Any]]:
        """Match call arguments to ``spec``'s parameters; evaluate tensors, read options."""
        params = list(spec.params[1:] if receiver is not None else spec.params)
        what = f".{spec.name}()" if receiver is not None else f"{spec.name}()"
        given: dict[str, Any] = {}
        positional = list(args)
        for p in params:
            if not positional:
                break
            if p.name == spec.varargs:
                given[p.name] = positional
                positional = []
            else:
                given[p.name] = positional.pop(0)
        if positional:
            count = len(params)
            names = ", ".join(p.name for p in params) or L_("none")
            raise self.error(positional[0], LN_("{what} takes {n} argument ({names}) but {given} were given",
                                                "{what} takes {n} arguments ({names}) but {given} were given", count,
                                                what=what, names=names, given=len(args)), "argument")
        by_name = {p.name: p for p in params}
        for kw in kwargs:
            p = by_name.get(kw.name)
            if p is None or p.kind in TENSOR_KINDS:
                allowed = ", ".join(spec.keywords) or L_("none")
                hint = _suggest(kw.name, spec.keywords) if spec.keywords else ""
                message = (L_("{what} has no option '{name}'{hint} (options: {allowed})", what=what, name=kw.name,
                              hint=hint, allowed=allowed) if p is None else
                           L_("{what}: pass '{name}' by position, not as a keyword", what=what, name=kw.name))
                raise self.error(kw, message, "argument", len(kw.name))
            if kw.name in given:
                raise self.error(kw, L_("{what} got '{name}' twice",
                                        what=what, name=kw.name), "argument", len(kw.name))
            given[kw.name] = kw.value
        values: list[Value] = [] if receiver is None else [receiver]
        options: dict[str, Any] = {}
        for p in params:
            if p.name not in given:
                if p.required:
                    raise self.error(at, L_("{what} is missing its argument '{name}' (usage: {value})",
                                            what=what, name=p.name, value=spec.signature()), "argument")
                if p.kind not in TENSOR_KINDS:
                    options[p.name] = p.default
                continue
            node = given[p.name]
            if p.kind == TENSOR:
                values.append(self.expr(node, in_const))
            elif p.kind == CONDITION:  # a literal condition is a constant, never a leaf with a gradient
                values.append(self.expr(node, True))
            elif p.kind == TENSORS:
                values.extend(self.tensor_list(node, what, in_const))
            elif p.kind == TARGETS:
                value, static = self.targets(node, what, in_const)
                values.append(value)
                options["targets"] = static
            elif p.name == spec.varargs:
                options[p.name] = self.varargs(node, p, what, spec)
            else:
                options[p.name] = self.static(node, p, what, spec)
        return values, options

    def tensor_list(self, node: S.Node, what: str, in_const: bool) -> list[Value]:
        if not isinstance(node, S.ListLit | S.TupleLit) or not node.items:
            raise self.error(node, L_("{what} takes a list of tensors, like {what2}([a, b])",
                                      what=what, what2=what[:-2]), "argument")
        return [self.expr(item, in_const) for item in node.items]

    def targets(self, node: S.Node, what: str, in_const: bool) -> tuple[Value, np.ndarray | None]:
        if isinstance(node, S.Num | S.ListLit):
            data = self.literal_array(node, ints=False)
            if not np.all(data == np.round(data)):
                raise self.error(node, L_("{what}: targets must be whole-number class indices",
                                          what=what), "argument")
            ins = self.instr("leaf", node, "the targets", data.shape, grad=False, make=lambda rng, d=data: d.copy())
            return self.emit(ins, node, False), data
        value = self.expr(node, in_const)
        if value.grad or value.mask:
            raise self.error(node, L_("{what}: targets must be constant class indices; write them inline, like "
                                      "cross_entropy(z, [0, 2]), or wrap them in const(...)",
                                      what=what), "argument")
        return value, None

    def varargs(self, nodes: Any, p: Param, what: str, spec: FunctionSpec) -> Any:
        """``randn(3, 2)`` / ``randn((3, 2))`` / ``x.reshape(2, -1)`` / ``transpose(x, (1, 0))``."""
        if not isinstance(nodes, list):  # given by keyword
            return self.static(nodes, p, what, spec)
        if len(nodes) == 1:
            return self.static(nodes[0], p, what, spec)
        return tuple(self.int_value(n, f"{what} {p.name}") for n in nodes)

    def static(self, node: S.Node, p: Param, what: str, spec: FunctionSpec) -> Any:
        """A literal option value of kind ``p.kind``."""
        label = f"{what} {p.name}"
        is_none = isinstance(node, S.Keyword) and node.value is None
        if p.kind == INT:
            return self.int_value(node, label)
        if p.kind == "int or None":
            return None if is_none else self.int_value(node, label)
        if p.kind in (FLOAT, OPT_FLOAT):
            if p.kind == OPT_FLOAT and is_none:
                return None
            if isinstance(node, S.Num):
                return int(node.value) if node.is_int and abs(node.value) <= _MAX_EXACT_INT else node.value
            raise self.error(node, L_("{label} must be a number literal like 0.5 or None", label=label)
                             if p.kind == OPT_FLOAT else L_("{label} must be a number literal like 0.5", label=label),
                             "argument")
        if p.kind == BOOL:
            if isinstance(node, S.Keyword) and isinstance(node.value, bool):
                return node.value
            raise self.error(node, L_("{label} must be True or False",
                                      label=label), "argument")
        if p.kind == AXIS:
            if is_none:
                return None
            if isinstance(node, S.TupleLit):
                return tuple(self.int_value(item, label) for item in node.items)
            if isinstance(node, S.Num):
                return self.int_value(node, label)
            hint = L_("; for the elementwise {name}imum of two tensors use {name}imum(a, b)", name=spec.name) \
                if spec.name in ("max", "min") else ""
            raise self.error(node, L_("{label} must be an integer literal like 0, a tuple like (0, 1), or "
                                      "None{hint}", label=label, hint=hint), "argument")
        if p.kind in (INTS, OPT_INTS):
            if p.kind == OPT_INTS and is_none:
                return None
            if isinstance(node, S.TupleLit | S.ListLit):
                return tuple(self.int_value(item, label) for item in node.items)
            if isinstance(node, S.Num):
                return (self.int_value(node, label),)
            raise self.error(node, L_("{label} must be whole-number literals, like 3 or (2, 3)",
                                      label=label), "argument")
        raise self.error(node, L_("{label}: unsupported option",
                                  label=label), "internal")  # pragma: no cover

    def int_value(self, node: S.Node, label: str) -> int:
        if not isinstance(node, S.Num):
            raise self.error(node, L_("{label} must be a whole-number literal like 3",
                                      label=label), "argument")
        if not node.is_int:
            raise self.error(node, L_("{label} must be a whole number, not {text}",
                                      label=label, text=node.text), "argument")
        if abs(node.value) > _MAX_EXACT_INT:
            raise self.error(node, L_("{label}: {shown} is too large",
                                      label=label, shown=_shorten(node.text)), "limit")
        return int(node.value)


class FormulaCompiler(Compiler):
    """The formula of a defined op (or one of its rules) as a plan of its own: its leaves are the parameters
    (and ``out``), it may use numbers and elementwise functions only, and a name outside the parameters is an
    error that says which names the formula can use."""

    def __init__(self, parent: Compiler, definition: Any, scope: list[tuple[str, Shape]],
                 rule: S.Rule | None) -> None:
        super().__init__(parent.source, parent.limits)
        self.defined, self.defined_specs = parent.defined, parent.defined_specs
        self.defined_formulas = parent.defined_formulas
        self.definition, self.rule = definition, rule
        for name, shape in scope:  # the parameters: leaves standing for the call's tensors (not charged again)
            self.plan.instrs.append(Instr("leaf", (), definition.node.line, definition.node.col, len(name),
                                          label=name, shape=shape, grad=True))
            self.env[name] = Value(len(self.plan.instrs) - 1, shape, True)

    def formula(self, node: S.Node) -> Plan:
        value = self.expr(node)
        if value.mask:
            raise self.error(node, L_("a comparison (True/False values) is not a number: use it as the condition of "
                                      "where(...)"), "argument")
        self.plan.output = value.slot
        for ins in self.plan.instrs:
            if ins.kind == "leaf" and not ins.grad:
                ins.data = np.asarray(ins.make(None), dtype=np.float64)
                ins.data.flags.writeable = False
        return self.plan

    def _where(self) -> Message:
        d = self.definition
        if self.rule is None:
            return L_("the formula of {name} can use only its parameters ({params}) and numbers", name=d.name,
                      params=", ".join(d.params))
        return L_("the rule d {name} / d {param} can use only the parameters of {name} ({params}), out (its result) "
                  "and numbers", name=d.name, param=self.rule.param, params=", ".join(d.params))

    def name(self, node: S.Name) -> Value:
        value = self.env.get(node.id)
        if value is not None:
            return value
        if node.id in FUNCTIONS or node.id in self.defined:
            raise self.error(node, L_("'{name}' is a function: call it, like {name}(x)", name=node.id), "name")
        raise self.error(node, L_("{where}; '{name}' is not one of them", where=self._where(), name=node.id), "name")

    def check_allowed(self, spec: FunctionSpec, at: S.Node, label: str) -> None:
        if spec.group in defined.ELEMENTWISE_GROUPS:
            return
        raise self.error(at, L_("{label} does not work element by element: an op defined with def must be "
                                "elementwise (one number in, one number out, so its derivative is one number per "
                                "element)", label=label), "argument")

    def leaf_list(self, node: S.ListLit, grad: bool) -> Value:
        raise self.error(node, L_("{where}, not lists", where=self._where()), "argument")

    def index(self, node: S.Index, in_const: bool) -> Value:
        raise self.error(node, L_("indexing [...] does not work element by element: an op defined with def must be "
                                  "elementwise"), "argument")

    def attribute(self, node: S.Attribute, in_const: bool) -> Value:
        raise self.error(node, L_("'.{name}' does not work element by element: an op defined with def must be "
                                  "elementwise", name=node.name), "argument")


def compile_program(statements: list[S.Statement], source: str, limits: Limits) -> Plan:
    """Check a parsed program and turn it into a ``Plan`` (see the module docstring)."""
    return Compiler(source, limits).program(statements)
