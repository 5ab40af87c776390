"""Every text in every drawing style reads at WCAG 2.1 AA contrast on what it is drawn on (issue 28, 1.4.3, 1.4.11).

The pairs are not copied from ``lucid.viz.graph.style``: each drawing (default boxes, circuit, large mode with
clusters, collapsed boxes with their overview and detail, forward mode, the legend, a NaN value, a recorded
``grad()``) is built at every step and laid out by the real ``dot``; in the SVG, each ``<text>`` is paired with
the last filled shape painted before it that holds the text's anchor (a table cell's background, the node's
fill, a cluster's fill, the page). Text must reach 4.5:1 (the labels are 8-12 pt, never "large text"); the
borders and lines that carry a state (a node's border, an edge's line and arrowhead) 3:1 against the page.
Classroom mode only scales the same SVG (``lucid.viz.player.sizing``), so the colours measured here are its too.
"""
from __future__ import annotations

import re
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pytest

import lucid
from lucid import Tensor, gallery
from lucid.autograd import backward_trace
from lucid.autograd.forward_trace import forward_trace
from lucid.expr import run
from lucid.viz import large_frame, large_view, to_dot
from lucid.viz.graph import style
from lucid.viz.graph.collapse import BOX_FILL
from lucid.viz.graph.forward_dot import forward_dot
from tests.large_programs import scalar_mlp_source

SVG = "{http://www.w3.org/2000/svg}"
TEXT_MINIMUM = 4.5
UI_MINIMUM = 3.0
NAMED = {"white": "#FFFFFF", "black": "#000000"}
NO_PAINT = {"none", "transparent"}


