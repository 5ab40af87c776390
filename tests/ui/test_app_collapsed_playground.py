"""The Playground with a graph past the node cap: drawn collapsed, played box by box, boxes opened by a click.

Driven by Streamlit's AppTest (no browser). A click in the player is what the browser sends
for it: the component's ``node`` event with ``{node, step, program}`` (steps of the backward trace, and the
program key the page gave the player).
"""
import json
import shutil
from pathlib import Path

import pytest
from streamlit.components.v2.bidi_component.main import _make_trigger_id
from streamlit.proto.WidgetStates_pb2 import WidgetStates
from streamlit.testing.v1 import AppTest

from lucid.session import analysis as shared
from lucid.session import share
from lucid.session.options import DrawOptions
from lucid.viz.player.animation import Animation
from tests.class_pages import players
from tests.large_programs import scalar_mlp_source

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "playground.py")
SOURCE = scalar_mlp_source()
pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="the player needs Graphviz's dot")


def start(source: str = SOURCE, step: int | None = None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params.update(share.encode(source, step=step))
    return at.run()


def player(at: AppTest) -> dict:
    (component,) = players(at)
    return json.loads(component.proto.json)


def animation(at: AppTest) -> Animation:
    return Animation(**player(at)["anim"])


def click(at: AppTest, node: str, step: int) -> AppTest:
    """What the browser sends when a node of the player is clicked at trace step ``step``."""
    (component,) = players(at)
    states: WidgetStates = at._tree.get_widget_states()
    trigger = states.widgets.add()
    trigger.id = _make_trigger_id(component.proto.id, "events")
    value = {"node": node, "step": step, "program": player(at)["program_id"]}
    trigger.json_trigger_value = json.dumps([{"event": "node", "value": value}])
    return at._run(states)


def inspector_text(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_a_long_scalar_program_is_drawn_collapsed_and_played_one_box_step_at_a_time():
    at = start()
    assert not at.exception and not at.warning
    anim = animation(at)
    a = shared.shared_analysis(SOURCE, 0)
    assert a.n_tensors > 400  # past the node cap
    assert anim.collapsed is not None and anim.collapsed["expanded"] == []
    assert anim.n_steps == len(anim.trace_steps) < a.n_steps
    assert anim.trace_steps[-1] == a.n_steps - 1
    assert 'id="g2"' in anim.svg and 'class="node group' in anim.svg
    captions = " ".join(c.value for c in at.caption)
    assert "Drawn collapsed" in captions and "click a box to open it" in captions
    assert at.button(key="pg_close_all").disabled  # nothing is open yet


def test_a_click_on_a_box_opens_it_and_a_click_on_its_header_closes_it_again():
    at = start()
    closed = animation(at)
    at = click(at, "g2", 11)
    assert not at.exception
    assert at.session_state["pg_expanded"] == ("h0_0 … h4_3",)
    opened = animation(at)
    assert opened.svg != closed.svg
    assert opened.collapsed["open"] == 1 and opened.collapsed["drawn"] > closed.collapsed["drawn"]
    assert 'class="node group-header"' in opened.svg  # the open group's header, same id g2
    assert at.session_state["pg_step"] == 11 and player(at)["step"] == 11  # the step the student was at
    assert not at.button(key="pg_close_all").disabled
    assert "g2 · box h0_0 … h4_3" in inspector_text(at) and "200 nodes, open" in inspector_text(at)

    at = click(at, "g2", 11)  # the header of the open group
    assert at.session_state["pg_expanded"] == ()
    again = animation(at)
    assert again.svg == closed.svg and again.trace_steps == closed.trace_steps
    assert "200 nodes, closed" in inspector_text(at)


def test_close_all_boxes_closes_every_open_box():
    at = start()
    at = click(at, "g2", 0)
    at = click(at, "g5", 0)
    assert len(at.session_state["pg_expanded"]) == 2
    at.button(key="pg_close_all").click().run()
    assert at.session_state["pg_expanded"] == ()
    assert animation(at).collapsed["open"] == 0


def test_a_click_on_a_single_node_still_inspects_it():
    at = start()
    at = click(at, "t12", 5)
    assert at.session_state["pg_expanded"] == ()
    assert at.session_state["pg_inspect"].startswith("t12 · ")
    assert "**t12 · " in inspector_text(at)


def test_a_new_program_starts_with_every_box_closed():
    at = start()
    at = click(at, "g2", 0)
    assert at.session_state["pg_expanded"]
    at.text_area(key="pg_source").set_value(scalar_mlp_source(samples=9)).run()
    assert at.session_state["pg_expanded"] == ()
    assert animation(at).collapsed["open"] == 0


def test_different_opened_boxes_never_share_an_animation_and_the_same_set_always_does():
    a = shared.shared_analysis(SOURCE, 0)
    options = DrawOptions()
    assert shared.animation_key(a, options, ()) != shared.animation_key(a, options, ("h0_0 … h4_3",))
    assert shared.animation_key(a, options, ("y0 … y4", "h0_0 … h4_3")) == \
        shared.animation_key(a, options, ["h0_0 … h4_3", "y0 … y4"])
    shared.ANIMATIONS.clear()
    before = shared.ANIMATIONS.computations
    closed = shared.shared_animation(a, options, ())
    opened = shared.shared_animation(a, options, ("h0_0 … h4_3",))
    assert opened is not closed and opened.svg != closed.svg
    other_session = shared.shared_analysis(SOURCE, 0)
    assert shared.shared_animation(other_session, options, ("h0_0 … h4_3",)) is opened
    assert shared.ANIMATIONS.computations == before + 2


def test_picking_a_node_in_the_list_after_a_box_click_inspects_the_node():
    at = start()
    at = click(at, "g5", 3)
    assert "g5 · box " in inspector_text(at)
    choice = next(o for o in at.selectbox(key="pg_inspect").options if o.startswith("t7 · "))
    at.selectbox(key="pg_inspect").set_value(choice).run()
    assert "g5 · box " not in inspector_text(at) and "**t7 · " in inspector_text(at)


def test_a_boxs_details_count_its_members_and_the_gradients_they_have_at_the_step():
    from lucid.session import inspector

    a = shared.shared_analysis(SOURCE, 0)
    h = shared.hierarchy_of(a)
    box = h.by_id("g2")
    for step in (0, 11, a.n_steps - 1):
        d = inspector.group_details(a, h, "g2", step, ())
        grads = a.trace.grads_at(step)
        need = [k for k in box.members if a.order[k].requires_grad]
        assert (d.size, d.needing_gradient) == (len(box.members), len(need)) == (200, 140)
        assert d.with_gradient == sum(1 for k in need if id(a.order[k]) in grads)
        assert not d.is_open and d.inner_groups == len(box.children) and d.more == 200 - len(d.members)
    assert inspector.group_details(a, h, "g2", a.n_steps - 1, ("h0_0 … h4_3",)).final_gradient == 140
    assert inspector.group_details(a, h, "g999", 0) is None
    assert inspector.group_from_click("g2", h) is box and inspector.group_from_click("t2", h) is None


def test_open_one_level_opens_every_drawn_box_until_the_drawing_would_get_too_big():
    from lucid.ui.playground.player_view import OPEN_LEVEL_MAX_DRAWN

    at = start()
    closed = animation(at)
    assert not at.button(key="pg_open_level").disabled
    at.button(key="pg_open_level").click().run()
    opened = animation(at)
    a = shared.shared_analysis(SOURCE, 0)
    h = shared.hierarchy_of(a)
    assert set(at.session_state["pg_expanded"]) == {h.by_id(b).key for b in closed.collapsed["box_ids"]}
    assert opened.collapsed["open"] == closed.collapsed["boxes"] and opened.svg != closed.svg
    while not at.button(key="pg_open_level").disabled:
        at.button(key="pg_open_level").click().run()
        assert animation(at).collapsed["drawn"] <= OPEN_LEVEL_MAX_DRAWN
    assert "too many to animate quickly" in at.button(key="pg_open_level").help or \
        not animation(at).collapsed["box_ids"]


def test_inspect_single_nodes_again_leaves_the_box_for_the_node_receiving_gradient():
    at = start()
    at = click(at, "g5", 11)
    assert "g5 · box " in inspector_text(at)
    at.button(key="pg_inspect_nodes").click().run()
    a = shared.shared_analysis(SOURCE, 0)
    k = a.index_of(a.trace.steps[11].parent)
    assert "g5 · box " not in inspector_text(at) and f"**t{k} · " in inspector_text(at)


def test_exports_draw_the_boxes_the_student_opened():
    from lucid.ui.playground.graph_view import frame

    analysis = shared.analyze(SOURCE)
    options = DrawOptions()
    closed = frame(analysis, 11, options, ()).source
    opened = frame(analysis, 11, options, ("h0_0 … h4_3",)).source
    assert closed != opened and "group-header" in opened and "group-header" not in closed
    plain = frame(analysis, 11, options).source  # not collapsed by request: the drawing decides (here: boxes)
    assert "group-header" not in plain
