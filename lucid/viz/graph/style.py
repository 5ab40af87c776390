"""Colours, shapes and line styles, and the legend that explains them.

Colours come from the Okabe–Ito palette (distinguishable with the common kinds
of colour blindness) in light fills that stay readable on a washed-out
projector. Colour is never the only signal: each kind also has its own border
(rounded, dashed, double) and a word in the label, and each state changes the
line width or dash pattern and a word (``partial``/``final``/``pending``).
"""
from __future__ import annotations

import html

import graphviz

from lucid.i18n import N_, _

BLUE, ORANGE, GREEN, VERMILLION, GREY, RED = "#0072B2", "#B87700", "#009E73", "#D55E00", "#7F7F7F", "#B71C1C"
#: Contrast (WCAG 2.1 AA, measured over every drawing by ``tests/viz/test_contrast.py``): every text colour here
#: reaches 4.5:1 on every fill it is drawn on, and every border or line that carries a state 3:1 on the page.
#: So ORANGE is the Okabe–Ito orange darkened (#E69F00 is 2.2:1 on white) and RED a deep red (#D62728 was 4.2:1 on
#: an output's green fill); VERMILLION stays for lines and borders (3.9:1), never for text (VERMILLION_TEXT).
VERMILLION_TEXT = "#A84400"
FONT = "Helvetica"
MONO = "Courier"

#: Per kind: DOT node attributes that never change between frames (shape, border style, fill).
KIND_STYLE: dict[str, dict[str, str]] = {
    "leaf": {"shape": "box", "style": "rounded,filled", "fillcolor": "#D7EAF8", "color": BLUE},
    "const": {"shape": "box", "style": "filled,dashed", "fillcolor": "#EFEFEF", "color": GREY},
    "intermediate": {"shape": "box", "style": "filled", "fillcolor": "#FFFFFF", "color": "#4D4D4D"},
    "output": {"shape": "box", "style": "rounded,filled", "fillcolor": "#D5F0E3", "color": GREEN,
               "peripheries": "2"},
    "op": {"shape": "ellipse", "style": "filled", "fillcolor": "#FFF4CC", "color": "#8A6A00"},
}
#: Nodes of a recorded backward pass (``grad(y, x)`` in a program): the Okabe–Ito reddish purple, in a
#: cluster of their own whose label says what they are (so colour is not the only signal).
PURPLE = "#CC79A7"
DERIVATIVE_STYLE = {"fillcolor": "#F7EAF3", "color": "#A0527F"}
DERIVATIVE_OP_STYLE = {"fillcolor": "#EBCFE1", "color": "#A0527F"}
DERIVATIVE_CLUSTER = N_("∂ backward pass, recorded by grad(…)")  # the cluster's key; its label is ``_`` of it
DERIVATIVE_CLUSTER_ATTRS = {"style": "rounded,filled", "color": PURPLE, "fillcolor": "#FCF5FA",
                            "fontcolor": "#7A3B62", "class": "derivative"}

#: Words shown in a tensor's label so the kind reads without colour.
KIND_WORD = {"leaf": N_("leaf"), "const": N_("const"), "intermediate": "", "output": N_("output")}

#: Per progress state: the border (colour, width). Widths never change a node's size in dot.
PROGRESS_STYLE = {
    "current": {"color": VERMILLION, "penwidth": "4"},
    "source": {"color": ORANGE, "penwidth": "2.5"},
    "done": {"penwidth": "1.5"},
    "pending": {"penwidth": "1"},
}
OP_STATE_STYLE = {
    "active": {"color": VERMILLION, "penwidth": "3", "fillcolor": "#FBD9C4"},
    "done": {"penwidth": "1.2"},
    "pending": {"penwidth": "1"},
}
#: Gradient text colour and cell background per gradient status (the status word is shown too).
#: "pending" is a mid grey that still reads at 4.6:1 on the darkest fill it sits on (a derivative op's).
PENDING_TEXT = "#5C5C5C"
GRAD_COLOURS = {"partial": ("#9C4A00", "#FFEFD2"), "final": ("#004F7C", "#E1F0FA"), "nograd": (PENDING_TEXT, "")}

