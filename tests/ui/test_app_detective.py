"""Gradient detective in the Playground (issue 30), in Streamlit's AppTest.

A teacher on the scalar gallery program breaks tanh′ (from the input) and gets a link and an answer key; the
student's page from that link shows the broken engine's numbers (the player, with the inputs table and forward
mode hidden), checks nodes (a right node passes, the culprit fails, marked on the graph), and solves the case.
A changed link is refused in words; the panel speaks Korean.
"""
from __future__ import annotations

import urllib.parse

import numpy as np
import pytest

from lucid.gallery import by_slug
from lucid.practice.faults import applicable_targets, broken_trace
from lucid.session.analysis import analyze
from lucid.ui.playground.keys import keys
from tests.class_pages import korean_page, page, player

K = keys("pg")
SOURCE = by_slug("scalar").source


def texts(at) -> str:
    return "\n".join([*(str(e.value) for e in (*at.markdown, *at.caption, *at.success, *at.error, *at.info,
                                               *at.warning, *at.code)),
                      *(h.proto.body for h in at.get("html"))])  # the node inspector's arrays among them


def tanh_target():
    targets = applicable_targets(analyze(SOURCE).trace)
    return next(i for i, t in enumerate(targets) if t.fault.slug == "tanh-from-input"), targets


def teacher_link() -> dict[str, str]:
    at = page(example="scalar")
    at.session_state[K.detective_open] = True
    at.run()
    choice, targets = tanh_target()
    at.selectbox(key=K.detective_fault).set_value(choice)
    at.button(key=K.detective_make).click()
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    code = next(c.value for c in at.code if "detective=" in c.value)
    query = dict(urllib.parse.parse_qsl(code.lstrip("?")))
    assert query["code"] == SOURCE and len(query["detective"]) == 31  # the program, and a sealed case
    assert "**Answer key** (not in the link): tanh′ from the input" in texts(at)
    return query


@pytest.fixture(scope="module")
def link() -> dict[str, str]:
    return teacher_link()


def test_the_students_page_shows_the_broken_engines_numbers_and_hides_the_right_ones(link):
    at = page(**link)
    assert "Gradient detective" in texts(at)
    assert not at.dataframe  # the inputs table computes the right engine's gradients
    assert any("hidden while you solve the detective case" in c.value for c in at.caption)
    _, targets = tanh_target()
    target = targets[tanh_target()[0]]
    right = analyze(SOURCE).trace
    broken = broken_trace(right, target)
    shown = player(at)["anim"]
    assert len(shown["changes"]) == len(broken.steps)
    # the explanation of the tanh step carries the broken local derivative 1 − x², not 1 − out²
    k = next(s.index for s in broken.steps if s.node is broken.order[target.index])
    x = float(broken.order[target.index]._prev[0].data)
    assert not np.isclose(1 - x * x, 1 - np.tanh(x) ** 2)
    assert f"{1 - x * x:.4f}"[:5] in shown["explanations"][k] or f"{1 - x * x:.3f}" in shown["explanations"][k]


def test_checks_pass_on_a_right_node_fail_on_the_culprit_and_are_marked_on_the_graph(link):
    at = page(**link)
    _, targets = tanh_target()
    target = targets[tanh_target()[0]]
    right_node = next(i for i in range(len(analyze(SOURCE).order)) if i != target.index)
    for node in (right_node, target.index, right_node):
        at.selectbox(key=K.detective_node).set_value(node)
        at.button(key=K.detective_check).click()
        at.run()
        assert not at.exception, [e.message for e in at.exception]
    shown = texts(at)
    assert "Checks used: 2" in shown  # a node checked again is not counted again
    assert "✗" in shown and "✓" in shown and "central differences give" in shown
    marks = {m[0]: m[1] for m in player(at)["marks"]}
    assert marks[f"t{target.index}"] == "fail" and marks[f"op{target.index}"] == "fail"
    assert marks[f"t{right_node}"] == "pass"


def test_naming_the_culprit_and_the_mistake_solves_the_case_with_a_score(link):
    at = page(**link)
    _, targets = tanh_target()
    target = targets[tanh_target()[0]]
    at.selectbox(key=K.detective_node).set_value(target.index)
    at.button(key=K.detective_check).click()
    at.run()
    at.selectbox(key=K.detective_culprit).set_value(target.index)
    at.selectbox(key=K.detective_mistake).set_value("sigmoid-prime-sigma")
    at.button(key=K.detective_accuse).click()
    at.run()
    assert any("Right node, wrong mistake" in w.value for w in at.warning)
    at.selectbox(key=K.detective_mistake).set_value("tanh-from-input")
    at.button(key=K.detective_accuse).click()
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("Solved" in s.value for s in at.success)
    assert "Solved with 1 node checks and 1 wrong guesses." in texts(at)


def test_a_changed_link_is_refused_in_words_and_the_right_numbers_stay(link):
    changed = dict(link)
    token = changed["detective"]
    changed["detective"] = token[:10] + ("A" if token[10] != "A" else "B") + token[11:]
    at = page(**changed)
    assert any("was not made on this server for this program" in e.value for e in at.error)
    assert at.dataframe  # no case: the page is the ordinary Playground


def test_the_students_panel_speaks_korean(link):
    at = korean_page(**link, lang="ko")
    shown = texts(at)
    assert "기울기 탐정" in shown
    assert "Gradient detective" not in shown
