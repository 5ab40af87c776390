"""The gradient detective (issue 30): faults from a catalogue of real mistakes, found by per-node checks.

Specification:
- on every gallery program the correct pass passes every node check (a check never accuses a right node);
- every fault that changes a program's numbers is found by the check at its culprit node and nowhere else;
- every fault of the catalogue applies to some gallery program;
- the broken numbers are the mistake's (tanh′ from the input, the last path winning, ...), and building them
  changes nothing of the engine or the correct trace;
- a sealed link cannot be read, forged, moved to another program or server, and is bounded;
- a case counts each checked node once, and tells right node / right mistake apart.
"""
from __future__ import annotations

import numpy as np
import pytest

from lucid.gallery import EXAMPLES, by_slug
from lucid.practice.detective import MAX_ACCUSATIONS, open_detective_case
from lucid.practice.detective_link import MAX_TOKEN_CHARS, InvalidCase, open_case, seal_case
from lucid.practice.faults import FAULTS, Target, applicable_targets, broken_trace, fault_by_slug
from lucid.practice.node_check import TOLERANCE, check_node
from lucid.session.analysis import analyze

SECRET = "a server secret for the tests"


def trace_of(source: str):
    analysis = analyze(source)
    assert analysis.trace is not None, analysis.problem
    return analysis.trace


GALLERY = [e for e in EXAMPLES if analyze(e.source).trace is not None]


@pytest.mark.parametrize("example", GALLERY, ids=lambda e: e.slug)
def test_the_correct_pass_passes_every_node_check(example):
    trace = trace_of(example.source)
    checks = [check_node(trace, i) for i in range(len(trace.order))]
    assert all(c.checkable for c in checks)
    assert [c.index for c in checks if not c.passed] == []
    assert max(c.worst_error for c in checks) < TOLERANCE


@pytest.mark.parametrize("example", GALLERY, ids=lambda e: e.slug)
def test_every_fault_is_found_at_its_culprit_and_nowhere_else(example):
    trace = trace_of(example.source)
    for target in applicable_targets(trace):
        broken = broken_trace(trace, target)
        failing = [i for i in range(len(broken.order)) if not check_node(broken, i).passed]
        assert failing == [target.index], (target.fault.slug, target.index)
        assert check_node(broken, target.index).worst_error > 1e-3


def test_every_fault_of_the_catalogue_applies_to_a_gallery_program():
    found = {t.fault.slug for e in GALLERY for t in applicable_targets(trace_of(e.source))}
    assert found == {f.slug for f in FAULTS}


def leaf(trace, name):
    return next(i for i, t in enumerate(trace.order) if getattr(t, "name", None) == name and t._op is None)


def final_grad(trace, index):
    node = trace.order[index]
    return [s.accumulated for s in trace.steps if s.parent is node][-1]


def test_overwrite_keeps_only_the_last_path_of_a_tensor_used_twice():
    trace = trace_of("x = 1.5\ny = 2.0\nout = x * y + x * x\n")
    x = leaf(trace, "x")
    broken = broken_trace(trace, Target(fault_by_slug("overwrite"), x))
    assert float(final_grad(trace, x)) == pytest.approx(2.0 + 2 * 1.5)  # y + 2x
    into_x = [s for s in broken.steps if s.parent is broken.order[x]]
    assert len(into_x) == 3
    assert float(final_grad(broken, x)) == pytest.approx(float(into_x[-1].contribution))  # the last part only
    assert float(final_grad(broken, x)) == pytest.approx(2.0)  # x * y's part (y) came last: x * x's 2x is lost


def test_tanh_from_the_input_sends_upstream_times_one_minus_x_squared():
    trace = trace_of("x = 0.8\nw = -1.7\nout = 3 * tanh(w * x)\n")
    node = next(i for i, t in enumerate(trace.order) if t._op is not None and t._op.name == "tanh")
    broken = broken_trace(trace, Target(fault_by_slug("tanh-from-input"), node))
    step = next(s for s in broken.steps if s.node is broken.order[node])
    z = -1.7 * 0.8
    assert float(step.upstream) == pytest.approx(3.0)
    assert float(step.contribution) == pytest.approx(3.0 * (1 - z * z))
    assert float(step.local) == pytest.approx(1 - z * z)  # the explanation shows the broken rule's number
    right = next(s for s in trace.steps if s.node is trace.order[node])
    assert float(right.contribution) == pytest.approx(3.0 * (1 - np.tanh(z) ** 2))


def test_the_missing_broadcast_sum_keeps_one_row_of_the_bias_gradient():
    trace = trace_of("x = [[1.0, -2.0], [0.5, 3.0], [2.0, 1.0]]\nb = [0.3, -0.1]\nout = sum((x + b) * x)\n")
    b = leaf(trace, "b")
    add = next(i for i, t in enumerate(trace.order) if t._op is not None and t._op.name == "add")
    broken = broken_trace(trace, Target(fault_by_slug("no-broadcast-sum"), add))
    x = np.array([[1.0, -2.0], [0.5, 3.0], [2.0, 1.0]])
    np.testing.assert_allclose(final_grad(trace, b), x.sum(axis=0))
    np.testing.assert_allclose(final_grad(broken, b), x[0])


