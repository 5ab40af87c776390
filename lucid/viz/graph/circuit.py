"""The circuit preset of ``to_dot``: a graph drawn like the CS231n backprop notes and micrograd.

Left to right and compact, so a whole circuit fits one slide. Each tensor is a
small borderless table laid on its wire: its name (small, grey), its value in
green, a horizontal rule that *is* the wire (edges attach at both ends of the
rule, through the port ``wire``), and its gradient below the rule, orange while
partial (``◐``) and red once final (``✓``), so the state reads without colour
too. Ops are small circles with their symbol.

It draws the same ``GraphModel`` as the standard preset, so every node and edge
has the same id and the same classes (``lucid.viz.graph.dot`` documents them), and
the size of every node depends only on the program: the gradient text is padded
to the widest gradient the node shows during the whole pass (the standard
labels' rule, ``lucid.viz.graph.labels``), small tensors (up to 8×8) use the same
heatmap grids as the standard labels, with blank cells while the gradient is
pending, and larger tensors show their shape and one ``mean`` line. Every frame
of an animation therefore has the same layout.

The current node gets a thick vermilion border and the node whose gradient is
being pushed a dashed orange one; border width never changes a node's size.
An edge carries a note only where gradients add up: out of a tensor used more than
once (``x*x``), each edge keeps its contribution (``◀ grad += 3.000``) once it has
flowed, so the parts are on screen beside the total below the wire; elsewhere the
gradient below each wire already says it. Non-commutative ops name their input slots
at the op.

Constants are drawn the way CS231n draws them, never as wires named ``t0``: an unnamed
scalar constant that feeds one arithmetic op is folded into that op's gate (``+1``,
``1/x``, ``×2``, ``x²``, ``x−1``; ``constant_gates``), and any other unnamed constant is a
wire labelled ``constant``. A folded constant's node and edge are simply not drawn (the
gate has one input left, so it names no slots).
"""
from __future__ import annotations

import html

import graphviz
import numpy as np

from lucid.autograd import Trace
from lucid.i18n import _
from lucid.viz import numbers as num
from lucid.viz.explanation.opinfo import spec_of
from lucid.viz.graph import statements as dot_lines
from lucid.viz.graph.labels import contribution_note, edge_text, heatmap_table, number_columns
from lucid.viz.graph.naming import constant_text
from lucid.viz.graph.state import FrameState, edge_steps, grads_over_trace
from lucid.viz.graph.structure import GraphModel, OpNode, TensorNode
from lucid.viz.graph.style import (
    CIRCUIT_CONST,
    CIRCUIT_FINAL,
    CIRCUIT_GRAPH_ATTRS,
    CIRCUIT_MARKS,
    CIRCUIT_NAME,
    CIRCUIT_OP_STYLE,
    CIRCUIT_PARTIAL,
    CIRCUIT_PENDING,
    CIRCUIT_PROGRESS_STYLE,
    CIRCUIT_RULE,
    CIRCUIT_VALUE,
    EDGE_NOTE_COLOURS,
    EDGE_STYLE,
    FONT,
    MONO,
    OP_STATE_STYLE,
    PROGRESS_STYLE,
    RED,
)
from lucid.viz.graph.text import NBSP, attribute_text, html_text, shorten

#: The port of a tensor node where its wire (the rule between value and gradient) is.
WIRE = "wire"
GRAD_COLOURS = {"partial": CIRCUIT_PARTIAL, "final": CIRCUIT_FINAL, "nograd": CIRCUIT_PENDING}
#: Least width and height of the cell holding the status mark, in points: more than any mark needs, so the
#: cell keeps this size whichever mark (or none) it shows.
MARK_WIDTH = 14
NUMBER_SIZE = 12
NAME_SIZE = 10
_TABLE = '<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">'


