"""Building the whole Jacobian both ways is predicted, refused past its budget, slotted and cached (issue 24, item 7).

Before, the Forward mode panel's toggle ran ``compare_modes`` in the script thread on every rerun: 4,096 input
numbers through a chain of ops cost tens of CPU seconds each time, outside every build slot.
"""
from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from lucid.expr import run
from lucid.lessons import forward_reverse
from lucid.lessons.forward_reverse import JacobianTooCostly, compare_modes
from lucid.lessons.jacobian_cost import CHEAP_JACOBIAN_WORK, MAX_JACOBIAN_WORK, jacobian_cost
from lucid.session import analysis as shared
from lucid.session import jacobian_build, share

OPS_PREDICTION_FACTOR = 2
"""Predicted op applications are at least the real ones and at most this many times more (an op that only
constants reach is counted but never applied)."""


def chain(n_inputs: int, ops: int) -> str:
    """``n_inputs`` numbers through a chain of ``ops`` tanh, summed."""
    return f"x = randn({n_inputs})\n" + "\n".join("x = tanh(x)" for _ in range(ops)) + "\nx.sum()"


LARGE = chain(4096, 100)  # the kind of program: 4,096 inputs, a hundred ops (8.5 s of CPU, measured)


@pytest.fixture
def counted(monkeypatch):
    """Count the real passes and op applications of both modes (forward: ``jvp`` rules; reverse: gradient
    functions), by wrapping the engine's two pass loops."""
    forward_module, grad_module = sys.modules["lucid.autograd.forward"], sys.modules["lucid.autograd.grad"]
    seen = {"forward_passes": 0, "forward_ops": 0, "reverse_passes": 0, "reverse_ops": 0}
    real_push, real_pass = forward_module.push_tangents, grad_module._array_pass

    def push(order, tangents, create_graph=False, record=None):
        seen["forward_passes"] += 1

        def note(node, incoming, tangent):
            seen["forward_ops"] += 1
            if record is not None:
                record(node, incoming, tangent)
        return real_push(order, tangents, create_graph, record=note)

    def backward(order, outputs, seeds, needed):
        seen["reverse_passes"] += 1
        wrapped = [(node, node._grad_fn) for node in order if node._grad_fn is not None]
        for node, fn in wrapped:
            node._grad_fn = lambda g, fn=fn: (seen.__setitem__("reverse_ops", seen["reverse_ops"] + 1), fn(g))[1]
        try:
            return real_pass(order, outputs, seeds, needed)
        finally:
            for node, fn in wrapped:
                node._grad_fn = fn

    monkeypatch.setattr(forward_module, "push_tangents", push)
    monkeypatch.setattr(grad_module, "_array_pass", backward)
    return seen


@pytest.mark.parametrize("source", [
    "x = randn(64)\nout = tanh(x).sum()",
    "a = 1.0\nb = 2.0\nc = 3.0\nstack([a * b, b * c, a * c])",
    "x = randn(5)\nW = const(randn(3, 5))\ntanh(W @ x)",
    "a = randn(8, 8)\n" + "\n".join("a = a * 1.01 + 0.5" for _ in range(10)) + "\na.sum()",
    "x = randn(6)\nk = const(randn(6)) * 2\n(x * k + exp(k)).sum()",
], ids=["vector to scalar", "three scalars to three", "matrix product", "chain with constants",
        "a branch only constants reach"])
def test_the_predicted_passes_are_exact_and_the_op_applications_within_the_stated_factor(counted, source):
    program = run(source)
    cost = jacobian_cost(program)
    comparison = compare_modes(program)
    assert (cost.forward_passes, cost.reverse_passes) == (comparison.forward.passes, comparison.reverse.passes)
    assert (counted["forward_passes"], counted["reverse_passes"]) == (cost.forward_passes, cost.reverse_passes)
    assert counted["forward_ops"] <= cost.forward_ops <= OPS_PREDICTION_FACTOR * counted["forward_ops"]
    assert counted["reverse_ops"] <= cost.reverse_ops <= OPS_PREDICTION_FACTOR * counted["reverse_ops"]


