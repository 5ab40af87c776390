"""Everything the Playground shows about one program, computed once per (source, seed) per server process.

Parse + evaluate (``lucid.expr.run``) and the recorded backward pass
(``backward_trace``) happen here, outside Streamlit, so the page only picks a
step and looks things up. A program whose output needs no gradient (only
constants) still evaluates; it simply has no backward pass to show.

``shared_analysis`` and ``shared_animation`` go through process-wide caches: a
class opening the teacher's link costs one computation, sessions keep only the
key (the source text), and the total memory the caches hold is bounded in bytes
(a near-limit program with its trace holds about 200 MB, so only a few are kept;
the others are recomputed when asked for again).
"""
from __future__ import annotations

import functools
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lucid._tensor.tensor import Tensor
from lucid.autograd import Trace, backward_trace
from lucid.expr import ExprError, Program, run
from lucid.expr.program import predicted_cost
from lucid.i18n import L_, Message, current_language, text
from lucid.session.memo import SharedCache
from lucid.session.memory import return_large_blocks_to_os
from lucid.session.script_slots import holding
from lucid.viz.errors import GraphTooLarge, GraphvizNotInstalled
from lucid.viz.graph.collapse import CollapsedView
from lucid.viz.graph.hierarchy import Hierarchy, build_hierarchy
from lucid.viz.player.animation import Animation, build_animation, build_collapsed_animation
from lucid.viz.player.animation_cost import MAX_ANIMATION_WORK as MAX_WORK
from lucid.viz.player.animation_cost import AnimationTooCostly, AnimationWork, collapsed_work, full_work


@dataclass
class Analysis:
    """A program, its backward trace (or why there is none) and node numbering in topological order."""

    source: str
    seed: int
    program: Program
    trace: Trace | None
    problem: Message | None = None
    """Why there is no backward pass to show, rendered in the reader's language (``lucid.i18n.Message``)."""
    order: list[Tensor] = field(default_factory=list)
    variant: str = ""
    """Which pass of the program ``trace`` is: "" the engine's; another word a pass made beside it (the gradient
    detective's broken engine, ``lucid.practice.faults``), so caches keyed on the program never mix the two."""

    @property
    def n_steps(self) -> int:
        return 0 if self.trace is None else len(self.trace.steps)

    @property
    def output(self) -> Tensor:
        return self.program.output

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
                        L_("Nothing in this program requires a gradient (every value is a constant), "
                           "so there is no backward pass to show."), topological_order(root))
    try:
        with np.errstate(all="ignore"):
            trace = backward_trace(root, max_elements=program.limits.max_trace_elements)
    except (ArithmeticError, RuntimeError, ValueError, MemoryError) as err:  # TraceTooLarge is a MemoryError
        from lucid.autograd import topological_order

        order = topological_order(root)
        for t in order:  # a pass stopped half way leaves partial gradients: none is shown rather than a wrong one
            t.grad = None
        return Analysis(source, seed, program, None, L_("The backward pass failed: {error}", error=text(err)), order)
    return Analysis(source, seed, program, trace, None, list(trace.order))


STEP_BYTES = 512
"""Bytes a trace step keeps besides its arrays (its record and the views on shared arrays: about 440 measured).
A ``stack`` of 3,900 scalars keeps 2 MB in 3,903 steps around a few hundred bytes of arrays."""


def analysis_bytes(analysis: Analysis) -> int:
    """Bytes an analysis keeps alive: values, gradients, every array of its trace, and its steps' records."""
    seen: dict[int, int] = {}

    def add(arr: object) -> None:
        while isinstance(arr, np.ndarray) and arr.base is not None:  # a view keeps its base (once) alive
            arr = arr.base
        if isinstance(arr, np.ndarray) and id(arr) not in seen:
            seen[id(arr)] = arr.nbytes
    for t in analysis.order:
        add(t.data)
        add(t.grad)
    if analysis.trace is not None:
        for s in analysis.trace.steps:
            for arr in (s.upstream, s.local, s.contribution_raw, s.contribution, s.accumulated):
                add(arr)
    steps = len(analysis.trace.steps) if analysis.trace is not None else 0
    return sum(seen.values()) + 4096 * max(len(analysis.order), 1) + STEP_BYTES * steps


