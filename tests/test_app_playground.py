"""The Playground page, driven by Streamlit's AppTest (no browser): load, step, errors, links, gallery."""
import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from lucid import gallery
from lucid.ui import share

ROOT = Path(__file__).resolve().parents[1]
PAGE = str(ROOT / "pages" / "playground.py")
TIMEOUT = 60


def gallery_picker(at):
    """The Gallery selectbox (its key follows what it shows, so find it by its label)."""
    return next(box for box in at.selectbox if box.label == "Gallery")


def start(**query) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    for k, v in query.items():
        at.query_params[k] = v
    return at.run()


def explanation(at: AppTest) -> str:
    """Text of the step explanation box (title line first)."""
    parts = [m.value for m in at.markdown if m.value.startswith("**Step ")]
    assert len(parts) == 1
    return parts[0]


def graph_dot(at: AppTest) -> str:
    """The drawn frame: SVG text of the clickable graph (``dot`` installed) or the DOT of the fallback chart."""
    clickable = at.get("bidi_component")
    if clickable:
        return json.loads(clickable[0].proto.json)["svg"]
    charts = at.get("graphviz_chart")
    assert charts, "no graph on the page"
    return charts[0].proto.spec


def editor_text(at: AppTest) -> str:
    return at.text_area(key="pg_source").value


def test_page_loads_the_default_example_without_exception():
    at = start()
    assert not at.exception
    assert editor_text(at) == gallery.DEFAULT.source
    assert gallery_picker(at).value == gallery.DEFAULT.title
    assert explanation(at).startswith("**Step 0 of ")
    dot = graph_dot(at)
    assert ("<svg" in dot or "digraph" in dot) and "tanh" in dot
    assert not at.error


def test_next_prev_and_slider_move_the_explanation():
    at = start()
    n_last = int(explanation(at).split(" of ")[1].split(":")[0])
    assert n_last >= 10
    seed_text = explanation(at)
    at.button(key="pg_next").click().run()
    assert at.slider(key="pg_step").value == 1
    step1 = explanation(at)
    assert step1.startswith("**Step 1 of ") and step1 != seed_text
    at.button(key="pg_next").click().run()
    assert explanation(at).startswith("**Step 2 of ")
    at.button(key="pg_prev").click().run()
    assert explanation(at) == step1
    at.slider(key="pg_step").set_value(5).run()
    assert explanation(at).startswith("**Step 5 of ")
    at.button(key="pg_last").click().run()
    assert explanation(at).startswith(f"**Step {n_last} of {n_last}")
    at.button(key="pg_first").click().run()
    assert explanation(at) == seed_text
    assert not at.exception


def test_step_frames_differ_and_come_back_identical():
    at = start()
    first = graph_dot(at)
    at.button(key="pg_next").click().run()
    assert graph_dot(at) != first
    at.button(key="pg_prev").click().run()
    assert graph_dot(at) == first


def test_bad_program_shows_line_and_column_and_keeps_the_old_graph():
    at = start()
    before = graph_dot(at)
    at.text_area(key="pg_source").set_value("a = 1.5\nb = a +* 2\n").run()
    at.button(key="pg_run").click().run()
    assert not at.exception
    assert len(at.error) == 1
    assert "Line 2, column" in at.error[0].value
    assert "b = a +* 2" in at.code[0].value and "^" in at.code[0].value
    assert graph_dot(at) == before
    assert "Traceback" not in "".join(e.value for e in at.error)


def test_unknown_name_error_points_at_the_name():
    at = start()
    at.text_area(key="pg_source").set_value("x = 2.0\ny = tanhh(x)\n").run()
    message = at.error[0].value
    assert "Line 2, column 5" in message
    assert "tanhh" in message


def test_running_a_new_program_redraws_and_resets_to_the_seed():
    at = start()
    at.button(key="pg_next").click().run()
    at.text_area(key="pg_source").set_value("x = 3.0\ny = x * x\n").run()
    assert not at.exception and not at.error
    assert at.slider(key="pg_step").value == 0
    assert at.slider(key="pg_step").max == 2
    assert "tanh" not in graph_dot(at)


