"""The Forward-mode panel's key presses, as the server reads them: only a step of this panel's trace, in range."""
import pytest

from lucid.ui.playground.forward_keys import step_event

PANEL = "pg_forward_step_x"


@pytest.mark.parametrize("step", [0, 3, 7])
def test_a_press_for_this_panel_asks_for_its_step(step):
    assert step_event({"step": step, "panel": PANEL}, panel=PANEL, steps=7) == step


@pytest.mark.parametrize("value", [
    {"step": 8, "panel": PANEL},           # past the last step
    {"step": -1, "panel": PANEL},          # before the seed
    {"step": True, "panel": PANEL},        # a bool is not a step
    {"step": 2.0, "panel": PANEL},         # nor a float
    {"step": "2", "panel": PANEL},         # nor a string
    {"step": 2, "panel": "pg_forward_step_w"},  # a press made for another input's trace (in flight)
    {"step": 2},                           # no panel named
    [2, PANEL],                            # not the event's shape
    None,
])
def test_anything_else_is_dropped(value):
    assert step_event(value, panel=PANEL, steps=7) is None
