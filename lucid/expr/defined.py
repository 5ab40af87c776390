"""Ops a student defines in a program, with the local derivatives they wrote: ``def`` and ``d f / d x``.

    def swish(x) = x * sigmoid(x)
    d swish / d x = sigmoid(x) * (1 + x * (1 - sigmoid(x)))
    y = swish(w * a + b)

Why it works this way:

- A defined op is **elementwise**: its formula may use its parameters, numbers, and the language's elementwise
  functions and operators (and other defined ops). Its derivative is then one number per element, so the
  backward pass is what the engine does for every elementwise op: upstream ⊙ the student's rule, summed over
  the axes broadcasting added (``match_shape``). A formula that sums, multiplies matrices or indexes is refused.
- Its **forward is the definition**, its **backward is the student's rule**, right or wrong: the graph draws
  one node named ``swish`` and the wrong gradients flow, which is what ``lucid.practice.rule_check`` then
  shows. In a rule, ``out`` stands for the op's result (tanh′ = 1 − out²).
- Each formula is checked by the ordinary ``Compiler`` (names, options, shapes, limits) as a small plan of its
  own whose leaves are the parameters, compiled again at every call with that call's shapes; what it costs is
  charged to the program as if the formula were written out at the call.
- The rule is written with lucid ops, so ``grad(..., create_graph=True)`` runs it as graph nodes and second
  derivatives go through the student's rule as well.
- Definitions and rules may stand anywhere in the program; a formula may not use itself, directly or through
  other defined ops (no recursion), and every parameter needs its rule.
"""
from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from lucid._backend.core import OpSpec, operation, poly_func_op
from lucid._backend.grad_mode import enable_grad, no_grad
from lucid._func import _rules as R
from lucid._tensor.tensor import Tensor, tensor_from_array
from lucid.expr import shapes as sh
from lucid.expr import syntax as S
from lucid.expr.errors import ExprError, line_text
from lucid.expr.functions import FUNCTIONS, TENSOR, FunctionSpec, Param
from lucid.expr.shapes import Shape
from lucid.i18n import L_

if TYPE_CHECKING:
    from lucid.expr.compiler import Compiler, Plan

#: What a rule calls the op's result.
OUT = "out"
#: Groups of the language's functions a formula may use: one number per element in, one out.
ELEMENTWISE_GROUPS = ("elementwise", "comparison")


@dataclass(eq=False)
class Definition:
    """One ``def`` of a program and its rules (parameter name -> ``Rule``), as written."""

    node: S.Define
    rules: dict[str, S.Rule] = field(default_factory=dict)
    formula_text: str = ""
    rule_texts: dict[str, str] = field(default_factory=dict)
    forward: Formula | None = None
    """The formula and the rules checked for scalar parameters: runnable at any shapes, since they are
    elementwise (what ``lucid.practice.rule_check`` evaluates)."""
    rule_formulas: list[Formula] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def params(self) -> list[str]:
        return [p.name for p in self.node.params]

    @functools.cached_property
    def spec(self) -> OpSpec:
        """The op as the registry would describe it: what the graph's explanations read (``opinfo.spec_of``)."""
        derivatives = tuple(f"∂out/∂{p} = {self.rule_texts.get(p, '?')}" for p in self.params)
        return OpSpec(self.name, self.name, f"out = {self.formula_text}", derivatives, "elementwise", None,
                      defined_op)


@dataclass(eq=False)
class Formula:
    """A checked formula: a plan whose first leaves are the parameters (then ``out`` for a rule)."""

    plan: Plan
    arity: int


def _children(n: S.Node) -> list[Any]:
    """The direct children of a syntax node (no attribute is looked up by name: the package never does)."""
    if isinstance(n, S.Unary):
        return [n.operand]
    if isinstance(n, S.Binary):
        return [n.left, n.right]
    if isinstance(n, S.Call):
        return [*n.args, *(k.value for k in n.kwargs)]
    if isinstance(n, S.Method):
        return [n.receiver, *n.args, *(k.value for k in n.kwargs)]
    if isinstance(n, S.Attribute):
        return [n.receiver]
    if isinstance(n, S.Index):
        return [n.receiver, *n.items]
    if isinstance(n, S.Slice):
        return [n.start, n.stop, n.step]
    if isinstance(n, S.ListLit | S.TupleLit):
        return list(n.items)
    return []


def _subtree(node: Any) -> list[Any]:
    """Every syntax node under ``node`` (itself included), without recursion."""
    found: list[Any] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, S.Node):
            found.append(n)
            stack.extend(_children(n))
    return found


