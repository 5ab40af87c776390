"""``explain(trace, step)``: the chain rule of one backward step, in symbols and in numbers.

Each step adds one contribution to one gradient: ``∂out/∂a += ∂out/∂c · ∂c/∂a``.
The explanation names the upstream gradient, the local derivative with the op's
registered formula (from the op registry, the same text as the op reference),
the product, any broadcasting reduction (which axes were summed and why), and
the running total, with shapes. ``markdown`` is for the app (user names are
escaped so they cannot inject markup or LaTeX); ``text`` is the same in plain text.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lucid._tensor.tensor import Tensor
from lucid.autograd import Trace, TraceStep
from lucid.viz.numbers import format_array, format_number, shape_text
from lucid.viz.opinfo import derivative_text, input_names, op_label, output_symbol, spec_of
from lucid.viz.state import validate_step
from lucid.viz.structure import node_label
from lucid.viz.text import visible

_MD_SPECIAL = set("\\`*_{}[]()#+-.!|<>~$&")


@dataclass(frozen=True)
class StepExplanation:
    """What happens at one step of the backward pass; ``title``/``markdown``/``text`` are ready to show."""

    step: int
    total: int  # number of steps including the seed (step 0)
    title: str
    markdown: str
    text: str
    equation: str  # e.g. "∂out/∂a += ∂out/∂c · ∂c/∂a"
    parent: str  # name of the tensor whose gradient changes
    node: str | None  # name of the tensor whose gradient flows (None for the seed)
    op: str | None  # the op's label, e.g. "×" or "Σ(axis=0)"
    formula: str  # the registered derivative formula used ('' for the seed)
    upstream: np.ndarray | None
    local: np.ndarray | None
    product: np.ndarray
    contribution: np.ndarray
    accumulated: np.ndarray
    summed_axes: tuple[int, ...]
    is_final: bool
    title_markdown: str = ""  # the title with user names escaped, for st.markdown / st.subheader


def md_escape(text: str) -> str:
    """User text made literal in Markdown (and in Streamlit's ``$…$`` LaTeX)."""
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in visible(text))


class U(str):
    """User text (a name): escaped in Markdown, as is in plain text."""


class N(str):
    """A user name shown in bold."""


class B(str):
    """Our own text in bold."""


class C(str):
    """A formula or symbol in a code span (literal in Markdown, no LaTeX)."""


class _Doc:
    """Paragraphs and arrays written once, rendered as Markdown and as plain text.

    Plain ``str`` parts are our own words; user text must come wrapped in ``U``,
    ``N`` or ``C`` so the Markdown rendering escapes it.
    """

    def __init__(self) -> None:
        self.md: list[str] = []
        self.txt: list[str] = []

    def para(self, *parts: str) -> None:
        md, txt = [], []
        for part in parts:
            txt.append(visible(part))
            if isinstance(part, N):
                md.append(f"**{md_escape(part)}**")
            elif isinstance(part, U):
                md.append(md_escape(part))
            elif isinstance(part, B):
                md.append(f"**{part}**")
            elif isinstance(part, C):
                md.append(f"`{visible(part).replace('`', 'ˋ')}`")
            else:
                md.append(part)
        self.md.append("".join(md))
        self.txt.append("".join(txt))

    def array(self, arr: np.ndarray) -> None:
        body = format_array(arr)
        self.md.append("```\n" + body + "\n```")
        self.txt.append("\n".join("    " + line for line in body.split("\n")))

    def render(self) -> tuple[str, str]:
        return "\n\n".join(self.md), "\n\n".join(self.txt)


def _namer(trace: Trace):
    index_of = {id(t): k for k, t in enumerate(trace.order)}

    def name(t: Tensor) -> str:
        return node_label(t, index_of.get(id(t)), is_root=t is trace.root)

    return name


def _is_scalarish(*arrays: np.ndarray | None) -> bool:
    return all(a is None or np.asarray(a).size == 1 for a in arrays)


def _num(a: np.ndarray) -> str:
    return format_number(np.asarray(a).reshape(-1)[0])


def _operand(a: np.ndarray) -> str:
    """A number written after ``·`` or ``+``: negatives in parentheses, as on a blackboard."""
    text = _num(a)
    return f"({text})" if text.startswith("-") else text


def step_title(trace: Trace, step: int, *, markdown: bool = False) -> str:
    """``Step 3 of 9: ∂out/∂a from ×`` (step 0: the seed at the output).

    ``markdown=True`` escapes the user names so the title can go through Markdown.
    """
    step = validate_step(trace, step)
    name = _namer(trace)
    esc = md_escape if markdown else visible
    last = len(trace.steps) - 1
    s = trace.steps[step]
    r = esc(name(trace.root))
    if s.node is None:
        seed = "1" if np.all(s.contribution == 1) else "given"
        return f"Step 0 of {last}: seed ∂{r}/∂{r} = {seed}"
    return f"Step {step} of {last}: ∂{r}/∂{esc(name(s.parent))} from {esc(op_label(s.node))}"


