"""Everything the Playground shows about one program, computed once per (source, seed).

Parse + evaluate (``lucid.expr.run``) and the recorded backward pass
(``backward_trace``) happen here, outside Streamlit, so the page only picks a
step and looks things up. A program whose output needs no gradient (only
constants) still evaluates; it simply has no backward pass to show.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from lucid._tensor.tensor import Tensor
from lucid.autograd import Trace, backward_trace
from lucid.expr import Program, run


@dataclass
class Analysis:
    """A program, its backward trace (or why there is none) and node numbering in topological order."""

    source: str
    seed: int
    program: Program
    trace: Trace | None
    problem: str | None = None
    order: list[Tensor] = field(default_factory=list)

    @property
    def n_steps(self) -> int:
        return 0 if self.trace is None else len(self.trace.steps)

    @property
    def n_tensors(self) -> int:
        return len(self.order)

    @property
    def n_ops(self) -> int:
        return sum(1 for t in self.order if t._op is not None)

    def index_of(self, tensor: Tensor) -> int:
        """Position of ``tensor`` in the topological order (its node id is ``t<index>``)."""
        for k, t in enumerate(self.order):
            if t is tensor:
                return k
        raise KeyError("tensor is not part of this graph")


def analyze(source: str, seed: int = 0) -> Analysis:
    """Run ``source`` and record its backward pass. Raises ``lucid.expr.ExprError`` for a bad program."""
    program = run(source, seed=seed)
    root = program.output
    if not root.requires_grad:
        from lucid.autograd import topological_order

        return Analysis(source, seed, program, None,
                        "Nothing in this program requires a gradient (every value is a constant), "
                        "so there is no backward pass to show.", topological_order(root))
    try:
        with np.errstate(all="ignore"):
            trace = backward_trace(root)
    except (ArithmeticError, RuntimeError, ValueError) as err:
        from lucid.autograd import topological_order

        return Analysis(source, seed, program, None, f"The backward pass failed: {err}", topological_order(root))
    return Analysis(source, seed, program, trace, None, list(trace.order))
