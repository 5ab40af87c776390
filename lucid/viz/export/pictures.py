"""Pictures beyond the screen: SVG/PNG of one frame, a GIF or a zip of the whole backward pass.

DOT text needs nothing; everything else runs Graphviz's ``dot`` program, so a
missing ``dot`` is reported as ``GraphvizNotInstalled`` (with how to fix it)
rather than as an obscure ``FileNotFoundError``. Frames are rendered in
parallel threads (each is a separate ``dot`` process).
"""
from __future__ import annotations

import io
import math
import os
import re
import shutil
import subprocess
import unicodedata
import zipfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

import graphviz

from lucid._tensor.tensor import Tensor
from lucid.autograd import Trace
from lucid.i18n import L_
from lucid.viz.errors import GraphTooLarge, GraphvizNotInstalled, RenderError
from lucid.viz.export.slide import SlideLayout, compose, fitted_size, pil_measure, plan_slide
from lucid.viz.graph.dot import to_dot

#: Seconds one ``dot`` run may take before it is stopped.
DOT_TIMEOUT = 60
#: Most frames an animation may have (one per backward step).
MAX_FRAMES = 400
#: Most bytes of memory one GIF or zip export may plan to hold at its peak. Frames that would need more are
#: drawn smaller (Graphviz renders them at a lower dpi), never refused. See ``planned_peak_bytes``.
MAX_EXPORT_BYTES = 96_000_000
#: Bytes a finished GIF frame stays in memory per pixel until the file is written: Pillow's encoder keeps a
#: palette copy (1 byte) of every frame, plus a little for the palette's thumbnail.
HELD_BYTES_PER_PIXEL = 1.25
#: Bytes per pixel of the one frame being built: Graphviz's PNG decoded to RGBA, the RGB canvas with its
#: caption, the scaled copy, the palette image and the encoder's difference against the previous frame.
WORK_BYTES_PER_PIXEL = 20
#: Canvas of a 16:9 slide (``slide=True``): the size of a 720p projector or presentation page.
SLIDE_SIZE = (1280, 720)
#: Graphviz's dpi when none is given.
DEFAULT_DPI = 96.0
#: Smallest dpi frames are scaled down to; below it the picture would be unreadable anyway and the
#: budget's remaining guard is the frame count.
MIN_DPI = 4.0


def _source(graph: graphviz.Digraph | str) -> str:
    return graph if isinstance(graph, str) else graph.source


def render(graph: graphviz.Digraph | str, fmt: str, *, dpi: float | None = None) -> bytes:
    """Run ``dot -T<fmt>`` on the graph's DOT text and return the output bytes."""
    exe = shutil.which("dot")
    if exe is None:
        raise GraphvizNotInstalled()
    args = [exe, f"-T{fmt}"] + ([f"-Gdpi={float(dpi):g}"] if dpi else [])
    try:
        done = subprocess.run(args, input=_source(graph).encode("utf-8"), capture_output=True,  # noqa: S603
                              timeout=DOT_TIMEOUT, check=False)
    except FileNotFoundError as exc:  # removed between the check and the call
        raise GraphvizNotInstalled() from exc
    except subprocess.TimeoutExpired as exc:
        raise RenderError(L_("Graphviz took longer than {DOT_TIMEOUT} s to lay out this graph",
                             DOT_TIMEOUT=DOT_TIMEOUT)) from exc
    if done.returncode != 0 or not done.stdout:
        raise RenderError(L_("Graphviz failed: {value}",
                             value=done.stderr.decode('utf-8', 'replace').strip()[:2000]))
    return done.stdout


def to_svg(graph: graphviz.Digraph | str) -> bytes:
    """The picture as SVG (keeps the ``id``/``class`` of every node and edge)."""
    return render(graph, "svg")


_XML_DECLARATION = b"<?xml "
"""How every SVG ``dot`` writes begins (user text inside one is escaped, so it never holds this)."""


