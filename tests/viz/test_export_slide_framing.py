"""A 16:9 slide GIF has one fixed camera: the whole graph, at the same place in every frame, nothing cut off.

A camera that followed each step's node moved the CS231n circuit by up to 8 px between frames and cut its
output wire off at the right edge, and framed the MLP's seed step on an empty region (70% white). Now the
whole graph is fitted once: every frame's layout and picture are the same, placed at the same corner, and
the step's title and arithmetic line are written under the graph (a wide one) or beside it (a tall one).
"""
import io
import json

import numpy as np
import pytest
from PIL import Image, ImageSequence

from lucid import gallery, viz
from lucid.autograd import backward_trace
from lucid.expr import run
from lucid.viz.export import pictures as export
from lucid.viz.export import slide
from lucid.viz.graph.dot import to_dot

pytestmark = pytest.mark.skipif(not export.shutil.which("dot"), reason="needs Graphviz's dot")

CIRCUIT = {"preset": "circuit", "direction": "LR"}


def traced(source: str):
    program = run(source)
    return program.output, backward_trace(program.output)


def gif_frames(data: bytes) -> list[np.ndarray]:
    return [np.asarray(f.convert("RGB"), dtype=int) for f in ImageSequence.Iterator(Image.open(io.BytesIO(data)))]


