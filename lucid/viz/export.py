"""Pictures beyond the screen: SVG/PNG of one frame, a GIF or a zip of the whole backward pass.

DOT text needs nothing; everything else runs Graphviz's ``dot`` program, so a
missing ``dot`` is reported as ``GraphvizNotInstalled`` (with how to fix it)
rather than as an obscure ``FileNotFoundError``. Frames are rendered in
parallel threads (each is a separate ``dot`` process).
"""
from __future__ import annotations

import io
import os
import shutil
import subprocess
import zipfile
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import graphviz

from lucid._tensor.tensor import Tensor
from lucid.autograd import Trace
from lucid.viz.dot import to_dot
from lucid.viz.errors import GraphTooLarge, GraphvizNotInstalled, RenderError

#: Seconds one ``dot`` run may take before it is stopped.
DOT_TIMEOUT = 60
#: Most frames an animation may have (one per backward step).
MAX_FRAMES = 400
#: Most pixels of all frames of one animation together: the frames are held as RGB images while the
#: GIF is made (3 bytes a pixel), so this bounds its memory. The gallery's largest needs 68 million.
MAX_ANIMATION_PIXELS = 100_000_000


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
        raise RenderError(f"Graphviz took longer than {DOT_TIMEOUT} s to lay out this graph") from exc
    if done.returncode != 0 or not done.stdout:
        raise RenderError(f"Graphviz failed: {done.stderr.decode('utf-8', 'replace').strip()[:2000]}")
    return done.stdout


def to_svg(graph: graphviz.Digraph | str) -> bytes:
    """The picture as SVG (keeps the ``id``/``class`` of every node and edge)."""
    return render(graph, "svg")


def to_png(graph: graphviz.Digraph | str, *, dpi: float | None = None) -> bytes:
    """The picture as PNG; ``dpi`` scales it (Graphviz's default is 96)."""
    return render(graph, "png", dpi=dpi)


def frames(root: Tensor, trace: Trace, *, dpi: float | None = None, **options: Any) -> list[bytes]:
    """One PNG per backward step (step 0, the seed, first), every one from the same layout."""
    if len(trace.steps) > MAX_FRAMES:
        raise GraphTooLarge(f"This backward pass has {len(trace.steps)} steps, more than the {MAX_FRAMES} "
                            "frames an animation may have. Try a smaller expression.",
                            nodes=len(trace.steps), limit=MAX_FRAMES)
    sources = [to_dot(root, trace, s, **options).source for s in range(len(trace.steps))]
    first = to_png(sources[0], dpi=dpi)  # every frame has this frame's layout, hence its size
    width, height = _png_size(first)
    if width * height * len(sources) > MAX_ANIMATION_PIXELS:
        raise GraphTooLarge(f"This animation would be {len(sources)} frames of {width}×{height} pixels, more than "
                            f"the {MAX_ANIMATION_PIXELS:,} pixels an animation may have. Export single frames "
                            "(PNG or SVG), or try a smaller expression.", nodes=len(sources), limit=MAX_FRAMES)
    workers = max(1, min(8, os.cpu_count() or 1, len(sources) - 1))
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        return [first, *pool.map(lambda src: to_png(src, dpi=dpi), sources[1:])]
    finally:  # on a failure, frames not yet started are dropped rather than rendered for nothing
        pool.shutdown(wait=True, cancel_futures=True)


def _png_size(png: bytes) -> tuple[int, int]:
    """Width and height from a PNG's header (no decoding)."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise RenderError("Graphviz did not produce a PNG image")
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def _decode(png: bytes) -> Any:
    from PIL import Image

    return Image.open(io.BytesIO(png)).convert("RGB")


def _images(pngs: list[bytes], caption: list[str] | None) -> list[Any]:
    """Decode the frames and pad them all to one canvas (top-left aligned), plus an optional caption band."""
    from PIL import Image, ImageDraw

    with ThreadPoolExecutor(max_workers=max(1, min(8, os.cpu_count() or 1))) as pool:
        images = list(pool.map(_decode, pngs))
    width = max(im.width for im in images)
    height = max(im.height for im in images)
    size = caption_font_size(width)
    font = _font(size) if caption else None
    band = caption_band(width) if caption else 0
    out = []
    for i, im in enumerate(images):
        if im.size == (width, height + band):
            canvas = im
        else:
            canvas = Image.new("RGB", (width, height + band), "white")
            canvas.paste(im, (0, 0))
        if caption:
            ImageDraw.Draw(canvas).text((size // 2, height + size // 2), caption[i], fill=(20, 20, 20), font=font)
        out.append(canvas)
    return out


def _shared_palette(images: list[Any]) -> list[Any]:
    """All frames in one 256-colour palette taken from every frame (fast to encode, no colour flicker)."""
    from PIL import Image

    thumbs = [im.resize((max(1, im.width // 4), max(1, im.height // 4)), Image.Resampling.NEAREST) for im in images]
    montage = Image.new("RGB", (max(t.width for t in thumbs), sum(t.height for t in thumbs)), "white")
    y = 0
    for t in thumbs:
        montage.paste(t, (0, y))
        y += t.height
    palette = montage.quantize(colors=256, method=Image.Quantize.FASTOCTREE)
    return [im.quantize(palette=palette, dither=Image.Dither.NONE) for im in images]


def caption_font_size(width: int) -> int:
    """Caption text scales with the frame so it stays legible on wide graphs (16 to 40 px)."""
    return max(16, min(40, width // 90))


def caption_band(width: int) -> int:
    """Height in pixels of the caption band under each frame."""
    return 2 * caption_font_size(width) + 4


def _font(size: int) -> Any:
    """A TrueType font with the math symbols (∂, Σ) when one is installed, else Pillow's own."""
    from PIL import ImageFont

    for name in ("DejaVuSans.ttf", "LiberationSans-Regular.ttf", "Arial.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default()


def _captions(trace: Trace, caption: bool) -> list[str] | None:
    if not caption:
        return None
    from lucid.viz.explain import step_title

    return [step_title(trace, s) for s in range(len(trace.steps))]


def animation_gif(root: Tensor, trace: Trace, *, frame_ms: int = 1200, last_frame_ms: int = 3000,
                  dpi: float | None = None, caption: bool = True, **options: Any) -> bytes:
    """The whole backward pass as a looping GIF, one frame per step, all on one canvas size.

    ``caption`` writes each step's title under its frame. Other options go to ``to_dot``.
    """
    images = _shared_palette(_images(frames(root, trace, dpi=dpi, **options), _captions(trace, caption)))
    durations = [frame_ms] * (len(images) - 1) + [last_frame_ms]
    buf = io.BytesIO()
    images[0].save(buf, format="GIF", save_all=True, append_images=images[1:], duration=durations, loop=0)
    return buf.getvalue()


def frames_zip(root: Tensor, trace: Trace, *, dpi: float | None = None, caption: bool = False,
               **options: Any) -> bytes:
    """A zip of numbered PNG frames (``frame_000.png``, …) of equal size, for slides."""
    images = _images(frames(root, trace, dpi=dpi, **options), _captions(trace, caption))
    digits = max(3, len(str(len(images) - 1)))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for i, im in enumerate(images):
            png = io.BytesIO()
            im.save(png, format="PNG")
            zf.writestr(f"frame_{i:0{digits}d}.png", png.getvalue())
    return buf.getvalue()