def to_svgs(graphs: Sequence[graphviz.Digraph | str]) -> list[bytes]:
    """Several pictures as SVG from ONE ``dot`` run, in order (a process start and Graphviz's plugin and font
    set-up, most of a small graph's time, once instead of per graph).

    ``dot`` lays out every graph of its input on its own and writes one SVG document per graph. The first is
    the very bytes ``to_svg`` gives it alone. A later one draws the same elements at the same places with the
    same ids and titles, but Graphviz may write them in another order and names the outer group after the
    graph's place in the run (``page0,1_graph0``): read a later picture by its elements' ids or titles. Only
    the first graph may be anonymous (``digraph {``): Graphviz numbers anonymous graphs in the order it reads
    them, and the number is in the SVG's title.
    """
    if len(graphs) == 1:
        return [to_svg(graphs[0])]
    out = render("\n".join(_source(g) for g in graphs), "svg")
    parts = [_XML_DECLARATION + p for p in out.split(_XML_DECLARATION)[1:]]
    if len(parts) != len(graphs):
        raise RenderError(L_("Graphviz failed: {value}", value=f"{len(parts)} SVG for {len(graphs)} graphs"))
    return parts


def to_png(graph: graphviz.Digraph | str, *, dpi: float | None = None) -> bytes:
    """The picture as PNG; ``dpi`` scales it (Graphviz's default is 96)."""
    return render(graph, "png", dpi=dpi)


@dataclass(frozen=True)
class FramePlan:
    """How every frame of one export is drawn: Graphviz's dpi and the canvas each picture is placed on.

    ``box`` is the area the graph's picture must fit in: the top-left of the canvas for a plain export,
    centred on a slide. The caption band (``band`` pixels) sits under the box. A slide with words has a
    ``layout`` (``lucid.viz.export.slide``: the graph's box and the words' area) and, once the first frame is
    drawn, the ``picture`` size every frame is placed at: one camera for the whole animation.
    """

    dpi: float
    canvas: tuple[int, int]
    box: tuple[int, int]
    band: int
    centred: bool
    layout: SlideLayout | None = None
    picture: tuple[int, int] | None = None

    @property
    def scale(self) -> float:
        """The dpi relative to Graphviz's default: below 1 the frames were drawn smaller to fit the budget."""
        return self.dpi / DEFAULT_DPI


def planned_peak_bytes(n_frames: int, canvas: tuple[int, int], png_bytes: int, *, held: bool = True) -> int:
    """Memory an export plans to need at its peak: what stays until the file is written plus one frame in work.

    ``held`` is true for a GIF (the encoder keeps every frame until it writes) and false for a zip (each
    frame is compressed and dropped at once). ``png_bytes`` is the size of one frame as Graphviz's PNG.
    """
    pixels = canvas[0] * canvas[1]
    kept = n_frames * pixels * HELD_BYTES_PER_PIXEL if held else 0.0
    return int(kept + pixels * WORK_BYTES_PER_PIXEL + n_frames * png_bytes)


def plan_frames(size: tuple[int, int], png_bytes: int, n_frames: int, *, dpi: float | None = None,
                caption: bool = True, slide: tuple[int, int] | None = None, held: bool = True,
                budget: int | None = None, words: Sequence[Sequence[str]] | None = None) -> FramePlan:
    """The largest drawing of ``n_frames`` frames that fits ``budget`` bytes (``MAX_EXPORT_BYTES``).

    ``size`` and ``png_bytes`` describe the first frame rendered at ``dpi``. A plain export keeps that
    size when it fits and otherwise shrinks every frame by one factor (text stays proportionate). A
    ``slide`` of ``(width, height)`` fixes the canvas: the graph is scaled to fit it (up to 2× for small
    graphs, so they fill the slide sharply) and centred; if even the slide is over budget, the whole slide
    shrinks, keeping its aspect ratio. With ``words`` (each frame's title and arithmetic line) a slide lays
    them under or beside the graph (``lucid.viz.export.slide.plan_slide``) instead of a one-line caption band.
    """
    budget = MAX_EXPORT_BYTES if budget is None else budget
    base = float(dpi) if dpi else DEFAULT_DPI
    width, height = max(1, size[0]), max(1, size[1])
    shrink = 1.0
    for _ in range(60):  # each round shrinks by the square root of the overshoot: converges in a few
        if slide is not None:
            cw, ch = max(16, round(slide[0] * shrink)), max(16, round(slide[1] * shrink))
            layout = None
            if words is not None and caption:
                layout = plan_slide((cw, ch), (width, height), words, pil_measure(_font, _sample(words)))
                band, box = 0, (layout.box[2], layout.box[3])
            else:
                band = caption_band(cw) if caption else 0
                box = (cw, max(1, ch - band))
            fit = min(box[0] / width, box[1] / height, 2.0)
            plan = FramePlan(max(MIN_DPI, base * fit), (cw, ch), box, band, True, layout)
            png = png_bytes * fit * fit
        else:
            fit = shrink
            fw, fh = max(1, math.ceil(width * fit)), max(1, math.ceil(height * fit))
            band = caption_band(fw) if caption else 0
            plan = FramePlan(max(MIN_DPI, base * fit), (fw, fh + band), (fw, fh), band, False)
            png = png_bytes * fit * fit
        peak = planned_peak_bytes(n_frames, plan.canvas, int(png), held=held)
        if peak <= budget or plan.dpi <= MIN_DPI:
            return plan
        shrink *= 0.97 * math.sqrt(budget / peak)
    return plan


