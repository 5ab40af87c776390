"""The whole backward pass as one piece of plain data that a browser can play without the server.

``build_animation(root, trace, **options)`` lays the graph out ONCE (one ``dot``
run on the first frame) and records, per step, only what changes: which drawn
elements (nodes and edges) change their look, the current node, the edge the
gradient flows along, and the step's explanation, already rendered as HTML.

How the per-step looks stay faithful to ``to_dot`` without a layout per step:
``to_dot`` gives every frame the same structure and label sizes, so a node's
picture at any step is its picture drawn anywhere, moved to its place. Every
distinct look of a node (a *variant*: its DOT statement at some step) is drawn
once, all variants in a second graph, and moved into place with a
translation. An edge keeps its path; a variant of an edge takes the colours,
widths, dashes and label text from the same second graph and the geometry from
the laid-out graph. Both graphs go to the same ``dot`` run (``to_svgs``): one ``dot`` process per
program, whatever the number of steps.

Everything placed in the SVG comes from Graphviz output that went through an
XML parser and serializer (comments dropped, text and attributes re-escaped),
and ``lucid.viz`` escapes user names before they reach the DOT. The explanation
HTML escapes user text too (``StepExplanation.html`` or the plain-text fallback).

A graph that ``to_dot`` draws collapsed (past its node cap, or with ``expanded`` given:
``lucid.viz.graph.collapse``) is played at the collapsed level: one step of the animation per
collapsed step (the gradient working through a box and leaving it, or one gradient of a
node drawn on its own), laid out from ONE ``CollapsedView``. ``Animation.trace_steps``
then says which step of the backward trace each animation step ends at, so the page can
keep talking in trace steps (links, the node inspector) whatever boxes are open.
"""
from __future__ import annotations

import bisect
import html
import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any

import graphviz

from lucid._tensor.tensor import Tensor
from lucid.autograd import Trace
from lucid.i18n import _
from lucid.viz.errors import RenderError
from lucid.viz.explanation.explain import explain
from lucid.viz.explanation.lens_card import node_card
from lucid.viz.export.pictures import to_svg, to_svgs
from lucid.viz.graph.collapse import CollapsedView, collapsed_dot, describe_step
from lucid.viz.graph.dot import to_dot
from lucid.viz.player.node_text import collapsed_node_texts, node_texts

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", XLINK_NS)

#: Attributes that place an element; an edge variant keeps these from the laid-out graph.
GEOMETRY = frozenset({"d", "points", "x", "y", "cx", "cy", "rx", "ry", "width", "height", "transform",
                      "x1", "x2", "y1", "y2"})

_NODE = re.compile(r"^\s*([A-Za-z_][\w]*) \[(.*)\]\s*$", re.S)
#: An edge statement; its ends may name a port (the circuit preset's ``t3:wire:e -> op4``).
_EDGE = re.compile(r"^\s*([A-Za-z_][\w]*)(?::\w+)* -> ([A-Za-z_][\w]*)(?::\w+)* \[(.*)\]\s*$", re.S)
_ID = re.compile(r'(?:^| )id=("?)([A-Za-z_][\w]*)\1(?= |$)')
_CLASS = re.compile(r'(?:^| )class="([^"]*)"\s*$')
_POINT = re.compile(r"-?\d+(?:\.\d+)?")


class AnimationError(RenderError):
    """The frames could not be turned into one layout plus per-step changes (should never happen)."""