def slide_gif_and_its_frames(out, trace, **options):
    """A slide GIF's frames, and the PNGs and plan ``render_frames`` drew for that same export.

    The frames are read off the GIF's own call (the tests once rendered every frame a second time beside the
    GIF, the slowest part of this file); the call is checked to be the one the tests ask about."""
    seen = []
    real = export.render_frames

    def recording(*args, **kwargs):
        seen.append((kwargs, real(*args, **kwargs)))
        return seen[-1][1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(export, "render_frames", recording)
        gif = gif_frames(viz.animation_gif(out, trace, slide=True, frame_ms=300, **options))
    ((how, (pngs, plan)),) = seen
    assert how == {"dpi": None, "caption": True, "slide": export.SLIDE_SIZE, "held": True, "options": options}
    return gif, pngs, plan


def ink(frame: np.ndarray) -> np.ndarray:
    """Where a frame is not (nearly) white."""
    return (frame < 230).any(axis=2)


def node_positions(source: str) -> dict[str, str]:
    layout = json.loads(export.render(source, "json0"))
    return {o["name"]: o["pos"] for o in layout["objects"] if "pos" in o}


def best_shift(reference: np.ndarray, frame: np.ndarray, *, axis: int, reach: int = 10) -> int:
    """The shift (in px, along ``axis``) of ``frame`` that makes most of its ink land on ``reference``'s ink."""
    def overlap(d: int) -> int:
        return int((np.roll(frame, d, axis=axis) & reference).sum())

    return max(range(-reach, reach + 1), key=lambda d: (overlap(d), -abs(d)))


@pytest.fixture(scope="module")
def circuit():
    out, trace = traced(gallery.by_slug("cs231n-sigmoid").source)
    gif, pngs, plan = slide_gif_and_its_frames(out, trace, **CIRCUIT)
    return out, trace, pngs, plan, gif


def test_every_frame_of_the_circuit_slide_has_the_same_layout_and_picture_size(circuit):
    out, trace, pngs, plan, _ = circuit
    sources = [to_dot(out, trace, s, **CIRCUIT).source for s in range(len(trace.steps))]
    first = node_positions(sources[0])
    assert all(node_positions(src) == first for src in sources[1:])  # no node moves between frames
    assert len({export._png_size(p) for p in pngs}) == 1
    assert plan.picture is not None and plan.layout is not None
    x, y, w, h = plan.layout.box
    assert plan.picture[0] <= w and plan.picture[1] <= h  # the whole picture, never a crop of it


def test_the_circuit_slide_gif_shows_its_output_wire_in_every_frame_without_jitter(circuit):
    _, trace, _, plan, gif = circuit
    assert len(gif) == len(trace.steps) == 13
    assert {f.shape for f in gif} == {(720, 1280, 3)}
    x, y, w, h = plan.layout.box
    graph = [ink(f[y:y + h, x:x + w]) for f in gif]
    for step, g in enumerate(graph[1:], start=1):  # the shift that best lays a frame over frame 0 is none
        assert best_shift(graph[0], g, axis=1) == 0, step
        assert best_shift(graph[0], g, axis=0) == 0, step
    rights = {int(np.nonzero(g.any(axis=0))[0].max()) for g in graph}
    assert max(rights) - min(rights) <= 4  # the right end (the output wire) stays put: only a pen's width
    for g in graph:  # nothing touches the slide's edges: the output wire ends inside the frame
        assert not g[:, :2].any() and not g[:, -2:].any() and not g[:2, :].any()
        assert g[:, -40:].any()  # ... and it is drawn: the output wire reaches the right quarter
    assert min(rights) > 0.95 * w  # the circuit fills the slide's width


def test_the_circuit_slide_writes_the_step_arithmetic_under_the_graph(circuit):
    _, _, _, plan, gif = circuit
    x, y, w, h = plan.layout.text
    assert y >= plan.layout.box[3]  # a wide graph: the words go under it
    assert plan.layout.font_px >= 18
    for frame in gif:
        assert ink(frame[y:y + h, x:x + w]).sum() > 500  # every frame carries its words


def test_the_mlp_slide_shows_the_whole_tall_graph_with_its_words_beside_it():
    out, trace = traced(gallery.by_slug("mlp").source)
    gif, _pngs, plan = slide_gif_and_its_frames(out, trace, direction="TB")
    layout = plan.layout
    assert layout.text[0] >= layout.box[2]  # tall: the words beside the graph, not under it
    x, y, w, h = layout.box
    lefts = set()
    for frame in gif:
        g = ink(frame[:, x:x + w])
        rows, cols = np.nonzero(g)
        lefts.add(int(cols.min()))
        assert rows.max() >= 700 and rows.min() <= 20  # the graph spans the slide's height, output node included
        assert ink(frame[:, layout.text[0]:]).sum() > 500  # and the step's words fill the other side
    assert max(lefts) - min(lefts) <= 4


def test_a_step_still_is_1280_by_720_and_carries_its_arithmetic_line():
    out, trace = traced(gallery.by_slug("cs231n-sigmoid").source)
    arithmetic = viz.explain(trace, 10).arithmetic
    assert arithmetic.startswith("grad t7 · ∂t7/∂x1 = 0.1966 · (−3.000) = −0.5898")
    png = Image.open(io.BytesIO(slide.still_png(out, trace, 10, **CIRCUIT)))
    assert png.size == (1280, 720)
    svg = slide.still_svg(out, trace, 10, **CIRCUIT).decode("utf-8")
    assert 'width="1280" height="720" viewBox="0 0 1280 720"' in svg
    texts = [line for line in svg.splitlines() if 'class="slide-arithmetic"' in line]
    assert "grad t7 · ∂t7/∂x1 = 0.1966 · (−3.000) = −0.5898" in "".join(texts)
    assert any("⇒ grad x1 = −0.5898" in t for t in texts)
    assert '<g id="t2" class="node leaf' in svg  # Graphviz's drawing inside, ids and classes kept


def test_a_tall_step_still_keeps_the_whole_graph_and_the_text_readable():
    out, trace = traced(gallery.by_slug("mlp").source)
    rgb = np.asarray(Image.open(io.BytesIO(slide.still_png(out, trace, 10, direction="TB"))).convert("RGB"), int)
    assert rgb.shape == (720, 1280, 3)  # not the 1415×3361 of a plain PNG
    svg = slide.still_svg(out, trace, 10, direction="TB").decode("utf-8")
    assert 'font-size="22"' in svg and "grad b1[0] +=" in svg and "= 0.9036" in svg  # the worked entry


def test_names_in_a_still_svg_are_escaped():
    out, trace = traced("a = 1.5\nb = a * a")
    svg = slide.still_svg(out, trace, 1).decode("utf-8")
    assert "<text" in svg and "&lt;" not in svg  # nothing to escape here, and the file parses as XML
    import xml.etree.ElementTree as ET

    ET.fromstring(svg.split("\n", 1)[1])


def test_long_arithmetic_wraps_between_terms_and_never_runs_off_the_slide():
    def measure(text, size):
        return 0.6 * size * len(text)

    line = "grad t7 · ∂t7/∂x1 = 0.1966 · (−3.000) = −0.5898  ⇒  grad x1 = −0.5898"
    lines = slide.wrap(line, 300, 20, measure)
    assert lines == ["grad t7 · ∂t7/∂x1", "= 0.1966 · (−3.000)", "= −0.5898", "⇒ grad x1 = −0.5898"]
    assert all(measure(piece, 20) <= 300 for piece in slide.wrap("x" * 80 + " = 1", 300, 20, measure))
