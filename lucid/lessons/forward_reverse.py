"""Forward vs reverse mode on a real program: how many passes each needs for the whole Jacobian.

For f: ℝⁿ → ℝᵐ (n input numbers, m output numbers) forward mode pushes one tangent direction
per pass and needs n passes; reverse mode pulls one output's gradient per pass and needs m.
``compare_modes`` runs both on a program from the expression language (all its inputs taken
together as one vector) and returns the two Jacobians, which must agree, with the counts.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import lucid
from lucid._tensor.tensor import Tensor
from lucid.autograd.forward import Jacobian, choose_mode, jacobian
from lucid.expr.program import Program
from lucid.i18n import L_, _, ngettext
from lucid.lessons.jacobian_cost import jacobian_cost, refusal

#: Past this many entries (input numbers times output numbers) the comparison is not run: it is for small examples.
MAX_ENTRIES = 4096


class JacobianTooCostly(ValueError):
    """Building both Jacobians would pass ``lucid.lessons.jacobian_cost.MAX_JACOBIAN_WORK`` (nothing was run)."""


@dataclass(frozen=True)
class ModeComparison:
    """Both Jacobians of one program, with what each mode cost and which one is the better pick."""

    n_inputs: int
    n_outputs: int
    forward: Jacobian
    reverse: Jacobian
    picked: str
    reason: str

    @property
    def agree(self) -> bool:
        return bool(np.allclose(self.forward.matrix, self.reverse.matrix, rtol=1e-12, atol=1e-14))


def compare_modes(program: Program) -> ModeComparison:
    """Forward- and reverse-mode Jacobians of ``program``'s output with respect to all its inputs.

    The inputs are flattened and joined in order (``program.inputs``), so the Jacobian has shape
    ``(output numbers, input numbers)``. Raises ``ValueError`` for a program without inputs or
    one whose Jacobian has more than ``MAX_ENTRIES`` entries, and ``JacobianTooCostly`` (a ``ValueError``)
    before any pass when its predicted work (``lucid.lessons.jacobian_cost``) is past the budget.
    """
    leaves = program.inputs
    if not leaves:
        raise ValueError(L_("the program has no inputs that require grad, so it has no Jacobian"))
    sizes = [t.size for t in leaves]
    n_in, n_out = sum(sizes), program.output.size
    if n_in * n_out > MAX_ENTRIES:
        raise ValueError(L_("the Jacobian would have {n_in} × {n_out} entries; this comparison is for small "
                            "programs (at most {limit})", n_in=n_in, n_out=n_out, limit=MAX_ENTRIES))
    too_costly = refusal(jacobian_cost(program))
    if too_costly is not None:
        raise JacobianTooCostly(too_costly)
    run = program.function()
    cuts = np.cumsum([0, *sizes])

    def joined(vector: Tensor) -> Tensor:
        parts = [lucid.reshape(vector[int(a):int(b)], t.shape) for a, b, t in zip(cuts, cuts[1:], leaves)]
        return lucid.reshape(run(*parts), (n_out,))

    values = np.concatenate([t.data.reshape(-1) for t in leaves])
    forward = jacobian(joined, values, mode="forward")
    reverse = jacobian(joined, values, mode="reverse")
    picked, reason = choose_mode(n_in, n_out)
    return ModeComparison(n_in, n_out, forward, reverse, picked, reason)


def passes_sentence(n_in: int, n_out: int) -> str:
    """What the whole Jacobian costs each way and which mode wins, in the reader's language.

    The words of ``choose_mode`` (whose ``reason`` stays English, as the library's API says it) for a
    person: each count is its own counted phrase, so every language puts its plural where it belongs.
    """
    forward = ngettext("{n} forward pass", "{n} forward passes", n_in).format(n=n_in)
    backward = ngettext("{n} backward pass", "{n} backward passes", n_out).format(n=n_out)
    needs = _("For all its derivatives this program needs {forward} or {backward}.").format(
        forward=forward, backward=backward)
    picked = choose_mode(n_in, n_out)[0]
    if n_in == n_out:
        why = _("Both modes take as many passes; reverse mode is lucid's usual mode.")
    elif picked == "forward":
        why = _("Forward mode is the better pick here: one pass per input number, and there are fewer inputs than "
                "outputs.")
    else:
        why = _("Reverse mode is the better pick here: one pass per output number, and there are fewer outputs than "
                "inputs.")
    return f"{needs} {why}"
