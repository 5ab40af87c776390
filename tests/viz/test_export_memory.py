"""GIF and zip exports bound their peak memory, draw frames smaller instead of refusing, and make 16:9 slides.

The cost issue's program (five 2×6 tensors multiplied and summed) made one "Make GIF" add about 700 MB:
15 frames of 6,424×925 pixels, each held decoded, padded and quantized at once. Memory is measured in a
fresh process (``ru_maxrss``: the peak resident size) so nothing else in the test run blurs it.
"""
import io
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
from PIL import Image, ImageSequence

from lucid import gallery, viz
from lucid.autograd import backward_trace
from lucid.expr import run
from lucid.viz.export import pictures as export

ROOT = Path(__file__).resolve().parents[2]
FIVE_FACTORS = "\n".join(f"x{i} = randn(2, 6) * 1234.5678" for i in range(5)) + "\nout = (x0*x1*x2*x3*x4).sum()"
MLP_SOFTMAX = ("X = const(randn(8, 4))\nW1 = randn(4, 8)\nb1 = zeros(8)\nh = relu(X @ W1 + b1)\n"
               "W2 = randn(8, 3)\nb2 = zeros(3)\nlogits = h @ W2 + b2\n"
               "Y = const([[1,0,0],[0,1,0],[0,0,1],[1,0,0],[0,1,0],[0,0,1],[1,0,0],[0,1,0]])\n"
               "p = softmax(logits, axis=1)\nloss = -sum(Y * log(p)) / 8\n")

pytestmark = pytest.mark.skipif(not export.shutil.which("dot"), reason="needs Graphviz's dot")


def traced(source: str):
    program = run(source)
    return program.output, backward_trace(program.output)


def gif_frames(data: bytes) -> list[Image.Image]:
    gif = Image.open(io.BytesIO(data))
    return [f.copy() for f in ImageSequence.Iterator(gif)]


