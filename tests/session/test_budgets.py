"""Every cost the server pays for a program is predicted and bounded before it is paid (issue: a class server
no one can take down).

- The backward record keeps each array once (no n² copies of a stacked tensor), is held to
  ``Limits.max_trace_elements`` both when the program is checked and while it is recorded, and the
  prediction from shapes is an upper bound within a stated factor of what is kept.
- Building an animation is predicted in work units; past the budget the graph is drawn collapsed or
  refused with a message naming the limit, and a cheap build never waits behind an expensive one.
"""
from __future__ import annotations

import threading
import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lucid.autograd import backward_trace
from lucid.autograd.trace import TraceTooLarge
from lucid.expr import ExprError, Limits, run
from lucid.session import analysis as shared
from lucid.session.options import DrawOptions
from lucid.viz.player.animation_cost import MAX_ANIMATION_WORK, AnimationTooCostly

TRACE_PREDICTION_FACTOR = 5
"""The shape-only prediction of the backward record is at least what it keeps and at most this many times
more (elementwise ops keep about 3 arrays of the output's size per input, predicted as 5)."""


def kept_elements(trace) -> int:
    """Elements of the distinct arrays a trace keeps (a shared array counts once, a view counts its base)."""
    seen: dict[int, int] = {}
    for s in trace.steps:
        for arr in (s.upstream, s.local, s.contribution_raw, s.contribution, s.accumulated):
            while isinstance(arr, np.ndarray) and arr.base is not None:
                arr = arr.base
            if isinstance(arr, np.ndarray):
                seen[id(arr)] = arr.size
    return sum(seen.values())


def stack_of(name: str, n: int) -> str:
    return "[" + ", ".join([name] * n) + "]"


def test_stacking_one_tensor_n_times_keeps_linear_not_quadratic_memory():
    # before: 500 copies of a 1,000-element tensor kept the 500,000-element upstream once per edge (1.9 GB)
    program = run(f"a = randn(1000)\ny = stack({stack_of('a', 500)})\ny.sum()")
    tracemalloc.start()
    try:
        trace = backward_trace(program.output, max_elements=program.limits.max_trace_elements)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    kept = kept_elements(trace)
    assert kept <= 5 * 500 * 1000 + 10  # a few arrays of the stacked size, not 500 of them
    assert peak < 64 * 2**20
    assert kept <= program.trace_elements <= TRACE_PREDICTION_FACTOR * kept


