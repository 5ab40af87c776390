"""The Playground's state is never lost and never changed behind the user's back, whatever order things are done in.

A Hypothesis state machine drives every widget of the Playground (Classroom mode, style, direction, the four
Show boxes, large-graph mode, graph size, autoplay speed, the program text, Run, the gallery), reruns,
page switches through the menu and back, the browser's Back, reloads and fresh links, through
``streamlit.testing.v1.AppTest`` over ``app.py``. It keeps its own model of what the user asked for, and after
every action checks three things against it:

- what the widgets show: the value of each widget, and the value a browser that mounts the widget only now
  would show (the proto's ``default``: the Drawing popover's content is mounted only when it is opened);
- what is drawn: the program and the options handed to the drawing (``backward_stepper``);
- what the link says: ``st.query_params``, decoded as a shared link would be.
"""
from __future__ import annotations

import functools
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from streamlit.testing.v1 import AppTest

from lucid import gallery
from lucid.session import share
from lucid.session import stepping as stepper
from lucid.session.analysis import analyze
from lucid.session.options import DIRECTIONS, LARGE_MODES, PRESETS, ZOOMS, DrawOptions
from lucid.ui.playground import player_view as stepper_view
from lucid.ui.playground import view_link

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PLAYGROUND, PITFALLS = "pages/playground.py", "pages/op_reference.py"
"""The page visited in between: any page other than the Playground (the lightest one keeps the test quick)."""

PROGRAMS = ["p = 1.5\nq = p * p", "a = 2.0\nb = -3.0\nc = a * b + a", "x = 0.5\ny = tanh(x) * x"]
SMALL_EXAMPLES = [e for e in gallery.EXAMPLES if e.slug in {"cs231n-circuit", "used-twice", "neuron", "relu-gate"}]
LONG_PROGRAM = "w = 0.25\n" + "\n".join(f"h{i} = w * {i + 1}.0 + w" for i in range(12)) + "\nout = h11 * h0"
"""Longer than ``share.PLAIN_LIMIT``: it travels packed (``z=``) in the link."""

@functools.cache
def steps(source: str) -> int:
    return analyze(source).n_steps


CHECKBOXES = {"values": "v", "grads": "g", "shapes": "s", "constants": "c"}


class Drawing:
    """Records what the page hands to the drawing (and draws it as the page would)."""

    def __init__(self) -> None:
        self.calls: list[dict] = []
        self.real = stepper_view.backward_stepper

    def __call__(self, key, analysis, options, **kwargs) -> None:
        self.calls.append({"source": analysis.source, "options": options, **kwargs})
        self.real(key, analysis, options, **kwargs)


def expected_options(view: dict[str, str]) -> DrawOptions:
    """The drawing options a link's view stands for."""
    w = view_link.widget_values(view)
    return DrawOptions(DIRECTIONS[w["direction"]], w["values"], w["grads"], w["shapes"], w["constants"],
                       LARGE_MODES[w["large"]], PRESETS[w["preset"]])


def shown_by_a_fresh_mount(widget) -> object:
    """The value a browser shows for a widget it mounts now (from the widget's proto, not the session)."""
    proto = widget.proto
    kind = type(widget).__name__
    if kind in ("Checkbox", "Toggle"):
        return proto.default
    if kind in ("Radio", "Selectbox"):
        return widget.options[proto.default[0] if hasattr(proto.default, "__len__") else proto.default]
    if kind == "SelectSlider":
        return widget.options[int(proto.default[0])]
    raise AssertionError(kind)


