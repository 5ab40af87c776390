"""Many re-runs of a program in one pass: the program evaluated with one input stacked along a new first axis.

Finite differences re-run a program twice per input number. When every operation between that input and
the output works element by element (``+``, ``*``, ``sin``, ``where`` …, with broadcasting) or reduces
everything to one number (``sum()``, ``mean()``), the re-runs are independent rows of one bigger
computation: row ``b`` of the batched result is exactly what re-run ``b`` would compute, with the same
NumPy kernels on the same numbers. So thousands of re-runs cost a few hundred array ops instead of
thousands of times the program's op count, which is what makes a long chain of small ops checkable.

Anything else on the input's path (matrix products, reshapes, indexing, reductions over one axis, softmax)
would mix rows, so ``batched_runner`` returns ``None`` and the caller re-runs one at a time.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from lucid._backend.grad_mode import no_grad
from lucid._tensor.tensor import Tensor
from lucid.expr.compiler import Plan
from lucid.expr.evaluate import NUMERIC_ERRORS, run_op
from lucid.expr.functions import FUNCTIONS

ELEMENTWISE = frozenset(spec.op or spec.name for spec in FUNCTIONS.values()
                        if spec.group in ("elementwise", "comparison"))
"""Ops that compute each output element from the matching (broadcast) input elements alone."""
FULL_REDUCTIONS = {"sum": np.sum, "mean": np.mean}
"""Reductions that are row-safe when they reduce a whole tensor to one number."""

BatchedRunner = Callable[[np.ndarray], np.ndarray]


def batched_path(plan: Plan, input_index: int) -> list[bool] | None:
    """Which slots depend on input ``input_index`` (are batched), or None if one of them would mix rows."""
    batched = [False] * len(plan.instrs)
    k = -1
    for i, ins in enumerate(plan.instrs):
        if ins.kind == "leaf":
            if ins.grad:
                k += 1
                batched[i] = k == input_index
            continue
        if not any(batched[a] for a in ins.args):
            continue
        if ins.kind in ("detach", "bind"):
            batched[i] = True
        elif ins.op in ELEMENTWISE or ins.elementwise:
            batched[i] = True
        elif ins.op in FULL_REDUCTIONS and ins.shape == () and len(ins.args) == 1:
            batched[i] = True
        else:
            return None
    return batched


def _widen(tensor: Tensor, rank: int) -> Tensor:
    """A batched ``(B, *s)`` value as ``(B, 1, …, 1, *s)`` of rank ``1 + rank``, so broadcasting aligns ``s``
    with the other operands exactly as in the unbatched program (the batch axis stays apart)."""
    data = tensor.data
    missing = rank - (data.ndim - 1)
    if missing <= 0:
        return tensor
    return Tensor(data.reshape((data.shape[0],) + (1,) * missing + data.shape[1:]))


def batched_runner(plan: Plan, inputs: Sequence[Tensor], input_index: int) -> BatchedRunner | None:
    """A function of stacked values ``(B, *input.shape)`` for input ``input_index`` returning the stacked
    outputs ``(B, *output.shape)``; the other inputs keep the values in ``inputs``. None when the input's
    path is not row-safe (see the module docstring)."""
    if plan.uses_grad:  # grad(y, x) needs each re-run's own graph: rows cannot share one (re-run one by one)
        return None
    batched = batched_path(plan, input_index)
    if batched is None or not batched[plan.output]:
        return None

    def run(stacked: np.ndarray) -> np.ndarray:
        values: list[Tensor | None] = [None] * len(plan.instrs)
        leaves = iter(inputs)
        with no_grad(), np.errstate(**NUMERIC_ERRORS):
            for i, ins in enumerate(plan.instrs):
                if ins.kind == "leaf":
                    if ins.grad:
                        given = next(leaves)
                        values[i] = Tensor(stacked) if batched[i] else given
                    else:
                        values[i] = Tensor(ins.data)
                elif ins.kind == "detach":
                    values[i] = Tensor(np.array(values[ins.args[0]].data))
                elif ins.kind == "bind":
                    values[i] = values[ins.args[0]]
                elif not batched[i]:
                    values[i] = run_op(plan, ins, [values[a] for a in ins.args])
                elif ins.op in ELEMENTWISE or ins.elementwise:
                    rank = len(ins.shape)
                    args = [_widen(values[a], rank) if batched[a] else values[a] for a in ins.args]
                    values[i] = run_op(plan, ins, args)
                else:  # a whole-tensor sum or mean, row by row
                    data = values[ins.args[0]].data
                    values[i] = Tensor(FULL_REDUCTIONS[ins.op](data, axis=tuple(range(1, data.ndim))))
        out = values[plan.output].data
        return out.reshape((stacked.shape[0],) + tuple(plan.instrs[plan.output].shape))

    return run