#: Heatmap cells of small tensors: positive values blue, negative vermillion, the fill's strength grows
#: with |value| relative to the largest |value| shown. Exact zeros (a ReLU mask, a dead gradient) are grey.
#: The number stays in the cell (and its sign), so colour is never the only signal; fills stay light
#: enough that HEAT_TEXT on the strongest one keeps a contrast ratio above 7:1.
HEAT_POSITIVE, HEAT_NEGATIVE, HEAT_ZERO, HEAT_TEXT = BLUE, VERMILLION, "#E4E4E4", "#111111"
HEAT_MIN_MIX, HEAT_MAX_MIX = 0.08, 0.55


def _mix(colour: str, amount: float) -> str:
    """``colour`` blended with white: 0 is white, 1 is the colour itself."""
    rgb = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(255 + (c - 255) * amount):02X}" for c in rgb)


def heat_colour(value: float, scale: float) -> str:
    """The fill of a heatmap cell for ``value`` when the largest |value| shown is ``scale``."""
    if value != value or value in (float("inf"), float("-inf")):
        return "#FFFFFF"
    if value == 0:
        return HEAT_ZERO
    strength = min(abs(value) / scale, 1.0) if scale > 0 else 1.0
    return _mix(HEAT_POSITIVE if value > 0 else HEAT_NEGATIVE, HEAT_MIN_MIX + (HEAT_MAX_MIX - HEAT_MIN_MIX) * strength)


#: The circuit preset (``lucid.viz.graph.circuit``), after the CS231n backprop notes: values in green above each
#: wire, gradients below it, orange while partial and red once final (a mark says the same without colour).
CIRCUIT_VALUE, CIRCUIT_PARTIAL, CIRCUIT_FINAL, CIRCUIT_PENDING = "#17803A", "#B35900", "#C62828", PENDING_TEXT
CIRCUIT_NAME, CIRCUIT_RULE, CIRCUIT_CONST = "#555555", "#3A3A3A", "#6B6B6B"
#: The mark after a gradient: half done (more contributions to come), or all paths added.
CIRCUIT_MARKS = {"partial": "◐", "final": "✓", "nograd": ""}
#: Tensor nodes carry no border of their own; the current one and the source get one (width, not size).
CIRCUIT_PROGRESS_STYLE = {
    "current": {"color": VERMILLION, "penwidth": "3"},
    "source": {"color": ORANGE, "penwidth": "2", "style": "rounded,dashed"},
    "done": {},
    "pending": {},
}
CIRCUIT_OP_STYLE = {"shape": "circle", "fixedsize": "true", "style": "filled", "fillcolor": "#FFFFFF",
                    "color": "#3A3A3A", "penwidth": "1.2", "fontsize": "12"}
CIRCUIT_GRAPH_ATTRS = {"bgcolor": "white", "fontname": FONT, "nodesep": "0.12", "ranksep": "0.2",
                       "outputorder": "edgesfirst", "class": "lucid-graph lucid-circuit", "rankdir": "LR"}


EDGE_STYLE = {
    "flowing": {"color": VERMILLION, "penwidth": "3.5", "style": "bold"},
    "active": {"color": ORANGE, "penwidth": "2.5", "style": "solid"},
    "flowed": {"color": BLUE, "penwidth": "1.6", "style": "solid"},
    "pending": {"color": "#808080", "penwidth": "1.2", "style": "dashed"},
    "nograd": {"color": "#8A8A8A", "penwidth": "1", "style": "dotted"},
    "static": {"color": "#555555", "penwidth": "1.2", "style": "solid"},
}
#: The note on an edge (its gradient contribution): loud while it flows, calm once it has flowed.
EDGE_NOTE_COLOURS = {"flowing": VERMILLION_TEXT, "flowed": "#35607F"}

GRAPH_ATTRS = {"bgcolor": "white", "fontname": FONT, "nodesep": "0.3", "ranksep": "0.35",
               "forcelabels": "true", "outputorder": "edgesfirst", "class": "lucid-graph"}