MB = 1 << 20
return_large_blocks_to_os()  # the caches below hold and drop arrays of many MB
ANALYSES: SharedCache[Analysis] = SharedCache(max_entries=48, max_bytes=320 * MB, ttl_seconds=3600,
                                              sizeof=analysis_bytes, max_concurrent=2, shared_errors=(ExprError,))
"""Programs with their traces, shared by all sessions. 320 MB holds one near-limit program with room to spare,
or dozens of lesson-sized ones; at most two compute at once, so peak memory stays bounded too. A program's
``ExprError`` is a property of its text: kept and raised to every session like a value (run once)."""

ANIMATIONS: SharedCache[Animation] = SharedCache(max_entries=256, max_bytes=96 * MB, ttl_seconds=3600,
                                                 sizeof=lambda a: a.approx_bytes(),
                                                 shared_errors=(GraphTooLarge, GraphvizNotInstalled))
"""Laid-out animations (summarized text, no arrays), by (source, seed, drawing options). How many build at
once is decided per build by its predicted cost (``BUILD_LANES``), not by the cache. Too large or too costly
to draw, or no Graphviz, is the same for every session: kept like a value (``AnimationTooCostly`` is a
``GraphTooLarge``). A layout that failed or timed out may be the machine's load of the moment, not the
program's: the next session asks again."""


class BuildLanes:
    """Two lanes of build slots: cheap builds never wait behind expensive ones.

    Every build's cost is predicted first (``lucid.viz.player.animation_cost``). A cheap one (well under a
    second) takes one of ``cheap`` slots; an expensive one takes the single expensive slot, so two
    students' heavy programs cannot hold both cores while a third student's three-line program waits.
    """

    def __init__(self, cheap: int = 2, costly: int = 1) -> None:
        self.cheap = threading.BoundedSemaphore(cheap)
        self.costly = threading.BoundedSemaphore(costly)

    def slot(self, cheap: bool | AnimationWork) -> threading.BoundedSemaphore:
        """The lane for work predicted ``cheap`` (or an ``AnimationWork``, cheap by its own measure)."""
        if isinstance(cheap, AnimationWork):
            cheap = cheap.cheap
        return self.cheap if cheap else self.costly


BUILD_LANES = BuildLanes()


def array_bytes(value: object) -> int:
    """Bytes of the NumPy arrays in a list of records (dataclasses or plain objects), for cache budgets."""
    items = value if isinstance(value, list | tuple) else [value]
    total = 0
    for item in items:
        fields = vars(item).values() if hasattr(item, "__dict__") else (
            getattr(item, f) for f in getattr(item, "__dataclass_fields__", ()))
        total += 256 + sum(f.nbytes for f in fields if isinstance(f, np.ndarray))
    return total


INPUT_ROWS: SharedCache[Any] = SharedCache(max_entries=64, max_bytes=64 * MB, ttl_seconds=3600,
                                           sizeof=array_bytes, max_concurrent=2, shared_errors=(ExprError,))
"""The inputs table's rows (values, gradients, finite differences) by (source, seed), shared by all sessions."""


CHEAP_ANALYSIS = 2_000_000
"""A program predicted under this many elements (``lucid.expr.predicted_cost``: a few hundred ops on small
arrays, well under a second) is analysed in the cheap lane, so it never queues behind near-limit programs."""
ANALYSIS_LANES = BuildLanes(cheap=2, costly=1)
"""Programs analysed at once: two cheap ones and one expensive one (the expensive lane also bounds the peak
memory of near-limit programs: one at a time)."""


PREDICTIONS_KEPT = 256
"""Programs whose predicted cost is kept (their text is at most 10,000 characters: a few MB at most)."""


@functools.lru_cache(maxsize=PREDICTIONS_KEPT)
def _predicted_cost(source: str) -> int | None:
    """``predicted_cost(source)``, once per program text: it depends on the text alone."""
    return predicted_cost(source)


