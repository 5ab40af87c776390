"""The gate in front of Streamlit's session state: which widget values a browser may hand the session."""
import json
import math

import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetState, WidgetStates

from lucid.ui.runtime import browser_gate
from lucid.ui.runtime.browser_gate import MAX_LIST_ITEMS, MAX_TEXT_CHARS, admitted, filtered


def state(kind: str, value, widget_id: str = "$$ID-1-w") -> WidgetState:
    s = WidgetState(id=widget_id)
    if kind.endswith("_array_value"):
        getattr(s, kind).data.extend(value)
    else:
        setattr(s, kind, value)
    return s


def test_what_the_browser_sends_for_this_apps_widgets_is_kept_as_it_is():
    """The kinds a real Chromium session of the Playground sent, each for the kind its widget registered."""
    sent = [(state("string_array_value", ["normal"]), "string_array_value"), (state("bool_value", False), "bool_value"),
            (state("string_value", "a = 1.3\nout = a * a\n"), "string_value"),
            (state("int_value", 3), "double_value"),  # an int number input registers double_value
            (state("double_value", 0.5), "double_value"),
            (state("double_array_value", [0.0, 2.0]), "double_array_value"),
            (state("trigger_value", True), "trigger_value")]
    for s, expected in sent:
        assert admitted(s, expected) is s


def test_a_click_event_passes_unchanged():
    text = json.dumps([{"event": "node", "value": {"node": "t3", "step": 2, "program": "k"}}])
    s = state("json_trigger_value", text)
    assert admitted(s, "json_trigger_value") is s


def test_a_batch_of_clicks_is_cut_to_its_last_click():
    batch = [{"event": "node", "value": {"node": f"t{k}", "step": 0, "program": "k"}} for k in range(500)]
    kept = admitted(state("json_trigger_value", json.dumps(batch)), "json_trigger_value")
    assert json.loads(kept.json_trigger_value) == [batch[-1]] and kept.id == "$$ID-1-w"


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, "[" * 100 + "]" * 100, "[" + "9" * 5000 + "]", "[{",
                                  '"node"', json.dumps([{"event": "node"}] * 20_000)],
                         ids=["100,000 deep", "100 deep", "5,000 digits", "not JSON", "not a list", "20,000 events"])
def test_event_batches_the_parser_would_choke_on_or_that_are_no_batch_are_dropped(text):
    assert admitted(state("json_trigger_value", text), "json_trigger_value") is None


def test_a_components_state_is_dropped_since_no_component_of_the_app_keeps_one():
    assert admitted(state("json_value", '{"node": {"node": "t1", "step": 0}}'), "json_value") is None


@pytest.mark.parametrize(("kind", "value", "expected"), [
    ("bool_value", True, "string_array_value"),  # a select slider sent a bool: Streamlit's len() raises
    ("string_value", "x", "bool_value"),
    ("trigger_value", True, "string_value"),
    ("json_trigger_value", "[]", "string_value"),
    ("string_array_value", ["a"], "double_array_value"),
])
def test_a_value_of_another_kind_than_its_widget_is_dropped(kind, value, expected):
    assert admitted(state(kind, value), expected) is None


@pytest.mark.parametrize(("kind", "value"), [("double_value", math.nan), ("double_value", math.inf),
                                             ("double_array_value", [0.0, math.nan]),
                                             ("double_array_value", [-math.inf, 1.0])])
def test_numbers_that_are_not_finite_are_dropped(kind, value):
    assert admitted(state(kind, value), None) is None


def test_text_and_lists_past_the_limits_are_dropped_and_up_to_them_kept():
    assert admitted(state("string_value", "x" * MAX_TEXT_CHARS), "string_value") is not None
    assert admitted(state("string_value", "x" * (MAX_TEXT_CHARS + 1)), "string_value") is None
    assert admitted(state("string_array_value", ["a"] * MAX_LIST_ITEMS), "string_array_value") is not None
    assert admitted(state("string_array_value", ["a"] * (MAX_LIST_ITEMS + 1)), "string_array_value") is None
    assert admitted(state("string_array_value", ["x" * (MAX_TEXT_CHARS + 1)]), "string_array_value") is None
    assert admitted(state("int_array_value", [1] * (MAX_LIST_ITEMS + 1)), "double_array_value") is None
    assert admitted(state("bytes_value", b"x" * 2_000_000), "bytes_value") is None


def test_filtered_keeps_the_admitted_values_in_order():
    states = WidgetStates()
    states.widgets.extend([state("string_value", "a", "$$ID-1-a"), state("bool_value", True, "$$ID-2-b"),
                           state("double_value", math.nan, "$$ID-3-c"), state("string_value", "d", "$$ID-4-unknown")])

    class Meta:
        def __init__(self, kind):
            self.value_type = kind

    kinds = {"$$ID-1-a": Meta("string_value"), "$$ID-2-b": Meta("string_value"), "$$ID-3-c": Meta("double_value")}
    assert [s.id for s in filtered(states, kinds).widgets] == ["$$ID-1-a", "$$ID-4-unknown"]


def test_install_wraps_the_session_state_once():
    from streamlit.runtime.state.session_state import SessionState

    browser_gate.install()
    wrapped = SessionState.set_widgets_from_proto
    browser_gate.install()
    assert SessionState.set_widgets_from_proto is wrapped and wrapped.__name__ == "set_widgets_from_proto"
    assert wrapped.__qualname__.startswith("install.")
