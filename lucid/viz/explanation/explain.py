"""``explain(trace, step)``: the chain rule of one backward step, in the program's own names and numbers.

Notation, chosen so a step can never read as circular:

- ``grad a`` is the **total** gradient of the output with respect to ``a`` (all
  paths added up); it is what ``+=`` accumulates and what ``a.grad`` ends as;
- ``∂c/∂a`` is the **local** derivative of the one op that made ``c``.

So each step reads ``grad a += grad c · ∂c/∂a``. Every step leads with one
arithmetic line (upstream × local = contribution, then the running total, written as the sum
when a second path adds to it: ``grad c · ∂c/∂a = 1.000 · (−3.000) = −3.000  ⇒  grad a = 1.000 +
(−3.000) = −2.000``);
the prose below it names the op's forward formula and its local rule with the
registry's generic names replaced by the program's (``∂t14/∂t13 = 1/t13 =
1/1.490``), the arrays (heatmaps in HTML), any broadcasting sum, and whether
the total is final.

``markdown`` is for the app, ``text`` is plain, ``html`` is a safe fragment for
the browser player; all three come from one ``Doc``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lucid._tensor.tensor import Tensor
from lucid.autograd import Trace, TraceStep
from lucid.i18n import N_, T_, TN_, _, ngettext, pgettext
from lucid.viz.explanation.document import B, C, Doc, N, U, md_escape
from lucid.viz.explanation.entry import entry_arithmetic
from lucid.viz.explanation.formulas import forward_rule, local_rule
from lucid.viz.explanation.opinfo import COMMUTATIVE, op_label, spec_of
from lucid.viz.graph.naming import constant_text, display_names, expression_of
from lucid.viz.graph.state import validate_step
from lucid.viz.graph.text import visible
from lucid.viz.numbers import MINUS, array_lines, format_number, shape_text

_Doc = Doc  # the document model (kept under its old name)
__all__ = ["StepExplanation", "explain", "md_escape", "step_title"]

#: Ops whose local derivative is a 0/1 mask: the explanation says which elements pass.
_MASKS = {"relu": N_("1 where {p} > 0 (the gradient passes) and 0 where {p} ≤ 0 (it is blocked)"),
          "clip": N_("1 where {p} lies inside the clip range and 0 outside"),
          "maximum": N_("1 where {p} is the larger input"), "minimum": N_("1 where {p} is the smaller input"),
          "max": N_("1 at the maximum"), "min": N_("1 at the minimum")}


def ordinal(slot: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th`` … in the reader's language (첫 번째, 두 번째 …)."""
    words = {0: pgettext("operand", "1st"), 1: pgettext("operand", "2nd"), 2: pgettext("operand", "3rd")}
    return words.get(slot) or _("{k}th").format(k=slot + 1)


@dataclass(frozen=True)
class StepExplanation:
    """What happens at one step of the backward pass; ``title``/``markdown``/``text``/``html`` are ready to show.

    ``html`` is a safe fragment (user text escaped, no scripts or event handlers):
    ``<div class="lgl-explain">`` holding first ``<div class="lgl-arith">`` (the
    arithmetic line), then ``<p class="lgl-p">`` paragraphs and
    ``<figure class="lgl-array">`` arrays (``<table class="lgl-heat">`` heatmaps up
    to 8×8, else ``<pre class="lgl-values">``); names are ``.lgl-name``, formulas
    ``code.lgl-formula``.
    """

    step: int
    total: int  # number of steps including the seed (step 0)
    title: str
    markdown: str
    text: str
    equation: str  # e.g. "grad a += grad c · ∂c/∂a"
    parent: str  # name of the tensor whose gradient changes
    node: str | None  # name of the tensor whose gradient flows (None for the seed)
    op: str | None  # the op's label, e.g. "×" or "Σ(axis=0)"
    formula: str  # the local rule in the program's names ('' for the seed)
    upstream: np.ndarray | None
    local: np.ndarray | None
    product: np.ndarray
    contribution: np.ndarray
    accumulated: np.ndarray
    summed_axes: tuple[int, ...]
    is_final: bool
    title_markdown: str = ""  # the title with user names escaped, for st.markdown / st.subheader
    html: str = ""
    arithmetic: str = ""  # the leading arithmetic line, plain text
    entry: tuple[int, ...] | None = None  # a tensor step's worked entry of the contribution (explanation.entry)