class PlaygroundMachine(RuleBasedStateMachine):
    """A user (or a class) doing anything the Playground lets them do, in any order."""

    drawing: Drawing

    def __init__(self) -> None:
        super().__init__()
        self.view = dict(share.VIEW_DEFAULTS)
        self.source = gallery.DEFAULT.source
        self.step = 0

    # ----- sessions --------------------------------------------------------------------------------------------
    def _open(self, params: dict[str, str]) -> None:
        self.at = AppTest.from_file(APP, default_timeout=120)
        for name, value in params.items():
            self.at.query_params[name] = value
        self.at.run()

    @initialize(program=st.sampled_from(PROGRAMS + [None]))
    def open_the_app(self, program):
        """A first visit: a bare address (the default program) or a link to a program."""
        if program is None:
            self._open({})
        else:
            self.source = program
            self._open(share.encode(program))

    @rule(view=st.fixed_dictionaries({name: st.sampled_from(sorted(choices))
                                      for name, choices in share.VIEW_CHOICES.items()}
                                     | {"hide": st.sets(st.sampled_from("vgsc")).map("".join)}),
          program=st.sampled_from(PROGRAMS + [LONG_PROGRAM]), step=st.integers(0, 3))
    def open_a_teachers_link(self, view, program, step):
        """A new session from a prepared link: program, step and the whole view."""
        self.view = share.decode_view(view)
        self.source, self.step = program, step
        self._open(share.encode(program, step=step) | share.encode_view(self.view))

    @rule()
    def reload(self):
        """A reload is a new session on the same address."""
        self._open(dict(self.at.query_params))

    # ----- widgets ---------------------------------------------------------------------------------------------
    @rule()
    def toggle_classroom_mode(self):
        on = self.view["classroom"] != "1"
        self.at.toggle(key="pg_classroom").set_value(on).run()
        self.view["classroom"] = "1" if on else "0"

    @rule(style=st.sampled_from(sorted(share.VIEW_CHOICES["style"])))
    def pick_a_style(self, style):
        label = view_link.widget_values(dict(self.view, style=style))["preset"]
        self.at.radio(key="pg_preset").set_value(label).run()
        self.view["style"] = style

    @precondition(lambda self: self.view["style"] == "standard")  # the radio is disabled for a circuit
    @rule(direction=st.sampled_from(sorted(share.VIEW_CHOICES["dir"])))
    def pick_a_direction(self, direction):
        label = view_link.widget_values(dict(self.view, dir=direction))["direction"]
        self.at.radio(key="pg_direction").set_value(label).run()
        self.view["dir"] = direction

    @rule(name=st.sampled_from(sorted(CHECKBOXES)))
    def tick_or_untick(self, name):
        letter = CHECKBOXES[name]
        shown = letter not in self.view["hide"]
        self.at.checkbox(key=f"pg_{name}").set_value(not shown).run()
        hidden = set(self.view["hide"]) ^ {letter}
        self.view["hide"] = "".join(ch for ch in share.HIDEABLE if ch in hidden)

    @rule(large=st.sampled_from(sorted(share.VIEW_CHOICES["large"])))
    def pick_large_graph_mode(self, large):
        self.at.selectbox(key="pg_large").set_value(view_link.widget_values(dict(self.view, large=large))["large"])
        self.at.run()
        self.view["large"] = large

    @rule(zoom=st.sampled_from(sorted(share.VIEW_CHOICES["zoom"])))
    def pick_a_graph_size(self, zoom):
        self.at.select_slider(key="pg_zoom").set_value(view_link.widget_values(dict(self.view, zoom=zoom))["zoom"])
        self.at.run()
        self.view["zoom"] = zoom

    @rule(speed=st.sampled_from(list(stepper.SPEEDS)))
    def pick_a_speed(self, speed):
        self.at.session_state["pg_speed"] = speed  # what the player's bar does (its on_speed callback)
        self.at.run()
        self.view["speed"] = speed

    @rule(program=st.sampled_from(PROGRAMS + [LONG_PROGRAM]))
    def type_a_program_and_run(self, program):
        self.at.text_area(key="pg_source").set_value(program)
        self.at.button(key="pg_run").click().run()
        if program != self.source:
            self.step = 0
        self.source = program

    @rule()
    def press_run_again(self):
        self.at.button(key="pg_run").click().run()

    @rule()
    def rerun(self):
        self.at.run()

    @rule(example=st.sampled_from(SMALL_EXAMPLES))
    def pick_from_the_gallery(self, example):
        picker = next(s for s in self.at.selectbox if s.label == "Gallery")
        picker.set_value(example.title).run()
        if example.source != self.source:
            self.step = 0
        self.source = example.source

    # ----- leaving and coming back -------------------------------------------------------------------------------
    def _visit_another_page(self) -> dict[str, str]:
        left_at = dict(self.at.query_params)
        self.at.query_params.clear()  # the menu opens a page at its bare address
        self.at.switch_page(PITFALLS).run()
        assert not self.at.exception
        return left_at

    @rule()
    def another_page_and_back_through_the_menu(self):
        self._visit_another_page()
        self.at.query_params.clear()
        self.at.switch_page(PLAYGROUND).run()

    @rule()
    def another_page_and_the_browser_back_button(self):
        left_at = self._visit_another_page()
        self.at.query_params.clear()
        for name, value in left_at.items():  # Back returns to the address the Playground had
            self.at.query_params[name] = value
        self.at.switch_page(PLAYGROUND).run()

    # ----- what must always hold ---------------------------------------------------------------------------------
    @invariant()
    def widgets_drawing_and_link_agree_with_what_the_user_asked_for(self):
        at = self.at
        assert not at.exception, at.exception
        # The widgets, as the session holds them and as a browser mounting them now would show them.
        want = view_link.widget_values(self.view)
        widgets = {"classroom": at.toggle(key="pg_classroom"), "preset": at.radio(key="pg_preset"),
                   "direction": at.radio(key="pg_direction"), "large": at.selectbox(key="pg_large"),
                   "zoom": at.select_slider(key="pg_zoom"),
                   **{name: at.checkbox(key=f"pg_{name}") for name in CHECKBOXES}}
        for name, widget in widgets.items():
            assert widget.value == want[name], (name, widget.value, want[name])
            assert shown_by_a_fresh_mount(widget) == want[name], (name, "a browser mounting it now")
        assert at.session_state["pg_speed"] == want["speed"]  # the player's bar shows the session's speed
        assert at.text_area(key="pg_source").value == self.source
        # What is drawn.
        drawn = self.drawing.calls[-1]
        assert drawn["source"] == self.source
        assert drawn["options"] == expected_options(self.view)
        assert drawn["classroom"] is (self.view["classroom"] == "1")
        assert drawn["seconds"] == stepper.SPEEDS[self.view["speed"]]
        assert drawn["zoom"] == ZOOMS[want["zoom"]]
        # What the link says, and the session's Classroom mode (kept for every page).
        link = dict(at.query_params)
        assert share.decode_view(link) == self.view, link
        assert share.decode(link).source == self.source
        assert share.decode(link).step == at.session_state["pg_step"] == stepper.clamp(self.step, steps(self.source))
        assert at.session_state["lucid_classroom"] is (self.view["classroom"] == "1")