def test_a_4096_input_program_is_refused_from_its_prediction_without_running_a_pass(monkeypatch):
    program = run(LARGE)
    cost = jacobian_cost(program)
    assert (cost.n_inputs, cost.n_outputs) == (4096, 1)
    assert cost.forward_ops > 400_000 and cost.work > 10 * MAX_JACOBIAN_WORK
    monkeypatch.setattr(forward_reverse, "jacobian", lambda *a, **k: pytest.fail("a pass ran"))
    with pytest.raises(JacobianTooCostly) as refused:
        compare_modes(program)
    words = str(refused.value)
    assert "4,096" in words and "400,000,000" in words and "Try fewer input numbers" in words
    built = jacobian_build.JACOBIANS.computations
    with pytest.raises(JacobianTooCostly):
        jacobian_build.shared_comparison(shared.analyze(LARGE))
    assert jacobian_build.JACOBIANS.computations == built  # refused before the cache or a slot is asked


def test_the_refusal_reads_in_korean():
    from lucid.i18n import use_language
    from lucid.lessons.jacobian_cost import refusal

    with use_language("ko"):
        words = refusal(jacobian_cost(run(LARGE)))
    assert "순전파" in words and "4,096" in words and "400,000,000" in words


def test_a_second_build_of_the_same_program_reads_the_first_from_the_process_wide_cache(monkeypatch):
    calls = []
    real = jacobian_build.compare_modes
    monkeypatch.setattr(jacobian_build, "compare_modes", lambda program: (calls.append(1), real(program))[1])
    jacobian_build.JACOBIANS.clear()
    source = "x = randn(20)\n(tanh(x) * x).sum()"
    first = jacobian_build.shared_comparison(shared.analyze(source))
    again = jacobian_build.shared_comparison(shared.analyze(source))  # another session's analysis of the same text
    assert len(calls) == 1 and again is first
    jacobian_build.shared_comparison(shared.analyze(source, seed=1))  # another seed is another program
    assert len(calls) == 2


def build_in_background(source: str) -> tuple[threading.Thread, threading.Event]:
    jacobian_build.JACOBIANS.clear()
    analysis = shared.analyze(source)
    done = threading.Event()
    worker = threading.Thread(target=lambda: (jacobian_build.shared_comparison(analysis), done.set()))
    worker.start()
    return worker, done


def test_a_costly_build_waits_for_the_expensive_slot_that_animation_builds_use():
    source = "x = randn(2048)\ny = tanh(x)\nz = y * y + x\nz.sum()"
    cost = jacobian_cost(run(source))
    assert CHEAP_JACOBIAN_WORK < cost.work <= MAX_JACOBIAN_WORK
    with shared.BUILD_LANES.costly:  # an animation build (or a GIF render) holds the expensive slot
        worker, done = build_in_background(source)
        assert not done.wait(0.5)
    worker.join(120)
    assert done.is_set()


def test_a_cheap_build_never_waits_behind_an_expensive_one():
    source = "a = 1.5\nb = -0.5\nstack([a * b, tanh(a)])"
    assert jacobian_cost(run(source)).cheap
    with shared.BUILD_LANES.costly:
        worker, done = build_in_background(source)
        worker.join(60)
        assert done.is_set()


def test_the_playground_says_why_it_builds_no_jacobian_for_a_4096_input_program():
    page = str(Path(__file__).resolve().parents[2] / "pages" / "playground.py")
    at = AppTest.from_file(page, default_timeout=120)
    at.query_params[share.PACKED_KEY] = share.pack(chain(4096, 30))
    at.session_state["pg_forward_open"] = True  # the reader opens the folded Forward mode panel
    at.run()
    next(t for t in at.toggle if t.label == "Build the whole Jacobian both ways").set_value(True).run()
    assert not at.exception
    assert any("one forward pass per input number (4,096)" in i.value for i in at.info)