class _Names:
    """Distinct display names for a trace's tensors, and what unnamed ones stand for."""

    def __init__(self, trace: Trace) -> None:
        self.index = {id(t): k for k, t in enumerate(trace.order)}
        self.names = display_names(trace.order, trace.root)
        self.root = trace.root

    def __call__(self, t: Tensor) -> str:
        k = self.index.get(id(t))
        return self.names[k] if k is not None else (t.name or "t?")

    def named(self, t: Tensor) -> bool:
        """Whether ``t`` is called by its label: a name, the output, or an input that requires grad.

        An unnamed input that requires grad (``Tensor(5.0, requires_grad=True)``) is a variable the graph
        draws as ``t1``: it is called ``t1`` in every line (``∂t2/∂t1``), never by its value. Only an unnamed
        constant is written as the number the program wrote (``c^2``).
        """
        return bool(t.name) or t is self.root or (t._op is None and t.requires_grad)

    def definition(self, t: Tensor) -> str:
        """The op call that made ``t``, one level deep, in the program's syntax (``concatenate(A, t6, axis=0)``)."""
        return expression_of(t, lambda q: (self(q), True), depth=1)

    def in_formula(self, t: Tensor) -> str:
        """A tensor inside a formula: an unnamed scalar constant is its value (``c^2``, not ``c^t4``)."""
        if t._op is None and not self.named(t) and t.size == 1:
            return constant_text(t)
        return self(t)

    def expression(self, t: Tensor) -> str | None:
        """``b*b + 1`` for an unnamed result (None for named tensors and leaves)."""
        if self.named(t) or t._op is None:
            return None
        return expression_of(t, lambda q: (self(q), self.named(q)))


def _num(a: np.ndarray) -> str:
    return format_number(np.asarray(a).reshape(-1)[0])


def _operand(a: np.ndarray) -> str:
    """A number written after ``·`` or ``+``: negatives (and powers of ten) in parentheses, as on a blackboard."""
    text = _num(a)
    return f"({text})" if text.startswith(("-", MINUS)) or " × " in text else text


def _is_scalarish(*arrays: np.ndarray | None) -> bool:
    return all(a is None or np.asarray(a).size == 1 for a in arrays)


def _inline(a: np.ndarray) -> str:
    """A value inside the arithmetic line: the number, a short vector, else its shape."""
    a = np.asarray(a)
    if a.size == 1:
        return _num(a)
    if a.ndim == 1 and a.size <= 4:
        return array_lines(a)[0]
    return f"({shape_text(a.shape)})"


def step_title(trace: Trace, step: int, *, markdown: bool = False) -> str:
    """``Step 3 of 9: c → a through ×`` (step 0: ``seed grad out = 1``).

    ``markdown=True`` escapes the user names so the title can go through Markdown.
    """
    step = validate_step(trace, step)
    name = _Names(trace)
    esc = md_escape if markdown else visible
    last = len(trace.steps) - 1
    s = trace.steps[step]
    r = esc(name(trace.root))
    if s.node is None:
        seed = "1" if np.all(s.contribution == 1) else _("given")
        return _("Step 0 of {last}: seed grad {name} = {seed}").format(last=last, name=r, seed=seed)
    return _("Step {step} of {last}: {node} → {parent} through {op}").format(
        step=step, last=last, node=esc(name(s.node)), parent=esc(name(s.parent)), op=esc(op_label(s.node)))