@dataclass
class Animation:
    """One laid-out SVG and, per step, only what changes. Plain data: ``to_json()`` is what the browser gets.

    - ``svg``: the graph at step 0 (or without a trace: the forward graph), laid out once.
    - ``variants``: ``(element id, class, inner SVG)`` looks of nodes and edges that some step shows.
    - ``changes[k]``: variant indices to apply when moving from step ``k-1`` to ``k`` (empty for step 0).
    - ``current[k]`` / ``edge[k]``: the node receiving gradient and the edge it flows along (or None).
    - ``titles[k]`` / ``explanations[k]``: the step's title (plain text) and explanation (safe HTML).
    - ``cards[k]``: the node receiving gradient redrawn as HTML for the lens (``explanation.lens_card``; '' when
      the lens magnifies the graph itself); empty for drawings that carry none (collapsed ones).
    - ``trace_steps[k]``: the last step of the backward trace that step ``k`` shows (empty: step ``k`` IS
      trace step ``k``; set when the graph is played collapsed, where one step covers a run of trace steps).
    - ``nodes``: the graph as text for a screen reader (``lucid.viz.player.node_text``: each drawn tensor's name,
      op, value, inputs and users, and every trace step's gradient; a collapsed drawing's boxes by name only).
    - ``collapsed``: for a collapsed drawing, what it draws (``drawn`` nodes, ``boxes`` and their ``box_ids``,
      ``open`` groups,
      ``expanded`` keys, groups ``closed_for_budget``, ``tensors``); None for a full drawing.
    """

    svg: str
    variants: list[tuple[str, str, str]] = field(default_factory=list)
    changes: list[list[int]] = field(default_factory=list)
    current: list[str | None] = field(default_factory=list)
    edge: list[str | None] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)
    explanations: list[str] = field(default_factory=list)
    trace_steps: list[int] = field(default_factory=list)
    collapsed: dict[str, Any] | None = None
    cards: list[str] = field(default_factory=list)
    nodes: dict[str, Any] | None = None

    @property
    def n_steps(self) -> int:
        return len(self.changes)

    def trace_step(self, step: int) -> int:
        """The trace step that animation step ``step`` ends at (the state it shows)."""
        return self.trace_steps[step] if self.trace_steps else step

    def step_for_trace(self, trace_step: int) -> int:
        """The animation step that shows trace step ``trace_step`` (clamped into range)."""
        if not self.trace_steps:
            return max(0, min(int(trace_step), max(self.n_steps - 1, 0)))
        return min(bisect.bisect_left(self.trace_steps, int(trace_step)), len(self.trace_steps) - 1)

    def to_json(self) -> dict[str, Any]:
        """The payload for the browser (only JSON types)."""
        return {"svg": self.svg, "variants": [list(v) for v in self.variants], "changes": self.changes,
                "current": self.current, "edge": self.edge, "titles": self.titles,
                "explanations": self.explanations, "trace_steps": self.trace_steps, "collapsed": self.collapsed,
                "cards": self.cards, "nodes": self.nodes}

    def payload_bytes(self) -> int:
        """Size of the JSON payload in bytes (what one browser downloads for this program)."""
        return len(json.dumps(self.to_json(), ensure_ascii=False, separators=(",", ":")).encode("utf-8"))

    def approx_bytes(self) -> int:
        """Memory the animation keeps (its strings dominate), for cache budgets."""
        texts = [self.svg, *self.titles, *self.explanations, *self.cards, *(v[2] for v in self.variants)]
        return sum(len(t) for t in texts) * 2 + 64 * sum(len(c) + 1 for c in self.changes) + 4096

    def frame_svg(self, step: int) -> str:
        """The SVG of ``step`` rebuilt from the layout and the variants, as the browser shows it."""
        root = ET.fromstring(self.svg)
        groups = {g.get("id"): g for g in root.iter(f"{{{SVG_NS}}}g")}
        looks: dict[str, int] = {}
        for k in range(1, step + 1):
            for v in self.changes[k]:
                looks[self.variants[v][0]] = v
        for element_id, v in looks.items():
            _eid, cls, inner = self.variants[v]
            group = groups[element_id]
            title = group.find(f"{{{SVG_NS}}}title")
            for child in list(group):
                group.remove(child)
            if title is not None:
                group.append(title)
            group.set("class", cls)
            holder = ET.fromstring(f'<g xmlns="{SVG_NS}" xmlns:xlink="{XLINK_NS}">{inner}</g>')
            group.extend(list(holder))
        return _serialize(root, fragment=False)


def step_html(expl: Any) -> str:
    """The explanation of one step as safe HTML: ``expl.html`` when lucid.viz provides it, else escaped text.

    The step's title travels apart (``Animation.titles``); the plain text's first line repeats it, so the
    fallback leaves that line out.
    """
    ready = getattr(expl, "html", None)
    if isinstance(ready, str) and ready:
        return ready
    text = expl.text
    first, _nl, rest = text.partition("\n")
    if first.strip() == expl.title.strip():
        text = rest.lstrip("\n")
    return f'<div class="lucid-expl-text" style="white-space: pre-wrap">{html.escape(text)}</div>'


