"""The gradient check refuses work that would stall a shared server, and says why."""
import pytest

from lucid.expr import run
from lucid.lessons.gradient_check import MAX_WORK, check_program, sweep_affordable

HEAVY = "x = randn(1000)\nC = const(randn(600, 600))\nout = (C @ (const(ones(600)) * x.sum())).sum()"


def test_a_check_too_expensive_for_a_shared_server_is_refused_with_a_reason():
    program = run(HEAVY)
    assert 2 * 1000 * program.work > MAX_WORK
    with pytest.raises(ValueError, match="would take too long"):
        check_program(program)


def test_the_eps_sweep_runs_only_for_small_cheap_programs():
    assert sweep_affordable(run("a = 1.3\nb = -0.7\nout = tanh(a * b)"))
    assert not sweep_affordable(run(HEAVY))
