"""Names written in Hangul are drawn as letters, never as tofu boxes: in DOT, SVG, PNG and GIF captions.

The tofu check renders text with ``dot`` and looks at the ink: a missing glyph is drawn as a box whose
left edge and bottom edge are solid lines, which no Hangul syllable has. The check is shown to work on
characters that surely have no glyph, and on Hangul with only a Latin font available.
"""
from __future__ import annotations

import io
import os
import shutil
import subprocess

import pytest
from PIL import Image

from lucid.autograd import backward_trace
from lucid.expr import run
from lucid.viz import to_dot, to_png, to_svg
from lucid.viz.export.pictures import _font

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot")

KOREAN = "층1_가중치 = 2.0\n층1_편향 = 0.5\n입력 = 1.5\n출력 = tanh(층1_가중치 * 입력 + 층1_편향)"


def render_text(text: str, env: dict | None = None) -> Image.Image:
    """``text`` drawn alone by ``dot`` (the app's font, large), as a grayscale image."""
    source = ('digraph g { node [shape=plaintext, margin=0, fontname="Helvetica", fontsize=60]; '
              f'a [label="{text}"]; }}')
    png = subprocess.run(["dot", "-Tpng"], input=source.encode(), capture_output=True, env=env, check=True).stdout
    return Image.open(io.BytesIO(png)).convert("L")


def box_edges(image: Image.Image) -> tuple[float, float]:
    """How much of the left column and of the bottom row of the ink's bounding box is ink (1.0: solid)."""
    ink = image.point(lambda v: 255 if v < 128 else 0)
    crop = ink.crop(ink.getbbox())
    width, height = crop.size
    px = crop.load()
    left = sum(px[0, y] > 0 for y in range(height)) / height
    bottom = sum(px[x, height - 1] > 0 for x in range(width)) / width
    return left, bottom


def looks_like_tofu(image: Image.Image) -> bool:
    left, bottom = box_edges(image)
    return left > 0.9 and bottom > 0.8


def latin_only_fonts(tmp_path) -> dict:
    """An environment in which fontconfig sees only DejaVu Sans: the same render with the CJK font missing."""
    dejavu = subprocess.run(["fc-match", "-f", "%{file}", "DejaVu Sans"], capture_output=True, text=True).stdout
    conf = tmp_path / "fonts.conf"
    conf.write_text(f'<?xml version="1.0"?><fontconfig><dir>{os.path.dirname(dejavu)}</dir>'
                    f'<cachedir>{tmp_path / "cache"}</cachedir></fontconfig>')
    return {**os.environ, "FONTCONFIG_FILE": str(conf)}


def test_a_korean_font_is_installed():
    fonts = subprocess.run(["fc-list", ":lang=ko", "family"], capture_output=True, text=True).stdout
    assert fonts.strip(), "no font with Hangul: run scripts/setup_system.sh (installs fonts-noto-cjk)"


def test_the_tofu_check_recognises_characters_without_a_glyph():
    assert looks_like_tofu(render_text("\u0378\u0379\u0380"))  # unassigned code points


def test_hangul_renders_as_letters_and_as_tofu_only_without_the_cjk_font(tmp_path):
    with_font = render_text("가중치")
    without = render_text("가중치", latin_only_fonts(tmp_path))
    assert looks_like_tofu(without)
    assert not looks_like_tofu(with_font)
    assert box_edges(with_font)[0] < 0.5


def test_a_korean_named_graph_exports_to_dot_svg_and_png_with_its_names_and_prefix_cluster():
    program = run(KOREAN)
    trace = backward_trace(program.output)
    graph = to_dot(program.output, trace, len(trace.steps) - 1, large=True)
    source = graph.source
    for name in ("층1_가중치", "층1_편향", "입력", "출력"):
        assert name in source
    assert "id=cluster0" in source and "label=<층1>" in source
    svg = to_svg(graph).decode("utf-8")
    assert "층1_가중치" in svg and 'id="cluster0"' in svg
    png = Image.open(io.BytesIO(to_png(graph)))
    assert png.format == "PNG" and png.width > 100


def test_gif_captions_that_name_hangul_variables_use_a_font_with_hangul():
    caption_font = _font(20, "∂출력/∂가중치")
    assert "CJK" in " ".join(caption_font.getname()) or "Nanum" in " ".join(caption_font.getname())
    assert caption_font.getmask("가").getbbox() != caption_font.getmask("\u0378").getbbox()
    assert "DejaVu" in " ".join(_font(20, "∂out/∂w").getname())
