"""Exports: SVG and PNG of one frame, a GIF and a zip of the whole backward pass, and a clear
error when Graphviz's `dot` is missing."""
import io
import xml.etree.ElementTree as ET
import zipfile

import pytest
from PIL import Image, ImageSequence

import lucid
from lucid import Tensor
from lucid.autograd import backward_trace
from lucid.viz import GraphvizNotInstalled, animation_gif, frames_zip, to_dot, to_png, to_svg
from lucid.viz.export import pictures
from lucid.viz.export.pictures import caption_band


def example():
    a = Tensor(1.3, requires_grad=True, name="a")
    b = Tensor(-0.7, requires_grad=True, name="b")
    out = lucid.tanh(a * b) + a
    return out, backward_trace(out)


def test_svg_keeps_ids_and_classes():
    out, trace = example()
    svg = to_svg(to_dot(out, trace, 2)).decode()
    assert svg.startswith("<?xml")
    assert '<g id="t0" class="node leaf current partial">' in svg
    assert 'class="edge input flowing"' in svg


def _elements(svg: bytes) -> dict[str, str]:
    """Every node and edge group of an SVG by its title, as XML text (its place and looks)."""
    ns = "{http://www.w3.org/2000/svg}"
    root = ET.fromstring(svg)
    return {g.find(f"{ns}title").text: ET.tostring(g, encoding="unicode")
            for g in root.iter(f"{ns}g") if (g.get("class") or "").split()[:1] in (["node"], ["edge"])}


def test_several_graphs_from_one_dot_run_draw_what_each_draws_alone(monkeypatch):
    out, trace = example()
    graphs = [to_dot(out, trace, 0), "digraph second {\n\ta -> b\n\tc [id=cc]\n}\n", to_dot(out, trace, 3)]
    alone = [to_svg(g) for g in graphs]
    runs = []
    real = pictures.render
    monkeypatch.setattr(pictures, "render", lambda *a, **k: runs.append(a) or real(*a, **k))
    together = pictures.to_svgs(graphs)
    assert len(runs) == 1  # one dot process for the three pictures
    assert together[0] == alone[0]  # the first: the same bytes
    for mine, its_own in zip(together[1:], alone[1:]):  # a later one: every element the same, in place
        assert _elements(mine) == _elements(its_own) and len(_elements(mine)) >= 3
    assert 'id="cc"' in together[1].decode()


def test_png_has_the_size_dot_reports_and_dpi_scales_it():
    out, trace = example()
    g = to_dot(out, trace, 1)
    small = Image.open(io.BytesIO(to_png(g)))
    big = Image.open(io.BytesIO(to_png(g, dpi=192)))
    assert small.format == "PNG" and small.width > 300 and small.height > 60
    assert big.width == pytest.approx(2 * small.width, abs=4)
    assert big.height == pytest.approx(2 * small.height, abs=4)


def test_dot_source_needs_no_graphviz_but_png_says_how_to_get_it(monkeypatch, tmp_path):
    out, trace = example()
    monkeypatch.setenv("PATH", str(tmp_path))  # no `dot` anywhere on the PATH
    g = to_dot(out, trace, 1)
    assert g.source.startswith("digraph lucid {")
    with pytest.raises(GraphvizNotInstalled, match="Install the Graphviz system package"):
        to_png(g)
    with pytest.raises(GraphvizNotInstalled):
        to_svg(g)


def test_gif_has_one_frame_per_step_all_the_same_size():
    out, trace = example()
    gif = Image.open(io.BytesIO(animation_gif(out, trace, frame_ms=500)))
    frames = [f.copy() for f in ImageSequence.Iterator(gif)]
    assert gif.format == "GIF"
    assert len(frames) == len(trace.steps) == 6
    assert {f.size for f in frames} == {gif.size}
    first = Image.open(io.BytesIO(to_png(to_dot(out, trace, 0))))
    assert gif.size == (first.width, first.height + caption_band(first.width))
    assert gif.info["loop"] == 0


def test_zip_has_numbered_png_frames_of_equal_size():
    out, trace = example()
    with zipfile.ZipFile(io.BytesIO(frames_zip(out, trace, direction="TB"))) as zf:
        names = zf.namelist()
        sizes = {Image.open(io.BytesIO(zf.read(n))).size for n in names}
    assert names == [f"frame_{i:03d}.png" for i in range(len(trace.steps))]
    assert len(sizes) == 1