def build_animation(root: Tensor | None, trace: Trace | None = None, **options: Any) -> Animation:
    """Lay out the graph of ``root`` once and record every step of ``trace`` as changes to that layout.

    ``options`` are ``to_dot``'s drawing options (direction, show_values, large, expanded, ...). A graph
    that ``to_dot`` draws collapsed is played at the collapsed level (``build_collapsed_animation``).
    Raises ``GraphTooLarge``/``RenderError``/``GraphvizNotInstalled`` like ``to_dot``/``to_svg``.
    """
    expanded = options.pop("expanded", None)
    direction = options.get("direction", "LR")
    if root is None and trace is not None:
        root = trace.root
    if expanded is not None and options.get("large", "auto") is not False:
        return build_collapsed_animation(CollapsedView(root, trace, expanded), direction=direction)
    if trace is None:
        graph = to_dot(root, None, None, **options)
        if _is_collapsed(graph):
            return build_collapsed_animation(CollapsedView(root, None, ()), direction=direction)
        return Animation(svg=_clean_svg(to_svg(graph)))
    n = len(trace.steps)
    node_cache: dict = {}  # a node's DOT statements, reused by every frame where its state is the same
    first = to_dot(root, trace, 0, node_cache=node_cache, **options)
    if _is_collapsed(first):  # past the node cap or the layout budget: boxes, stepped box by box
        return build_collapsed_animation(CollapsedView(root, trace, ()), direction=direction)
    frames = [first] + [to_dot(root, trace, k, node_cache=node_cache, **options) for k in range(1, n)]
    svg, variants, changes, current, edge = _animate(frames)
    explanations, titles, cards = [], [], []
    for k in range(n):
        expl = explain(trace, k)
        titles.append(expl.title)
        explanations.append(step_html(expl))
        cards.append(node_card(trace, expl))
    nodes = node_texts(root, trace, **options)
    return Animation(svg, variants, changes, current, edge, titles, explanations, cards=cards, nodes=nodes)


def build_collapsed_animation(view: CollapsedView, *, direction: str = "LR") -> Animation:
    """The backward pass of ``view`` (one set of open groups) played one collapsed step at a time.

    One frame per ``view.steps`` entry, all drawn from the same view (so one layout); the title of a
    step says where the gradient is and where it goes in the drawing's names, and its explanation
    adds the chain rule of the last trace step it covers (the one that leaves the box).
    """
    box_ids = [u for u in view.units if u.startswith("g")]
    info = {"drawn": view.node_count, "boxes": len(box_ids), "box_ids": box_ids,
            "open": len(view.open_groups), "expanded": sorted(view.expanded),
            "closed_for_budget": list(view.closed_for_budget), "tensors": len(view.order)}
    if view.trace is None or not view.steps:
        return Animation(svg=_clean_svg(to_svg(collapsed_dot(view, None, direction=direction))), collapsed=info)
    trace = view.trace
    statements: dict = {}  # a box's, node's or edge's DOT statement, reused by every frame where it looks the same
    frames = [collapsed_dot(view, c, direction=direction, statements=statements) for c in range(len(view.steps))]
    svg, variants, changes, current, edge = _animate(frames)
    titles, explanations = [], []
    for c in view.steps:
        expl = explain(trace, c.last)
        if c.size == 1 and not c.unit.startswith("g"):
            titles.append(expl.title)
            explanations.append(step_html(expl))
            continue
        summary = describe_step(view, c.index)
        title = summary.split(": ", 1)[-1].rsplit(" (", 1)[0].rstrip(".")
        titles.append(title[:1].upper() + title[1:])
        grp = view.group_of_unit(c.unit)
        span = (_("Trace step {k}.").format(k=c.first) if c.size == 1 else
                _("Trace steps {first}–{last} ({n} gradient steps).").format(first=c.first, last=c.last, n=c.size))
        lines = [f"<p>{html.escape(span)}"]
        if grp is not None:
            closed = (_("The box {label} ({n} nodes) is closed: click it to open it and follow each step inside it.")
                      if c.size > 1 else
                      _("The box {label} ({n} nodes) is closed: click it to open it and follow the gradient inside "
                        "it."))
            pieces = closed.replace("{n}", f"{grp.size:,}").split("{label}")  # the label in bold, escaped
            lines.append(" " + f"<b>{html.escape(grp.label)}</b>".join(html.escape(x) for x in pieces))
        lines.append("</p>")
        if c.size > 1:
            last = html.escape(_("The last of them, trace step {k}:").format(k=c.last))
            lines.append(f'<p class="lucid-expl-last"><b>{last}</b> {html.escape(expl.title)}</p>')
        lines.append(step_html(expl))
        explanations.append("".join(lines))
    return Animation(svg, variants, changes, current, edge, titles, explanations,
                     trace_steps=[c.last for c in view.steps], collapsed=info, nodes=collapsed_node_texts(view))