def circuit_dot(model: GraphModel, state: FrameState, trace: Trace | None, *, show_values: bool = True,
                show_grads: bool = True, show_shapes: bool = True, legend: bool = False) -> graphviz.Digraph:
    """The Digraph of one frame in the circuit preset (always left to right; clusters are not drawn)."""
    g = graphviz.Digraph("lucid", graph_attr=dict(CIRCUIT_GRAPH_ATTRS),
                         node_attr={"fontname": FONT, "fontsize": "12", "margin": "0.03,0.02"},
                         edge_attr={"fontname": FONT, "fontsize": "8", "arrowsize": "0.6"})
    all_grads = grads_over_trace(model, trace) if trace is not None else {}
    current = next((k for k, p in state.progress.items() if p == "current"), None)
    current_chain = model.hidden_in.get(current) if current is not None else None
    ops = {op.index: op for op in model.ops}
    gates, folded = constant_gates(model)
    steps = edge_steps(model, trace) if trace is not None else {}
    uses: dict[int, int] = {}
    for edge in model.edges:
        if edge.kind == "input" and edge.parent not in folded:
            uses[edge.parent] = uses.get(edge.parent, 0) + 1
    for node in model.tensors:
        if node.index in folded:
            continue
        op = ops.get(node.index)
        if op is not None:
            _add_op(g, op, node, state, current_chain == op.index, gates.get(op.index))
        _add_tensor(g, node, state, all_grads.get(node.index, []), trace is None,
                    show_values=show_values, show_grads=show_grads, show_shapes=show_shapes, large=model.large)
    for edge in model.edges:
        if edge.kind == "input" and edge.parent in folded:
            continue
        edge_state = state.edge_state.get(edge.id, "static")
        attrs = dict(EDGE_STYLE[edge_state])
        if edge.slot_name and edge.child not in gates:
            attrs["headlabel"] = f'<<FONT POINT-SIZE="8" COLOR="{CIRCUIT_NAME}">{html_text(edge.slot_name)}</FONT>>'
            attrs["labeldistance"] = "1.4"
        if show_grads and edge.id in steps and uses.get(edge.parent, 0) > 1:  # a part of a sum: keeps its number
            attrs["label"] = edge_text(contribution_note(steps[edge.id]), edge_state in ("flowing", "flowed"))
            attrs["fontcolor"] = EDGE_NOTE_COLOURS.get(edge_state, EDGE_NOTE_COLOURS["flowing"])
        tail = f"{edge.tail}:{WIRE}:e" if edge.kind == "input" else edge.tail
        head = f"{edge.head}:{WIRE}:w" if edge.kind == "output" else edge.head
        classes = edge.kind if edge_state == "static" else f"{edge.kind} {edge_state}"
        dot_lines.edge(g, tail, head, id=edge.id, _attributes={"class": classes}, **attrs)
    if legend:
        dot_lines.node(g, "legend", label=legend_label(), id="legend", shape="plain", _attributes={"class": "legend"})
    return g


#: Binary ops that take a scalar constant into their gate, and the gate's text with the constant ``c`` in
#: slot 0 or slot 1 (``x`` is the other, drawn input).
GATE_TEXT = {
    "add": ("+{c}", "+{c}"), "mul": ("×{c}", "×{c}"), "sub": ("{c}−x", "x−{c}"), "div": ("{c}/x", "x/{c}"),
    "pow": ("{c}^x", "x^{c}"),
}
_SQUARES = {"2": "x²", "3": "x³"}


def constant_gates(model: GraphModel) -> tuple[dict[int, str], set[int]]:
    """Which unnamed scalar constants fold into their op's gate: (op index -> gate text, folded tensor indices).

    A constant folds when the program did not name it, it holds one number, it feeds exactly one
    edge, and that edge goes into ``+ − × ÷ **`` whose other input is drawn (``1 / (1 + e)``: ``+1``
    then ``1/x``, as in the CS231n notes).
    """
    uses: dict[int, int] = {}
    for edge in model.edges:
        if edge.kind == "input":
            uses[edge.parent] = uses.get(edge.parent, 0) + 1
    gates: dict[int, str] = {}
    folded: set[int] = set()
    for edge in model.edges:
        k = edge.parent
        if edge.kind != "input" or edge.child in gates or uses.get(k) != 1:
            continue
        node = model.tensor_node(k)
        tensor = model.order[k]
        child = model.order[edge.child]
        spec = spec_of(child)
        if node is None or node.kind != "const" or tensor.name or tensor.size != 1 or spec is None \
                or spec.name not in GATE_TEXT or len(child._prev) != 2 or child._prev[0] is child._prev[1]:
            continue
        other = model.index_of[id(child._prev[1 - edge.slot])]
        if other in folded or model.tensor_node(other) is None:
            continue
        c = constant_text(tensor)
        text = GATE_TEXT[spec.name][edge.slot].format(c=c)
        if spec.name == "pow" and edge.slot == 1 and c in _SQUARES:
            text = _SQUARES[c]
        gates[edge.child] = text.replace("-", "−")
        folded.add(k)
    return gates, folded


