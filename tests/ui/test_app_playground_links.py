"""*Open in Playground* from Pitfalls, Broadcasting and Train; Gradient check takes the Playground's program."""
import urllib.parse
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from lucid.lessons.broadcasting import broadcast_demo
from lucid.session import share
from lucid.session.analysis import analyze
from lucid.ui.playground.playground_link import array_literal, number, program_link, square_program

ROOT = Path(__file__).resolve().parents[2]


def app_at(page: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180).run()
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def linked(at: AppTest, key: str) -> share.SharedView:
    """The program and step the page's *Open in Playground* button opens (the button is on the page)."""
    assert [b.label for b in at.button if b.key == key] == ["Open in Playground"]
    return share.decode(at.session_state[f"{key}_opens"])


def final_grads(source: str) -> dict[str, np.ndarray]:
    analysis = analyze(source)
    final = analysis.trace.final_grads()
    return {t.name: final[id(t)] for t in analysis.trace.order if t.name and id(t) in final}


def test_numbers_are_written_as_the_expression_language_reads_them():
    assert [number(v) for v in (3, -0.5, 1e-5, 123456789.0, -0.0)] == ["3.0", "-0.5", "1e-05", "1.23457e+08", "-0.0"]
    assert array_literal(np.array([[1, 2], [3, 4.5]])) == "[[1.0, 2.0], [3.0, 4.5]]"


def test_pitfalls_opens_x_times_x_in_the_playground_at_its_last_step():
    at = app_at("pitfalls")
    view = linked(at, "pitfall_open")
    assert view.source == "x = 3.0\ny = x * x\n"
    assert view.step == 2  # seed, then the two contributions into x
    assert final_grads(view.source)["x"] == 6.0


def test_in_classroom_mode_the_link_keeps_classroom_mode():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params["classroom"] = "1"
    at.run()
    at.switch_page("pages/pitfalls.py").run()
    assert at.session_state["pitfall_open_opens"]["classroom"] == "1"


def test_broadcasting_opens_the_same_sum_with_the_same_gradients():
    at = app_at("broadcasting")
    view = linked(at, "bc_open")
    demo = broadcast_demo((3, 1), (4,), "+")
    grads = final_grads(view.source)
    np.testing.assert_allclose(grads["a"], demo.inputs[0].grad)
    np.testing.assert_allclose(grads["b"], demo.inputs[1].grad)
    assert view.step == len(analyze(view.source).trace.steps) - 1


def test_train_opens_the_step_graph_with_its_initial_weights_and_loss():
    at = app_at("train_mlp")
    view = linked(at, "train_open")
    analysis = analyze(view.source)
    assert view.step == analysis.n_steps - 1
    names = {t.name for t in analysis.trace.order if t.name}
    assert {"X", "y", "W1", "b1", "W2", "b2", "loss"} <= names
    assert 0.3 < float(analysis.program.output.data) < 1.5  # a BCE of an untrained net: about log 2


def test_a_page_run_on_its_own_offers_the_playgrounds_address_when_the_button_is_clicked():
    at = AppTest.from_file(str(ROOT / "pages" / "pitfalls.py"), default_timeout=120).run()
    assert not at.exception
    next(b for b in at.button if b.label == "Open in Playground").click().run()
    assert not at.exception
    (button,) = [e for e in at.get("link_button") if e.proto.label == "Go to the Playground"]
    query = urllib.parse.urlsplit(button.proto.url)
    assert query.path == "/playground"
    assert dict(urllib.parse.parse_qsl(query.query)) == program_link(square_program(3.0))


def test_gradient_check_uses_the_playgrounds_program():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180).run()
    at.text_area(key="pg_source").set_value("x = 5.0\ny = x * x * x")
    next(b for b in at.button if b.label == "Run").click().run()
    playground_program = at.session_state["pg_good"]
    assert playground_program == "x = 5.0\ny = x * x * x"
    at.switch_page("pages/gradient_check.py").run()
    (use,) = [b for b in at.button if b.label == "Use the Playground's program"]
    assert not use.disabled and at.session_state["gc_source"] != playground_program
    use.click().run()
    assert not at.exception
    assert at.session_state["gc_source"] == playground_program
    assert next(b for b in at.button if b.label == "Use the Playground's program").disabled  # already in use


def test_gradient_check_without_a_playground_program_says_to_run_one_first():
    at = AppTest.from_file(str(ROOT / "pages" / "gradient_check.py"), default_timeout=120).run()
    (use,) = [b for b in at.button if b.label == "Use the Playground's program"]
    assert use.disabled and "Run a program in the Playground first" in use.help