def _is_collapsed(graph: graphviz.Digraph) -> bool:
    """Whether ``to_dot`` drew this graph collapsed into boxes (``lucid.viz.graph.collapse`` marks it)."""
    return "lucid-collapsed" in str(graph.graph_attr.get("class", "")).split()


def _animate(frames: list[graphviz.Digraph]) -> tuple[str, list[tuple[str, str, str]], list[list[int]],
                                                       list[str | None], list[str | None]]:
    """One layout (the first frame's) and, per frame, the variants that change: the drawing part."""
    statements = [_statements(f) for f in frames]
    base = frames[0]

    variant_of: dict[tuple[str, str], int] = {}
    pending: list[tuple[str, str, str, str]] = []  # (element id, kind, dot line, class)
    changes: list[list[int]] = [[]]
    shown = {eid: line for eid, (_, line, _) in statements[0].items()}
    classes = [{eid: _class_of(line) for eid, (_, line, _) in statements[0].items()}]
    for k in range(1, len(frames)):
        now = statements[k]
        if now.keys() != statements[0].keys():
            raise AnimationError("a frame draws different elements than the first one")
        step_changes = []
        cls_now = dict(classes[-1])
        for eid, (kind, line, _attrs) in now.items():
            if shown[eid] == line:
                continue
            key = (eid, line)
            if key not in variant_of:
                variant_of[key] = len(pending)
                pending.append((eid, kind, line, _class_of(line)))
            step_changes.append(variant_of[key])
            shown[eid] = line
            cls_now[eid] = _class_of(line)
        changes.append(step_changes)
        classes.append(cls_now)

    # the layout and every variant in one dot run (the variants' graph is named: the layout's number stays)
    if pending:
        laid_out, drawn = to_svgs([base, _variants_source(base, pending)])
    else:
        laid_out, drawn = to_svg(base), None
    svg_root = ET.fromstring(laid_out)
    groups = {g.get("id"): g for g in svg_root.iter(f"{{{SVG_NS}}}g")}
    variants = _fit_variants(drawn, pending, groups)
    current = [next((e for e, c in cl.items() if "current" in c.split()), None) for cl in classes]
    edge = [next((e for e, c in cl.items() if "flowing" in c.split()), None) for cl in classes]
    return _serialize(svg_root, fragment=False), variants, changes, current, edge


def _statements(graph: graphviz.Digraph) -> dict[str, tuple[str, str, str]]:
    """Element id -> (``node``/``edge``, DOT statement, DOT name) for every node and edge of a frame."""
    out: dict[str, tuple[str, str, str]] = {}
    for line in graph.body:
        edge = _EDGE.match(line)
        if edge:
            m = _ID.search(edge.group(3))
            if m:
                out[m.group(2)] = ("edge", line, f"{edge.group(1)}->{edge.group(2)}")
            continue
        node = _NODE.match(line)
        if node and node.group(1) not in ("graph", "node", "edge"):
            out[node.group(1)] = ("node", line, node.group(1))
    return out


def _class_of(line: str) -> str:
    m = _CLASS.search(line.rstrip().rstrip("]"))
    return m.group(1) if m else ""


def _variants_source(base: graphviz.Digraph, pending: list[tuple[str, str, str, str]]) -> str:
    """The DOT of every variant, each on its own (a graph named ``variants``), with the base's default styles."""
    head = [line for line in base.source.splitlines()[1:4]
            if line.lstrip().startswith(("graph [", "node [", "edge ["))]
    body = []
    for j, (_eid, kind, line, _attrs) in enumerate(pending):
        if kind == "node":
            body.append(_NODE.sub(lambda m, j=j: f"\tv{j} [{m.group(2)}]", line.strip("\n")))
        else:
            body.append(f'\tva{j} [shape=point width=0.02 label=""]\n\tvb{j} [shape=point width=0.02 label=""]')
            body.append(_EDGE.sub(lambda m, j=j: f"\tva{j} -> vb{j} [{m.group(3)}]", line.strip("\n")))
    return "digraph variants {\n" + "\n".join(head) + "\n" + "\n".join(body) + "\n}\n"