def render_frames(root: Tensor, trace: Trace, *, dpi: float | None, caption: bool, slide: tuple[int, int] | None,
                  held: bool, options: dict[str, Any]) -> tuple[list[bytes], FramePlan]:
    """Every step's PNG, drawn at the dpi that keeps the export within ``MAX_EXPORT_BYTES``, and that plan.

    Every frame shares the first frame's layout (``to_dot`` keeps node sizes fixed across steps), so one
    dpi and one placement (the plan's ``picture``) frame them all: on a slide, the whole graph, fitted
    once. A slide with captions carries each step's title and arithmetic line (``slide_words``).
    """
    if len(trace.steps) > MAX_FRAMES:
        raise GraphTooLarge(L_("This backward pass has {count} steps, more than the {MAX_FRAMES} frames an "
                               "animation may have. Try a smaller expression.",
                               count=len(trace.steps), MAX_FRAMES=MAX_FRAMES),
                            nodes=len(trace.steps), limit=MAX_FRAMES)
    sources = [to_dot(root, trace, s, **options).source for s in range(len(trace.steps))]
    first = to_png(sources[0], dpi=dpi)  # every frame has this frame's layout, hence its size
    words = slide_words(trace) if slide is not None and caption else None
    plan = plan_frames(_png_size(first), len(first), len(sources), dpi=dpi, caption=caption, slide=slide,
                       held=held, words=words)
    base = float(dpi) if dpi else DEFAULT_DPI
    redraw = abs(plan.dpi - base) > 1e-9
    if redraw:
        first = to_png(sources[0], dpi=plan.dpi)
        if not slide:  # Graphviz rounds sizes: the canvas follows the picture it really drew
            fw, fh = _png_size(first)
            plan = FramePlan(plan.dpi, (fw, fh + plan.band), (fw, fh), plan.band, False)
    if slide is not None:  # one camera: every frame's picture at the first one's fitted size
        plan = replace(plan, picture=fitted_size(_png_size(first), (0, 0, *plan.box)))
    workers = max(1, min(8, os.cpu_count() or 1, len(sources) - 1))
    pool = ThreadPoolExecutor(max_workers=workers)
    draw_dpi = plan.dpi if redraw else dpi
    try:
        return [first, *pool.map(lambda src: to_png(src, dpi=draw_dpi), sources[1:])], plan
    finally:  # on a failure, frames not yet started are dropped rather than rendered for nothing
        pool.shutdown(wait=True, cancel_futures=True)


def slide_words(trace: Trace) -> list[tuple[str, str]]:
    """Each step's title and arithmetic line, the words a slide shows under or beside the graph."""
    from lucid.viz.export.slide import step_words

    return [step_words(trace, s) for s in range(len(trace.steps))]


def _sample(words: Sequence[Sequence[str]]) -> str:
    """All the words of an export: the font is chosen once for them (a CJK font when any needs one)."""
    return "".join("".join(w) for w in words)


