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
from lucid.expr import run

FD_ELEMENT_LIMIT = 400
"""Above this many input elements in total, finite differences are skipped (2 evaluations each)."""

FD_WORK_LIMIT = 200_000_000
"""Above this much work (2 evaluations per input element × the program's elements and multiply-adds),
finite differences are skipped too: a few inputs feeding a big constant matrix product would otherwise
keep the server busy for seconds."""


@dataclass(frozen=True)
class InputRow:
    """One input (leaf that requires grad) and how its gradient checks out."""

    name: str
    shape: tuple[int, ...]
    value: np.ndarray
    gradient: np.ndarray
    numerical: np.ndarray | None
    max_rel_error: float | None


def input_rows(source: str, seed: int = 0, eps: float = 1e-6) -> list[InputRow]:
    """Autodiff vs central differences for every input of ``source`` (seed gradient ones, as on screen)."""
    program = run(source, seed=seed)
    inputs = list(program.inputs)
    if not inputs or not program.output.requires_grad:
        return []
    total = sum(t.size for t in inputs)
    fn = program.function()
    names = [t.name or f"input {i}" for i, t in enumerate(inputs)]
    if total > FD_ELEMENT_LIMIT or 2 * total * program.work > FD_WORK_LIMIT:
        program.output.backward()
        return [InputRow(n, t.shape, np.array(t.data), np.zeros(t.shape) if t.grad is None else np.array(t.grad),
                         None, None) for n, t in zip(names, inputs)]
    with np.errstate(all="ignore"):
        report = gradcheck(fn, inputs, eps=eps, grad_output=None)
    by_index = {r.index: r for r in report.inputs}
    rows = []
    for i, (n, t) in enumerate(zip(names, inputs)):
        r = by_index.get(i)
        if r is None:
            continue
        rows.append(InputRow(n, t.shape, np.array(t.data), r.analytic, r.numerical, r.max_rel_error))
    return rows
