"""A 16:9 slide of a tall graph frames each step's region at a readable size instead of shrinking the whole graph.

The MLP lesson's graph is about 3,400 px tall at Graphviz's default size: fitted whole into a 1280×720
slide, its text would be 3 px high. Each frame instead shows the window around the node receiving
gradient and the edge it flows along, drawn so the smallest text that matters (an edge's gradient, 10 pt)
is at least 14 px high on the slide.
"""
import io
import json

import numpy as np
import pytest
from PIL import Image, ImageSequence

from lucid import gallery, viz
from lucid.autograd import backward_trace
from lucid.expr import run
from lucid.viz import export
from lucid.viz.dot import to_dot

pytestmark = pytest.mark.skipif(not export.shutil.which("dot"), reason="needs Graphviz's dot")

VERMILLION = (0xD5, 0x5E, 0x00)
"""The border of the node receiving gradient (``lucid.viz.style``)."""


def traced(source: str):
    program = run(source)
    return program.output, backward_trace(program.output)


def node_box_px(layout: dict, name: str, picture: tuple[int, int]) -> tuple[float, float, float, float]:
    """A node's box in the pixels of a PNG of ``picture`` size, from Graphviz's json0 layout."""
    x0, y0, x1, y1 = (float(v) for v in layout["bb"].split(","))
    sx = picture[0] / (x1 - x0 + 8)
    sy = picture[1] / (y1 - y0 + 8)
    node = next(o for o in layout["objects"] if o.get("name") == name)
    cx, cy = (float(v) for v in node["pos"].split(","))
    hw, hh = float(node["width"]) * 36, float(node["height"]) * 36
    return ((cx - hw - x0 + 4) * sx, (y1 - cy - hh + 4) * sy, (cx + hw - x0 + 4) * sx, (y1 - cy + hh + 4) * sy)


def test_the_mlp_lesson_slide_is_drawn_readable_and_every_frame_holds_its_steps_node():
    out, trace = traced(gallery.by_slug("mlp").source)
    pngs, plan, windows = export.render_frames(out, trace, dpi=None, caption=True, slide=export.SLIDE_SIZE,
                                               held=True, options={"direction": "TB"})
    assert plan.canvas == export.SLIDE_SIZE
    assert plan.dpi * export.SLIDE_TEXT_PT / 72 >= export.SLIDE_MIN_TEXT_PX  # 10 pt text >= 14 px
    assert windows is not None and len(windows) == len(trace.steps)
    sources = [to_dot(out, trace, s, direction="TB").source for s in range(len(trace.steps))]
    layout = json.loads(export.render(sources[0], "json0"))
    picture = Image.open(io.BytesIO(pngs[0])).size
    assert picture[1] > 3 * plan.box[1]  # the graph is far taller than the slide: framing is needed
    bw, bh = plan.box
    for step, ((x, y), source) in enumerate(zip(windows, sources, strict=True)):
        name, edge = export.active_elements(source)
        assert name is not None and (edge is not None or step == 0)
        left, top, right, bottom = node_box_px(layout, name, picture)
        assert 0 <= x <= max(0, picture[0] - bw) and 0 <= y <= max(0, picture[1] - bh)
        # the node receiving gradient is on the slide (whole when it fits, else at least its top: the name)
        assert x - 1 <= left and right <= x + bw + 1, (step, name)
        assert y - 1 <= top and top + 20 <= y + bh, (step, name)
        if bottom - top <= bh:
            assert bottom <= y + bh + 1, (step, name)


def test_every_frame_of_the_mlp_slide_gif_shows_the_highlighted_node_at_slide_size():
    out, trace = traced(gallery.by_slug("mlp").source)
    gif = Image.open(io.BytesIO(viz.animation_gif(out, trace, slide=True, direction="TB", frame_ms=300)))
    frames = [f.convert("RGB") for f in ImageSequence.Iterator(gif)]
    assert len(frames) == len(trace.steps)
    for step, frame in enumerate(frames):
        assert frame.size == export.SLIDE_SIZE
        # a thick vermillion border (4 pt at >= 100 dpi: 5 px wide) is on every frame
        near = np.abs(np.asarray(frame, dtype=int) - np.array(VERMILLION)).max(axis=2) <= 24
        border = int(near.sum())
        assert border >= 1500, (step, border)


def test_a_small_graph_stays_whole_and_centred_on_its_slide():
    out, trace = traced("x = 1.5\ny = tanh(x) + 1")
    _, plan, windows = export.render_frames(out, trace, dpi=None, caption=True, slide=export.SLIDE_SIZE,
                                            held=True, options={})
    assert windows is None and plan.centred
    assert plan.dpi * export.SLIDE_TEXT_PT / 72 >= export.SLIDE_MIN_TEXT_PX