def shared_analysis(source: str, seed: int = 0) -> Analysis:
    """``analyze(source, seed)`` computed once per server process and shared (read-only) by every session.

    A program nobody has run yet is checked first (parsed, nothing evaluated) to pick its lane, once per program
    text: a class opening one link arrives while the first student's analysis is still computing, and every
    session then parsed the program again only to join that computation (bench_load -n 60: 35 of 60 students).
    """
    key = ("analysis", source, seed)
    slots = None
    if key not in ANALYSES:
        cost = _predicted_cost(source)
        slots = ANALYSIS_LANES.slot(cost is not None and cost <= CHEAP_ANALYSIS)
    return ANALYSES.get(key, lambda: analyze(source, seed), slots=slots)


def animation_key(analysis: Analysis, options: Any, expanded: Iterable[str] = ()) -> tuple:
    """The shared cache's key for an animation: program, seed, drawing options and the opened boxes.

    Opened boxes are a sorted tuple of group keys, so the same set opened in any order, in any
    session, is one animation, and two different sets never share one. The language is part of the key:
    an animation holds its explanations and legend already written, and the layout fits their text.
    """
    return ("animation", analysis.source, analysis.seed, analysis.variant, options, current_language(),
            tuple(sorted(set(expanded))))


@dataclass(frozen=True)
class AnimationPlan:
    """How an animation will be built: its predicted ``work``, and the collapsed ``view`` to play (None: full)."""

    work: AnimationWork
    view: CollapsedView | None


def plan_animation(analysis: Analysis, options: Any, expanded: Iterable[str] = ()) -> AnimationPlan:
    """Predict an animation's cost before building it; past the budget draw it collapsed, or refuse.

    Boxes the student opened (``expanded``) always mean the collapsed drawing. Otherwise the full
    drawing is planned, and when it would cost more than ``MAX_ANIMATION_WORK`` (and the options allow
    compact drawings) the collapsed one. Raises ``AnimationTooCostly`` when the chosen drawing is still
    past the budget, before any frame is drawn.
    """
    root, trace = analysis.program.output, analysis.trace
    opened = tuple(sorted(set(expanded)))
    compact_allowed = getattr(options, "large", "auto") is not False
    view = None
    if opened and compact_allowed:
        view = CollapsedView(root, trace, opened)
        work = collapsed_work(view)
    else:
        work = full_work(root, trace)
        if not work.fits and compact_allowed:
            view = CollapsedView(root, trace, ())
            work = collapsed_work(view)
    if not work.fits:
        raise AnimationTooCostly(work.work, MAX_WORK, work.steps)
    return AnimationPlan(work, view)


def shared_animation(analysis: Analysis, options: Any, expanded: Iterable[str] = ()) -> Animation:
    """The animation of ``analysis`` drawn with ``options`` (a hashable ``DrawOptions``), shared by every session.

    ``expanded``: the boxes opened in a collapsed drawing (group keys, ``lucid.viz.toggle``); with any
    opened the graph is drawn collapsed with those open, with none ``lucid.viz`` decides (collapsed only
    past its node cap). Raises ``GraphTooLarge``/``RenderError``/``GraphvizNotInstalled`` like ``lucid.viz``.
    """
    key = animation_key(analysis, options, expanded)
    opened = key[-1]

    def build() -> Animation:
        kwargs = options.as_kwargs()
        with np.errstate(all="ignore"):
            plan = plan_animation(analysis, options, opened)
            with holding(BUILD_LANES.slot(plan.work)):
                if plan.view is not None:
                    return build_collapsed_animation(plan.view, direction=kwargs.get("direction", "LR"))
                return build_animation(analysis.program.output, analysis.trace, **kwargs)
    return ANIMATIONS.get(key, build)


def hierarchy_of(analysis: Analysis) -> Hierarchy:
    """The tree of boxes a collapsed drawing of ``analysis`` uses (what a click on ``g<n>`` opens).

    Built on demand, not cached: a few milliseconds for the largest program the limits allow, and a
    cached one would keep the program's arrays alive after the analysis cache let them go.
    """
    return build_hierarchy(analysis.order)
