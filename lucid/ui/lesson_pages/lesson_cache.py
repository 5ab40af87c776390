"""The lesson pages' shared experiments, defined once for the pages and for the server's warm-up.

A function a page script defines is a new object on every run, and only that page can call it; the
warm-up (``lucid.ui.runtime.warmup``) computes the pages' default experiments when the server starts, before
anyone opens them, so they live here, in ``process_cache``s every session and the warm-up share. Each
page's defaults are here too (its widgets start from them), so what the warm-up computes is exactly what a
first visit asks for.

Progress stays the page's: a page that computes a value itself (a setting nobody asked for yet) shows the
training live and the comparison under a progress bar, through ``reporting``; the warm-up computes
silently. The lessons are looked up as ``training.train`` when called, never bound at import.
"""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar

from lucid.data import DATASETS, Dataset, load
from lucid.i18n import N_
from lucid.lessons import training
from lucid.lessons.training import OPTIMIZERS, Comparison, TrainingRun
from lucid.ui.runtime.process_cache import process_cache

TRAIN_DEFAULTS = (DATASETS[0], OPTIMIZERS[1], 8, 0.1, 300, 0)
"""The Train page's settings before anyone moves a widget: dataset, optimizer, hidden units, learning rate,
steps, seed."""
COMPARE_SAMPLES, COMPARE_STEPS, COMPARE_LR = 32, 10, 0.5
"""The tensors-vs-scalars comparison's points and steps before anyone moves them, and its fixed rate."""
PITFALL_X = 3.0
"""The first pitfall's ``x`` before anyone changes it."""
OPS_SEED = 0
"""The Op reference's seed for its sample inputs before anyone changes it."""

OnStep = Callable[[int, float], None]
OpenProgress = Callable[[], tuple[Callable[[float, str], None], Callable[[], None]]]
_ON_STEP: ContextVar[OnStep | None] = ContextVar("lucid_train_on_step", default=None)
_OPEN_PROGRESS: ContextVar[OpenProgress | None] = ContextVar("lucid_comparison_progress", default=None)


def compare_hidden(hidden: int) -> int:
    """The comparison's hidden units before anyone moves its slider: the training's, at most 4."""
    return min(hidden, 4)


@contextlib.contextmanager
def reporting(*, on_step: OnStep | None = None, open_progress: OpenProgress | None = None) -> Iterator[None]:
    """While inside, a training this run computes reports each step to ``on_step``, and a comparison it
    computes opens a progress bar with ``open_progress()`` (an update function and a close function)."""
    tokens = _ON_STEP.set(on_step), _OPEN_PROGRESS.set(open_progress)
    try:
        yield
    finally:
        _ON_STEP.reset(tokens[0])
        _OPEN_PROGRESS.reset(tokens[1])


@process_cache(max_entries=8, spinner=N_("Building the dataset…"), disk=True)
def dataset(name: str) -> Dataset:
    """The dataset, loaded once per server (read-only: ``prepare`` makes new arrays)."""
    return load(name)


@process_cache(max_entries=256, max_bytes=32 << 20, sizeof=TrainingRun.approx_bytes,
               spinner=N_("Training the network (once for everyone with these settings)…"))
def trained(name: str, optimizer_name: str, hidden: int, lr: float, steps: int, seed: int) -> TrainingRun:
    """The run for these settings, trained once per server (live, in the session that asks first): training is
    deterministic in them, so every other session and every rerun shows the same numbers at once."""
    return training.train(training.prepare(dataset(name)), optimizer_name, hidden, lr, steps, seed, _ON_STEP.get())


def step_dot(step_trace):
    """The Train page's drawing of one training step (``lucid.lessons.training.first_step_graph``)."""
    from lucid.viz import to_dot

    # large=True: one-line gradient summaries keep the nodes narrow, so the graph is drawn near full size
    return to_dot(step_trace.root, step_trace, direction="TB", show_values=False, large=True)


def _quiet(done: float, text: str) -> None:
    """Progress nobody watches (the warm-up's)."""


@process_cache(max_entries=64, disk=True)
def comparison(name: str, hidden: int, lr: float, steps: int, samples: int) -> Comparison:
    """Tensors vs scalars, computed once per setting for the whole server (seconds at the largest settings,
    under a progress bar when a page computes it): a class moving the same sliders computes each once."""
    opened = _OPEN_PROGRESS.get()
    update, close = opened() if opened is not None else (_quiet, lambda: None)
    prepared = training.prepare(dataset(name))
    result = training.compare_tensor_scalar(prepared.Z, prepared.y, hidden=hidden, steps=steps, lr=lr,
                                            samples=samples, on_progress=update)
    close()
    return result


@process_cache(max_entries=16, spinner=N_("Building the chain and sorting it…"))
def recursive_sort(n: int):
    """The recursive sort on an ``n``-addition chain (pure, so cached across reruns). Never warmed up nor kept
    on disk: how deep it gets before Python stops it depends on the caller's own stack, so it is computed
    where the page asks for it, as deep in a script run's stack as ever."""
    from lucid.lessons.pitfalls import try_recursive_sort

    return try_recursive_sort(n)


@process_cache(max_entries=16, spinner=N_("Building the chain and sorting it…"), disk=True)
def lucid_backward(n: int):
    """lucid's iterative backward on an ``n``-addition chain (pure, so cached across reruns)."""
    from lucid.lessons.pitfalls import try_lucid_backward

    return try_lucid_backward(n)


@process_cache(max_entries=8, spinner=N_("Checking every op against finite differences…"), disk=True)
def gradcheck_table(seed: int) -> dict:
    """Gradcheck status of every op for one draw of random sample inputs (cached per seed)."""
    from lucid.lessons.op_reference import check_all

    return {name: (c.status, c.samples, c.inputs_checked, c.max_abs_error, c.max_rel_error, c.error)
            for name, c in check_all(seed).items()}
