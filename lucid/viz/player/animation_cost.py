"""What building a program's animation will cost, predicted before any frame is drawn.

``build_animation`` draws one DOT frame per step, compares every drawn element of
it with the previous frame and writes one explanation per step. Its time is
therefore about

    Σ over the animated steps of (STEP_WORK + drawn elements + FANIN_WORK × inputs of the step's op)

in *work units* (one unit ≈ one drawn element compared in one frame, about 16 µs
on this project's 2-core machine). The explanation of a step lists the inputs of
its op, so ``stack`` of one scalar repeated 1,600 times costs 1,600² input
mentions: 54 CPU s for 3,900 before this budget existed, although the graph has
three nodes. Measured (``bench/bench_animation_cost.py``): the prediction stays
within a factor of 2 of the measured time over programs from 3 to 400 steps (gallery, stacks, the
scalar MLP full and collapsed).

A build predicted past ``MAX_ANIMATION_WORK`` is not started: the caller draws
the graph collapsed instead (fewer animated steps and elements), and past that
refuses with ``AnimationTooCostly``, whose message names the limit.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from lucid._tensor.tensor import Tensor
from lucid.autograd.trace import Trace
from lucid.i18n import L_
from lucid.viz.errors import GraphTooLarge

STEP_WORK = 150
"""Work units of one step besides its drawn elements: building the frame and the explanation's fixed part."""
FANIN_WORK = 0.5
"""Work units per input of the op a step explains (the explanation names every input: about 6 µs each)."""
MAX_ANIMATION_WORK = 400_000
"""Most work units one animation may cost (about 6 s of one core here); past it the graph is drawn
collapsed, and a collapsed drawing still past it is refused."""
CHEAP_ANIMATION_WORK = 40_000
"""Builds predicted under this (well under a second) are cheap: they never wait behind expensive ones."""


class AnimationTooCostly(GraphTooLarge):
    """The animation of this backward pass would take longer to build than a shared server allows."""

    def __init__(self, work: int, limit: int, steps: int) -> None:
        super().__init__(L_("Animating its {steps} backward steps would take about {times}× the animation limit "
                            "({limit} work units, about {seconds} s of server time). Use fewer inputs per operation "
                            "(a long stack(...) or concatenate(...) of the same tensor) or a smaller program.",
                            steps=format(steps, ","), times=format(work / limit, ".1f"), limit=format(limit, ","),
                            seconds=format(limit * 16e-6, ".0f")), nodes=steps, limit=limit)
        self.work = work


@dataclass(frozen=True)
class AnimationWork:
    """A prediction: animated ``steps``, ``drawn`` elements per frame, and the total ``work`` units."""

    steps: int
    drawn: int
    work: int

    @property
    def fits(self) -> bool:
        return self.work <= MAX_ANIMATION_WORK

    @property
    def cheap(self) -> bool:
        return self.work <= CHEAP_ANIMATION_WORK


def _fanin(trace: Trace, trace_steps: Iterable[int]) -> int:
    """Inputs of the ops the given trace steps explain (the seed step explains no op)."""
    steps = trace.steps
    return sum(len(steps[k].node._prev) for k in trace_steps if steps[k].node is not None)


def full_work(root: Tensor, trace: Trace | None) -> AnimationWork:
    """The cost of animating every node and edge of the graph (the uncollapsed drawing)."""
    order = trace.order if trace is not None else []
    drawn = len(order) + sum(len(t._prev) for t in order)
    if trace is None:
        return AnimationWork(0, drawn, drawn)
    n = len(trace.steps)
    return AnimationWork(n, drawn, n * (STEP_WORK + drawn) + int(FANIN_WORK * _fanin(trace, range(n))))


def collapsed_work(view: object) -> AnimationWork:
    """The cost of animating a ``CollapsedView``: one frame per collapsed step, each explaining its last trace step."""
    steps = list(getattr(view, "steps", []))
    drawn = int(view.node_count) + len(view.edges)  # type: ignore[attr-defined]
    trace = view.trace  # type: ignore[attr-defined]
    if trace is None or not steps:
        return AnimationWork(0, drawn, drawn)
    fanin = _fanin(trace, (c.last for c in steps))
    return AnimationWork(len(steps), drawn, len(steps) * (STEP_WORK + drawn) + int(FANIN_WORK * fanin))