NODE_ATTRS = {"fontname": FONT, "fontsize": "12", "margin": "0.06,0.03"}
EDGE_ATTRS = {"fontname": FONT, "fontsize": "10", "arrowsize": "0.7"}


def legend() -> graphviz.Digraph:
    """A small picture of every kind, state and edge style, to show beside the graph."""
    g = graphviz.Digraph("legend", graph_attr={**GRAPH_ATTRS, "rankdir": "LR", "class": "lucid-legend",
                                               "nodesep": "0.12", "ranksep": "0.3"},
                         node_attr={**NODE_ATTRS, "fontsize": "11"}, edge_attr=EDGE_ATTRS)
    add_legend(g, "legend")
    return g


def add_legend(g: graphviz.Digraph, prefix: str) -> None:
    """Draw the legend's entries into ``g`` (a graph or a cluster laid out left to right); ids start with ``prefix``.

    Two columns: node kinds and states on the left, edge styles on the right.
    """
    nodes = [
        ("leaf", KIND_STYLE["leaf"], {}, N_("leaf: input that requires grad (rounded)")),
        ("const", KIND_STYLE["const"], {}, N_("const: input without gradient (dashed)")),
        ("intermediate", KIND_STYLE["intermediate"], {}, N_("intermediate result (square)")),
        ("output", KIND_STYLE["output"], {}, N_("output (double border)")),
        ("op", KIND_STYLE["op"], {}, N_("operation (ellipse)")),
        ("current", KIND_STYLE["intermediate"], PROGRESS_STYLE["current"], N_("current: gradient arriving (thick)")),
        ("source", KIND_STYLE["intermediate"], PROGRESS_STYLE["source"], N_("source: gradient leaving (medium)")),
        ("partial", KIND_STYLE["intermediate"], {}, N_("grad partial: more paths to add")),
        ("final", KIND_STYLE["intermediate"], {}, N_("grad final: all paths added")),
        ("nan", {**KIND_STYLE["intermediate"], "color": RED}, {}, N_("⚠ NaN/inf (red text)")),
    ]
    column = graphviz.Digraph(name=f"{prefix}_nodes", graph_attr={"rank": "same"})
    names = []
    for key, base, extra, words in nodes:
        text = _(words)
        colour = {"partial": GRAD_COLOURS["partial"][0], "final": GRAD_COLOURS["final"][0], "nan": RED}.get(key)
        label = text if colour is None else f'<<FONT COLOR="{colour}">{html.escape(text, quote=False)}</FONT>>'
        name = f"{prefix}_{key}"
        column.node(name, label=label, id=name, **{**base, **extra})
        names.append(name)
    for a, b in zip(names, names[1:]):
        column.edge(a, b, style="invis")
    g.subgraph(column)
    tails = graphviz.Digraph(name=f"{prefix}_tails", graph_attr={"rank": "same"})
    heads = graphviz.Digraph(name=f"{prefix}_heads", graph_attr={"rank": "same"})
    edges = [("flowing", N_("◀ grad += gradient flowing now (thick)")),
             ("flowed", N_("gradient has flowed (solid, keeps its number)")),
             ("pending", N_("gradient not here yet (dashed)")), ("nograd", N_("no gradient: into a constant (dotted)"))]
    previous = None
    for key, words in edges:
        text = _(words)
        tail, head = f"{prefix}_{key}_from", f"{prefix}_{key}_to"
        tails.node(tail, label="", shape="point", width="0.06", id=tail)
        heads.node(head, label=text, shape="plaintext", id=head)
        if previous is not None:
            tails.edge(previous, tail, style="invis")
        previous = tail
    g.subgraph(tails)
    g.subgraph(heads)
    for key, _words in edges:
        g.edge(f"{prefix}_{key}_from", f"{prefix}_{key}_to", id=f"{prefix}_{key}_edge", minlen="2",
               **EDGE_STYLE[key])
    g.edge(names[0], f"{prefix}_flowing_from", style="invis")
