"""The protocol client says what a browser tab says (read off a real Chromium session of the app)."""
import json

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime.state.session_state import STREAMLIT_INTERNAL_KEY_PREFIX

from bench.streamlit_client import PLAYER, Session, run_sync


class Replay:
    """A websocket that answers with the given ForwardMsgs."""

    def __init__(self, messages):
        self.messages = [m.SerializeToString() for m in messages]

    async def recv(self):
        return self.messages.pop(0)


def forward(**fields) -> ForwardMsg:
    msg = ForwardMsg()
    for name, value in fields.items():
        if name == "navigation_hash":
            msg.navigation.page_script_hash = value
        elif name == "new_session_hash":
            msg.new_session.page_script_hash = value
        elif name == "query":
            msg.page_info_changed.query_string = value
        elif name == "finished":
            msg.script_finished = value
        elif name == "player":
            element = msg.delta.new_element.bidi_component
            element.component_name, element.id, element.json = PLAYER, "$$ID-9-pg_player", json.dumps(value)
    return msg


def test_the_first_rerun_names_its_page_and_later_ones_carry_the_hash_st_navigation_ran():
    s = Session(Replay([forward(new_session_hash="pages-file-hash"), forward(navigation_hash="nav-hash"),
                        forward(query="z=abc"), forward(player={"share_url": True, "step": 4, "program_id": "k"}),
                        forward(finished=ForwardMsg.FINISHED_SUCCESSFULLY)]), query="z=abc")
    first = BackMsg.FromString(s.rerun_message())
    assert first.rerun_script.page_name == "playground" and not first.rerun_script.page_script_hash
    run = run_sync(s.finish(5))
    assert run.player is not None and s.player_data()["program_id"] == "k"
    later = BackMsg.FromString(s.rerun_message(s.click("t1", 2)))
    assert later.rerun_script.page_script_hash == "nav-hash" and not later.rerun_script.page_name
    assert later.rerun_script.query_string == "z=abc&step=4"  # the step the player wrote into the address bar
    (trigger,) = later.rerun_script.widget_states.widgets
    assert trigger.id == f"{STREAMLIT_INTERNAL_KEY_PREFIX}_$$ID-9-pg_player__events"
    assert json.loads(trigger.json_trigger_value) == [{"event": "node",
                                                       "value": {"node": "t1", "step": 2, "program": "k"}}]


def test_typed_text_is_sent_with_every_later_rerun_and_a_run_cut_short_for_a_rerun_is_not_the_page():
    s = Session(Replay([forward(player={"share_url": False, "program_id": "old"}),
                        forward(finished=ForwardMsg.FINISHED_EARLY_FOR_RERUN),
                        forward(player={"share_url": False, "program_id": "new"}),
                        forward(finished=ForwardMsg.FINISHED_SUCCESSFULLY)]))
    s.set_text("$$ID-1-pg_source", "out = 1\n")
    run = run_sync(s.finish(5))
    assert len(run.of_type("bidi_component")) == 1 and s.player_data()["program_id"] == "new"
    for _ in range(2):
        widgets = BackMsg.FromString(s.rerun_message()).rerun_script.widget_states.widgets
        assert [(w.id, w.string_value) for w in widgets] == [("$$ID-1-pg_source", "out = 1\n")]
