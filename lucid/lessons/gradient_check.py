"""Gradient check of a whole program: autodiff against central differences, input by input.

The Gradient check page shows this as a table for scalar inputs and as
per-element error maps for tensor inputs. The check runs on copies of the
program's input leaves through ``Program.function()``, so the program (which
the page keeps between reruns) is never perturbed or given gradients.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lucid._tensor.tensor import Tensor
from lucid.autograd.gradcheck import gradcheck, relative_error
from lucid.expr import Program

MAX_ELEMENTS = 4000  # 2 forward passes per input element: keep a check well under a second or two
MAX_WORK = 400_000_000
"""Most work one check may do: 2 runs per input number × the program's work (elements plus multiply-adds).
A few inputs feeding a large constant matrix product would otherwise keep the server busy for many seconds."""
EPS_SWEEP = tuple(10.0 ** -k for k in range(1, 13))


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
        names.append(leaf.name if leaf.name else f"input #{k}")
    return names


def check_program(program: Program, eps: float = 1e-6, seed: int = 0) -> ProgramCheck:
    """Compare backward with central differences (step ``eps``) for every input of ``program``.

    A scalar output is differentiated as it is (upstream 1), so the numbers are
    plain derivatives. A tensor output is reduced to ``Σ out · w`` with a
    random ``w`` fixed by ``seed``: an all-ones ``w`` would hide shape bugs.
    """
    if not program.inputs:
        raise ValueError("the program has no inputs that require grad: nothing to check")
    total = sum(leaf.size for leaf in program.inputs)
    if total > MAX_ELEMENTS:
        raise ValueError(f"the inputs have {total:,} numbers in all; a numerical check is limited to "
                         f"{MAX_ELEMENTS:,} (two forward passes each)")
    if 2 * total * program.work > MAX_WORK:
        raise ValueError(f"re-running this program twice for each of its {total:,} input numbers would take too "
                         "long on a shared server: try smaller tensors")
    if not 0.0 < eps < 1.0:
        raise ValueError("eps must lie between 0 and 1")
    copies = [Tensor(np.array(leaf.data, dtype=np.float64), requires_grad=True, name=leaf.name)
              for leaf in program.inputs]
    scalar_output = program.output.ndim == 0
    report = gradcheck(program.function(), copies, eps=eps, grad_output=None if scalar_output else "random",
                       seed=seed)
    names = input_names(program)
    variables = [VariableCheck(names[r.index], r.analytic, r.numerical, relative_error(r.analytic, r.numerical),
                               r.ok) for r in report.inputs]
    return ProgramCheck(eps, report.upstream, "ones" if scalar_output else "random", variables)


def sweep_affordable(program: Program, steps: Sequence[float] = EPS_SWEEP) -> bool:
    """Whether ``eps_sweep`` (one whole check per step size) fits in the work budget of a single check."""
    total = sum(leaf.size for leaf in program.inputs)
    return total <= 300 and 2 * total * program.work * len(steps) <= MAX_WORK


def eps_sweep(program: Program, steps: Sequence[float] = EPS_SWEEP) -> list[tuple[float, float]]:
    """``(eps, worst relative error)`` for each step size: too big a step is biased, too small is noise."""
    return [(eps, check_program(program, eps).max_rel_error) for eps in steps]


def as_grid(values: np.ndarray) -> np.ndarray:
    """Any array as 2-D for a heatmap: vectors become one row, higher ranks fold their leading axes."""
    values = np.asarray(values)
    if values.ndim == 0:
        return values.reshape(1, 1)
    if values.ndim == 1:
        return values.reshape(1, -1)
    return values.reshape(-1, values.shape[-1])
