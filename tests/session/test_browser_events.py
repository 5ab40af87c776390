"""What the player's click may carry: every field checked by type, range and length, nothing else acted on."""
import json
import math

import pytest

from lucid.session import browser_events
from lucid.session.browser_events import BadBrowserValue, NodeClick, node_click, node_id, whole_number

KEY = "3f2a9c0d1b2e4f56"


def click(**fields):
    value = {"node": "t3", "step": 2, "program": KEY}
    value.update(fields)
    return value


def refused(value, n_steps: int = 10) -> str:
    with pytest.raises(BadBrowserValue) as err:
        node_click(value, program_key=KEY, n_steps=n_steps)
    return str(err.value)


def test_a_click_the_player_sends_is_taken_as_it_is():
    assert node_click(click(), program_key=KEY, n_steps=10) == NodeClick("t3", 2)
    assert node_click(click(node="op12", step=0), program_key=KEY, n_steps=10) == NodeClick("op12", 0)
    assert node_click(click(node="g7", step=9), program_key=KEY, n_steps=10) == NodeClick("g7", 9)


def test_a_step_sent_as_a_whole_float_is_the_same_step():
    """JSON has one number type: 4.0 is step 4."""
    assert node_click(click(step=4.0), program_key=KEY, n_steps=10).step == 4


@pytest.mark.parametrize("step", [math.inf, -math.inf, math.nan, 2.5, -1, 10, 10**12, 1e308, True, "3", None, [3],
                                  {"step": 3}])
def test_a_step_that_is_not_a_whole_number_of_this_trace_is_refused(step):
    assert "the step must be" in refused(click(step=step))


def test_a_program_with_a_single_step_accepts_only_step_zero():
    assert node_click(click(step=0), program_key=KEY, n_steps=1).step == 0
    assert node_click(click(step=0), program_key=KEY, n_steps=0).step == 0
    assert "between 0 and 0" in refused(click(step=1), n_steps=1)


def test_a_step_of_thousands_of_digits_is_refused_with_a_one_line_message():
    message = refused(click(step=10**4000))
    assert "about 4,001 digits" in message and len(message) < 100


@pytest.mark.parametrize("node", ["t" + "9" * 5000, "t" + "1" * 11, "x3", "t", "op", "t-1", "t3 ", " t3", "t٣",
                                  "g3\n", "<svg>", "", "T3"], ids=lambda node: repr(node[:14]))
def test_a_node_id_the_player_never_sends_is_refused_before_any_digit_is_read(node):
    message = refused(click(node=node))
    assert "not a node id" in message and len(message) < 80


@pytest.mark.parametrize("node", [3, None, ["t3"], {"id": "t3"}, 3.0, True])
def test_a_node_id_that_is_not_text_is_refused(node):
    assert "must be text" in refused(click(node=node))


def test_a_click_on_another_programs_drawing_is_refused():
    """A click made on the previous program's drawing, still in flight when a new program ran."""
    assert "another program" in refused(click(program="0" * 16))


@pytest.mark.parametrize("program", [None, 7, ["k"], "k" * 65, {"k": 1}])
def test_a_click_without_a_program_key_is_refused(program):
    assert "name its program" in refused(click(program=program))


def test_a_click_without_the_program_field_at_all_is_refused():
    value = click()
    del value["program"]
    assert "name its program" in refused(value)


@pytest.mark.parametrize("value", [None, [], ["t3", 2], "t3", 3, 2.0, True])
def test_a_click_that_is_not_an_object_is_refused(value):
    assert "must be an object" in refused(value)


def test_a_click_with_fields_the_player_never_sends_is_refused():
    assert "only the fields" in refused(click(extra=1))
    assert "only the fields" in refused({**click(), **{f"k{i}": i for i in range(10_000)}})


def test_a_deeply_nested_click_is_refused_at_the_top_without_walking_into_it():
    """100,000 levels of nesting (what Python's json can be made to build) cost one isinstance check."""
    deep: object = "t3"
    for _ in range(100_000):
        deep = [deep]
    assert "must be text" in refused(click(node=deep))
    assert "must be a whole number" in refused(click(step=deep))
    nested: object = click()
    for _ in range(100_000):
        nested = {"node": nested}
    assert "must name its program" in refused(nested)


def test_whole_number_keeps_its_range_and_names_the_value():
    assert whole_number(7, low=0, high=9, what="the row") == 7
    with pytest.raises(BadBrowserValue, match="the row must be between 0 and 9, not 12"):
        whole_number(12, low=0, high=9, what="the row")


def test_node_ids_longer_than_the_limit_are_cut_in_the_message():
    with pytest.raises(BadBrowserValue) as err:
        node_id("op" + "1" * 50)
    assert str(err.value) == "not a node id of this graph: 'op1111111111'…"


def test_values_parsed_from_browser_json_with_nan_and_infinity_are_refused():
    """Python's JSON reader (Streamlit's) turns the literals NaN and Infinity into floats."""
    for literal in ("NaN", "Infinity", "-Infinity"):
        value = json.loads(f'{{"node": "t3", "step": {literal}, "program": "{KEY}"}}')
        assert "whole number" in refused(value)


def test_the_module_does_not_import_streamlit():
    source = open(browser_events.__file__, encoding="utf-8").read()
    assert "import streamlit" not in source and "from streamlit" not in source


@pytest.mark.parametrize("text", ['[{"event":"node","value":{"node":"t3","step":2,"program":"k"}}]', "[]", "{}",
                                  '"' + "[" * 1000 + '"', '{"a": "' + "9" * 5000 + '"}', "[1.5e-300, -2]"],
                         ids=["click", "empty list", "empty object", "brackets in a string", "digits in a string",
                              "small numbers"])
def test_json_text_a_click_could_be_goes_to_the_parser(text):
    assert browser_events.json_text_problem(text) is None


@pytest.mark.parametrize(("text", "problem"), [
    ("[" * 1_000 + "]" * 1_000, "nested more than 16 levels"),
    ('{"a":' * 17 + "1" + "}" * 17, "nested more than 16 levels"),
    ("[" + "9" * 5000 + "]", "a number longer than 32"),
    ('{"step": 1' + "0" * 40 + "}", "a number longer than 32"),
    ("[" + "0," * 40_000 + "0]", "characters of JSON"),
    ("[" * 100_000 + "]" * 100_000, "characters of JSON"),
], ids=["1,000 deep", "17 deep", "5,000 digits", "41 digits", "80,000 characters", "100,000 deep"])
def test_json_text_that_would_make_the_parser_raise_or_work_is_refused_unparsed(text, problem):
    assert problem in browser_events.json_text_problem(text)


def test_a_batch_of_events_keeps_the_last_event_of_each_name_in_order():
    batch = [{"event": "node", "value": 1}, {"event": "other", "value": 2}, 7, {"event": 3},
             {"event": "node", "value": 3}]
    assert browser_events.last_of_each_event(batch) == [{"event": "other", "value": 2}, {"event": "node", "value": 3}]
    assert browser_events.last_of_each_event({"event": "node", "value": 1}) == [{"event": "node", "value": 1}]
    assert browser_events.last_of_each_event([]) == []


@pytest.mark.parametrize("batch", ["node", 3, None, [{"event": "node"}] * (browser_events.MAX_EVENTS + 1)],
                         ids=["text", "number", "null", "too many events"])
def test_a_batch_that_is_not_a_list_of_events_or_too_long_is_dropped(batch):
    assert browser_events.last_of_each_event(batch) is None