def _formula_source(source: str, node: S.Node) -> str:
    """The formula as typed (from its first character to the end of its line, comment cut), for explanations."""
    line, col = min((n.line, n.col) for n in _subtree(node))
    text = line_text(source, line)[col - 1:]
    cut = text.find("#")
    text = (text if cut < 0 else text[:cut]).strip()
    if text.count("(") > text.count(")") or text.count("[") > text.count("]"):
        text += " …"
    return text


def evaluate(formula: Formula, inputs: Sequence[Tensor], checked: bool) -> Tensor:
    """Run a formula's plan on ``inputs``. ``checked``: as a program runs (a numeric problem is an ``ExprError``
    at its spot in the formula); unchecked: plain NumPy results, inf and NaN included (a rule's values)."""
    from lucid.expr.evaluate import run_op

    plan = formula.plan
    values: list[Any] = [None] * len(plan.instrs)
    leaves = iter(inputs)
    for i, ins in enumerate(plan.instrs):
        if ins.kind == "leaf":
            values[i] = next(leaves) if ins.grad else Tensor(ins.data)
        else:
            args = [values[a] for a in ins.args]
            values[i] = run_op(plan, ins, args) if checked else ins.call(*args)
    return values[plan.output]


class defined_op(operation):
    """A call of a defined op: forward from its formula, backward from the student's rules.

    Not entered in the registry (it has no class-level ``name``): each program has its own definitions, and
    nothing one program defines may reach another's (or another session's) engine.
    """

    group = "elementwise"

    def __init__(self, definition: Definition, forward: Formula, rules: Sequence[Formula]) -> None:
        self.definition = definition
        self.symbol = definition.name
        self.forward_formula = forward
        self.rule_formulas = tuple(rules)
        self.custom_spec = definition.spec

    @poly_func_op()
    def forward(self, tensors: list[Tensor]):
        shape = np.broadcast_shapes(*(t.shape for t in tensors))
        from lucid.expr.evaluate import NUMERIC_ERRORS

        with no_grad(), np.errstate(**NUMERIC_ERRORS):
            out = evaluate(self.forward_formula, [Tensor(t.data) for t in tensors], checked=True)
        data = np.array(np.broadcast_to(out.data, shape), dtype=np.float64)
        cache: list[tuple[np.ndarray, ...]] = []

        def local_derivatives() -> tuple[np.ndarray, ...]:
            if not cache:
                cache.append(self.rule_values([t.data for t in tensors], data))
            return cache[0]

        return tensor_from_array(data), self.chain(local_derivatives)

    def rule_values(self, inputs: Sequence[np.ndarray], out: np.ndarray,
                    only: int | None = None) -> tuple[np.ndarray | None, ...]:
        """Each rule's values at ``inputs`` (arrays) and ``out``, as float64 arrays of the output's shape.

        Never raises: a rule that cannot be evaluated there gives NaN (the rule check reports it), so a wrong
        rule still lets the backward pass run and be drawn.
        """
        shape = np.shape(out)
        values: list[np.ndarray | None] = []
        with no_grad(), np.errstate(all="ignore"):
            args = [Tensor(np.asarray(a, dtype=np.float64)) for a in inputs] + [Tensor(np.asarray(out))]
            for i, rule in enumerate(self.rule_formulas):
                if only is not None and i != only:
                    values.append(None)
                    continue
                try:
                    value = np.asarray(evaluate(rule, args, checked=False).data, dtype=np.float64)
                    values.append(np.array(np.broadcast_to(value, shape)))
                except Exception:  # noqa: BLE001 - a rule's trouble is reported by the check, never raised here
                    values.append(np.full(shape, np.nan))
        return tuple(values)

    def locals_as_tensors(self, inputs: Sequence[Tensor], out: Tensor) -> list[Tensor]:
        """The rules as lucid ops on the graph's own tensors (recorded: a derivative of them is possible)."""
        with enable_grad(), np.errstate(all="ignore"):
            return [evaluate(rule, [*inputs, out], checked=False) for rule in self.rule_formulas]

    def vjp(self, g: Tensor, inputs: Sequence[Tensor], out: Tensor) -> list[Tensor | None]:
        locals_ = self.locals_as_tensors(inputs, out)
        return [g * d if x.requires_grad else None for x, d in zip(inputs, locals_)]

    def jvp(self, tangents: Sequence[Tensor | None], inputs: Sequence[Tensor], out: Tensor) -> Tensor | None:
        locals_ = self.locals_as_tensors(inputs, out)
        return R.tangent_sum(out.shape, *(None if t is None else t * d for t, d in zip(tangents, locals_)))


# ----- checking: the definitions of a program ------------------------------------------------------------------

