"""The Playground page, driven by Streamlit's AppTest (no browser): load, step, errors, links, gallery."""
import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from lucid import gallery
from lucid.session import analysis as shared
from lucid.session import share
from lucid.viz.player.animation import Animation
from tests.class_pages import players
from tests.inspector_arrays import inspector_arrays

ROOT = Path(__file__).resolve().parents[2]
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


def player(at: AppTest) -> dict:
    """What the page hands the in-browser player (the animation payload and its settings)."""
    (component,) = players(at)
    return json.loads(component.proto.json)


def animation(at: AppTest) -> Animation:
    return Animation(**{k: v for k, v in player(at)["anim"].items()})


def explanation(at: AppTest) -> str:
    """Title of the step the player opens at, as the page renders it."""
    data = player(at)
    return data["anim"]["titles"][data["step"]]


def graph_dot(at: AppTest) -> str:
    """The drawn picture: the player's laid-out SVG (``dot`` installed) or the DOT of the fallback chart."""
    if players(at):
        return player(at)["anim"]["svg"]
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
    assert explanation(at).startswith("Step 0 of ")
    dot = graph_dot(at)
    assert ("<svg" in dot or "digraph" in dot) and "tanh" in dot
    assert not at.error


def test_the_player_gets_every_step_with_its_explanation_at_once():
    at = start()
    data = player(at)
    anim = data["anim"]
    n = len(anim["changes"])
    assert n >= 10 and data["step"] == 0
    assert [t.split(":")[0] for t in anim["titles"]] == [f"Step {k} of {n - 1}" for k in range(n)]
    assert len(set(anim["explanations"])) == n  # every step explains something else
    assert anim["current"][0] == "t15" and anim["edge"][0] is None  # the seed sits on the output
    assert all(anim["edge"][k] for k in range(1, n))
    assert data["keys_help"].startswith("Keys: → or Page Down: next step")
    assert not at.exception


def test_step_frames_differ_and_come_back_identical():
    at = start()
    anim = animation(at)
    assert anim.frame_svg(1) != anim.frame_svg(0)
    assert anim.frame_svg(0) == anim.frame_svg(0) and anim.frame_svg(2) != anim.frame_svg(1)


def test_the_step_the_server_last_heard_of_drives_the_inspector():
    at = start()
    at.session_state["pg_step"] = 3  # what a node click in the browser reports
    at.run()
    assert player(at)["step"] == 3
    inspector = "".join(m.value for m in at.markdown)
    assert "**t13 · " in inspector  # it follows the node receiving gradient at step 3 (log's input)
    assert "0.671141" in [a.strip() for a in inspector_arrays(at)]  # ∂out/∂t13 = 1/1.490


def test_the_inspectors_arrays_are_preformatted_text_and_the_page_opens_without_a_code_block():
    # A code block's first use on a page makes the browser load Streamlit's syntax highlighter (about 0.5 s of CPU)
    at = start(example="mlp")
    assert not at.code
    value, gradient = inspector_arrays(at)
    assert (value.strip(), gradient.strip()) == ("1.07998", "1")  # the loss, and its seed gradient
    at.selectbox(key="pg_inspect").set_value(next(o for o in at.selectbox(key="pg_inspect").options
                                                 if o.startswith("t1 "))).run()
    value, gradient = inspector_arrays(at)
    assert value.splitlines() == ["[[ 0.41163  1.04251 -0.12853  1.36646]",  # W1, 3×4: a row per line
                                  " [-0.66519  0.35151  0.90347  0.09401]",
                                  " [-0.7435  -0.92173 -0.45773  0.2202 ]]"]
    assert gradient == "not reached yet at this step"


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
    at.session_state["pg_step"] = 4
    at.run()
    at.text_area(key="pg_source").set_value("x = 3.0\ny = x * x\n").run()
    assert not at.exception and not at.error
    assert player(at)["step"] == 0
    assert len(player(at)["anim"]["changes"]) == 3
    assert "tanh" not in graph_dot(at)


def test_program_in_the_url_is_loaded():
    at = start(**share.encode("w = 2.0\nv = w * w * w\n", step=1))
    assert not at.exception
    assert editor_text(at) == "w = 2.0\nv = w * w * w\n"
    assert player(at)["step"] == 1
    assert explanation(at).startswith("Step 1 of ")
    assert "tanh" not in graph_dot(at)


def test_packed_program_in_the_url_is_loaded():
    source = gallery.by_slug("mlp").source
    at = start(**share.encode(source, step=4))
    assert not at.exception
    assert editor_text(at) == source
    assert gallery_picker(at).value == "A 2-layer MLP on a batch"
    assert player(at)["step"] == 4


def test_the_url_follows_program_and_step():
    at = start(**share.encode(gallery.DEFAULT.source, step=1))
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
    assert explanation(at).startswith("Step 0 of ")
    assert len(player(at)["anim"]["changes"]) == shared.analyze(example.source).n_steps
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
    data = player(at)
    assert data["classroom"] is True and data["min_text_px"] >= 18
    assert explanation(at).startswith("Step 0 of ")


def test_without_dot_the_graph_is_drawn_in_the_browser_and_exports_explain_why(monkeypatch):
    from lucid.ui.playground import graph_view

    monkeypatch.setattr(graph_view, "has_dot", lambda: False)
    at = start()
    assert not at.exception
    assert not players(at)
    assert "tanh" in at.get("graphviz_chart")[0].proto.spec
    at.session_state["pg_export_open"] = True  # the reader opens Export
    at.run()
    assert any("need Graphviz's `dot`" in c.value for c in at.caption)
    assert [b.proto.label for b in at.get("download_button")] == ["DOT"]



def test_reruns_and_a_second_session_reuse_the_shared_program_and_animation():
    source = "p = 1.25\nq = p * p + p\n"
    first = start(**share.encode(source))
    computed = (shared.ANALYSES.computations, shared.ANIMATIONS.computations)
    first.run()
    second = start(**share.encode(source))
    assert (shared.ANALYSES.computations, shared.ANIMATIONS.computations) == computed
    assert player(second)["anim"] == player(first)["anim"]
    assert "pg_programs" not in second.session_state and "pg_frames" not in second.session_state


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