def explain(trace: Trace, step: int) -> StepExplanation:
    """The explanation of ``trace.steps[step]`` (step 0 is the seed gradient at the output)."""
    step = validate_step(trace, step)
    s = trace.steps[step]
    if s.node is None:
        return _explain_seed(trace, s)
    return _explain_edge(trace, s)


def _explain_seed(trace: Trace, s: TraceStep) -> StepExplanation:
    name = _Names(trace)
    r = name(trace.root)
    shape = trace.root.shape
    doc = Doc()
    ones = bool(np.all(s.contribution == 1))
    arith = ("grad ", U(r), f" = {_inline(s.contribution)}" if ones or s.contribution.size == 1 else
             " = " + _("the given seed {value}").format(value=_inline(s.contribution)))
    doc.arith(*arith)
    if ones:
        doc.para(*T_("The backward pass starts at the output {name} (shape {shape}). Its gradient with respect "
                     "to itself is {grad}.", name=N(r), shape=shape_text(shape), grad=C(f"grad {r} = 1")))
    else:
        doc.para(*T_("The backward pass starts at the output {name} (shape {shape}). Its gradient with respect "
                     "to itself is {grad}: the seed gradient given to backward().", name=N(r),
                     shape=shape_text(shape), grad=C(f"grad {r}")))
    doc.para(*T_("Notation: “grad” of a tensor is the total derivative of {output} with respect to it (every "
                 "path added up: what backward() leaves in .grad); “∂” is the local derivative of one op with "
                 "respect to one of its inputs.", output=U(r)))
    rebound = _rebound(trace)
    if rebound:
        doc.para(*T_("Names assigned more than once get a subscript per assignment, in program order: {names}.",
                     names=U(", ".join(rebound))))
    if ones and shape:
        doc.para(_("The output is not a scalar, so the seed is 1 for every element (ones of shape "
                   "{shape}): this differentiates the sum of its elements.").format(shape=shape_text(shape)))
    if not ones or shape:
        doc.array(s.contribution)
    rest = len(trace.steps) - 1
    if rest:
        doc.para(ngettext("From here the gradient flows backward one edge at a time: {n} more step, in reverse "
                          "topological order, so every node's gradient is complete before it is passed on to "
                          "its inputs.",
                          "From here the gradient flows backward one edge at a time: {n} more steps, in reverse "
                          "topological order, so every node's gradient is complete before it is passed on to "
                          "its inputs.", rest).format(n=rest))
    else:
        doc.para(_("Nothing that requires grad was used to compute the output, so there is nothing more."))
    md, txt, htm = doc.render()
    return StepExplanation(0, len(trace.steps), step_title(trace, 0), md, txt, f"grad {r} = 1", r, None, None,
                           "", None, None, s.contribution_raw, s.contribution, s.accumulated, (), s.is_final,
                           step_title(trace, 0, markdown=True), htm, "".join(visible(p) for p in arith))


def _rebound(trace: Trace) -> list[str]:
    """``a₁, a₂`` for each name the program assigned more than once."""
    name = _Names(trace)
    groups: dict[str, list[str]] = {}
    for t in trace.order:
        if t.name and name(t) != t.name:
            groups.setdefault(str(t.name), []).append(name(t))
    return [_("{first} and {second} (both {base})").format(first=shown[0], second=shown[1], base=base)
            if len(shown) == 2 else _("{names} (all {base})").format(names=", ".join(shown), base=base)
            for base, shown in groups.items()]


def _who(name: _Names, t: Tensor) -> list[str]:
    """A tensor as the prose names it: ``x``, or ``t13 (= b*b + 1)`` for an unnamed result."""
    expr = name.expression(t)
    return [N(name(t))] + ([" (", C(f"= {expr}"), ")"] if expr else [])