def collect(compiler: Compiler, statements: list[S.Statement]) -> dict[str, Definition]:
    """The program's definitions with their rules, checked for names, missing rules and recursion."""
    from lucid.expr.compiler import _RESERVED, _suggest

    source = compiler.source

    def error(line: int, col: int, message: Any, kind: str, length: int = 1) -> ExprError:
        return ExprError(message, line, col, line_text(source, line), kind, length)

    defined: dict[str, Definition] = {}
    for st in statements:
        if not isinstance(st, S.Define):
            continue
        name = st.name
        if name in FUNCTIONS:
            raise error(st.line, st.col, L_("'{name}' is already a function of the language; give your op another "
                                            "name", name=name), "name", len(name))
        if name in defined:
            first = defined[name].node
            raise error(st.line, st.col, L_("'{name}' is defined twice (first on line {line})", name=name,
                                            line=first.line), "name", len(name))
        for p in st.params:
            if p.name == OUT:
                raise error(p.line, p.col, L_("'out' stands for the op's result in its rules; call the parameter "
                                              "something else"), "name", len(p.name))
            if p.name in FUNCTIONS or p.name in _RESERVED:
                raise error(p.line, p.col, L_("'{name}' is the name of a function; choose another name for the "
                                              "parameter", name=p.name), "name", len(p.name))
        defined[name] = Definition(st, formula_text=_formula_source(source, st.body))
    for st in statements:
        if not isinstance(st, S.Rule):
            continue
        definition = defined.get(st.op)
        if definition is None:
            if st.op in FUNCTIONS:
                message = L_("'{name}' is a built-in op: rules can be written only for your own ops (def ...)",
                             name=st.op)
            else:
                message = L_("a rule for '{name}', but no op of that name is defined{hint}", name=st.op,
                             hint=_suggest(st.op, defined))
            raise error(st.op_line, st.op_col, message, "name", len(st.op))
        if st.param not in definition.params:
            raise error(st.param_line, st.param_col,
                        L_("'{name}' has no parameter '{param}' (its parameters: {params})", name=st.op,
                           param=st.param, params=", ".join(definition.params)), "name", len(st.param))
        if st.param in definition.rules:
            first = definition.rules[st.param]
            raise error(st.line, st.col, L_("d {name} / d {param} is given twice (first on line {line})",
                                            name=st.op, param=st.param, line=first.line), "name")
        definition.rules[st.param] = st
        definition.rule_texts[st.param] = _formula_source(source, st.value)
    for definition in defined.values():
        for p in definition.node.params:
            if p.name not in definition.rules:
                node = definition.node
                raise error(node.line, node.col, L_("missing rule for '{name}': add a line d {name} / d {param} = "
                                                    "... (one for each parameter)", name=node.name, param=p.name),
                            "name", len(node.name))
    _refuse_recursion(defined, error)
    return defined


def _calls(node: Any) -> list[S.Call]:
    """Every call in a formula, in reading order."""
    return sorted((n for n in _subtree(node) if isinstance(n, S.Call)), key=lambda c: (c.line, c.col))


def _refuse_recursion(defined: dict[str, Definition], error: Any) -> None:
    """A formula that uses itself, directly or through other defined ops, never finishes: refuse it where
    the cycle closes."""
    edges = {name: [c for c in _calls(d.node.body) if c.func in defined] for name, d in defined.items()}
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in defined:
        if state.get(start):
            continue
        path: list[str] = [start]
        state[start] = 1
        stack = [(start, iter(edges[start]))]
        while stack:
            name, it = stack[-1]
            call = next(it, None)
            if call is None:
                state[name] = 2
                stack.pop()
                path.pop()
                continue
            if state.get(call.func) == 1:
                if call.func == name:
                    message = L_("'{name}' uses itself in its own formula; a defined op cannot be recursive",
                                 name=name)
                else:
                    cycle = path[path.index(call.func):] + [call.func]
                    message = L_("'{name}' and '{other}' use each other ({cycle}); defined ops cannot be recursive",
                                 name=name, other=call.func, cycle=" → ".join(cycle))
                raise error(call.line, call.col, message, "name", len(call.func))
            if not state.get(call.func):
                state[call.func] = 1
                path.append(call.func)
                stack.append((call.func, iter(edges[call.func])))


def function_spec(definition: Definition) -> FunctionSpec:
    """How a program calls the op: its parameters are tensors that broadcast together."""
    name = definition.name
    return FunctionSpec(name, tuple(Param(p, TENSOR) for p in definition.params), "elementwise",
                        f"defined in this program: {definition.formula_text}",
                        lambda shapes, _: sh.broadcast(name, *shapes), op=name)


def compile_formula(compiler: Compiler, definition: Definition, node: S.Node, scope: list[tuple[str, Shape]],
                    rule: S.Rule | None) -> Formula:
    """Check one formula for these parameter shapes (and ``out``'s, for a rule) as a plan of its own."""
    from lucid.expr.compiler import FormulaCompiler

    sub = FormulaCompiler(compiler, definition, scope, rule)
    return Formula(sub.formula(node), len(scope))