def explain(trace: Trace, step: int) -> StepExplanation:
    """The explanation of ``trace.steps[step]`` (step 0 is the seed gradient at the output)."""
    step = validate_step(trace, step)
    s = trace.steps[step]
    if s.node is None:
        return _explain_seed(trace, s)
    return _explain_edge(trace, s)


def _explain_seed(trace: Trace, s: TraceStep) -> StepExplanation:
    name = _namer(trace)
    r = name(trace.root)
    shape = trace.root.shape
    doc = _Doc()
    ones = bool(np.all(s.contribution == 1))
    doc.para("The backward pass starts at the output ", N(r), f" (shape {shape_text(shape)}). ",
             "Its gradient with respect to itself is ", C(f"∂{r}/∂{r} = 1" if ones else f"∂{r}/∂{r}"),
             "." if ones else ": the seed gradient given to backward().")
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
    md, txt = doc.render()
    return StepExplanation(0, len(trace.steps), step_title(trace, 0), md, txt, f"∂{r}/∂{r} = 1", r, None, None,
                           "", None, None, s.contribution_raw, s.contribution, s.accumulated, (), s.is_final,
                           step_title(trace, 0, markdown=True))


def _explain_edge(trace: Trace, s: TraceStep) -> StepExplanation:
    name = _namer(trace)
    node, parent = s.node, s.parent
    r, n, p = name(trace.root), name(node), name(parent)
    spec = spec_of(node)
    op = op_label(node)
    prev = list(node._prev)
    generic = input_names(spec, len(prev))
    slot_name = generic[s.slot] if s.slot < len(generic) else f"#{s.slot}"
    formula = derivative_text(spec, s.slot)
    equation = f"∂{r}/∂{p} += ∂{r}/∂{n} · ∂{n}/∂{p}"
    grad_p, grad_n, local_sym = f"∂{r}/∂{p}", f"∂{r}/∂{n}", f"∂{n}/∂{p}"
    doc = _Doc()

    doc.para("The gradient flows from ", N(n), " back through ", C(op), " into its input ", N(p),
             f" (the op's input {slot_name})." if len(prev) > 1 else ".")
    uses = sum(1 for q in prev if q is parent)
    if uses > 1:
        doc.para(N(p), f" is used {uses} times by this op; this step is its use as input {slot_name}. "
                 "Each use adds its own part to the gradient.")
    doc.para("Chain rule: ", C(equation))
    if formula:
        mapping = ", ".join(f"{g} is {name(q)}" for g, q in zip(generic, prev))
        doc.para(f"Registered rule of {spec.symbol if spec else '?'} for this input: ", C(formula),
                 f" (here {output_symbol(spec)} is ", U(n), ", ", U(mapping), ").")

    up, local, product = s.upstream, s.local, s.contribution_raw
    if node is trace.root:
        doc.para("Upstream gradient ", C(grad_n), f" (shape {shape_text(np.shape(up))}): the seed.")
    else:
        doc.para("Upstream gradient ", C(grad_n), f" (shape {shape_text(np.shape(up))}), already final: every "
                 "path from ", U(r), " to ", U(n), " was added before ", U(n), " passes its gradient on:")
    doc.array(up)
    if local is not None and _is_scalarish(up, local, product):
        doc.para("Local derivative ", C(local_sym), f" = {_num(local)}, so the product is ",
                 C(f"{_num(up)} · {_operand(local)} = {_num(product)}"))
    elif local is not None:
        doc.para("Local derivative ", C(local_sym), f" from the formula (shape {shape_text(local.shape)}):")
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

    before, earlier_call = _previous_total(trace, s)
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
        sources = ", ".join(dict.fromkeys(op_label(t.node) for t in later if t.node is not None))
        doc.para(C(grad_p), " is ", B("partial"), f": {len(later)} more contribution{'s' if len(later) != 1 else ''}"
                 " will arrive along other paths (from ", U(sources), ").")
    md, txt = doc.render()
    return StepExplanation(s.index, len(trace.steps), step_title(trace, s.index), md, txt, equation, p, n, op,
                           formula, up, local, product, s.contribution, s.accumulated, tuple(s.summed_axes),
                           s.is_final, step_title(trace, s.index, markdown=True))


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


def _broadcast_para(doc: _Doc, p: str, shape: tuple[int, ...], raw: tuple[int, ...], axes: tuple[int, ...]) -> None:
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