def test_the_short_link_attack_is_recorded_in_bounded_memory_and_its_animation_refused():
    # the 99-character link: a 256-element tensor stacked 3,900 times, then summed
    program_text = "a = randn(256)\ny = stack([" + ",".join(["a"] * 3900) + "])\ny.sum()"
    tracemalloc.start()
    try:
        analysis = shared.analyze(program_text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert analysis.trace is not None and analysis.n_steps == 3902
    assert peak < 200 * 2**20  # was ~31 GB asked for
    with pytest.raises(AnimationTooCostly) as refused:
        shared.plan_animation(analysis, DrawOptions())
    assert "animation limit" in str(refused.value)
    assert refused.value.work > MAX_ANIMATION_WORK


def test_a_shared_upstream_gradient_gives_every_edge_the_same_numbers():
    program = run("a = [0.5, -1.5]\nb = [2.0, 3.0]\n"
                  "y = stack([a, b, a]) * [[1.0, 2.0], [3.0, 4.0], [5.0, -6.0]]\ny.sum()")
    trace = backward_trace(program.output)
    stack_steps = [s for s in trace.steps if s.node is not None and type(s.node._op).name == "stack"]
    assert len(stack_steps) == 3
    assert all(s.upstream is stack_steps[0].upstream for s in stack_steps)  # one array, not three copies
    np.testing.assert_array_equal(stack_steps[0].upstream, [[1.0, 2.0], [3.0, 4.0], [5.0, -6.0]])
    np.testing.assert_array_equal(stack_steps[0].contribution, [1.0, 2.0])
    np.testing.assert_array_equal(stack_steps[2].contribution, [5.0, -6.0])
    np.testing.assert_array_equal(stack_steps[2].accumulated, [6.0, -4.0])  # a's two contributions summed
    assert not stack_steps[0].upstream.flags.writeable  # shared, so nobody may write into it


def test_the_checker_refuses_a_program_whose_backward_record_would_pass_the_trace_limit():
    with pytest.raises(ExprError) as err:
        run(f"a = randn(100)\ny = stack({stack_of('a', 50)})\ny.sum()", limits=Limits(max_trace_elements=14_000))
    assert err.value.kind == "limit"
    assert "trace limit" in err.value.message
    assert err.value.line == 2  # at the stack, where the record passes the limit


def test_the_recorder_stops_before_passing_its_budget():
    program = run("x = randn(1000)\n(tanh(x) * x).sum()")
    with pytest.raises(TraceTooLarge) as err:
        backward_trace(program.output, max_elements=2_000)
    assert "2,000" in str(err.value)


def test_an_analysis_whose_record_passes_its_budget_says_so_instead_of_failing(monkeypatch):
    monkeypatch.setattr(shared, "backward_trace", lambda root, max_elements: backward_trace(root, max_elements=100))
    analysis = shared.analyze("x = randn(1000)\n(tanh(x) * x).sum()")
    assert analysis.trace is None
    assert "trace limit" in analysis.problem
    assert analysis.n_tensors == 4  # the graph is still there to draw...
    assert all(t.grad is None for t in analysis.order)  # ...without the partial gradients of the stopped pass


UNARY = ["tanh", "sigmoid", "exp", "relu", "abs", "sin"]
BINARY = ["+", "-", "*"]


@st.composite
def programs(draw):
    """Random programs of elementwise ops, broadcasting, reductions, stacks and matrix products on large arrays."""
    rows = draw(st.sampled_from([1, 3, 40, 300, 1000]))  # up to the one-tensor limit (1,000,000 elements)
    cols = draw(st.sampled_from([1, 2, 50, 300, 1000]))
    lines = [f"x = randn({rows}, {cols})", f"w = randn({cols})", f"m = randn({cols}, {draw(st.integers(1, 40))})"]
    current = "x"
    for k in range(draw(st.integers(1, 6))):
        choice = draw(st.sampled_from(["unary", "binary", "broadcast", "stack", "matmul_back"]))
        if choice == "unary":
            expr = f"{draw(st.sampled_from(UNARY))}({current})"
        elif choice == "binary":
            expr = f"{current} {draw(st.sampled_from(BINARY))} x"
        elif choice == "broadcast":
            expr = f"{current} * w"
        elif choice == "stack":
            expr = f"stack({stack_of(current, draw(st.integers(2, 12)))}).sum(axis=0)"
        else:
            expr = f"({current} @ m).sum(axis=1, keepdims=True) * {current}"
        lines.append(f"v{k} = {expr}")
        current = f"v{k}"
    lines.append(f"{current}.{draw(st.sampled_from(['sum()', 'mean()']))}")
    return "\n".join(lines)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_the_predicted_backward_record_bounds_what_is_kept_within_the_stated_factor(source):
    try:
        program = run(source)
    except ExprError as err:
        assert err.kind in ("limit", "numeric")  # only the limits (or an overflow like exp(exp(x))) refuse these
        return
    trace = backward_trace(program.output, max_elements=program.limits.max_trace_elements)
    kept = kept_elements(trace)
    assert kept <= program.trace_elements <= TRACE_PREDICTION_FACTOR * kept


def test_a_cheap_build_never_waits_behind_an_expensive_one():
    cheap = shared.analyze("a = 2.0\nb = -3.0\ntanh(a * b + 1)")
    assert shared.plan_animation(cheap, DrawOptions()).work.cheap
    done = threading.Event()
    shared.ANIMATIONS.clear()
    with shared.BUILD_LANES.costly:  # an expensive build holds the expensive lane the whole time
        worker = threading.Thread(target=lambda: (shared.shared_animation(cheap, DrawOptions()), done.set()))
        worker.start()
        worker.join(60)
        assert done.is_set()


def test_expensive_builds_take_turns_in_their_own_lane():
    costly = shared.analyze(f"a = 0.5\ny = stack({stack_of('a', 150)})\ny.sum()")
    plan = shared.plan_animation(costly, DrawOptions())
    assert not plan.work.cheap and plan.work.fits
    done = threading.Event()
    shared.ANIMATIONS.clear()
    with shared.BUILD_LANES.costly:
        worker = threading.Thread(target=lambda: (shared.shared_animation(costly, DrawOptions()), done.set()))
        worker.start()
        assert not done.wait(0.5)  # waits while another expensive build runs
    worker.join(120)
    assert done.is_set()


def test_a_graph_too_costly_to_animate_in_full_is_played_collapsed():
    analysis = shared.analyze(f"a = 0.5\ny = stack({stack_of('a', 600)})\ny.sum()")
    try:
        plan = shared.plan_animation(analysis, DrawOptions())
    except AnimationTooCostly:
        pytest.fail("600 inputs still fit the budget when drawn collapsed")
    assert plan.view is not None and plan.work.fits


def test_a_program_is_checked_for_its_cost_before_it_runs():
    from lucid.expr.program import predicted_cost

    small = predicted_cost("a = 2.0\nb = -3.0\ntanh(a * b + 1)")
    large = predicted_cost("x = randn(1000, 1000)\n(tanh(x) * x).sum()")
    assert small is not None and small <= shared.CHEAP_ANALYSIS < large
    assert predicted_cost("x = (") is None  # does not check: running it raises its own ExprError


def analyse_in_background(source: str) -> tuple[threading.Thread, threading.Event]:
    """Start a session's analysis of ``source`` (nobody has run it yet) on a thread; ``done`` is set when it ends."""
    shared.ANALYSES.clear()
    done = threading.Event()
    worker = threading.Thread(target=lambda: (shared.shared_analysis(source), done.set()))
    worker.start()
    return worker, done


def test_a_cheap_program_is_analysed_while_a_near_limit_one_holds_the_expensive_lane():
    with shared.ANALYSIS_LANES.costly:
        worker, done = analyse_in_background("a = 1.25\nb = -0.5\nsigmoid(a * b) * a")
        worker.join(60)
        assert done.is_set()


def test_near_limit_programs_are_analysed_one_at_a_time():
    with shared.ANALYSIS_LANES.costly:
        worker, done = analyse_in_background("x = randn(1000, 1000)\n(tanh(x) * x).sum()")
        assert not done.wait(0.5)  # waits for the expensive lane
    worker.join(120)
    assert done.is_set()


def test_a_program_s_cost_is_predicted_once_for_every_session_that_asks(monkeypatch):
    from lucid.session import analysis

    calls = []
    monkeypatch.setattr(analysis, "predicted_cost", lambda source: calls.append(source) or len(source))
    analysis._predicted_cost.cache_clear()
    try:
        assert [analysis._predicted_cost("a = 2.0\nout = a * a") for _ in range(3)] == [19] * 3
        assert analysis._predicted_cost("b = 1.0") == 7 and calls == ["a = 2.0\nout = a * a", "b = 1.0"]
    finally:
        analysis._predicted_cost.cache_clear()
