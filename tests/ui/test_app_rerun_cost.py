"""What a Playground rerun does not redo: the player's payload encoded once, a click that gets no animation back
for the player that holds it, a folded Forward mode panel that draws nothing inside and keeps its choices.

The payload the browser gets stays the same bytes as ``json.dumps`` of its content; speed is measured in
``bench/bench_rerun_cost.py``, not here.
"""
import json
from pathlib import Path

from streamlit.components.v2.bidi_component.main import _make_trigger_id
from streamlit.proto.WidgetStates_pb2 import WidgetStates
from streamlit.testing.v1 import AppTest

from lucid import gallery
from lucid.session import share
from lucid.session.browser_events import BadBrowserValue, NodeClick, node_click
from lucid.ui.playground.keys import keys
from lucid.ui.runtime.component_payload import EncodedJSON
from tests.class_pages import players

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "playground.py")
MLP = gallery.by_slug("mlp").source
PICKER = "Move this input number by 1 (the others stay put)"


def opened(source: str = MLP, **state) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params.update(share.encode(source))
    for k, v in state.items():
        at.session_state[k] = v
    return at.run()


def payload(at: AppTest) -> tuple[str, dict]:
    (component,) = players(at)
    return component.proto.json, json.loads(component.proto.json)


def click(at: AppTest, node: str, step: int, *, anim: str | None) -> AppTest:
    """What the browser sends when a node of the player is clicked (``anim``: the animation the player says it
    holds; None: a click that names none, as before players said)."""
    (component,) = players(at)
    value = {"node": node, "step": step, "program": payload(at)[1]["program_id"]}
    if anim is not None:
        value["anim"] = anim
    states: WidgetStates = at._tree.get_widget_states()
    trigger = states.widgets.add()
    trigger.id = _make_trigger_id(component.proto.id, "events")
    trigger.json_trigger_value = json.dumps([{"event": "node", "value": value}])
    return at._run(states)


def test_an_encoded_dict_is_exactly_what_json_dumps_makes_of_it():
    rest = {"anim_id": "ab12", "step": 3, "words": {"bar": "단계"}, "room": None, "zoom": 1.5, "speeds": [["1×", 1.0]]}
    anim = {"svg": '<svg a="1">\n</svg>', "changes": [[], [0, 1]], "collapsed": None}
    encoded = EncodedJSON("anim", anim, json.dumps(anim), "digest", rest)
    assert encoded.text == json.dumps({"anim": anim, **rest})
    assert dict(encoded) == {"anim": anim, **rest} and list(encoded) == ["anim", *rest]
    assert EncodedJSON("anim", None, "null", "x", {}).text == json.dumps({"anim": None})
    assert encoded.digest != EncodedJSON("anim", anim, json.dumps(anim), "digest", {**rest, "step": 4}).digest


def test_sessions_on_one_link_share_one_joined_text_and_any_change_makes_another():
    anim = {"svg": "<svg/>" * 1000, "changes": [[0]]}
    anim_text = json.dumps(anim)
    rest = {"anim_id": "ab12", "step": 0, "words": {"bar": "단계"}}
    texts = [EncodedJSON("anim", anim, anim_text, "ab12", dict(rest)).text for _ in range(60)]
    assert len({id(t) for t in texts}) == 1 and texts[0] == json.dumps({"anim": anim, **rest})  # joined once
    moved = EncodedJSON("anim", anim, anim_text, "ab12", {**rest, "step": 4})
    assert moved.text == json.dumps({"anim": anim, **rest, "step": 4}) and moved.text is not texts[0]
    other = json.dumps({"svg": "<svg/>", "changes": []})  # another animation under the same name: its own text
    assert EncodedJSON("anim", None, other, "ab12", dict(rest)).text == "{" + f'"anim": {other}, ' + json.dumps(
        rest)[1:]


def test_the_player_gets_the_json_of_its_content_byte_for_byte_on_every_rerun():
    at = opened()
    first, data = payload(at)
    assert first == json.dumps(data)  # default separators, keys in the page's order: json.dumps' own text
    assert list(data)[:3] == ["anim", "anim_id", "step"] and data["anim"]["svg"].startswith("<svg")
    again, _ = payload(at.run())
    assert again == first


def test_a_click_from_the_player_that_holds_the_animation_gets_none_back():
    at = opened()
    _, before = payload(at)
    click(at, "t0", 2, anim=before["anim_id"])
    assert not at.exception
    _, after = payload(at)
    assert after["anim"] is None and after["anim_id"] == before["anim_id"]
    assert after["step"] == 2 and after["program_id"] == before["program_id"]
    assert any(m.value.startswith("**t0 · ") for m in at.markdown)  # the node inspector shows the clicked node


def test_a_click_that_names_no_animation_or_another_one_gets_the_animation_whole():
    at = opened()
    _, before = payload(at)
    click(at, "t0", 1, anim=None)
    assert payload(at)[1]["anim"] == before["anim"]
    click(at, "t0", 2, anim="0123456789abcdef")  # a player that holds another drawing (or none)
    assert payload(at)[1]["anim"] == before["anim"]
    at.run()  # any other rerun sends it whole, as before
    assert payload(at)[1]["anim"] == before["anim"]


def test_a_click_names_the_animation_its_player_holds_as_a_short_id():
    value = {"node": "t3", "step": 2, "program": "k"}
    assert node_click({**value, "anim": "ab12"}, program_key="k", n_steps=5) == NodeClick("t3", 2, "ab12")
    assert node_click(value, program_key="k", n_steps=5).anim is None
    for bad in (12, ["ab"], "a" * 65):
        try:
            node_click({**value, "anim": bad}, program_key="k", n_steps=5)
        except BadBrowserValue as err:
            assert "short id" in str(err)
        else:
            raise AssertionError(f"{bad!r} was taken")


def test_the_folded_forward_panel_draws_nothing_inside_it():
    at = opened()
    (panel,) = [e for e in at.expander if e.label.startswith("Forward mode")]
    assert not panel.proto.expanded
    assert not [box for box in at.selectbox if box.label == PICKER]
    assert not [s for s in at.slider if s.label == "Forward step"]


def test_the_forward_panel_keeps_its_input_and_step_while_folded():
    at = opened("x = [0.5, -1.0, 2.0]\nout = sum(sin(x) * x)\n", **{keys("pg").forward_open: True})
    next(box for box in at.selectbox if box.label == PICKER).set_value("x[1]").run()
    next(s for s in at.slider if s.label == "Forward step").set_value(1).run()
    at.session_state[keys("pg").forward_open] = False  # folded
    at.run()
    at.run()  # a rerun while folded (a click above, say)
    assert not [box for box in at.selectbox if box.label == PICKER]
    at.session_state[keys("pg").forward_open] = True  # opened again
    at.run()
    assert not at.exception
    assert next(box for box in at.selectbox if box.label == PICKER).value == "x[1]"
    assert next(s for s in at.slider if s.label == "Forward step").value == 1