def peak_added_megabytes(source: str, call: str, save: Path | None = None) -> float:
    """Peak resident memory a GIF export adds, measured in a fresh Python process (which writes the GIF to
    ``save`` once it is measured, for tests that read its frames)."""
    script = textwrap.dedent(f"""
        import resource, sys
        sys.path.insert(0, {str(ROOT)!r})
        from lucid.expr import run
        from lucid.autograd import backward_trace
        from lucid import viz
        warm = run("a = 1.5\\nb = a * a")
        viz.animation_gif(warm.output, backward_trace(warm.output))  # loads Pillow, fonts and dot once
        program = run({source!r})
        trace = backward_trace(program.output)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        gif = {call}
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        if {str(save) if save else None!r}:
            open({str(save) if save else None!r}, "wb").write(gif)
        print((after - before) / 1024)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600, check=True)
    return float(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def five_factor_gif(tmp_path_factory) -> tuple[float, bytes]:
    """The five-factor GIF, made once in a fresh process: the memory it added (MB) and its bytes.

    Both tests below read this one export; each made its own before, and a GIF of 15 frames this wide is one of
    the slowest things in the suite. (``frame_ms`` changes only the frames' delay, not what is held in memory.)"""
    path = tmp_path_factory.mktemp("five-factors") / "five-factors.gif"
    added = peak_added_megabytes(FIVE_FACTORS, "viz.animation_gif(program.output, trace, frame_ms=300)", save=path)
    return added, path.read_bytes()


def test_the_five_factor_gif_adds_at_most_about_the_memory_budget(five_factor_gif):
    added, _gif = five_factor_gif
    assert added < export.MAX_EXPORT_BYTES / 1e6 * 1.5  # was about 700 MB before frames were streamed


def test_the_five_factor_gif_still_has_every_step_on_one_canvas(five_factor_gif):
    _out, trace = traced(FIVE_FACTORS)
    frames = gif_frames(five_factor_gif[1])
    assert len(frames) == len(trace.steps) == 15
    assert len({f.size for f in frames}) == 1
    width, height = frames[0].size
    assert len(frames) * width * height * export.HELD_BYTES_PER_PIXEL <= export.MAX_EXPORT_BYTES


def test_a_frame_that_fits_the_budget_keeps_its_size():
    plan = export.plan_frames((800, 400), 50_000, 10, caption=True)
    assert plan.dpi == export.DEFAULT_DPI
    assert plan.box == (800, 400) and plan.canvas == (800, 400 + export.caption_band(800))


def test_frames_over_the_budget_shrink_by_one_factor_until_they_fit():
    plan = export.plan_frames((6424, 925), 400_000, 15, caption=True)
    assert plan.scale < 1
    assert export.planned_peak_bytes(15, plan.canvas, int(400_000 * plan.scale ** 2)) <= export.MAX_EXPORT_BYTES
    assert plan.box[0] / plan.box[1] == pytest.approx(6424 / 925, rel=0.01)  # same shape, smaller


def test_a_slide_keeps_its_canvas_and_fits_the_graph_inside_it():
    wide = export.plan_frames((6424, 925), 400_000, 15, slide=(1280, 720))
    assert wide.canvas == (1280, 720) and wide.centred
    assert wide.box == (1280, 720 - export.caption_band(1280))
    assert 6424 * wide.scale <= 1280 + 1
    small = export.plan_frames((200, 100), 5_000, 4, slide=(1280, 720))
    assert small.scale == 2.0  # small graphs are drawn larger (sharper than stretching pixels)


def test_a_slide_over_the_budget_shrinks_and_stays_16_by_9():
    plan = export.plan_frames((600, 400), 30_000, 400, slide=(1280, 720))
    width, height = plan.canvas
    assert width < 1280 and width / height == pytest.approx(16 / 9, rel=0.02)
    assert export.planned_peak_bytes(400, plan.canvas, int(30_000 * plan.scale ** 2)) <= export.MAX_EXPORT_BYTES


@pytest.mark.parametrize("source", [gallery.by_slug("mlp").source, MLP_SOFTMAX], ids=["gallery-mlp", "softmax-mlp"])
def test_the_2_layer_mlp_lesson_exports_as_a_16_9_slide_gif(source):
    out, trace = traced(source)
    frames = gif_frames(viz.animation_gif(out, trace, slide=True, frame_ms=300))
    assert len(frames) == len(trace.steps) >= 12
    assert {f.size for f in frames} == {export.SLIDE_SIZE}


def test_a_slide_frame_centres_the_graph_with_white_around_it():
    out, trace = traced("x = 1.5\ny = tanh(x) * x")
    (first, *_) = gif_frames(viz.animation_gif(out, trace, slide=True, caption=False))
    rgb = first.convert("RGB")
    assert rgb.size == (1280, 720)
    assert min(rgb.getpixel((0, 0)) + rgb.getpixel((1279, 719))) >= 250  # white (up to the shared palette)
    dark = [x for x in range(1280) if min(rgb.getpixel((x, y)) for y in range(0, 720, 4))[0] < 128]
    assert dark and abs((dark[0] + dark[-1]) / 2 - 640) < 80  # the drawing sits in the middle


def test_a_zip_of_slides_has_every_frame_at_slide_size():
    out, trace = traced("x = 1.5\ny = tanh(x) * x")
    with zipfile.ZipFile(io.BytesIO(viz.frames_zip(out, trace, slide=(960, 540), caption=True))) as zf:
        sizes = {Image.open(io.BytesIO(zf.read(n))).size for n in zf.namelist()}
        assert len(zf.namelist()) == len(trace.steps)
    assert sizes == {(960, 540)}


def test_a_slide_smaller_than_16_pixels_is_refused_in_words():
    out, trace = traced("x = 1.5\ny = x * x")
    with pytest.raises(ValueError, match="at least 16×16"):
        viz.animation_gif(out, trace, slide=(8, 8))
