"""What building a program's whole Jacobian both ways costs, predicted before any pass runs.

``compare_modes`` records the program once per mode as a function of one joined input vector, then runs one
forward pass per input number and one backward pass per output number over that graph. Every pass visits
the same ops: the program's own, plus a slice and a reshape per input leaf (cutting the joined vector back
into the inputs) and one reshape of the output. So the cost is known from the counts alone:

- passes: ``n_in`` forward, ``n_out`` backward (exactly);
- op applications: passes × ops per pass (an upper bound: an op that only constants reach is skipped);
- work, in the element units of ``Program.rerun_cost`` (elements touched plus ``OP_OVERHEAD_ELEMENTS`` per
  op): each pass costs about one re-run of the program, the slices included; a backward pass also fills a
  gradient of the whole joined vector for every leaf.

A program of 4,096 input numbers through a chain of a hundred ops is 4,096 forward passes of a hundred ops:
over 400,000 op applications on 4,096 numbers each, 8.5 s of CPU. ``MAX_JACOBIAN_WORK`` keeps one build to about a
second; past it the page says why and builds nothing.
"""
from __future__ import annotations

from dataclasses import dataclass

from lucid.autograd import topological_order
from lucid.expr.limits import OP_OVERHEAD_ELEMENTS
from lucid.expr.program import Program
from lucid.i18n import _, format_integer

MAX_JACOBIAN_WORK = 400_000_000
"""Most work one build of both Jacobians may do (element units): about a second of CPU on a quiet 2-core
machine, the same budget as a gradient check (``lucid.lessons.gradient_check.MAX_WORK``). Measured (0.5 to
1.4 ns a unit): 4,096 inputs through ``tanh(x).sum()`` are 0.22 G units and 0.16 s, 256 inputs through a chain
of 150 ``tanh`` 0.22 G units and 0.30 s; 4,096 inputs through a chain of 100 ``tanh`` would be 5.5 G units and
8.5 s (refused)."""
CHEAP_JACOBIAN_WORK = 20_000_000
"""Builds predicted under this (a few hundredths of a second: every lesson-sized program) take a cheap build
slot; above it the single expensive slot (``lucid.session.analysis.BUILD_LANES``)."""


@dataclass(frozen=True)
class JacobianCost:
    """The predicted cost of ``compare_modes`` on one program: passes, op applications and work."""

    n_inputs: int
    n_outputs: int
    leaves: int
    ops_per_pass: int
    rerun_cost: int

    @property
    def forward_passes(self) -> int:
        return self.n_inputs

    @property
    def reverse_passes(self) -> int:
        return self.n_outputs

    @property
    def forward_ops(self) -> int:
        """``jvp`` applications of all forward passes."""
        return self.forward_passes * self.ops_per_pass

    @property
    def reverse_ops(self) -> int:
        """Gradient-function applications of all backward passes."""
        return self.reverse_passes * self.ops_per_pass

    @property
    def work(self) -> int:
        """Element units of the whole build: two recordings of the program, then every pass of both modes."""
        base = self.rerun_cost + OP_OVERHEAD_ELEMENTS * (2 * self.leaves + 1)  # + the slices and reshapes
        forward = self.forward_passes * (base + 2 * self.n_inputs)
        reverse = self.reverse_passes * (base + self.leaves * self.n_inputs)
        return 2 * base + forward + reverse

    @property
    def fits(self) -> bool:
        return self.work <= MAX_JACOBIAN_WORK

    @property
    def cheap(self) -> bool:
        return self.work <= CHEAP_JACOBIAN_WORK


def jacobian_cost(program: Program) -> JacobianCost:
    """Predict ``compare_modes(program)`` from its counts: input and output numbers, leaves and ops.

    Reads the graph the program already recorded (at most ``Limits.max_graph_nodes`` nodes, under a
    millisecond); runs nothing.
    """
    ops = sum(1 for t in topological_order(program.output) if t._op is not None)
    leaves = len(program.inputs)
    return JacobianCost(n_inputs=sum(t.size for t in program.inputs), n_outputs=program.output.size,
                        leaves=leaves, ops_per_pass=ops + 2 * leaves + 1, rerun_cost=program.rerun_cost)


def refusal(cost: JacobianCost) -> str | None:
    """Why the Jacobian of a program this costly is not built, in the reader's words (None: it fits)."""
    if cost.fits:
        return None
    return _("Building this Jacobian both ways means one forward pass per input number ({forward}) and one "
             "backward pass per output number ({backward}), through {ops} operations each: about {work} units of "
             "work, where one build on a shared server may do at most {limit}. Try fewer input numbers or fewer "
             "operations.").format(
        forward=format_integer(cost.forward_passes), backward=format_integer(cost.reverse_passes),
        ops=format_integer(cost.ops_per_pass), work=format_integer(cost.work),
        limit=format_integer(MAX_JACOBIAN_WORK))