def _matmul_factor(node: Tensor, slot: int, name: _Names) -> tuple[str, Tensor, str]:
    """How a matmul input's gradient is formed: (symbolic text, the other factor, its role)."""
    a, b = node._prev
    other = b if slot == 0 else a
    o = name(other)
    g = f"grad {name(node)}"
    if a.ndim == 1 and b.ndim == 1:
        return (f"{g} · {o}", other, _("a number times a vector"))
    if slot == 0:
        return (f"{g} ⊗ {o}" if b.ndim == 1 else f"{g} @ {o}ᵀ"), other, _("an outer product") if b.ndim == 1 else ""
    return (f"{o} ⊗ {g}" if a.ndim == 1 else f"{o}ᵀ @ {g}"), other, _("an outer product") if a.ndim == 1 else ""


def _transposed_shape(t: Tensor) -> tuple[int, ...]:
    return t.shape if t.ndim < 2 else t.shape[:-2] + (t.shape[-1], t.shape[-2])


def _explain_edge(trace: Trace, s: TraceStep) -> StepExplanation:
    name = _Names(trace)
    node, parent = s.node, s.parent
    r, n, p = name(trace.root), name(node), name(parent)
    spec = spec_of(node)
    kind = spec.name if spec is not None else ""
    op = op_label(node)
    prev = list(node._prev)
    rule = local_rule(node, s.slot, name.in_formula, translated=True)
    up, local, product = s.upstream, s.local, s.contribution_raw
    before, earlier_call = _previous_total(trace, s)
    grad_p, grad_n, local_sym = f"grad {p}", f"grad {n}", f"∂{n}/∂{p}"
    matmul = kind == "matmul" and len(prev) == 2
    doc = Doc()

    # 1. the arithmetic line: upstream × local = contribution, then the accumulation
    if local is not None:
        equation = f"{grad_p} += {grad_n} · {local_sym}"
        formula = f"{local_sym} = {rule[1]}" if rule else local_sym
        if _is_scalarish(up, local, product):
            lead = ["grad ", U(n), " · ∂", U(n), "/∂", U(p), f" = {_num(up)} · {_operand(local)} = {_num(product)}"]
        else:
            lead = ["grad ", U(n), " ⊙ ∂", U(n), "/∂", U(p),
                    f": {shape_text(np.shape(up))} ⊙ {shape_text(local.shape)} → {shape_text(product.shape)}"]
    elif matmul:
        sym, other, _role = _matmul_factor(node, s.slot, name)
        equation = f"{grad_p} += {sym}"
        formula = equation
        left, right = (up, other) if s.slot == 0 else (other, up)
        lshape = shape_text(np.shape(left)) if left is up else shape_text(_transposed_shape(other))
        rshape = shape_text(np.shape(right)) if right is up else shape_text(_transposed_shape(other))
        lead = [U(sym), f": {lshape} {'@' if '@' in sym else ('⊗' if '⊗' in sym else '·')} {rshape} → "
                f"{shape_text(product.shape)}"]
    else:
        rhs = rule[1] if rule else _("the {op} rule applied to {grad}").format(op=op, grad=grad_n)
        equation = f"{grad_p} += {rhs}"
        formula = equation
        lead = [U(rhs), f": {shape_text(np.shape(up))} → {shape_text(product.shape)}"]
    if s.summed_axes:
        lead.append(", " + _("Σ over axis {axes} → {shape}").format(axes=", ".join(map(str, s.summed_axes)),
                                                                   shape=shape_text(s.contribution.shape)))
    tail = _total_tail(p, before, s.contribution, s.accumulated)
    # a tensor step: the shapes, then one entry worked out in numbers (the symbols are in that entry's formula)
    worked = None if _is_scalarish(up, local, product, s.contribution) else \
        entry_arithmetic(s, before, name, matmul)
    if worked is not None:
        lead = [_shapes_only(lead)]
        tail = ["  ⇒  ", *worked.parts]
    doc.arith(*lead, *tail)

    # 2. what happens, in words
    ordered = len(prev) > 1 and kind not in COMMUTATIVE
    if ordered:
        doc.para(*T_("The gradient flows from {node} back through {op} into its input {parent} (its {ordinal} "
                     "operand, as marked on the edge).", node=_who(name, node), op=C(op),
                     parent=_who(name, parent), ordinal=ordinal(s.slot)))
    else:
        doc.para(*T_("The gradient flows from {node} back through {op} into its input {parent}.",
                     node=_who(name, node), op=C(op), parent=_who(name, parent)))
    forward = forward_rule(node, name.in_formula, translated=True) or f"{n} = {name.definition(node)}"
    if kind == "neg":
        doc.para(*T_("neg is unary minus: {forward}, one input whose sign it flips (not subtraction, which has "
                     "two inputs and is drawn as −).", forward=C(forward or f"{n} = −{p}")))
    elif kind == "sub":
        if s.slot == 0:
            doc.para(*T_("− is subtraction, two inputs: {forward}, {name} is its left operand (unary minus is a "
                         "different op, drawn as neg).", forward=C(forward), name=U(p)))
        else:
            doc.para(*T_("− is subtraction, two inputs: {forward}, {name} is its right operand (unary minus is a "
                         "different op, drawn as neg).", forward=C(forward), name=U(p)))
    elif forward:
        doc.para(*T_("Forward: {formula}", formula=C(forward)))
    uses = sum(1 for q in prev if q is parent)
    if uses > 1:
        doc.para(*T_("{name} is used {uses} times by this op; this step is its use as the {ordinal} operand. "
                     "Each use adds its own part to {grad}.", name=N(p), uses=str(uses), ordinal=ordinal(s.slot),
                     grad=C(grad_p)))
    if local is not None:
        doc.para(*T_("Chain rule: {equation}  ({grad}: total derivative of {output} with respect to {name}; "
                     "{local}: local derivative of this one op)", equation=C(equation), grad=C(grad_p),
                     output=U(r), name=U(p), local=C(local_sym)))
    else:
        doc.para(*T_("Chain rule: {equation}  ({grad}: total derivative of {output} with respect to {name})",
                     equation=C(equation), grad=C(grad_p), output=U(r), name=U(p)))

    # 3. the local rule, in the program's names and (for scalars) numbers
    if local is not None and rule:
        lhs, rhs, numeric = rule
        if _is_scalarish(up, local, product):
            text = f"{lhs} = {rhs}"
            value = _num(local)
            if numeric != rhs and numeric.strip("() ") != value:
                text += f" = {numeric}"
            if text.rsplit(" = ", 1)[-1].strip("() ") != value:
                text += f" = {value}"
            doc.para(*T_("Local derivative (the rule of {op}): {formula}", op=spec.symbol if spec else op,
                         formula=C(text)))
        else:
            doc.para(*T_("Local derivative (the rule of {op}): {formula}", op=spec.symbol if spec else op,
                         formula=C(f"{lhs} = {rhs}")))
    mask = _MASKS.get(kind)
    if mask and local is not None:
        doc.para(*T_("Here the local derivative is a mask: {mask}.", mask=T_(mask, p=U(p))))

    # 4. the numbers
    if node is trace.root:
        doc.para(*T_("Upstream gradient {grad} (shape {shape}): the seed.", grad=C(grad_n),
                     shape=shape_text(np.shape(up))))
    else:
        doc.para(*T_("Upstream gradient {grad} (shape {shape}), already final: every path from {output} to {node} "
                     "was added before {node} passes its gradient on:", grad=C(grad_n),
                     shape=shape_text(np.shape(up)), output=U(r), node=U(n)))
    doc.array(up)
    if local is not None and _is_scalarish(up, local, product):
        pass  # the arithmetic line shows upstream × local = product
    elif local is not None:
        doc.para(*T_("Local derivative {local} (shape {shape}):", local=C(local_sym), shape=shape_text(local.shape)))
        doc.array(local)
        spread = _reduced_axes(node, up, local)
        if spread:
            listed = ", ".join(str(a) for a in spread)
            doc.para(*TN_("{op} removed axis {axes}, so the upstream gradient is first copied back along it "
                          "(shape {before} → {after}):",
                          "{op} removed axes {axes}, so the upstream gradient is first copied back along them "
                          "(shape {before} → {after}):", len(spread), op=C(op), axes=listed,
                          before=shape_text(np.shape(up)), after=shape_text(local.shape)))
            doc.array(np.broadcast_to(np.expand_dims(up, spread), local.shape))
        doc.para(_("Product upstream ⊙ local, element by element (shape {shape}):").format(
            shape=shape_text(product.shape)))
        doc.array(product)
    elif matmul:
        sym, other, how = _matmul_factor(node, s.slot, name)
        doc.para(*T_("The other factor, {name} (shape {shape}), as it was in the forward pass:",
                     name=N(name(other)), shape=shape_text(other.shape)))
        doc.array(other.data)
        if how:
            doc.para(*T_("{op} is not elementwise: the gradient of a matrix product is another matrix product (in "
                         "this case {how}), {formula} (shape {shape}):", op=C(op), how=how, formula=C(sym),
                         shape=shape_text(product.shape)))
        else:
            doc.para(*T_("{op} is not elementwise: the gradient of a matrix product is another matrix product, "
                         "{formula} (shape {shape}):", op=C(op), formula=C(sym), shape=shape_text(product.shape)))
        doc.array(product)
    else:
        doc.para(*T_("{op} is not elementwise, so its rule is applied to the whole upstream gradient, giving "
                     "(shape {shape}):", op=C(op), shape=shape_text(product.shape)))
        doc.array(product)

    if s.summed_axes:
        _broadcast_para(doc, p, parent.shape, product.shape, s.summed_axes)
        doc.para(_("Contribution after summing (shape {shape}):").format(shape=shape_text(s.contribution.shape)))
        doc.array(s.contribution)
    elif product.shape != s.contribution.shape:
        doc.para(*T_("The product has shape {shape}; it is put back into the shape of {name}, {target} (same "
                     "values, no sum needed).", shape=shape_text(product.shape), name=N(p),
                     target=shape_text(parent.shape)))

    # 5. the running total
    if before is None:
        doc.para(*T_("This is the first contribution to {grad}, so it is now:", grad=C(grad_p)))
        doc.array(s.accumulated)
    else:
        if earlier_call:
            doc.para(*T_("{name} already held a gradient from an earlier backward() call (leaf gradients add up "
                         "until they are reset).", name=N(p)))
        if _is_scalarish(before, s.contribution):
            doc.para(*T_("Accumulate (+=, never =): {sum}",
                         sum=C(f"{grad_p} = {_num(before)} + {_operand(s.contribution)} = {_num(s.accumulated)}")))
        else:
            doc.para(*T_("Accumulate (+=, never =): {grad} was", grad=C(grad_p)))
            doc.array(before)
            doc.para(_("and after adding this contribution it is"))
            doc.array(s.accumulated)

    later = [t for t in trace.steps[s.index + 1:] if t.parent is parent]
    if s.is_final:
        final = B(_("final"))  # Babel misses a message nested in a call after another call: kept apart
        if parent._op is None:
            doc.para(*T_("{grad} is now {final}: no other path reaches it. This is the value of its .grad after "
                         "backward().", grad=C(grad_p), final=final))
        else:
            doc.para(*T_("{grad} is now {final}: no other path reaches it.", grad=C(grad_p), final=final))
    else:
        sources = ", ".join(dict.fromkeys(f"{name(t.node)} ({op_label(t.node)})" for t in later
                                          if t.node is not None))
        partial = B(_("partial"))
        doc.para(*TN_("{grad} is {partial}: {n} more contribution will arrive along other paths (from {sources}).",
                      "{grad} is {partial}: {n} more contributions will arrive along other paths (from {sources}).",
                      len(later), grad=C(grad_p), partial=partial, sources=U(sources)))
    md, txt, htm = doc.render()
    return StepExplanation(s.index, len(trace.steps), step_title(trace, s.index), md, txt, equation, p, n, op,
                           formula, up, local, product, s.contribution, s.accumulated, tuple(s.summed_axes),
                           s.is_final, step_title(trace, s.index, markdown=True), htm,
                           "".join(visible(x) for x in (*lead, *tail)), worked.index if worked else None)