def luminance(colour: str) -> float:
    """WCAG 2.1 relative luminance of an sRGB colour ``#RRGGBB``."""
    channels = []
    for i in (1, 3, 5):
        c = int(colour[i:i + 2], 16) / 255
        channels.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    r, g, b = channels
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two colours, from 1 (same) to 21 (black on white)."""
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_the_ratio_is_wcags():
    assert contrast("#000000", "#FFFFFF") == pytest.approx(21.0)
    assert contrast("#777777", "#FFFFFF") == pytest.approx(4.48, abs=0.01)  # the famous just-failing grey
    assert contrast("#8C8C8C", "#FFFFFF") == pytest.approx(3.36, abs=0.01)  # the "grad — pending"
    assert contrast("#D55E00", "#FFFFFF") == contrast("#FFFFFF", "#D55E00") == pytest.approx(3.86, abs=0.01)


def colour_of(value: str | None, default: str | None) -> str | None:
    if value is None:
        return default
    value = value.strip().lower()
    if value in NO_PAINT:
        return None
    value = NAMED.get(value, value)
    assert re.fullmatch(r"#[0-9a-fA-F]{6}", value), f"unexpected colour {value!r} in the SVG"
    return value.upper()


@dataclass
class Shape:
    fill: str
    points: list[tuple[float, float]]  # a polygon, or the corners of a path's or an ellipse's box
    ellipse: tuple[float, float, float, float] | None = None

    def holds(self, x: float, y: float) -> bool:
        if self.ellipse is not None:
            cx, cy, rx, ry = self.ellipse
            return ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1
        inside = False
        pts = self.points
        for (x1, y1), (x2, y2) in zip(pts, pts[1:] + pts[:1]):
            if (y1 > y) != (y2 > y) and x < (x2 - x1) * (y - y1) / (y2 - y1) + x1:
                inside = not inside
        return inside


def _numbers(text: str) -> list[float]:
    return [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", text)]


def _shape(el: ET.Element) -> Shape | None:
    fill = colour_of(el.get("fill"), "#000000")
    if fill is None:
        return None
    tag = el.tag.removeprefix(SVG)
    if tag == "polygon":
        n = _numbers(el.get("points", ""))
        return Shape(fill, list(zip(n[::2], n[1::2])))
    if tag == "ellipse":
        return Shape(fill, [], (float(el.get("cx")), float(el.get("cy")), float(el.get("rx")), float(el.get("ry"))))
    if tag == "path":
        n = _numbers(el.get("d", ""))
        xs, ys = n[::2], n[1::2]
        return Shape(fill, [(min(xs), min(ys)), (max(xs), min(ys)), (max(xs), max(ys)), (min(xs), max(ys))])
    return None


@dataclass(frozen=True)
class Pair:
    text: str
    colour: str
    background: str
    where: str

    @property
    def ratio(self) -> float:
        return contrast(self.colour, self.background)


def _walk(el: ET.Element, group: str, in_edge: bool) -> Iterator[tuple[ET.Element, str, bool]]:
    for child in el:
        cls = child.get("class", "").split()
        if child.tag == f"{SVG}g" and ("node" in cls or "edge" in cls or "cluster" in cls or "graph" in cls):
            yield from _walk(child, child.get("id") or group, "edge" in cls)
        else:
            yield child, group, in_edge
            yield from _walk(child, group, in_edge)


def text_pairs(svg: ET.Element, drawing: str) -> list[Pair]:
    """Every text of the SVG with its colour and the colour painted under its anchor."""
    painted: list[Shape] = []
    pairs = []
    for el, group, in_edge in _walk(svg, "", False):
        tag = el.tag.removeprefix(SVG)
        if tag == "text":
            words = "".join(el.itertext()).strip()
            if not words:
                continue
            size = float(el.get("font-size", "14"))
            x, y = float(el.get("x")), float(el.get("y")) - 0.35 * size
            x += {"start": 0.4 * size, "end": -0.4 * size}.get(el.get("text-anchor", "start"), 0.0)
            under = next((s.fill for s in reversed(painted) if s.holds(x, y)), "#FFFFFF")
            pairs.append(Pair(words, colour_of(el.get("fill"), "#000000"), under, f"{drawing} {group}"))
        elif not in_edge:  # an edge's arrowhead is a line's end, never a background
            shape = _shape(el)
            if shape is not None:
                painted.append(shape)
    return pairs


def ui_pairs(svg: ET.Element, drawing: str) -> list[Pair]:
    """The border of every node and the line of every edge, against the page they are drawn on (white)."""
    page = colour_of(svg.find(f"{SVG}g/{SVG}polygon").get("fill"), "#FFFFFF")
    pairs = []
    for g in svg.iter(f"{SVG}g"):
        cls = g.get("class", "").split()
        if ("node" not in cls and "edge" not in cls) or "legend" in cls:
            continue  # the circuit legend's frame only groups its lines (its entries are checked as text)
        for el in g.iter():
            stroke = colour_of(el.get("stroke"), None)
            if el.tag in (f"{SVG}polygon", f"{SVG}path", f"{SVG}ellipse") and stroke is not None:
                pairs.append(Pair(" ".join(cls), stroke, page, f"{drawing} {g.get('id')}"))
                break  # the outline (a node's) or the line (an edge's); cell borders inside a label come later
    return pairs


def render(source: str) -> ET.Element:
    done = subprocess.run(["dot", "-Tsvg"], input=source.encode(), capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    return ET.fromstring(done.stdout)


PROGRAMS = ["scalar", "cs231n-sigmoid", "neuron", "used-twice", "bias-broadcast", "softmax-ce", "mlp", "relu-gate",
            "gradient-penalty", "korean-mlp"]


def _steps(n: int) -> list[int]:
    return sorted({0, 1, n // 3, n // 2, (2 * n) // 3, n - 2, n - 1} & set(range(n)))


def drawings() -> Iterator[tuple[str, str]]:
    """(name, DOT) of every drawing style at the steps that show each state, legends included."""
    for slug in PROGRAMS:
        program = run(gallery.by_slug(slug).source, seed=0)
        trace = backward_trace(program.output)
        for preset in ("default", "circuit"):
            for step in _steps(len(trace.steps)):
                yield f"{slug}/{preset}/{step}", to_dot(program.output, trace, step, preset=preset,
                                                         legend=step == 0).source
            yield f"{slug}/{preset}/untraced", to_dot(program.output, preset=preset).source
        yield f"{slug}/large", to_dot(program.output, trace, len(trace.steps) // 2, large=True).source
    program = run(scalar_mlp_source(samples=10), seed=0)  # past the 400-node cap: boxes, one per program line
    trace = backward_trace(program.output)
    view = large_view(program.output, trace)
    for step in _steps(len(view.steps)):
        frame = large_frame(view, step)
        yield f"collapsed/{step}", frame.main.source
        yield f"overview/{step}", frame.overview.source
        yield f"detail/{step}", frame.detail.source
    opened = large_view(program.output, trace, expanded=[g.id for g in view.hierarchy.groups.values()][:3])
    for step in _steps(len(opened.steps)):
        yield f"opened/{step}", large_frame(opened, step).main.source
    program = run(gallery.by_slug("forward-1-to-3").source, seed=0)
    seed = {program.variables["t"]: np.array(1.0)}
    ftrace = forward_trace(program.output, seed)
    for step in range(len(ftrace.steps) + 1):
        yield f"forward/{step}", forward_dot(ftrace, step).source
    x = Tensor([-1.0, 4.0], requires_grad=True, name="x")
    with np.errstate(invalid="ignore", divide="ignore"):
        out = lucid.log(x).sum()
        nan_trace = backward_trace(out)
    for preset in ("default", "circuit"):
        yield f"nan/{preset}", to_dot(out, nan_trace, 1, preset=preset).source


@pytest.fixture(scope="module")
def measured() -> tuple[list[Pair], list[Pair]]:
    texts, lines = [], []
    for name, source in drawings():
        svg = render(source)
        texts += text_pairs(svg, name)
        lines += ui_pairs(svg, name)
    return texts, lines


def _worst(pairs: list[Pair], minimum: float) -> list[str]:
    failing: dict[tuple[str, str], Pair] = {}
    for p in pairs:
        if p.ratio < minimum:
            failing.setdefault((p.colour, p.background), p)
    return [f"{p.colour} on {p.background}: {p.ratio:.2f}:1 ({p.text!r} in {p.where})"
            for p in sorted(failing.values(), key=lambda p: p.ratio)]


def test_every_label_in_every_style_reaches_4_5_to_1_on_its_fill(measured):
    texts, _lines = measured
    combos = {(p.colour, p.background) for p in texts}
    print(f"{len(texts)} texts, {len(combos)} colour pairs, lowest "
          f"{min(p.ratio for p in texts):.2f}:1")
    assert len(combos) >= 20  # the walk found the cells, fills and clusters, not just text on white
    assert _worst(texts, TEXT_MINIMUM) == []


def test_every_border_and_line_that_carries_a_state_reaches_3_to_1_on_the_page(measured):
    _texts, lines = measured
    assert len(lines) > 500
    assert _worst(lines, UI_MINIMUM) == []


def test_the_states_the_drawings_show_are_all_measured(measured):
    """The walk reaches each state's colours: pending, partial and final gradients, flowing and flowed notes."""
    texts, lines = measured
    colours = {p.colour for p in texts}
    for colour in {style.GRAD_COLOURS[s][0] for s in ("partial", "final", "nograd")} | \
            set(style.EDGE_NOTE_COLOURS.values()) | {style.CIRCUIT_PENDING, style.CIRCUIT_FINAL, style.RED}:
        assert colour.upper() in colours, colour
    backgrounds = {p.background for p in texts}
    for fill in [*BOX_FILL.values(), *(k["fillcolor"] for k in style.KIND_STYLE.values()),
                 style.DERIVATIVE_STYLE["fillcolor"], style.OP_STATE_STYLE["active"]["fillcolor"]]:
        assert fill.upper() in backgrounds, fill
    strokes = {p.colour for p in lines}
    for edge in ("flowing", "active", "flowed", "pending", "nograd"):
        assert style.EDGE_STYLE[edge]["color"].upper() in strokes, edge
    assert style.PROGRESS_STYLE["source"]["color"].upper() in strokes