def test_the_sketched_reshape_sums_neighbours_instead_of_copies():
    trace = trace_of("x = [[1.0, -2.0], [0.5, 3.0], [2.0, 1.0]]\nb = [0.3, -0.1]\nout = sum((x + b) * x)\n")
    b = leaf(trace, "b")
    add = next(i for i, t in enumerate(trace.order) if t._op is not None and t._op.name == "add")
    broken = broken_trace(trace, Target(fault_by_slug("reshape-match"), add))
    flat = np.array([1.0, -2.0, 0.5, 3.0, 2.0, 1.0])
    np.testing.assert_allclose(final_grad(broken, b), [flat[:3].sum(), flat[3:].sum()])


def test_building_a_broken_pass_changes_nothing_of_the_engine_or_the_correct_trace():
    source = by_slug("mlp").source
    trace = trace_of(source)
    before = [np.array(s.accumulated) for s in trace.steps]
    for target in applicable_targets(trace):
        broken_trace(trace, target)
    assert all(np.array_equal(a, s.accumulated) for a, s in zip(before, trace.steps))
    again = trace_of(source)
    assert all(np.array_equal(a, s.accumulated) for a, s in zip(before, again.steps))


# ----- links ------------------------------------------------------------------------------------------------
SOURCE = by_slug("scalar").source


def a_target():
    return applicable_targets(trace_of(SOURCE))[0]


def test_a_sealed_link_opens_to_its_case_on_the_same_server_and_program():
    target = a_target()
    token = seal_case(target, SOURCE, SECRET)
    opened = open_case(token, SOURCE, SECRET)
    assert (opened.fault, opened.index) == (target.fault, target.index)
    assert len(token) == 31 and len(token) <= MAX_TOKEN_CHARS


def test_a_link_does_not_tell_which_rule_is_broken():
    target = a_target()
    tokens = {seal_case(target, SOURCE, SECRET) for _ in range(20)}
    assert len(tokens) == 20  # the same case never looks the same twice
    for token in tokens:
        assert target.fault.slug not in token and str(target.index) not in token[:0]


@pytest.mark.parametrize("change", ["flip", "last character", "other program", "other server", "too long", "empty",
                                    "not base64", "short"])
def test_a_changed_or_moved_link_is_refused(change):
    token = seal_case(a_target(), SOURCE, SECRET)
    source, secret = SOURCE, SECRET
    if change == "flip":
        token = token[:5] + ("A" if token[5] != "A" else "B") + token[6:]
    elif change == "last character":  # each of the 4 spellings that decode alike but one: never the link made
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        i = alphabet.index(token[-1])
        token = token[:-1] + alphabet[i ^ 1]
    elif change == "other program":
        source = SOURCE + "\n"
    elif change == "other server":
        secret = "another secret"
    elif change == "too long":
        token = token * 3
    elif change == "empty":
        token = ""
    elif change == "not base64":
        token = "!" * 31
    elif change == "short":
        token = token[:-4]
    with pytest.raises(InvalidCase):
        open_case(token, source, secret)


def test_a_link_for_a_node_where_the_fault_changes_nothing_is_refused():
    trace = trace_of(SOURCE)
    target = Target(fault_by_slug("matmul-no-transpose"), 0)  # this program has no matmul
    token = seal_case(target, SOURCE, SECRET)
    with pytest.raises(InvalidCase):
        open_detective_case(token, SOURCE, SECRET, trace)


# ----- a case -----------------------------------------------------------------------------------------------
def test_a_case_counts_each_checked_node_once_and_is_solved_by_the_right_node_and_mistake():
    trace = trace_of(SOURCE)
    target = a_target()
    case = open_detective_case(seal_case(target, SOURCE, SECRET), SOURCE, SECRET, trace)
    other = next(i for i in range(len(trace.order)) if i != target.index)
    assert case.check(other).passed
    case.check(other)
    assert not case.check(target.index).passed
    assert case.checks_used == 2
    wrong_node = case.accuse(other, target.fault.slug)
    assert not wrong_node.right_node and not wrong_node.solved
    other_slug = next(f.slug for f in FAULTS if f is not target.fault)
    wrong_mistake = case.accuse(target.index, other_slug)
    assert wrong_mistake.right_node and not wrong_mistake.right_mistake
    assert case.accuse(target.index, "not-a-fault") is None
    assert case.accuse(target.index, target.fault.slug).solved
    assert case.solved
    assert case.accuse(other, target.fault.slug) is None  # closed once solved
    assert dict(case.score().params) == {"checks": 2, "wrong": 2}


def test_a_case_stops_taking_guesses_after_its_bound():
    trace = trace_of(SOURCE)
    target = a_target()
    case = open_detective_case(seal_case(target, SOURCE, SECRET), SOURCE, SECRET, trace)
    other = next(i for i in range(len(trace.order)) if i != target.index)
    for _ in range(MAX_ACCUSATIONS):
        assert case.accuse(other, target.fault.slug) is not None
    assert case.gave_up
    assert case.accuse(target.index, target.fault.slug) is None