def _shapes_only(lead: list[str]) -> str:
    """``6×4 ⊙ 6×4 → 6×4, Σ over axis 0 → 4``: the lead's shapes, without the formula before its colon."""
    text = "".join(lead)
    return text.split(": ", 1)[1] if ": " in text else text


def _total_tail(p: str, before: np.ndarray | None, contribution: np.ndarray, total: np.ndarray) -> list[str]:
    """The end of the arithmetic line: the gradient of ``p`` after this step, as a sum when it accumulates.

    First contribution: ``⇒  grad x = 3.000``. A later one writes the addition out, so the
    accumulation is the headline: ``⇒  grad x = 1.000 + (−2.000) = −1.000`` (short vectors the same
    way); arrays too big to write inline keep ``⇒  grad x += (3×4) → (3×4)``.
    """
    if before is None:
        return ["  ⇒  grad ", U(p), f" = {_inline(total)}"]
    if _is_scalarish(before, contribution, total):
        return ["  ⇒  grad ", U(p), f" = {_num(before)} + {_operand(contribution)} = {_num(total)}"]
    inline = [_inline(a) for a in (before, contribution, total)]
    if not any(text.startswith("(") for text in inline):
        return ["  ⇒  grad ", U(p), f" = {inline[0]} + {inline[1]} = {inline[2]}"]
    return ["  ⇒  grad ", U(p), f" += {inline[1]} → {inline[2]}"]