def legend_label() -> str:
    """A one-box key to the preset: where values and gradients are, and what the marks mean."""
    def words(text: str) -> str:
        return html.escape(text, quote=False)

    value = f'<FONT COLOR="{CIRCUIT_VALUE}">{words(_("value"))}</FONT>'
    partial = f'<FONT COLOR="{CIRCUIT_PARTIAL}">{CIRCUIT_MARKS["partial"]} {words(_("partial"))}</FONT>'
    final = f'<FONT COLOR="{CIRCUIT_FINAL}">{CIRCUIT_MARKS["final"]} {words(_("final"))}</FONT>'
    rows = [
        words(_("{value} above the wire, gradient below:")).replace("{value}", value),
        words(_("{partial}: more paths to add")).replace("{partial}", partial),
        words(_("{final}: all paths added, — not here yet")).replace("{final}", final),
        words(_("thick border: gradient arriving; dashed: leaving")),
    ]
    return ('<<TABLE BORDER="1" COLOR="#BBBBBB" CELLBORDER="0" CELLSPACING="0" CELLPADDING="2">'
            f'<TR><TD ALIGN="LEFT"><B>{words(_("Legend"))}</B></TD></TR>'
            + "".join(f'<TR><TD ALIGN="LEFT">{row}</TD></TR>' for row in rows) + "</TABLE>>")


#: Op texts up to this long (``+``, ``exp``, ``tanh``, ``mean``) sit in a circle; longer ones (``softmax(axis=1)``,
#: a collapsed chain) in a rounded box as high as a small circle, which would otherwise grow huge.
CIRCLE_TEXT = 5


def op_width(text: str) -> float:
    """Diameter of an op circle, in inches: small for a symbol, wide enough for ``tanh`` or ``mean``."""
    return round(max(0.32, 0.14 + 0.09 * len(text)), 2)


def _add_op(g: graphviz.Digraph, op: OpNode, node: TensorNode, state: FrameState, holds_current: bool,
            gate: str | None = None) -> None:
    op_state = state.op_state.get(op.index)
    text = gate or op.text
    classes = ["op"] + ([op_state] if op_state else []) + (["chain"] if op.is_chain else [])
    attrs = dict(CIRCUIT_OP_STYLE)
    if op.is_chain or len(text) > CIRCLE_TEXT:
        attrs.update(shape="box", style="rounded,filled", fixedsize="false", height="0.32", margin="0.05,0.02",
                     fontsize="11")
    else:
        attrs["width"] = attrs["height"] = str(op_width(text))
    attrs.update(OP_STATE_STYLE.get(op_state or "", {}))
    if holds_current:
        classes.append("current")
        attrs.update(PROGRESS_STYLE["current"])
    spec = spec_of(node.tensor)
    tip = spec.formula if spec is not None and not op.is_chain else op.text
    dot_lines.node(g, op.id, label=f"<{html_text(text)}>", id=op.id, _attributes={"class": " ".join(classes)},
           tooltip=attribute_text(shorten(tip, 200)), **attrs)


def _add_tensor(g: graphviz.Digraph, node: TensorNode, state: FrameState, history: list[np.ndarray],
                static: bool, *, show_values: bool, show_grads: bool, show_shapes: bool, large: bool) -> None:
    t = node.tensor
    k = node.index
    if static and t.grad is not None:
        history = [t.grad]
    status = state.grad_status.get(k, "nograd")
    name = "constant" if node.kind == "const" and not t.name else node.label  # never a wire named t0
    label = wire_label(name, node.kind, t.data, grad=state.grads.get(k), grad_status=status,
                       grad_history=history, has_grad=t.requires_grad, show_values=show_values,
                       show_grads=show_grads, show_shapes=show_shapes, grids=not large)
    classes = [node.kind]
    attrs = {"shape": "box", "style": "rounded", "color": "transparent", "margin": "0.02,0.01"}
    if state.traced:
        progress = state.progress[k]
        classes.append(progress)
        attrs.update(CIRCUIT_PROGRESS_STYLE[progress])
        if state.source == k and progress != "current":
            classes.append("source")
            attrs.update(CIRCUIT_PROGRESS_STYLE["source"])
    classes.append(status)
    if num.has_nonfinite(t.data):
        classes.append("nan")
    tip = f"{node.label}: {node.kind}, shape {num.shape_text(t.shape)}" if node.kind != "intermediate" else \
        f"{node.label}: shape {num.shape_text(t.shape)}"
    dot_lines.node(g, node.id, label=label, id=node.id, _attributes={"class": " ".join(classes)},
           tooltip=attribute_text(shorten(tip, 200)), **attrs)


