"""Peak memory of one GIF export, streamed (now) against holding every frame decoded (the old way).

Each row runs in a fresh Python process and reports how much the export raised the process's peak
resident size (``ru_maxrss``), so the two ways are measured under the same conditions. The baseline
decodes every frame, pads it onto a canvas and quantizes them all at once, as the export did before
frames were streamed; it renders at full size, the new export at whatever size fits ``MAX_EXPORT_BYTES``.
Run: ``python bench/bench_gif_memory.py``.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(ROOT))

from lucid import gallery  # noqa: E402

PROGRAMS = {
    "five factors (cost issue)": "\n".join(f"x{i} = randn(2, 6) * 1234.5678" for i in range(5))
    + "\nout = (x0*x1*x2*x3*x4).sum()",
    "2-layer MLP (gallery)": gallery.by_slug("mlp").source,
}

BASELINE = """
def export(out, trace):  # the old way: every frame decoded, padded and quantized, all held at once
    import io
    from PIL import Image
    from lucid.viz.export import pictures as ex
    from lucid.viz.graph.dot import to_dot
    pngs = [ex.to_png(to_dot(out, trace, s).source) for s in range(len(trace.steps))]
    images = [Image.open(io.BytesIO(p)).convert("RGB") for p in pngs]
    w, h = max(i.width for i in images), max(i.height for i in images) + ex.caption_band(images[0].width)
    canvases = []
    for im in images:
        c = Image.new("RGB", (w, h), "white")
        c.paste(im, (0, 0))
        canvases.append(c)
    thumbs = [c.resize((c.width // 4, c.height // 4)) for c in canvases]
    montage = Image.new("RGB", (thumbs[0].width, sum(t.height for t in thumbs)), "white")
    for k, t in enumerate(thumbs):
        montage.paste(t, (0, k * t.height))
    palette = montage.quantize(colors=256, method=Image.Quantize.FASTOCTREE)
    frames = [c.quantize(palette=palette, dither=Image.Dither.NONE) for c in canvases]
    buf = io.BytesIO()
    frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:], duration=1200, loop=0)
    return buf.getvalue(), frames[0].size
"""

CURRENT = """
def export(out, trace, **kw):
    import io
    from PIL import Image
    from lucid import viz
    data = viz.animation_gif(out, trace, **kw)
    return data, Image.open(io.BytesIO(data)).size
"""


def measure(source: str, way: str, kwargs: str = "") -> dict:
    """Peak MB added, frame size and file size of one export in a fresh process."""
    script = textwrap.dedent(f"""
        import json, resource, sys, time
        sys.path.insert(0, {str(ROOT)!r})
        from lucid.expr import run
        from lucid.autograd import backward_trace
        from lucid import viz
        warm = run("a = 1.5\\nb = a * a")
        viz.animation_gif(warm.output, backward_trace(warm.output))
        """) + (BASELINE if way == "baseline" else CURRENT) + textwrap.dedent(f"""
        program = run({source!r})
        trace = backward_trace(program.output)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        start = time.perf_counter()
        data, size = export(program.output, trace{kwargs})
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps({{"mb": (after - before) / 1024, "size": size, "bytes": len(data), "s": seconds,
                          "frames": len(trace.steps)}}))
        """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=900, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    print(f"{'program':28s} {'way':22s} {'frames':>6s} {'frame size':>12s} {'peak MB':>8s} {'seconds':>8s}")
    for name, source in PROGRAMS.items():
        rows = [("baseline (all held)", measure(source, "baseline")),
                ("streamed (now)", measure(source, "current")),
                ("streamed, 16:9 slide", measure(source, "current", ", slide=True"))]
        for way, r in rows:
            size = f"{r['size'][0]}x{r['size'][1]}"
            print(f"{name:28s} {way:22s} {r['frames']:6d} {size:>12s} {r['mb']:8.1f} {r['s']:8.2f}")
        print(f"{'':28s} peak memory ratio baseline/now: {rows[0][1]['mb'] / max(rows[1][1]['mb'], 0.1):.1f}x")


if __name__ == "__main__":
    main()
