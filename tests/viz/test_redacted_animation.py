"""lucid.viz.player.redact: while the class predicts step ``upto``, a student's player holds nothing of it or later.

The program's gradients are chosen so that the asked ones print as numbers no earlier step shows:
step 5 asks ``grad x`` after its second contribution (−0.8750), step 6 asks ``grad y`` (1.125).
"""
from __future__ import annotations

import copy
import json
import re
import shutil

import pytest

from lucid.autograd import backward_trace
from lucid.expr import run
from lucid.live_class.grading import question_at
from lucid.viz.player import redact
from lucid.viz.player.animation import build_animation

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot")

SOURCE = "x = 1.5\ny = -2.5\nz = 0.75\nq = x * y\nf = q * z + x"


@pytest.fixture(scope="module")
def graph():
    program = run(SOURCE, seed=0)
    return program.output, backward_trace(program.output)


@pytest.fixture(scope="module")
def anim(graph):
    root, trace = graph
    return build_animation(root, trace)


def payload(a) -> str:
    """The JSON the browser receives, as it decodes it (no \\u escapes)."""
    return json.dumps(a.to_json(), ensure_ascii=False)


def plain(text: str) -> str:
    """The payload's text with the markup gone and the layout's no-break spaces as spaces."""
    return re.sub(r"<[^>]+>", "", text).replace("\xa0", " ")


@pytest.mark.parametrize("upto, label, value", [(5, "grad x", "−0.8750"), (6, "grad y", "1.125")])
def test_a_held_animation_carries_no_number_or_explanation_of_the_asked_step(graph, anim, upto, label, value):
    _root, trace = graph
    q = question_at(trace, upto)
    assert (q["label"], q["expected_text"]) == (label, value)
    full, held = payload(anim), payload(redact.redacted(anim, upto))
    then = plain(anim.explanations[upto]).split("⇒ ", 1)[1]
    said = "⇒ " + then[:then.index(value) + len(value)]  # the step's result line, as the page reads it
    assert said.startswith(f"⇒ {label}=")
    assert value in full and said in plain(full)  # what the full animation holds
    assert value not in held and said not in plain(held)
    assert f"Step {upto} of 6" not in held and "Step 6 of 6" not in held
    assert f"Step {upto - 1} of 6" in held  # the step on screen when the question was asked


def test_a_held_animation_keeps_the_steps_before_and_draws_them_exactly_as_the_full_one(anim):
    held = redact.redacted(anim, 4)
    assert held.n_steps == 4 and held.titles == anim.titles[:4] and held.explanations == anim.explanations[:4]
    assert held.current == anim.current[:4] and held.edge == anim.edge[:4]
    assert len(held.variants) < len(anim.variants)  # the looks of steps 4..6 are gone
    for k in range(4):
        assert held.frame_svg(k) == anim.frame_svg(k)
    assert "pending" in held.svg and "−3.750" not in plain(held.svg).split("val")[0]


def test_the_picture_under_every_step_shows_no_gradient_but_the_seed(anim):
    grads = [t.replace("\xa0", " ")[5:] for t in re.findall(r">(grad[^<]*)</text>", anim.svg)]
    assert sorted(g.split()[0] for g in grads) == ["1.000"] + ["—"] * 5  # the seed 1 at f, the rest pending


def test_redacting_leaves_the_shared_animation_as_it_was(anim):
    before = copy.deepcopy(anim.to_json())
    redact.redacted(anim, 2)
    redact.held(anim, 3)
    assert anim.to_json() == before and anim.n_steps == 7


def test_a_step_past_the_end_keeps_everything_and_step_0_is_always_kept(anim):
    assert redact.redacted(anim, 7) is anim and redact.redacted(anim, 99) is anim
    assert redact.redacted(anim, 0).n_steps == 1 == redact.redacted(anim, 1).n_steps


def test_held_copies_are_shared_per_animation_and_step_and_bounded(anim):
    assert redact.held(anim, 3) is redact.held(anim, 3)
    assert redact.held(anim, 3) is not redact.held(anim, 4)
    others = [build_animation(*_tiny(k)) for k in range(3)]
    for a in others:
        for upto in range(1, 7):
            redact.held(a, upto)
    assert redact.held_count() <= redact.HELD_CAPACITY


def _tiny(k: int):
    program = run(f"a = {k + 2}.0\nb = a * a * a", seed=0)
    return program.output, backward_trace(program.output)


def test_a_collapsed_drawing_is_cut_at_the_last_box_step_that_ends_before_the_asked_step(graph):
    root, trace = graph
    boxes = build_animation(root, trace, expanded=())
    assert boxes.trace_steps == [0, 4, 5, 6]  # the seed, the box of f (trace steps 1-4), then x and y
    held = redact.redacted(boxes, 3)  # step 3 is inside the box: the box step would show it
    assert held.trace_steps == [0] and held.n_steps == 1 and held.changes == [[]]
    assert "0.7500" not in plain(json.dumps(held.to_json()["explanations"], ensure_ascii=False))
    five = redact.redacted(boxes, 5)
    assert five.trace_steps == [0, 4] and "−0.8750" not in payload(five)
    assert five.frame_svg(1) == boxes.frame_svg(1)