def _mono(text: str, colour: str, size: int = NUMBER_SIZE) -> str:
    return (f'<FONT FACE="{MONO}" POINT-SIZE="{size}" COLOR="{colour}">'
            f"{html_text(text, keep_spaces=True)}</FONT>")


def _number_text(a: np.ndarray, width: int, grids: bool) -> str:
    """A scalar (``-4.000``), or for a tensor not drawn as a grid its mean (``mean 0.1235``)."""
    a = np.asarray(a, dtype=np.float64)
    if a.ndim == 0:
        return num.format_number(a).rjust(width)
    summary = num.summary_numbers(a) if a.size else None
    mean = "nan" if summary is None else num.format_number(summary[1])
    return _("mean {value}").format(value=mean.rjust(width))


def wire_label(name: str, kind: str, data: np.ndarray, *, grad: np.ndarray | None, grad_status: str,
               grad_history: list[np.ndarray], has_grad: bool, show_values: bool = True, show_grads: bool = True,
               show_shapes: bool = True, grids: bool = True) -> str:
    """The HTML label of one tensor: name, value above the rule (port ``wire``), gradient and mark below.

    ``grad_history`` holds every gradient the node shows during the animation, so
    the gradient cell reserves room for the widest of them. Constants (no
    gradient) keep an empty row of the same height below the rule, so their
    wire stays in the middle of the node.
    """
    data = np.asarray(data)
    heat = grids and data.ndim >= 1 and num.is_grid(data.shape)
    width = number_columns([data, *grad_history])
    nonfinite = num.has_nonfinite(data)
    name_text = html_text(name) if kind != "output" else f"<B>{html_text(name)}</B>"
    meta = num.shape_text(data.shape) if show_shapes and data.ndim else ""
    head = name_text + (f" · {html_text(meta)}" if meta else "") + (" ⚠ NaN/inf" if nonfinite else "")
    name_colour = RED if nonfinite else CIRCUIT_NAME
    span = ' COLSPAN="2"'
    rows = [f'<TR><TD{span}><FONT POINT-SIZE="{NAME_SIZE}" COLOR="{name_colour}">{head}</FONT></TD></TR>']

    value_colour = RED if nonfinite else (CIRCUIT_CONST if kind == "const" else CIRCUIT_VALUE)
    if show_values:
        cell = heatmap_table(data, data.shape, width) if heat else _mono(_number_text(data, width, grids),
                                                                             value_colour)
        rows.append(f"<TR><TD{span}>{cell}</TD></TR>")
    rows.append(f'<TR><TD{span} PORT="{WIRE}" HEIGHT="2" CELLPADDING="0" BGCOLOR="{CIRCUIT_RULE}"></TD></TR>')

    if show_grads and has_grad:
        colour = GRAD_COLOURS.get(grad_status, CIRCUIT_PENDING)
        if grad is not None and num.has_nonfinite(grad):
            colour = RED
        if heat:
            cell = heatmap_table(grad, data.shape, width)
        else:
            history = grad_history or [np.zeros(data.shape)]
            reserved = max(len(_number_text(h, width, grids)) for h in history)
            text = "—".rjust(reserved) if grad is None else _number_text(grad, width, grids).rjust(reserved)
            cell = _mono(text, colour)
        mark = CIRCUIT_MARKS.get(grad_status, "")
        mark_cell = (f'<TD WIDTH="{MARK_WIDTH}" HEIGHT="{MARK_WIDTH}" ALIGN="RIGHT" VALIGN="MIDDLE" '
                     f'><FONT POINT-SIZE="{NUMBER_SIZE}" COLOR="{colour}">{mark or NBSP}</FONT></TD>')
        rows.append(f"<TR><TD>{cell}</TD>{mark_cell}</TR>")
    elif show_values and not heat:  # balance the value row so the wire runs through the middle
        rows.append(f"<TR><TD{span}>{_mono(NBSP, CIRCUIT_PENDING)}</TD></TR>")
    rows.append(f'<TR><TD{span}><FONT POINT-SIZE="{NAME_SIZE}">{NBSP}</FONT></TD></TR>')
    return "<" + _TABLE + "".join(rows) + "</TABLE>>"
