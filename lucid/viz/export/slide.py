"""16:9 slides: where the graph and the step's words go on a projector-sized canvas, and one step's still.

A slide has one fixed camera: the whole graph, fitted once into its box, at the same place in every
frame of a GIF (a camera that followed each step jittered and cut the output wire off). The words of a
step (its title and its arithmetic line, ``upstream · local = … ⇒ grad p = …``) go under the graph,
or beside it when the graph is tall: whichever leaves the graph larger. The text is drawn at
``SLIDE_TEXT_PX`` (readable from the back row of a 720p projector) and wrapped between the terms of
the arithmetic, never inside one.

``still_png`` and ``still_svg`` make the slide of one step (the Export expander's "16:9" buttons).
"""
from __future__ import annotations

import html
import io
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lucid._tensor.tensor import Tensor
from lucid.autograd import Trace

#: Pixel height of a slide's words on a 1280×720 canvas (at least 18 px, for the back row).
SLIDE_TEXT_PX = 22
#: Smallest text a crowded panel may shrink to before lines are dropped.
SLIDE_MIN_TEXT_PX = 18
#: Share of the width a side panel of words takes when the graph is tall.
SIDE_SHARE = 0.36
#: Line height as a multiple of the font size.
LINE = 1.3
TITLE_COLOUR = (90, 90, 90)
ARITHMETIC_COLOUR = (15, 15, 15)
#: Fonts the SVG still asks for: the PNG's (DejaVu Sans, a CJK font for Hangul), then any sans-serif.
SVG_FONTS = "DejaVu Sans, Noto Sans CJK KR, NanumGothic, sans-serif"
#: Graphviz draws at 72 points per inch; its PNG at the default 96 dpi has 4/3 pixels per point.
PX_PER_PT = 96 / 72


@dataclass(frozen=True)
class SlideLayout:
    """Where things go on one slide canvas (all frames of a GIF share it: one camera).

    ``box`` is the graph's area ``(x, y, width, height)``; the graph's picture is fitted into it and
    centred. ``text`` is the area of the words (None: no words), ``font_px`` their size.
    """

    canvas: tuple[int, int]
    box: tuple[int, int, int, int]
    text: tuple[int, int, int, int] | None
    font_px: int


Measure = Callable[[str, int], float]
"""Width in pixels of a string drawn at a font size."""


def step_words(trace: Trace, step: int) -> tuple[str, str]:
    """The title and the arithmetic line of one step, as a slide shows them."""
    from lucid.viz.explanation.explain import explain, step_title

    return step_title(trace, step), explain(trace, step).arithmetic


def _break_points(line: str) -> list[str]:
    """The arithmetic's terms (``= …`` kept whole), each term's words as a fallback."""
    pieces = line.split(" = ")
    return [pieces[0], *(f"= {p}" for p in pieces[1:])]


def wrap(text: str, width: float, size: int, measure: Measure) -> list[str]:
    """``text`` in lines no wider than ``width``: ``⇒`` starts a line, terms stay whole when they fit.

    A term wider than the line is broken between words, and a word wider than the line between
    characters, so no text runs off the slide.
    """
    out: list[str] = []
    for n, part in enumerate(p.strip() for p in text.split("⇒")):
        if not part:
            continue
        line = "⇒ " + part if n else part
        current = ""
        for term in _break_points(line):
            for word in _fit_words(term, width, size, measure):
                joined = f"{current} {word}" if current else word
                if measure(joined, size) <= width or not current:
                    current = joined
                else:
                    out.append(current)
                    current = word
        if current:
            out.append(current)
    return out


def _fit_words(term: str, width: float, size: int, measure: Measure) -> list[str]:
    if measure(term, size) <= width:
        return [term]
    pieces: list[str] = []
    for word in term.split(" "):
        while word and measure(word, size) > width:  # one long token (a long name): cut it
            cut = max(1, max(k for k in range(1, len(word) + 1) if k == 1 or measure(word[:k], size) <= width))
            pieces.append(word[:cut])
            word = word[cut:]
        if word:
            pieces.append(word)
    return pieces


def text_lines(words: Sequence[str], width: float, size: int, measure: Measure) -> list[tuple[int, str]]:
    """Every line of a slide's words as ``(which, text)``: 0 for the title's lines, 1 for the arithmetic's."""
    return [(k, line) for k, text in enumerate(words) if text for line in wrap(text, width, size, measure)]


