"""Rows of the inputs table: each input's value, its autodiff gradient and the finite-difference one.

This is the table that lets a class see that autodiff is right: the gradient
the backward pass computed next to central differences, and the worst relative
error between them. The check runs on a fresh evaluation of the program so the
graph on screen is never perturbed.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lucid.autograd import gradcheck
from lucid.autograd.gradcheck import GradcheckTimeLimit, StopCheck
from lucid.expr import ExprError, Program, run
from lucid.i18n import L_, Message

FD_ELEMENT_LIMIT = 400
"""Above this many input elements in total, finite differences are skipped (2 evaluations each)."""

FD_WORK_LIMIT = 200_000_000
"""Above this much work (``Program.finite_difference_cost``: 2 evaluations per input element, counting
elements, multiply-adds and each op's fixed overhead), finite differences are skipped too: a few inputs
feeding a big constant matrix product, or a long chain of small ops, would otherwise keep the server busy
for seconds."""

FD_TIME_LIMIT = 3.0
"""Seconds the finite differences may take before they are abandoned (the table then shows them skipped)."""


@dataclass(frozen=True)
class InputRow:
    """One input (leaf that requires grad) and how its gradient checks out."""

    name: str
    shape: tuple[int, ...]
    value: np.ndarray
    gradient: np.ndarray
    numerical: np.ndarray | None
    max_rel_error: float | None
    skipped: Message | None = None
    """Why ``numerical`` is None, in words for a caption (None when it was computed); rendered in the reader's
    language (rows are shared by every session)."""


def skip_reason(program: Program) -> Message | None:
    """Why finite differences are not worth running for ``program`` (None when they are)."""
    total = sum(t.size for t in program.inputs)
    if total > FD_ELEMENT_LIMIT:
        return L_("Finite differences are skipped above {limit} input numbers in total "
                  "(each needs two extra evaluations of the program).", limit=FD_ELEMENT_LIMIT)
    if program.finite_difference_cost() > FD_WORK_LIMIT:
        return L_("Finite differences are skipped: re-running this program ({nodes} operations and values) twice "
                  "for each of its {total} input numbers would take too long.", nodes=format(program.graph_nodes, ","),
                  total=format(total, ","))
    return None


def input_rows(source: str, seed: int = 0, eps: float = 1e-6, *, should_stop: StopCheck | None = None,
               time_limit: float | None = FD_TIME_LIMIT) -> list[InputRow]:
    """Autodiff vs central differences for every input of ``source`` (seed gradient ones, as on screen).

    ``should_stop`` ends the finite differences early by raising ``GradcheckCancelled`` (a page passes one
    that turns true when its session reruns or leaves); past ``time_limit`` they are shown as skipped.
    """
    program = run(source, seed=seed)
    inputs = list(program.inputs)
    if not inputs or not program.output.requires_grad:
        return []
    fn = program.function()
    names = [t.name or f"input {i}" for i, t in enumerate(inputs)]
    reason = skip_reason(program)
    if reason is None:
        try:
            with np.errstate(all="ignore"):
                report = gradcheck(fn, inputs, eps=eps, grad_output=None, should_stop=should_stop,
                                   time_limit=time_limit, batched=program.batched_function,
                                   rows_per_pass=program.batch_rows)
        except GradcheckTimeLimit:
            reason = L_("Finite differences were stopped after {seconds} s: this program is too slow to "
                        "re-run twice for every input number on a shared server.", seconds=format(time_limit, "g"))
        except ExprError as err:  # a nudged input left the domain: log of a negative number, ...
            reason = L_("Finite differences are skipped: nudging an input by ±{eps} makes the program fail "
                        "(line {line}: {message}).", eps=format(eps, ".0e"), line=err.line, message=err.template)
    if reason is not None:
        for t in inputs:
            t.grad = None
        program.output.backward()
        return [InputRow(n, t.shape, np.array(t.data), np.zeros(t.shape) if t.grad is None else np.array(t.grad),
                         None, None, reason) for n, t in zip(names, inputs)]
    by_index = {r.index: r for r in report.inputs}
    rows = []
    for i, (n, t) in enumerate(zip(names, inputs)):
        r = by_index.get(i)
        if r is None:
            continue
        rows.append(InputRow(n, t.shape, np.array(t.data), r.analytic, r.numerical, r.max_rel_error))
    return rows
