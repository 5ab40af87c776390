"""Exports: SVG and PNG of one frame, a GIF and a zip of the whole backward pass, and a clear
error when Graphviz's `dot` is missing."""
import io
import zipfile

import pytest
from PIL import Image, ImageSequence

import lucid
from lucid import Tensor
from lucid.autograd import backward_trace
from lucid.viz import GraphvizNotInstalled, animation_gif, frames_zip, to_dot, to_png, to_svg
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