@pytest.fixture()
def drawing(monkeypatch) -> Drawing:
    recorder = Drawing()
    monkeypatch.setattr(stepper_view, "backward_stepper", recorder)
    return recorder


def test_any_order_of_actions_keeps_widgets_drawing_and_link_in_agreement(drawing):
    PlaygroundMachine.drawing = drawing
    machine = PlaygroundMachine.TestCase
    machine.settings = settings(max_examples=15, stateful_step_count=15, deadline=None, database=None,
                                phases=(Phase.explicit, Phase.generate),  # shrinking AppTest runs takes too long
                                suppress_health_check=list(HealthCheck))
    machine().runTest()


# ----- the same, as a table of the cases a lecture runs into every time ----------------------------------------------

def opened(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(query)
    return at.run()


def menu_round_trip(at: AppTest) -> AppTest:
    """Another page and back through the menu, which opens each page at its bare address."""
    at.query_params.clear()
    at.switch_page(PITFALLS).run()
    at.query_params.clear()
    return at.switch_page(PLAYGROUND).run()


def test_after_run_the_drawing_popover_shows_the_options_drawn_and_the_next_toggle_changes_only_itself(drawing):
    at = opened(code=PROGRAMS[1])
    at.button(key="pg_run").click().run()
    at.run()
    for name in CHECKBOXES:  # what the browser shows when the Drawing popover is first opened after the run
        assert at.checkbox(key=f"pg_{name}").proto.default is True
    at.toggle(key="pg_classroom").set_value(True).run()
    assert "hide" not in at.query_params and at.query_params["classroom"] == "1"
    assert drawing.calls[-1]["options"] == DrawOptions()
    at.radio(key="pg_preset").set_value("Circuit (CS231n)").run()
    assert "hide" not in at.query_params and at.query_params["style"] == "circuit"
    assert drawing.calls[-1]["options"] == DrawOptions(preset="circuit") and drawing.calls[-1]["classroom"] is True


def test_the_program_and_the_view_survive_another_page_and_the_menu(drawing):
    at = opened(code=PROGRAMS[2], step="2", style="circuit", hide="s")
    at.toggle(key="pg_classroom").set_value(True).run()
    link = dict(at.query_params)
    menu_round_trip(at)
    assert not at.exception
    assert dict(at.query_params) == link
    assert at.text_area(key="pg_source").value == PROGRAMS[2] and at.session_state["pg_step"] == 2
    assert at.toggle(key="pg_classroom").value is True and at.checkbox(key="pg_shapes").value is False
    assert drawing.calls[-1]["options"] == DrawOptions(show_shapes=False, preset="circuit")


def test_the_browser_back_button_returns_to_the_link_it_left(drawing):
    at = opened(code=PROGRAMS[0])
    at.text_area(key="pg_source").set_value(PROGRAMS[1])
    at.button(key="pg_run").click().run()
    left_at = dict(at.query_params)
    at.query_params.clear()
    at.switch_page(PITFALLS).run()
    at.query_params.clear()
    at.query_params.update(left_at)  # Back: the Playground's own address, with its program and step
    at.switch_page(PLAYGROUND).run()
    assert at.text_area(key="pg_source").value == PROGRAMS[1] and dict(at.query_params) == left_at


def test_an_older_link_reached_by_back_wins_over_what_the_session_showed_last(drawing):
    at = opened(code=PROGRAMS[0], dir="LR")
    at.radio(key="pg_direction").set_value("Top to bottom").run()
    at.query_params.clear()
    at.switch_page(PITFALLS).run()
    at.query_params.clear()
    at.query_params.update({"code": PROGRAMS[2], "dir": "LR", "step": "1"})
    at.switch_page(PLAYGROUND).run()
    assert at.text_area(key="pg_source").value == PROGRAMS[2] and at.session_state["pg_step"] == 1
    assert at.radio(key="pg_direction").value == "Left to right" and drawing.calls[-1]["options"].direction == "LR"


def test_classroom_mode_chosen_on_the_playground_holds_on_other_pages_and_back():
    at = opened(code=PROGRAMS[0])
    at.toggle(key="pg_classroom").set_value(True).run()
    at.query_params.clear()
    at.switch_page(PITFALLS).run()
    assert at.session_state["lucid_classroom"] is True and at.query_params["classroom"] == "1"
    at.query_params.clear()
    at.switch_page(PLAYGROUND).run()
    assert at.toggle(key="pg_classroom").value is True


def test_classroom_mode_turned_off_elsewhere_is_off_on_the_return_to_the_playground():
    at = opened(code=PROGRAMS[0], classroom="1")
    at.query_params.clear()
    at.switch_page(PITFALLS).run()
    at.session_state["lucid_classroom"] = False  # what another page's toggle does (classroom_state.set_on)
    at.query_params.clear()
    at.run()
    at.query_params.clear()
    at.switch_page(PLAYGROUND).run()
    assert at.toggle(key="pg_classroom").value is False and "classroom" not in at.query_params
    assert at.text_area(key="pg_source").value == PROGRAMS[0]
