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
from lucid.viz.document import B, C, Doc, N, U, md_escape
from lucid.viz.formulas import forward_rule, local_rule
from lucid.viz.naming import constant_text, display_names, expression_of
from lucid.viz.numbers import MINUS, array_lines, format_number, shape_text
from lucid.viz.opinfo import COMMUTATIVE, op_label, slot_word, spec_of
from lucid.viz.state import validate_step
from lucid.viz.text import visible

_Doc = Doc  # the document model (kept under its old name)
__all__ = ["StepExplanation", "explain", "md_escape", "step_title"]

_ORDINAL = {0: "1st", 1: "2nd", 2: "3rd"}
#: Ops whose local derivative is a 0/1 mask: the explanation says which elements pass.
_MASKS = {"relu": "where {p} > 0 (the gradient passes) and 0 where {p} ≤ 0 (it is blocked)",
          "clip": "where {p} lies inside the clip range and 0 outside",
          "maximum": "where {p} is the larger input", "minimum": "where {p} is the smaller input",
          "max": "at the maximum", "min": "at the minimum"}


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
        return bool(t.name) or t is self.root

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
        seed = "1" if np.all(s.contribution == 1) else "given"
        return f"Step 0 of {last}: seed grad {r} = {seed}"
    return f"Step {step} of {last}: {esc(name(s.node))} → {esc(name(s.parent))} through {esc(op_label(s.node))}"


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
             f" = the given seed {_inline(s.contribution)}")
    doc.arith(*arith)
    doc.para("The backward pass starts at the output ", N(r), f" (shape {shape_text(shape)}). ",
             "Its gradient with respect to itself is ", C(f"grad {r} = 1" if ones else f"grad {r}"),
             "." if ones else ": the seed gradient given to backward().")
    doc.para("Notation: “grad” of a tensor is the total derivative of ", U(r), " with respect to it (every "
             "path added up: what backward() leaves in .grad); “∂” is the local derivative of one op with "
             "respect to one of its inputs.")
    rebound = _rebound(trace)
    if rebound:
        doc.para("Names assigned more than once get a subscript per assignment, in program order: ",
                 U(", ".join(rebound)), ".")
    if ones and shape:
        doc.para(f"The output is not a scalar, so the seed is 1 for every element (ones of shape "
                 f"{shape_text(shape)}): this differentiates the sum of its elements.")
    if not ones or shape:
        doc.array(s.contribution)
    rest = len(trace.steps) - 1
    if rest:
        doc.para(f"From here the gradient flows backward one edge at a time: {rest} more step"
                 f"{'s' if rest != 1 else ''}, in reverse topological order, so every node's gradient is "
                 "complete before it is passed on to its inputs.")
    else:
        doc.para("Nothing that requires grad was used to compute the output, so there is nothing more.")
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
    return [" and ".join(shown) + f" (both {base})" if len(shown) == 2 else ", ".join(shown) + f" (all {base})"
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
        return (f"{g} · {o}", other, "a number times a vector")
    if slot == 0:
        return (f"{g} ⊗ {o}" if b.ndim == 1 else f"{g} @ {o}ᵀ"), other, "an outer product" if b.ndim == 1 else ""
    return (f"{o} ⊗ {g}" if a.ndim == 1 else f"{o}ᵀ @ {g}"), other, "an outer product" if a.ndim == 1 else ""


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
    rule = local_rule(node, s.slot, name.in_formula)
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
        sym, other, _ = _matmul_factor(node, s.slot, name)
        equation = f"{grad_p} += {sym}"
        formula = equation
        left, right = (up, other) if s.slot == 0 else (other, up)
        lshape = shape_text(np.shape(left)) if left is up else shape_text(_transposed_shape(other))
        rshape = shape_text(np.shape(right)) if right is up else shape_text(_transposed_shape(other))
        lead = [U(sym), f": {lshape} {'@' if '@' in sym else ('⊗' if '⊗' in sym else '·')} {rshape} → "
                f"{shape_text(product.shape)}"]
    else:
        rhs = rule[1] if rule else f"the {op} rule applied to {grad_n}"
        equation = f"{grad_p} += {rhs}"
        formula = equation
        lead = [U(rhs), f": {shape_text(np.shape(up))} → {shape_text(product.shape)}"]
    if s.summed_axes:
        lead.append(f", Σ over axis {', '.join(map(str, s.summed_axes))} → {shape_text(s.contribution.shape)}")
    tail = _total_tail(p, before, s.contribution, s.accumulated)
    doc.arith(*lead, *tail)

    # 2. what happens, in words
    ordered = len(prev) > 1 and kind not in COMMUTATIVE
    doc.para("The gradient flows from ", *_who(name, node), " back through ", C(op), " into its input ",
             *_who(name, parent), f" (its {slot_word(s.slot)} operand, as marked on the edge)." if ordered else ".")
    forward = forward_rule(node, name.in_formula) or f"{n} = {name.definition(node)}"
    if kind == "neg":
        doc.para("neg is unary minus: ", C(forward or f"{n} = −{p}"), ", one input whose sign it flips "
                 "(not subtraction, which has two inputs and is drawn as −).")
    elif kind == "sub":
        doc.para("− is subtraction, two inputs: ", C(forward), ", ", U(p), " is its "
                 f"{'left' if s.slot == 0 else 'right'} operand (unary minus is a different op, drawn as neg).")
    elif forward:
        doc.para("Forward: ", C(forward))
    uses = sum(1 for q in prev if q is parent)
    if uses > 1:
        doc.para(N(p), f" is used {uses} times by this op; this step is its use as the "
                 f"{_ORDINAL.get(s.slot, f'{s.slot + 1}th')} operand. Each use adds its own part to ",
                 C(grad_p), ".")
    doc.para("Chain rule: ", C(equation), "  (", C(grad_p), ": total derivative of ", U(r), " with respect to ",
             U(p), "; " if local is not None else ")",
             *((C(local_sym), ": local derivative of this one op)") if local is not None else ()))

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
            doc.para(f"Local derivative (the rule of {spec.symbol if spec else op}): ", C(text))
        else:
            doc.para(f"Local derivative (the rule of {spec.symbol if spec else op}): ", C(f"{lhs} = {rhs}"))
    mask = _MASKS.get(kind)
    if mask and local is not None:
        pieces = mask.split("{p}")
        parts = [x for i, piece in enumerate(pieces) for x in ((piece,) if i == 0 else (U(p), piece))]
        doc.para("Here the local derivative is a mask: 1 ", *parts, ".")

    # 4. the numbers
    if node is trace.root:
        doc.para("Upstream gradient ", C(grad_n), f" (shape {shape_text(np.shape(up))}): the seed.")
    else:
        doc.para("Upstream gradient ", C(grad_n), f" (shape {shape_text(np.shape(up))}), already final: every "
                 "path from ", U(r), " to ", U(n), " was added before ", U(n), " passes its gradient on:")
    doc.array(up)
    if local is not None and _is_scalarish(up, local, product):
        pass  # the arithmetic line shows upstream × local = product
    elif local is not None:
        doc.para("Local derivative ", C(local_sym), f" (shape {shape_text(local.shape)}):")
        doc.array(local)
        spread = _reduced_axes(node, up, local)
        if spread:
            listed = ", ".join(str(a) for a in spread)
            doc.para(C(op), f" removed axis{'es' if len(spread) > 1 else ''} {listed}, so the upstream gradient is "
                     f"first copied back along {'them' if len(spread) > 1 else 'it'} (shape "
                     f"{shape_text(np.shape(up))} → {shape_text(local.shape)}):")
            doc.array(np.broadcast_to(np.expand_dims(up, spread), local.shape))
        doc.para(f"Product upstream ⊙ local, element by element (shape {shape_text(product.shape)}):")
        doc.array(product)
    elif matmul:
        sym, other, how = _matmul_factor(node, s.slot, name)
        doc.para("The other factor, ", N(name(other)), f" (shape {shape_text(other.shape)}), as it was in the "
                 "forward pass:")
        doc.array(other.data)
        doc.para(C(op), " is not elementwise: the gradient of a matrix product is another matrix product"
                 + (f" (in this case {how})" if how else "") + ", ", C(sym),
                 f" (shape {shape_text(product.shape)}):")
        doc.array(product)
    else:
        doc.para(C(op), " is not elementwise, so its rule is applied to the whole upstream gradient, giving "
                 f"(shape {shape_text(product.shape)}):")
        doc.array(product)

    if s.summed_axes:
        _broadcast_para(doc, p, parent.shape, product.shape, s.summed_axes)
        doc.para(f"Contribution after summing (shape {shape_text(s.contribution.shape)}):")
        doc.array(s.contribution)
    elif product.shape != s.contribution.shape:
        doc.para(f"The product has shape {shape_text(product.shape)}; it is put back into the shape of ", N(p),
                 f", {shape_text(parent.shape)} (same values, no sum needed).")

    # 5. the running total
    if before is None:
        doc.para("This is the first contribution to ", C(grad_p), ", so it is now:")
        doc.array(s.accumulated)
    else:
        if earlier_call:
            doc.para(N(p), " already held a gradient from an earlier backward() call (leaf gradients add up "
                     "until they are reset).")
        if _is_scalarish(before, s.contribution):
            doc.para("Accumulate (+=, never =): ", C(f"{grad_p} = {_num(before)} + {_operand(s.contribution)} = "
                                                    f"{_num(s.accumulated)}"))
        else:
            doc.para("Accumulate (+=, never =): ", C(grad_p), " was")
            doc.array(before)
            doc.para("and after adding this contribution it is")
            doc.array(s.accumulated)

    later = [t for t in trace.steps[s.index + 1:] if t.parent is parent]
    if s.is_final:
        leaf = " This is the value of its .grad after backward()." if parent._op is None else ""
        doc.para(C(grad_p), " is now ", B("final"), f": no other path reaches it.{leaf}")
    else:
        sources = ", ".join(dict.fromkeys(f"{name(t.node)} ({op_label(t.node)})" for t in later
                                          if t.node is not None))
        doc.para(C(grad_p), " is ", B("partial"), f": {len(later)} more contribution{'s' if len(later) != 1 else ''}"
                 " will arrive along other paths (from ", U(sources), ").")
    md, txt, htm = doc.render()
    return StepExplanation(s.index, len(trace.steps), step_title(trace, s.index), md, txt, equation, p, n, op,
                           formula, up, local, product, s.contribution, s.accumulated, tuple(s.summed_axes),
                           s.is_final, step_title(trace, s.index, markdown=True), htm,
                           "".join(visible(x) for x in (*lead, *tail)))


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
            why.append(f"it had no axis {a}, so NumPy added one in front and copied it {raw[a]} times along it")
        else:
            why.append(f"its axis {a - extra} has size 1 and was stretched to {raw[a]}")
    listed = ", ".join(str(a) for a in axes)
    doc.para(B("Broadcasting:"), " ", N(p), f" has shape {shape_text(shape)} but this gradient has shape "
             f"{shape_text(raw)}. In the forward pass " + "; ".join(why) + ". ",
             "Every copy influenced the output, so their gradients add up: ",
             C(f"sum over axis {listed}"), f" gives shape {shape_text(shape)}.")


def _previous_total(trace: Trace, s: TraceStep) -> tuple[np.ndarray | None, bool]:
    """The gradient before this step, and whether it came from an earlier backward() call."""
    for t in reversed(trace.steps[: s.index]):
        if t.parent is s.parent:
            return t.accumulated, False
    if s.accumulated.shape == s.contribution.shape and not np.array_equal(s.accumulated, s.contribution):
        return s.accumulated - s.contribution, True
    return None, False
