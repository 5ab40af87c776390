"""Gradient check of a whole program: autodiff against central differences, input by input.

The Gradient check page shows this as a table for scalar inputs and as
per-element error maps for tensor inputs. The check runs on copies of the
program's input leaves through ``Program.function()``, so the program (which
the page keeps between reruns) is never perturbed or given gradients.
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lucid._tensor.tensor import Tensor
from lucid.autograd.gradcheck import StopCheck, gradcheck, relative_error
from lucid.expr import ExprError, Program
from lucid.i18n import N_, _

MAX_ELEMENTS = 4000  # 2 forward passes per input number: keep a check well under a second or two
MAX_WORK = 400_000_000
"""Most work one check may do: 2 runs per input number × ``Program.rerun_cost`` (elements, multiply-adds and
each op's fixed overhead). A few inputs feeding a large constant matrix product, or a few thousand inputs
summed into a long chain of scalar ops, would otherwise keep the server busy for many seconds. About a second
of CPU on a quiet 2-core machine."""
TIME_LIMIT = 4.0
"""Seconds a check (or a whole eps sweep) may run before it is stopped with a message: the backstop for
whatever the cost estimate misjudges, e.g. on a heavily loaded server."""
EPS_SWEEP = tuple(10.0 ** -k for k in range(1, 13))
NO_DEPENDENCE = N_("The output does not depend on any input, so it has no gradient to check: no path from an input "
                 "to the output carries one (const(...) and comparisons such as x > 1 block gradients, and "
                 "literals are constants).")


@dataclass(frozen=True)
class VariableCheck:
    """One input leaf: both gradients and their per-element relative error."""

    name: str
    analytic: np.ndarray
    numerical: np.ndarray
    rel_error: np.ndarray
    ok: bool

    @property
    def is_scalar(self) -> bool:
        return self.analytic.ndim == 0

    @property
    def max_rel_error(self) -> float:
        return float(self.rel_error.max(initial=0.0))

    @property
    def max_abs_error(self) -> float:
        return float(np.abs(self.analytic - self.numerical).max(initial=0.0))


@dataclass(frozen=True)
class ProgramCheck:
    """Every input of a program checked with one ``eps`` and one upstream gradient."""

    eps: float
    upstream: np.ndarray
    upstream_kind: str  # "ones" for a scalar output, "random" otherwise
    variables: list[VariableCheck]

    @property
    def ok(self) -> bool:
        return all(v.ok for v in self.variables)

    @property
    def max_rel_error(self) -> float:
        return max((v.max_rel_error for v in self.variables), default=0.0)


def input_names(program: Program) -> list[str]:
    """A label per input leaf: its variable name, or ``input #k`` for an unnamed literal."""
    names = []
    for k, leaf in enumerate(program.inputs, start=1):
        names.append(leaf.name if leaf.name else _("input #{k}").format(k=k))
    return names


def nudge_failure(err: ExprError, eps: float) -> str:
    """Words for a re-run that failed because an input was nudged by ±eps (the program itself runs fine)."""
    return _("Nudging an input by ±{eps} makes the program fail (line {line}: {message}), so central "
             "differences cannot be taken here: an input sits within eps of the edge of its function's domain. "
             "Try a smaller eps or inputs further from the edge.").format(eps=format(eps, ".0e"), line=err.line,
                                                                          message=err.message)


def check_cost(program: Program) -> int:
    """Work of a whole check in element units: two re-runs per input number, batched where the program
    allows it (see ``MAX_WORK`` and ``Program.finite_difference_cost``)."""
    return program.finite_difference_cost()


def refusal(program: Program) -> str | None:
    """Why ``program`` cannot be checked, in words (None when it can): checked before any re-run."""
    if not program.inputs:
        return _("The program has no inputs that require a gradient: nothing to check.")
    if not program.output.requires_grad:
        return _(NO_DEPENDENCE)
    total = sum(leaf.size for leaf in program.inputs)
    if total > MAX_ELEMENTS:
        return _("The inputs have {total} numbers in all; a numerical check is limited to {limit} "
                 "(two re-runs of the program each).").format(total=format(total, ","),
                                                              limit=format(MAX_ELEMENTS, ","))
    if check_cost(program) > MAX_WORK:
        return _("Re-running this program ({nodes} operations and values) twice for each of its {total} input "
                 "numbers would take too long on a shared server: try fewer input numbers or fewer operations.").format(
            nodes=format(program.graph_nodes, ","), total=format(total, ","))
    return None


def check_program(program: Program, eps: float = 1e-6, seed: int = 0, *, should_stop: StopCheck | None = None,
                  time_limit: float | None = TIME_LIMIT) -> ProgramCheck:
    """Compare backward with central differences (step ``eps``) for every input of ``program``.

    A scalar output is differentiated as it is (upstream 1), so the numbers are
    plain derivatives. A tensor output is reduced to ``Σ out · w`` with a
    random ``w`` fixed by ``seed``: an all-ones ``w`` would hide shape bugs.

    Raises ``ValueError`` (with a message for a person) when the program cannot
    or may not be checked, or ran past ``time_limit`` seconds; raises
    ``GradcheckCancelled`` when ``should_stop()`` turns true mid-check.
    """
    reason = refusal(program)
    if reason is not None:
        raise ValueError(reason)
    if not 0.0 < eps < 1.0:
        raise ValueError(_("eps must lie between 0 and 1"))
    copies = [Tensor(np.array(leaf.data, dtype=np.float64), requires_grad=True, name=leaf.name)
              for leaf in program.inputs]
    scalar_output = program.output.ndim == 0
    try:
        with np.errstate(all="ignore"):
            report = gradcheck(program.function(), copies, eps=eps,
                               grad_output=None if scalar_output else "random", seed=seed,
                               should_stop=should_stop, time_limit=time_limit,
                               batched=program.batched_function, rows_per_pass=program.batch_rows)
    except ExprError as err:  # a nudged input left the function's domain (log of a negative number ...)
        raise ValueError(nudge_failure(err, eps)) from None
    names = input_names(program)
    variables = [VariableCheck(names[r.index], r.analytic, r.numerical, relative_error(r.analytic, r.numerical),
                               r.ok) for r in report.inputs]
    return ProgramCheck(eps, report.upstream, "ones" if scalar_output else "random", variables)


def sweep_affordable(program: Program, steps: Sequence[float] = EPS_SWEEP) -> bool:
    """Whether ``eps_sweep`` (one whole check per step size) fits in the work budget of a single check."""
    total = sum(leaf.size for leaf in program.inputs)
    return refusal(program) is None and total <= 300 and check_cost(program) * len(steps) <= MAX_WORK


def eps_sweep(program: Program, steps: Sequence[float] = EPS_SWEEP, *, should_stop: StopCheck | None = None,
              time_limit: float | None = TIME_LIMIT) -> list[tuple[float, float]]:
    """``(eps, worst relative error)`` for each step size: too big a step is biased, too small is noise.

    ``time_limit`` is for the whole sweep, not per step size.
    """
    deadline = None if time_limit is None else time.monotonic() + time_limit
    points = []
    for eps in steps:
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        points.append((eps, check_program(program, eps, should_stop=should_stop, time_limit=left).max_rel_error))
    return points


def as_grid(values: np.ndarray) -> np.ndarray:
    """Any array as 2-D for a heatmap: vectors become one row, higher ranks fold their leading axes."""
    values = np.asarray(values)
    if values.ndim == 0:
        return values.reshape(1, 1)
    if values.ndim == 1:
        return values.reshape(1, -1)
    return values.reshape(-1, values.shape[-1])
