"""The Playground shows the verdict on a program's own ops above the graph, and the graph steps with the rule."""
from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.ui.test_app_playground import explanation, graph_dot, player

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "playground.py")

SWISH = "def swish(x) = x * sigmoid(x)\nd swish / d x = {rule}\nw = 0.5\na = 1.5\nb = -0.3\ny = swish(w * a + b)\n"
RIGHT = "sigmoid(x) * (1 + x * (1 - sigmoid(x)))"
WRONG = "sigmoid(x) * (1 + (1 - sigmoid(x)))"


def typed(source: str) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=90).run()
    at.text_area(key="pg_source").set_value(source).run()
    return at


def test_a_wrong_rule_is_shown_failing_at_x_with_the_numbers_and_the_graph_still_steps_with_it():
    at = typed(SWISH.format(rule=WRONG))
    assert not at.exception
    (box,) = at.error
    assert "d swish / d x" in box.value and "at the program's values" in box.value
    assert "x = 0.45" in box.value  # w·a + b, the value the program gave swish
    assert "expected 0.717631" in box.value  # σ(0.45)·(1 + 0.45·(1 − σ(0.45))), by central differences
    assert not at.success
    assert "swish" in graph_dot(at)
    anim = player(at)["anim"]
    # the step through swish multiplies by the student's (wrong) rule: σ(0.45)·(2 − σ(0.45)) = 0.8484
    through = [e for e in anim["explanations"] if "the rule of swish" in e]
    assert through and "0.8484" in through[0]
    assert explanation(at).startswith("Step 0 of ")


def test_the_fixed_rule_passes_and_the_step_uses_it():
    at = typed(SWISH.format(rule=RIGHT))
    assert not at.exception and not at.error
    (ok,) = at.success
    assert ok.value.startswith("swish: every rule agrees with central differences")
    through = [e for e in player(at)["anim"]["explanations"] if "the rule of swish" in e]
    assert through and "0.7176" in through[0]


def test_a_program_without_definitions_shows_no_verdict():
    at = typed("x = 0.5\ny = tanh(x)\n")
    assert not at.exception and not at.error and not at.success


def test_fixing_the_rule_sends_the_player_a_new_animation_although_the_picture_is_the_same():
    """The forward picture of both programs is identical; the browser must still drop the old gradients."""
    at = typed(SWISH.format(rule=WRONG))
    before = player(at)
    at.text_area(key="pg_source").set_value(SWISH.format(rule=RIGHT)).run()
    after = player(at)
    assert after["anim"]["svg"] == before["anim"]["svg"]
    assert after["anim_id"] != before["anim_id"]
    assert any("0.7176" in e for e in after["anim"]["explanations"] if "the rule of swish" in e)