def frames(root: Tensor, trace: Trace, *, dpi: float | None = None, **options: Any) -> list[bytes]:
    """One PNG per backward step (step 0, the seed, first), every one from the same layout and size.

    A pass too large for ``MAX_EXPORT_BYTES`` at ``dpi`` is drawn at a lower dpi rather than refused.
    """
    return render_frames(root, trace, dpi=dpi, caption=False, slide=None, held=True, options=options)[0]


def _png_size(png: bytes) -> tuple[int, int]:
    """Width and height from a PNG's header (no decoding)."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise RenderError(L_("Graphviz did not produce a PNG image"))
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


_CLASS_AT_END = re.compile(r'class="([^"]*)"\]\s*$')
_ID_ATTR = re.compile(r"\bid=\"?([A-Za-z0-9_]+)")


def _frame_image(png: bytes, plan: FramePlan, caption: str | None, font: Any,
                 words: Sequence[str] | None = None, sample: str = "") -> Any:
    """One finished frame: the picture (fitted into the plan's box), on its canvas, with its caption.

    A slide with a ``layout`` places the picture at the plan's ``picture`` size (the same in every frame)
    and writes the step's ``words`` (title, arithmetic line) in the layout's text area.
    """
    from PIL import Image, ImageDraw

    with Image.open(io.BytesIO(png)) as decoded:
        picture = decoded.convert("RGB")
    if plan.layout is not None:
        return compose(picture, plan.layout, words or (), _font, plan.picture, sample)
    bw, bh = plan.box
    if plan.picture is not None and picture.size != plan.picture:  # one camera: every frame the same size
        picture = picture.resize(plan.picture, Image.Resampling.LANCZOS)
    if picture.width > bw or picture.height > bh:  # Graphviz's rounding, or a minimum it will not go below
        ratio = min(bw / picture.width, bh / picture.height)
        picture = picture.resize((max(1, int(picture.width * ratio)), max(1, int(picture.height * ratio))),
                                 Image.Resampling.LANCZOS)
    if picture.size == plan.canvas:
        canvas = picture
    else:
        canvas = Image.new("RGB", plan.canvas, "white")
        at = ((bw - picture.width) // 2, (bh - picture.height) // 2) if plan.centred else (0, 0)
        canvas.paste(picture, at)
        del picture
    if caption is not None:
        size = caption_font_size(plan.canvas[0])
        ImageDraw.Draw(canvas).text((size // 2, bh + size // 2), caption, fill=(20, 20, 20), font=font)
    return canvas


def _shared_palette(build: Callable[[int], Any], count: int) -> Any:
    """One 256-colour palette taken from every frame (no colour flicker), seeing one frame at a time.

    Each frame is built, shrunk to a quarter thumbnail and dropped, so the palette costs a thumbnail per
    frame, not a frame per frame.
    """
    from PIL import Image

    thumbs = []
    for i in range(count):
        im = build(i)
        thumbs.append(im.resize((max(1, im.width // 4), max(1, im.height // 4)), Image.Resampling.NEAREST))
        del im
    montage = Image.new("RGB", (max(t.width for t in thumbs), sum(t.height for t in thumbs)), "white")
    y = 0
    for t in thumbs:
        montage.paste(t, (0, y))
        y += t.height
    return montage.quantize(colors=256, method=Image.Quantize.FASTOCTREE)


#: Font files with Hangul, Han and Kana (Debian fonts-noto-cjk, fonts-nanum), tried for captions that need them.
CJK_FONT_FILES = ("NotoSansCJK-Regular.ttc", "NanumGothic.ttf")


def caption_font_size(width: int) -> int:
    """Caption text scales with the frame so it stays legible on wide graphs (16 to 40 px)."""
    return max(16, min(40, width // 90))


def caption_band(width: int) -> int:
    """Height in pixels of the caption band under each frame."""
    return 2 * caption_font_size(width) + 4


def _font(size: int, text: str = "") -> Any:
    """A TrueType font with the math symbols (∂, Σ) when one is installed, else Pillow's own.

    Captions that name a variable in Hangul or Han (``∂출력/∂가중치``) need a CJK font, which also has ∂ and Σ.
    """
    from PIL import ImageFont

    names = ("DejaVuSans.ttf", "LiberationSans-Regular.ttf", "Arial.ttf")
    if any(unicodedata.east_asian_width(ch) in ("W", "F") for ch in text):
        names = (*CJK_FONT_FILES, *names)
    for name in names:
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default()


def _captions(trace: Trace, caption: bool) -> list[str] | None:
    if not caption:
        return None
    from lucid.viz.explanation.explain import step_title

    return [step_title(trace, s) for s in range(len(trace.steps))]


def _texts(trace: Trace, caption: bool, plan: FramePlan) -> tuple[list[str] | None, list[tuple[str, str]] | None, str]:
    """Each frame's caption (a plain export), or its slide words (a slide's layout), and the text the font serves."""
    if plan.layout is not None:
        words = slide_words(trace)
        return None, words, _sample(words)
    titles = _captions(trace, caption)
    return titles, None, "".join(titles or ())


def _slide_size(slide: bool | tuple[int, int]) -> tuple[int, int] | None:
    if slide is True:
        return SLIDE_SIZE
    if slide is False or slide is None:
        return None
    width, height = (int(v) for v in slide)
    if width < 16 or height < 16:
        raise ValueError(f"a slide must be at least 16×16 pixels, not {width}×{height}")
    return width, height


def animation_gif(root: Tensor, trace: Trace, *, frame_ms: int = 1200, last_frame_ms: int = 3000,
                  dpi: float | None = None, caption: bool = True, slide: bool | tuple[int, int] = False,
                  **options: Any) -> bytes:
    """The whole backward pass as a looping GIF, one frame per step, all on one canvas size.

    ``caption`` writes each step's title under its frame. ``slide=True`` puts every frame on a 16:9
    slide of ``SLIDE_SIZE`` (1280×720): the whole graph, scaled to fit once and at the same place in
    every frame (one camera: nothing jitters or is cut off), white around it, and each step's title and
    arithmetic line under or beside it (``lucid.viz.export.slide``); ``slide=(width, height)`` picks another
    canvas. Memory stays within ``MAX_EXPORT_BYTES`` whatever the graph: frames too large for it are drawn
    smaller, never refused (frames are built one at a time, and only the encoder keeps them, at one byte a
    pixel).
    Other options go to ``to_dot``.
    """
    from PIL import Image

    pngs, plan = render_frames(root, trace, dpi=dpi, caption=caption, slide=_slide_size(slide), held=True,
                               options=options)
    titles, words, sample = _texts(trace, caption, plan)
    font = _font(caption_font_size(plan.canvas[0]), sample) if caption else None

    def build(i: int) -> Any:
        return _frame_image(pngs[i], plan, titles[i] if titles else None, font, words[i] if words else None, sample)

    palette = _shared_palette(build, len(pngs))

    def finished(i: int) -> Any:
        return build(i).quantize(palette=palette, dither=Image.Dither.NONE)

    durations = [frame_ms] * (len(pngs) - 1) + [last_frame_ms]
    buf = io.BytesIO()
    finished(0).save(buf, format="GIF", save_all=True, append_images=(finished(i) for i in range(1, len(pngs))),
                     duration=durations, loop=0)
    return buf.getvalue()


def frames_zip(root: Tensor, trace: Trace, *, dpi: float | None = None, caption: bool = False,
               slide: bool | tuple[int, int] = False, **options: Any) -> bytes:
    """A zip of numbered PNG frames (``frame_000.png``, …) of equal size, for slides.

    ``slide`` as for ``animation_gif``. Each frame is compressed as soon as it is built, so memory holds
    one frame at a time besides the zip itself.
    """
    pngs, plan = render_frames(root, trace, dpi=dpi, caption=caption, slide=_slide_size(slide), held=False,
                               options=options)
    titles, words, sample = _texts(trace, caption, plan)
    font = _font(caption_font_size(plan.canvas[0]), sample) if caption else None
    digits = max(3, len(str(len(pngs) - 1)))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for i, png in enumerate(pngs):
            out = io.BytesIO()
            _frame_image(png, plan, titles[i] if titles else None, font, words[i] if words else None,
                         sample).save(out, format="PNG")
            zf.writestr(f"frame_{i:0{digits}d}.png", out.getvalue())
    return buf.getvalue()