def _fit_variants(svg: bytes | None, pending: list[tuple[str, str, str, str]],
                  groups: dict[str | None, ET.Element]) -> list[tuple[str, str, str]]:
    """Fit every variant drawn in ``svg`` (``_variants_source``'s picture) into the laid-out graph."""
    if not pending or svg is None:
        return []
    drawn = ET.fromstring(svg)
    by_title: dict[str, ET.Element] = {}
    for g in drawn.iter(f"{{{SVG_NS}}}g"):
        title = g.find(f"{{{SVG_NS}}}title")
        if title is not None and title.text:
            by_title[title.text] = g
    out = []
    for j, (eid, kind, _line, cls) in enumerate(pending):
        target = groups.get(eid)
        if target is None:
            raise AnimationError(f"element {eid} is missing from the laid-out graph")
        if kind == "node":
            drawn_group = by_title.get(f"v{j}")
            if drawn_group is None:
                raise AnimationError(f"variant of {eid} was not drawn")
            out.append((eid, drawn_group.get("class", cls), _placed_node(drawn_group, target)))
        else:
            drawn_group = by_title.get(f"va{j}->vb{j}")
            if drawn_group is None:
                raise AnimationError(f"variant of {eid} was not drawn")
            out.append((eid, drawn_group.get("class", cls), _restyled_edge(drawn_group, target)))
    return out


def _children(group: ET.Element) -> list[ET.Element]:
    return [c for c in group if c.tag != f"{{{SVG_NS}}}title"]


def _anchor_point(group: ET.Element) -> tuple[float, float]:
    """The first point of a node's outline (polygon, path or ellipse centre): where it sits."""
    for el in group.iter():
        tag = el.tag.rsplit("}", 1)[-1]
        if tag == "ellipse":
            return float(el.get("cx")), float(el.get("cy"))
        if tag in ("polygon", "path", "polyline"):
            nums = _POINT.findall(el.get("points") or el.get("d") or "")
            if len(nums) >= 2:
                return float(nums[0]), float(nums[1])
    raise AnimationError("a node has no outline to place it by")


def _placed_node(drawn: ET.Element, target: ET.Element) -> str:
    """A node variant's content moved to where the laid-out graph has that node.

    Its coordinates are moved themselves (not wrapped in a translation): a look then has the same parts with the
    same numbers as the laid-out node wherever its shape did not change, so the player rewrites only its colours
    and text.
    """
    x0, y0 = _anchor_point(target)
    x1, y1 = _anchor_point(drawn)
    dx, dy = round(x0 - x1, 2), round(y0 - y1, 2)
    return "".join(_serialize(_moved(child, dx, dy)) for child in _children(drawn))


#: The coordinates Graphviz writes in a node's parts (absolute: x,y pairs in ``points`` and ``d``).
_PAIRS = ("points", "d")
_XS = ("x", "cx")
_YS = ("y", "cy")


def _moved(el: ET.Element, dx: float, dy: float) -> ET.Element:
    """``el`` (and everything in it) moved by (dx, dy), every number written as Graphviz writes it."""
    for part in el.iter():
        for key, value in part.attrib.items():
            if key in _PAIRS:
                index = iter(range(len(value)))
                part.set(key, _POINT.sub(
                    lambda m, i=index: _coordinate(float(m.group()) + (dx if next(i) % 2 == 0 else dy)), value))
            elif key in _XS or key in _YS:
                shift = dx if key in _XS else dy
                part.set(key, _POINT.sub(lambda m, d=shift: _coordinate(float(m.group()) + d), value))
    return el


def _coordinate(v: float) -> str:
    """A coordinate as Graphviz's SVG writes one: at most two decimals, no trailing zeros (``274``, ``-204.9``)."""
    text = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _restyled_edge(drawn: ET.Element, target: ET.Element) -> str:
    """An edge of the laid-out graph with the colours, widths, dashes and text of a variant."""
    mine, theirs = _children(target), _children(drawn)
    if [c.tag for c in mine] != [c.tag for c in theirs]:
        raise AnimationError(f"edge {target.get('id')} changes its parts between frames")
    parts = []
    for old, new in zip(mine, theirs):
        el = ET.Element(old.tag, {**{k: v for k, v in new.attrib.items() if k not in GEOMETRY},
                                  **{k: v for k, v in old.attrib.items() if k in GEOMETRY}})
        el.text = new.text
        el.extend(list(new))
        parts.append(_serialize(el))
    return "".join(parts)


def _serialize(el: ET.Element, *, fragment: bool = True) -> str:
    """XML text of ``el``; a fragment (to go inside the page's SVG) without namespace declarations."""
    text = ET.tostring(el, encoding="unicode", short_empty_elements=True)
    if not fragment:
        return text
    return text.replace(f' xmlns="{SVG_NS}"', "").replace(f' xmlns:xlink="{XLINK_NS}"', "")


def _clean_svg(svg: bytes | str) -> str:
    return _serialize(ET.fromstring(svg), fragment=False)