def test_program_in_the_url_is_loaded():
    at = start(**share.encode("w = 2.0\nv = w * w * w\n", step=1))
    assert not at.exception
    assert editor_text(at) == "w = 2.0\nv = w * w * w\n"
    assert at.slider(key="pg_step").value == 1
    assert explanation(at).startswith("**Step 1 of ")
    assert "tanh" not in graph_dot(at)


def test_packed_program_in_the_url_is_loaded():
    source = gallery.by_slug("mlp").source
    at = start(**share.encode(source, step=4))
    assert not at.exception
    assert editor_text(at) == source
    assert gallery_picker(at).value == "A 2-layer MLP on a batch"
    assert at.slider(key="pg_step").value == 4


def test_the_url_follows_program_and_step():
    at = start()
    at.button(key="pg_next").click().run()
    assert share.decode(at.query_params) == share.SharedView(gallery.DEFAULT.source, 1)
    at.text_area(key="pg_source").set_value("x = 3.0\ny = x * x\n").run()
    assert share.decode(at.query_params) == share.SharedView("x = 3.0\ny = x * x\n", 0)


@pytest.mark.parametrize("example", gallery.EXAMPLES, ids=lambda e: e.slug)
def test_every_gallery_example_runs_from_the_picker(example):
    at = start()
    gallery_picker(at).set_value(example.title).run()
    assert not at.exception
    assert not at.error
    assert editor_text(at) == example.source
    assert any(example.lesson in c.value for c in at.caption)
    assert explanation(at).startswith("**Step 0 of ")
    at.button(key="pg_last").click().run()
    assert not at.exception


def test_inputs_table_shows_autodiff_next_to_finite_differences():
    at = start()
    table = at.dataframe[0].value
    assert list(table["input"]) == ["a", "b", "c"]
    errors = [float(x) for x in table["max rel. error"]]
    assert all(e < 1e-6 for e in errors)


def test_constant_only_program_says_there_is_no_backward_pass():
    at = start()
    at.text_area(key="pg_source").set_value("k = const(2.0)\nm = k * 3\n").run()
    assert not at.exception
    assert any("no backward pass" in i.value for i in at.info)


def test_classroom_mode_folds_the_editor_and_keeps_working():
    at = start()
    at.toggle(key="pg_classroom").set_value(True).run()
    assert not at.exception
    at.button(key="pg_next").click().run()
    assert explanation(at).startswith("**Step 1 of ")


def test_without_dot_the_graph_is_drawn_in_the_browser_and_exports_explain_why(monkeypatch):
    from lucid.ui import graph_view

    monkeypatch.setattr(graph_view, "has_dot", lambda: False)
    at = start()
    assert not at.exception
    assert not at.get("bidi_component")
    assert "tanh" in at.get("graphviz_chart")[0].proto.spec
    assert any("need Graphviz's `dot`" in c.value for c in at.caption)



def test_moving_one_step_does_not_recompute_the_program_or_old_frames():
    at = start()
    programs, frames = at.session_state["pg_programs"], at.session_state["pg_frames"]
    assert programs.misses == 1
    first_misses = frames.misses
    at.button(key="pg_next").click().run()
    after_next = frames.misses
    assert after_next > first_misses
    at.button(key="pg_prev").click().run()
    at.button(key="pg_next").click().run()
    assert frames.misses == after_next
    assert programs.misses == 1


def test_drawing_options_redraw_the_frame():
    at = start()
    top_to_bottom = graph_dot(at)
    at.radio(key="pg_direction").set_value("Left to right").run()
    assert not at.exception
    left_to_right = graph_dot(at)
    assert left_to_right != top_to_bottom
    at.checkbox(key="pg_values").uncheck().run()
    assert not at.exception
    assert "0.4500" in left_to_right and "0.4500" not in graph_dot(at)
