"""lucid.viz.player.animation for graphs drawn collapsed: one layout, one animation step per collapsed step.

The program is a 3 → 4 tanh → 1 network on 10 points written out one scalar at a time
(552 tensors, 600 gradient steps): past ``to_dot``'s 400-node cap, so drawn in boxes.
"""
from __future__ import annotations

import shutil

import pytest

from lucid.autograd import backward_trace
from lucid.expr import run
from lucid.viz import explain, large_view, to_dot, to_svg, toggle
from lucid.viz.graph.collapse import collapsed_dot
from lucid.viz.player.animation import build_animation, build_collapsed_animation, step_html
from tests.large_programs import scalar_mlp_source
from tests.viz.test_animation import looks

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot")


@pytest.fixture(scope="module")
def graph():
    program = run(scalar_mlp_source(), seed=0)
    return program.output, backward_trace(program.output)


@pytest.fixture(scope="module")
def closed(graph):
    root, trace = graph
    return build_animation(root, trace, direction="TB")


def test_a_graph_past_the_node_cap_plays_one_collapsed_step_per_animation_step(graph, closed):
    root, trace = graph
    view = large_view(root, trace)
    assert len(trace.order) == 552 and len(trace.steps) == 600
    assert closed.collapsed is not None and closed.collapsed["drawn"] == view.node_count
    assert closed.n_steps == len(view.steps) == 100
    assert closed.trace_steps == [c.last for c in view.steps]
    assert closed.current == [c.unit for c in view.steps]


def test_trace_steps_and_animation_steps_map_both_ways(graph, closed):
    root, trace = graph
    view = large_view(root, trace)
    for t in range(len(trace.steps)):
        k = closed.step_for_trace(t)
        assert k == view.step_of(t)
        assert closed.trace_step(k) >= t
    for k in range(closed.n_steps):
        assert closed.step_for_trace(closed.trace_step(k)) == k


def test_every_collapsed_frame_rebuilt_from_one_layout_matches_its_own_dot_render(graph, closed):
    """Nodes exactly where ``dot`` puts them in that frame's own drawing; an edge keeps the one layout's path
    (``dot`` bends a thicker flowing edge by a fraction of a point), with that frame's colours and text."""
    root, trace = graph
    view = large_view(root, trace)
    for k in (0, 1, 3, 17, 50, 99):
        rebuilt, real = looks(closed.frame_svg(k)), looks(to_svg(collapsed_dot(view, k, direction="TB")).decode())
        assert rebuilt.keys() == real.keys()
        for eid, (cls, parts) in rebuilt.items():
            real_cls, real_parts = real[eid]
            assert cls == real_cls, (k, eid)
            assert [p[:3] for p in parts] == [p[:3] for p in real_parts], (k, eid)
            tolerance = 0.02 if cls.startswith("node") else 1.0
            for mine, theirs in zip(parts, real_parts):
                assert mine[3] == pytest.approx(theirs[3], abs=tolerance), (k, eid)


def test_a_box_step_names_the_box_and_shows_the_chain_rule_of_the_step_that_leaves_it(graph, closed):
    root, trace = graph
    view = large_view(root, trace)
    k = 3
    c = view.steps[k]
    assert (c.unit, c.first, c.last) == ("g53", 6, 11)
    assert closed.titles[k].startswith("3 steps inside y5 … y9; gradient leaves y5 … y9 for ")
    text = closed.explanations[k]
    assert "Trace steps 6–11 (6 gradient steps)" in text and "<b>y5 … y9</b> (40 nodes) is closed" in text
    assert "trace step 11:" in text and step_html(explain(trace, 11)) in text


def test_opening_a_box_changes_the_drawing_and_its_steps_go_one_by_one(graph, closed):
    root, trace = graph
    view = large_view(root, trace)
    loss_box = view.steps[0].unit
    opened = build_animation(root, trace, direction="TB", expanded=toggle(view, (), loss_box))
    assert opened.svg != closed.svg and opened.collapsed["open"] == 1
    assert opened.trace_steps[:4] == [0, 1, 2, 3]  # inside the open box: one gradient per step
    assert opened.n_steps > closed.n_steps
    # the open group keeps the box's id: its header closes it again
    assert f'id="{loss_box}"' in opened.svg and "group-header" in opened.svg
    again = build_animation(root, trace, direction="TB", expanded=toggle(view, toggle(view, (), loss_box), loss_box))
    assert again.svg == closed.svg and again.trace_steps == closed.trace_steps


def test_every_gradient_reaches_the_same_final_state_whatever_is_open(graph, closed):
    root, trace = graph
    view = large_view(root, trace, ["h0_0 … h4_3"])
    opened = build_collapsed_animation(view, direction="TB")
    assert opened.trace_steps[-1] == closed.trace_steps[-1] == len(trace.steps) - 1
    assert opened.titles[-1] == opened.titles[-1].strip() and opened.explanations[-1]


def test_never_compact_is_still_refused_past_the_cap(graph):
    from lucid.viz import GraphTooLarge

    root, trace = graph
    with pytest.raises(GraphTooLarge):
        build_animation(root, trace, large=False, expanded=())
    assert "lucid-collapsed" in to_dot(root, trace, 0).graph_attr["class"]


def test_frames_that_reuse_unchanged_statements_are_the_frames_drawn_alone(graph):
    root, trace = graph
    view = large_view(root, trace, ["loss", "h0_0 … h4_3", "h0_0 … h4_3/h0_0 … h0_1"])
    statements: dict = {}
    for c in range(len(view.steps)):
        assert collapsed_dot(view, c, direction="LR", statements=statements).source == \
            collapsed_dot(view, c, direction="LR").source
