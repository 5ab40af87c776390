"""Run a checked plan through the engine, turning numeric trouble into positioned errors.

Every op runs under ``np.errstate`` that raises on overflow, division by zero
and invalid results (underflow to 0 is fine: ``sigmoid(-800)`` is just 0), and
every result is checked for inf/NaN, so "log of a negative number" is reported
at the ``log`` that did it rather than showing up later as a NaN gradient.
"""
from __future__ import annotations

import contextlib
from collections.abc import Sequence

import numpy as np

from lucid._backend.grad_mode import enable_grad
from lucid._tensor.tensor import Tensor
from lucid.expr.compiler import Instr, Plan
from lucid.expr.errors import ExprError, line_text
from lucid.i18n import L_, N_, Message

NUMERIC_ERRORS = {"over": "raise", "divide": "raise", "invalid": "raise", "under": "ignore"}

_HINTS = {
    "log": N_(" (log of a negative number?)"),
    "sqrt": N_(" (square root of a negative number?)"),
    "pow": N_(" (a negative number to a fractional power, or 0 to a negative power?)"),
    "div": N_(" (0/0?)"),
}


def _error(plan: Plan, ins: Instr, message: str | Message, kind: str) -> ExprError:
    return ExprError(message, ins.line, ins.col, line_text(plan.source, ins.line), kind, ins.length)


def numeric_error(plan: Plan, ins: Instr, problem: str) -> ExprError:
    """Say which operation went wrong numerically, in words a student can act on."""
    hint = L_(_HINTS[ins.op]) if ins.op in _HINTS else ""
    if "overflow" in problem:
        what = L_("the result is too large for float64 (overflow)")
        hint = ""
    elif "divide by zero" in problem:  # NumPy says "invalid value encountered in divide" for 0/0
        what = L_("division by zero") if ins.op != "log" else L_("log of 0 is minus infinity")
        hint = ""
    elif "invalid" in problem or "nan" in problem:
        what = L_("the result is not a number (NaN)")
    else:
        what = L_("the result is infinite")
    return _error(plan, ins, L_("numeric problem in {label}: {what}{hint}",
                                label=ins.label, what=what, hint=hint), "numeric")


def run_op(plan: Plan, ins: Instr, args: list[Tensor]) -> Tensor:
    if ins.check_exponent:
        exponent = args[1].data
        biggest = float(np.max(np.abs(exponent))) if exponent.size else 0.0
        if biggest > plan.limits.max_exponent:
            shown = f"{biggest:.0f}" if biggest < 1e16 and biggest == int(biggest) else f"{biggest:g}"
            raise _error(plan, ins, L_("the exponent {shown} is too large (the limit is {max_exponent})",
                                       shown=shown, max_exponent=format(plan.limits.max_exponent, "g")), "limit")
    try:
        out = ins.call(*args)
    except FloatingPointError as exc:
        raise numeric_error(plan, ins, str(exc)) from None
    except MemoryError:
        raise _error(plan, ins, L_("{label} needs more memory than is available",
                                   label=ins.label), "limit") from None
    except (ArithmeticError, ValueError, TypeError, IndexError) as exc:
        text = str(exc)  # an engine message that already names the op is not prefixed a second time
        message = text if text.startswith(f"{ins.op} ") else L_("{label}: {message}", label=ins.label, message=text)
        raise _error(plan, ins, message, "argument") from None
    if out.data.dtype.kind == "f" and not np.isfinite(out.data).all():
        raise numeric_error(plan, ins, "nan" if np.isnan(out.data).any() else "inf")
    return out


def execute(plan: Plan, inputs: Sequence[Tensor], name_inputs: bool = True) -> tuple[Tensor, dict[str, Tensor]]:
    """Evaluate ``plan`` with ``inputs`` standing for its grad-requiring leaves, in order.

    Returns the output (root) tensor and the named variables in order of first definition.
    With ``name_inputs=False`` the caller's input tensors are left unnamed (a re-run must not
    change the caller's objects); tensors made by the run are always named.
    """
    keep = set() if name_inputs else {id(t) for t in inputs}
    if plan.uses_grad:  # grad(y, x) is a function of x's values: a constant standing for an input still moves it
        inputs = [t if t.requires_grad else Tensor(t.data, requires_grad=True) for t in inputs]
    values: list[Tensor | None] = [None] * len(plan.instrs)
    variables: dict[str, Tensor] = {}
    leaves = iter(inputs)
    # grad(y, x) differentiates the graph it ran on, so that graph is recorded even in a re-run under no_grad
    with np.errstate(**NUMERIC_ERRORS), enable_grad() if plan.uses_grad else contextlib.nullcontext():
        for i, ins in enumerate(plan.instrs):
            if ins.kind == "leaf":
                values[i] = next(leaves) if ins.grad else Tensor(ins.data)
            elif ins.kind == "op":
                values[i] = run_op(plan, ins, [values[a] for a in ins.args])
            elif ins.kind == "detach":
                values[i] = Tensor(np.array(values[ins.args[0]].data))
            else:  # bind: a re-bound tensor keeps its first name
                tensor = values[ins.args[0]]
                if tensor.name is None and id(tensor) not in keep:
                    tensor.name = ins.name
                variables[ins.name] = tensor
                values[i] = tensor
    return values[plan.output], variables


def materialize(plan: Plan, rng: np.random.Generator) -> list[Tensor]:
    """Make every leaf's data once, in program order (so one seed gives one set of numbers).

    Constant leaves keep their (read-only) data in the plan for re-runs; leaves
    that require grad become the program's input tensors.
    """
    inputs: list[Tensor] = []
    with np.errstate(**NUMERIC_ERRORS):
        for ins in plan.instrs:
            if ins.kind != "leaf":
                continue
            try:
                data = np.asarray(ins.make(rng), dtype=np.float64)
            except FloatingPointError as exc:
                raise numeric_error(plan, ins, str(exc)) from None
            if not np.isfinite(data).all():
                raise numeric_error(plan, ins, "inf")
            if data.shape != ins.shape:  # pragma: no cover - the checker and the makers agree
                raise _error(plan, ins, L_("{label} made shape {shape}, expected {shape2}",
                                           label=ins.label, shape=data.shape, shape2=ins.shape), "internal")
            if ins.grad:
                inputs.append(Tensor(data, requires_grad=True))
            else:
                data.flags.writeable = False
                ins.data = data
    return inputs
