"""The Playground's exports and size messages, driven by Streamlit's AppTest (no browser)."""
import io
import shutil
from pathlib import Path

import pytest
from PIL import Image
from streamlit.testing.v1 import AppTest

from lucid.session import share
from lucid.session.analysis import analyze
from lucid.ui.playground import graph_view
from lucid.viz.export import slide
from tests.class_pages import players

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "playground.py")
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot is not installed")


def start(source: str | None = None, *, export_open: bool = True) -> AppTest:
    """The Playground with ``source``, its Export panel opened (as a click on its header does)."""
    at = AppTest.from_file(PAGE, default_timeout=120)
    if source is not None:
        at.query_params.update(share.encode(source))
    at.session_state["pg_export_open"] = export_open
    return at.run()


def downloads(at: AppTest) -> dict[str, object]:
    return {b.proto.label: b for b in at.get("download_button")}


def test_a_folded_export_panel_draws_nothing_inside_and_keeps_its_step_for_when_it_opens():
    at = start("x = 3.0\ny = x * x\n", export_open=False)
    assert not downloads(at) and not at.number_input  # folded: no buttons made, nothing sent
    at.session_state["pg_export_open"] = True
    at.run()
    assert {"DOT"} <= set(downloads(at))
    at.number_input(key="pg_export_step").set_value(1).run()
    at.session_state["pg_export_open"] = False
    at.run()
    at.run()  # two folded runs: the step is kept as plain state
    at.session_state["pg_export_open"] = True
    at.run()
    assert at.number_input(key="pg_export_step").value == 1
    assert downloads(at)["DOT"].proto.label == "DOT"


@needs_dot
def test_make_gif_renders_the_whole_pass_once_then_offers_the_download():
    at = start("x = 3.0\ny = x * x\n")
    assert "GIF (whole pass)" not in downloads(at)
    at.button(key="pg_make_gif").click().run()
    assert not at.exception and not at.warning
    gifs = at.session_state["pg_gifs"]
    assert len(gifs) == 1 and gifs.misses == 1
    (data,) = gifs._store.values()
    image = Image.open(io.BytesIO(data))
    assert image.format == "GIF" and image.n_frames == 3  # the seed, then x's two contributions
    assert "GIF (whole pass)" in downloads(at)
    assert {"DOT", "SVG", "PNG"} <= set(downloads(at))


@needs_dot
def test_the_slide_gif_is_16_by_9_and_kept_apart_from_the_plain_one():
    at = start("x = 3.0\ny = x * x\n")
    at.checkbox(key="pg_gif_slide").check().run()
    at.button(key="pg_make_gif").click().run()
    assert not at.exception and not at.warning
    (data,) = at.session_state["pg_gifs"]._store.values()
    image = Image.open(io.BytesIO(data))
    assert image.size == (1280, 720) and image.n_frames == 3
    assert "GIF (whole pass)" in downloads(at)


@needs_dot
def test_a_pass_too_long_to_animate_says_so_instead_of_offering_a_gif():
    layers = graph_view.GIF_STEP_LIMIT // 2  # 3 ops a layer
    source = "h = randn(2, 2)\n" + "h = tanh(h * 0.9 + 0.1)\n" * layers + "out = sum(h)\n"
    at = start(source)
    assert not at.exception
    steps = analyze(source).n_steps
    assert steps > graph_view.GIF_STEP_LIMIT
    assert any(f"No GIF for {steps} steps" in c.value for c in at.caption)
    assert not [b for b in at.button if b.key == "pg_make_gif"]


def test_a_graph_over_the_node_cap_is_drawn_collapsed_instead_of_refused():
    source = "x = randn(2, 2)\n" + "x = tanh(x @ randn(2, 2))\n" * 80 + "out = sum(x)\n"
    at = start(source)
    assert not at.exception
    assert not at.warning  # large graphs are drawn collapsed into boxes (lucid.viz.graph.collapse), not refused
    drawn = [b for b in players(at)] or at.get("graphviz_chart")
    assert drawn and "collapsed" in (drawn[0].proto.json if hasattr(drawn[0].proto, "json") else drawn[0].proto.spec)


def test_inputs_table_says_scalar_and_shows_a_dash_when_finite_differences_are_skipped():
    at = start()
    table = at.dataframe[0].value
    assert list(table["shape"]) == ["scalar", "scalar", "scalar"]
    big = "W = randn(21, 20)\nout = sum(W * W)\n"  # 420 numbers: over the finite-difference limit
    at = start(big)
    table = at.dataframe[0].value
    assert list(table["shape"]) == ["21×20"]
    assert list(table["gradient (finite diff.)"]) == ["skipped"]
    assert list(table["max rel. error"]) == ["—"]
    assert table["value"][0].startswith("min ")  # the shape has its own column



@needs_dot
def test_a_step_exports_as_a_16_9_slide_whose_words_keep_the_page_language():
    at = start("x = 3.0\ny = x * x\n")
    assert not at.exception
    assert {"16:9 slide (PNG)", "16:9 slide (SVG)"} <= set(downloads(at))
    # the files are made when clicked, outside the page's run: the maker carries the page's language
    analysis = analyze("x = 3.0\ny = x * x\n")
    made = graph_view.slide_file(slide.still_svg, analysis.program.output, analysis.trace, 1,
                                 {"direction": "TB"}, "ko")
    svg = made().decode("utf-8")
    assert "단계 1 / 2" in svg and "grad y · ∂y/∂x = 1.000 · 3.000 = 3.000" in svg
    png = Image.open(io.BytesIO(graph_view.slide_file(slide.still_png, analysis.program.output, analysis.trace, 1,
                                                      {}, "en")()))
    assert png.size == (1280, 720)