def plan_slide(canvas: tuple[int, int], picture: tuple[int, int], frames_words: Sequence[Sequence[str]],
               measure: Measure, *, font_px: int | None = None) -> SlideLayout:
    """The layout that draws the graph largest while every frame's words fit, on a bottom band or a side panel.

    ``picture`` is the graph's size at Graphviz's default dpi. The text area is sized for the frame with
    the most lines, so the graph's box (and with it the camera) is the same in every frame.
    """
    cw, ch = canvas
    base = font_px or max(8, round(SLIDE_TEXT_PX * cw / 1280))
    pad = max(4, base // 2)
    if not any(any(w) for w in frames_words):
        return SlideLayout(canvas, (0, 0, cw, ch), None, base)
    pw, ph = max(1, picture[0]), max(1, picture[1])

    def tallest(width: float, size: int) -> int:
        return max(len(text_lines(words, width, size, measure)) for words in frames_words)

    bottom_h = round(tallest(cw - 2 * pad, base) * base * LINE) + 2 * pad
    bottom = SlideLayout(canvas, (0, 0, cw, max(1, ch - bottom_h)), (pad, ch - bottom_h + pad, cw - 2 * pad,
                                                                     bottom_h - 2 * pad), base)
    options = [bottom]
    side_w = round(cw * SIDE_SHARE)
    for size in range(base, max(8, round(SLIDE_MIN_TEXT_PX * cw / 1280)) - 1, -1):
        if tallest(side_w - 2 * pad, size) * size * LINE <= ch - 2 * pad:
            options.append(SlideLayout(canvas, (0, 0, cw - side_w, ch), (cw - side_w + pad, pad, side_w - 2 * pad,
                                                                         ch - 2 * pad), size))
            break

    def fit(layout: SlideLayout) -> float:
        return min(layout.box[2] / pw, layout.box[3] / ph)

    best = max(options, key=fit)  # the bottom band first: it wins a tie
    if best is bottom:
        return best
    # beside a tall graph: the words take every column the graph does not need
    graph_w = min(best.box[2], max(1, round(pw * min(2.0, fit(best)))) + 2 * pad)
    return SlideLayout(canvas, (0, 0, graph_w, ch), (graph_w + pad, pad, cw - graph_w - 2 * pad, ch - 2 * pad),
                       best.font_px)


def fitted_size(picture: tuple[int, int], box: tuple[int, int, int, int]) -> tuple[int, int]:
    """The picture shrunk (never grown) to fit the box, keeping its shape."""
    ratio = min(1.0, box[2] / max(1, picture[0]), box[3] / max(1, picture[1]))
    return max(1, int(picture[0] * ratio)), max(1, int(picture[1] * ratio))


def compose(picture: Any, layout: SlideLayout, words: Sequence[str], font: Callable[[int, str], Any],
            size: tuple[int, int] | None = None, sample: str | None = None) -> Any:
    """One slide as a Pillow image: the picture at ``size`` (the camera's, shared by every frame), centred in
    the layout's box, and the words in their area.

    ``sample`` is the text the font was chosen for (every frame's words, for a GIF: one font, so the lines
    wrap where ``plan_slide`` measured them)."""
    from PIL import Image, ImageDraw

    size = size or fitted_size(picture.size, layout.box)
    if picture.size != size:
        picture = picture.resize(size, Image.Resampling.LANCZOS)
    canvas = Image.new("RGB", layout.canvas, "white")
    bx, by, bw, bh = layout.box
    canvas.paste(picture, (bx + (bw - size[0]) // 2, by + (bh - size[1]) // 2))
    if layout.text is not None:
        draw = ImageDraw.Draw(canvas)
        x, y, width, height = layout.text
        px = layout.font_px
        sample = "".join(words) if sample is None else sample
        face = font(px, sample)
        for n, (k, line) in enumerate(text_lines(words, width, px, pil_measure(font, sample))):
            top = y + round(n * px * LINE)
            if top + px > y + height + 1:
                break
            draw.text((x, top), line, fill=TITLE_COLOUR if k == 0 else ARITHMETIC_COLOUR, font=face)
    return canvas


def pil_measure(font: Callable[[int, str], Any], sample: str = "") -> Measure:
    """``Measure`` with the font the slide draws with (one font object per size)."""
    cache: dict[int, Any] = {}

    def measure(text: str, size: int) -> float:
        if size not in cache:
            cache[size] = font(size, sample)
        f = cache[size]
        return float(f.getlength(text)) if hasattr(f, "getlength") else 0.6 * size * len(text)

    return measure


def _dot_source(root: Tensor, trace: Trace, step: int, options: dict[str, Any]) -> str:
    from lucid.viz.graph.dot import to_dot

    return to_dot(root, trace, step, **options).source


def still_png(root: Tensor, trace: Trace, step: int, *, size: tuple[int, int] = (1280, 720), **options: Any) -> bytes:
    """One step of the backward pass as a 16:9 PNG: the whole graph, the step's title and arithmetic line."""
    from PIL import Image

    from lucid.viz.export.pictures import DEFAULT_DPI, _font, _png_size, to_png

    source = _dot_source(root, trace, step, options)
    words = step_words(trace, step)
    picture = _png_size(to_png(source))
    layout = plan_slide(size, picture, [words], pil_measure(_font, "".join(words)))
    ratio = min(2.0, layout.box[2] / max(1, picture[0]), layout.box[3] / max(1, picture[1]))
    with Image.open(io.BytesIO(to_png(source, dpi=DEFAULT_DPI * ratio))) as decoded:
        drawn = decoded.convert("RGB")
    out = io.BytesIO()
    compose(drawn, layout, words, _font).save(out, format="PNG")
    return out.getvalue()


_SVG_ROOT = re.compile(r"<svg\b[^>]*>", re.S)
_VIEWBOX = re.compile(r'viewBox="([^"]+)"')


def still_svg(root: Tensor, trace: Trace, step: int, *, size: tuple[int, int] = (1280, 720), **options: Any) -> bytes:
    """The same slide as SVG: Graphviz's drawing (ids and classes kept) nested in a 16:9 page, the words as text."""
    from lucid.viz.export.pictures import _font, to_svg

    svg = to_svg(_dot_source(root, trace, step, options)).decode("utf-8")
    head = _SVG_ROOT.search(svg)
    view = _VIEWBOX.search(head.group(0)) if head else None
    if head is None or view is None:
        from lucid.i18n import L_
        from lucid.viz.errors import RenderError

        raise RenderError(L_("Graphviz did not produce an SVG image"))
    vx, vy, vw, vh = (float(v) for v in view.group(1).split())
    words = step_words(trace, step)
    measure = pil_measure(_font, "".join(words))
    layout = plan_slide(size, (round(vw * PX_PER_PT), round(vh * PX_PER_PT)), [words], measure)
    bx, by, bw, bh = layout.box
    ratio = min(2.0, bw / max(1e-9, vw * PX_PER_PT), bh / max(1e-9, vh * PX_PER_PT))
    gw, gh = vw * PX_PER_PT * ratio, vh * PX_PER_PT * ratio
    inner = (f'<svg x="{bx + (bw - gw) / 2:.1f}" y="{by + (bh - gh) / 2:.1f}" width="{gw:.1f}" height="{gh:.1f}" '
             f'viewBox="{vx:g} {vy:g} {vw:g} {vh:g}">')
    body = inner + svg[head.end():]
    w, h = size
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
             f'width="{w}" height="{h}" viewBox="0 0 {w} {h}">',
             '<rect x="0" y="0" width="100%" height="100%" fill="white"/>', body]
    if layout.text is not None:
        x, y, width, _ = layout.text
        px = layout.font_px
        for n, (k, line) in enumerate(text_lines(words, width, px, measure)):
            colour = "#%02x%02x%02x" % (TITLE_COLOUR if k == 0 else ARITHMETIC_COLOUR)
            kind = "title" if k == 0 else "arithmetic"
            parts.append(f'<text class="slide-{kind}" x="{x}" y="{y + round(n * px * LINE) + px}" '
                         f'font-family="{SVG_FONTS}" font-size="{px}" fill="{colour}" '
                         f'xml:space="preserve">{html.escape(line, quote=False)}</text>')
    parts.append("</svg>")
    return ('<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n' + "\n".join(parts) + "\n").encode("utf-8")