def _reduced_axes(node: Tensor, up: np.ndarray | None, local: np.ndarray) -> tuple[int, ...]:
    """The axes a reduction without keepdims removed (its upstream gradient lacks them), else ().

    Multiplying such an upstream gradient by the input-shaped local derivative
    with NumPy's trailing-axis broadcasting would pair the wrong elements (or
    fail), so the explanation shows the gradient copied back along these axes first.
    """
    params = node._op.params if node._op is not None else {}
    if up is None or np.ndim(up) == 0 or np.shape(up) == local.shape or params.get("keepdims") \
            or params.get("axis") is None:
        return ()
    ndim = local.ndim
    axes = tuple(sorted({int(a) % ndim for a in np.atleast_1d(params["axis"])}))
    return axes if np.ndim(up) + len(axes) == ndim else ()


def _broadcast_para(doc: Doc, p: str, shape: tuple[int, ...], raw: tuple[int, ...], axes: tuple[int, ...]) -> None:
    extra = len(raw) - len(shape)
    why = []
    for a in axes:
        if a < extra:
            why.append(_("it had no axis {axis}, so NumPy added one in front and copied it {k} times along it")
                       .format(axis=a, k=raw[a]))
        else:
            why.append(_("its axis {axis} has size 1 and was stretched to {k}").format(axis=a - extra, k=raw[a]))
    listed = ", ".join(str(a) for a in axes)
    title, total = B(_("Broadcasting:")), C(_("sum over axis {axes}").format(axes=listed))
    doc.para(*T_("{broadcasting} {name} has shape {shape} but this gradient has shape {raw}. In the forward pass "
                 "{why}. Every copy influenced the output, so their gradients add up: {sum} gives shape {shape}.",
                 broadcasting=title, name=N(p), shape=shape_text(shape), raw=shape_text(raw), why="; ".join(why),
                 sum=total))


def _previous_total(trace: Trace, s: TraceStep) -> tuple[np.ndarray | None, bool]:
    """The gradient before this step, and whether it came from an earlier backward() call."""
    for t in reversed(trace.steps[: s.index]):
        if t.parent is s.parent:
            return t.accumulated, False
    if s.accumulated.shape == s.contribution.shape and not np.array_equal(s.accumulated, s.contribution):
        return s.accumulated - s.contribution, True
    return None, False
