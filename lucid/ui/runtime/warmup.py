"""``warmup``: every lesson page's default experiments, computed once per server in the background at its start.

The first visit of a lesson page after a server start used to pay for everything the page shows
by default: importing Altair (seconds: its JSON-schema checker compiles dozens of grammars), training the
default network, building the 4,658-node scalar graph, a gradient check of every op. ``start`` (app.py
calls it on the server's first script run) starts one daemon thread that does all of it, page by page,
into the same ``process_cache``s the pages read (``lucid.ui.lesson_pages.lesson_cache``; values that can be pickled are
also read back from the data folder, ``lucid.ui.runtime.disk_cache``), first in English, then in Korean. Its log
says ``page warm-up done`` when it ends; then what the start made is frozen out of the garbage collector's way
(``settle_heap``).

Nobody waits for it. A page asks ``pending(page)`` before a default experiment: while the warm-up is
still on that page, the page draws everything else (titles, text, controls) and, in the experiment's slot,
``fill_in_later``: a line saying the experiment is being prepared, in a fragment that checks twice a second
and reruns the page once the warm-up has it. A page run without the warm-up (a test's ``AppTest``, a
server whose warm-up has finished or failed) computes on demand, as it always did; so does any setting
other than the defaults.

``LUCID_WARMUP=0`` in the server's environment turns it off (a test that counts the work a visit does, a
benchmark of the pages' own computing).
"""
from __future__ import annotations

import gc
import importlib
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lucid.i18n import LANGUAGES, N_, _, current_language, use_language

_LOG = logging.getLogger(__name__)

ENV = "LUCID_WARMUP"
DONE_LINE = "lucid: page warm-up done in {seconds:.1f} s"
"""What the server's log says once every page's defaults are ready (``bench/bench_pages.py`` waits for it)."""
POLL_SECONDS = 0.5
"""How often a page waiting for the warm-up looks again (its fragment's timer)."""
PATIENCE_SECONDS = 1.0
"""Longest the warm-up waits, before each of its steps, for the script runs in progress to end: two cores and
one GIL, so a visitor's run (the first Playground visit of a fresh server, say) goes first, and a server
that is never idle still gets warmed."""
CROWD_PATIENCE_SECONDS = 60.0
"""Longest it waits while a crowd is here (``CROWD_MEMORY_SECONDS``): a class of 60 opening the teacher's link, then
running its programs, then clicking, is seconds of queued runs each time, and the warm-up's seconds of CPU taken in
the middle of them were the class's (the last students' graphs, later). A visitor of a page the warm-up is still
preparing ends the wait at once (``pending``); a server crowded for longer still gets warmed."""
CROWD_MEMORY_SECONDS = 3.0
"""A crowd is still here this long after more runs than run slots were last under way: a class moves in waves
(everyone opens the link, then runs a program, then clicks), and between two waves no run may be under way for a
moment. Measured with ``bench/bench_load.py -n 60``: a warm-up that went on while the class waited for the link's
first computation (every slot set aside, none queued) or between two waves took 0.36-0.51 s of CPU while the last
students were still opening the link."""
PREPARING = N_("Preparing this experiment for everyone: the server has just started. It appears here in a moment.")


@dataclass(frozen=True)
class Page:
    """One page's warm-up: the libraries it draws with, then ``work`` (which computes its defaults)."""

    name: str
    modules: tuple[str, ...]
    work: Callable[[], None]


def _gradient_check() -> None:
    """The default program's check is milliseconds (the libraries were the cost), done per session."""
    import lucid.lessons.gradient_check  # noqa: F401
    import lucid.ui.playground.editor  # noqa: F401


def _broadcasting() -> None:
    import lucid.lessons.broadcasting  # noqa: F401
    import lucid.ui.playground.playground_link  # noqa: F401


def _op_reference() -> None:
    from lucid.lessons.op_reference import translated_rows
    from lucid.ui.lesson_pages import lesson_cache

    lesson_cache.gradcheck_table(lesson_cache.OPS_SEED)
    translated_rows()


def _pitfalls() -> None:
    from lucid.lessons.pitfalls import first_failing_chain_length, square_gradients
    from lucid.ui.lesson_pages import lesson_cache
    from lucid.ui.lesson_pages.large_graph_view import graph_svg
    from lucid.viz import to_dot

    square = square_gradients(lesson_cache.PITFALL_X)
    graph_svg(to_dot(square.graph_root, square.trace))
    lesson_cache.lucid_backward(first_failing_chain_length())  # the recursive sort is the page's own (its depth)


def _train_mlp() -> None:
    from lucid.lessons import training
    from lucid.ui.lesson_pages import large_graph_view, lesson_cache

    name, _optimizer, hidden, _lr, _steps, seed = lesson_cache.TRAIN_DEFAULTS
    ds = lesson_cache.dataset(name)
    lesson_cache.trained(*lesson_cache.TRAIN_DEFAULTS)
    prepared = training.prepare(ds)
    step = training.first_step_graph(ds.n_features, hidden, seed, prepared.Z, prepared.y, batch=4)
    large_graph_view.graph_svg(lesson_cache.step_dot(step))
    large_graph_view.warm_scalar_section(seed)
    lesson_cache.comparison(name, lesson_cache.compare_hidden(hidden), lesson_cache.COMPARE_LR,
                            lesson_cache.COMPARE_STEPS, lesson_cache.COMPARE_SAMPLES)


PAGES: tuple[Page, ...] = (  # cheapest first: a visitor waits only for the pages before theirs
    Page("broadcasting", ("pandas",), _broadcasting),
    Page("op_reference", ("pandas",), _op_reference),
    Page("gradient_check", ("pandas", "altair"), _gradient_check),
    Page("pitfalls", ("pandas", "altair", "graphviz"), _pitfalls),
    Page("train_mlp", ("pandas", "altair", "graphviz"), _train_mlp),
)
MODULES = ("lucid.expr", "lucid.viz", "pandas", "pyarrow")
"""Imported first, in this order (then each page's own, Altair the slowest, before that page's work)."""


class WarmUp:
    """One warm-up: ``run`` imports ``modules``, then does each page's work in each language, recording what
    is ready. ``pending`` is what a page asks; a warm-up that is not running has nothing pending."""

    def __init__(self, pages: Sequence[Page] = PAGES, modules: Sequence[str] = MODULES,
                 languages: Sequence[str] = tuple(LANGUAGES), *, patience: float = PATIENCE_SECONDS,
                 busy: Callable[[], bool] | None = None, crowd_patience: float = CROWD_PATIENCE_SECONDS,
                 crowded: Callable[[], bool] | None = None, settle: Callable[[], None] | None = None) -> None:
        self.pages = {page.name: page for page in pages}
        self.modules = tuple(modules)
        self.languages = tuple(languages)
        self._lock = threading.Lock()
        self._imported: set[str] = set()
        self._ready: set[tuple[str, str]] = set()
        self.running = False
        self.finished = threading.Event()
        self.seconds: float | None = None
        self.failures: list[str] = []
        self.patience = patience
        self._busy = busy or _runs_in_progress
        self.crowd_patience = crowd_patience
        self._crowded = crowded or _runs_queued
        self._settle = settle
        self._wanted = threading.Event()  # a visitor waits for a page not prepared yet: the crowd no longer goes first

    def _after_visitors(self) -> None:
        """Wait until no script run is computing and no crowd is here: at most ``patience`` seconds for runs in
        progress, or ``crowd_patience`` while a crowd is (``crowded``: it is served first), unless a visitor waits
        for a page the warm-up has not prepared yet (``pending``)."""
        start = time.monotonic()
        while True:
            crowded = self._crowded()
            if not crowded and not self._busy():
                return
            waited = time.monotonic() - start
            if waited >= self.patience and (not crowded or waited >= self.crowd_patience or self._wanted.is_set()):
                return
            time.sleep(0.05)

    def pending(self, page: str, language: str | None = None) -> bool:
        """Whether the warm-up is still preparing ``page`` in ``language`` (default: this run's)."""
        language = language or current_language()
        with self._lock:
            if not self.running or page not in self.pages or language not in self.languages:
                return False
            waiting = (page, language) not in self._ready
        if waiting:
            self._wanted.set()
        return waiting

    def _import(self, module: str) -> None:
        with self._lock:
            if module in self._imported:
                return
        self._after_visitors()
        try:
            importlib.import_module(module)
        except Exception as err:  # noqa: BLE001 - a page imports it again and says what is wrong
            self.failures.append(f"import {module}: {err}")
        with self._lock:
            self._imported.add(module)

    def run(self) -> None:
        """Everything, in order; one page's failure is logged and leaves that page to compute on demand."""
        start = time.perf_counter()
        with self._lock:
            self.running = True
        try:
            for module in self.modules:
                self._import(module)
            for language in self.languages:
                for page in self.pages.values():
                    for module in page.modules:
                        self._import(module)
                    self._after_visitors()
                    try:
                        with use_language(language):
                            page.work()
                    except Exception as err:  # noqa: BLE001 - the page computes it on demand instead
                        self.failures.append(f"{page.name} ({language}): {type(err).__name__}: {err}")
                        _LOG.warning("page warm-up: %s (%s) failed: %r", page.name, language, err)
                    with self._lock:
                        self._ready.add((page.name, language))
        finally:
            self.seconds = time.perf_counter() - start
            with self._lock:
                self.running = False
            if self._settle is not None:
                self._settle()
            self.finished.set()
            print(DONE_LINE.format(seconds=self.seconds), flush=True)  # noqa: T201 - the server's log


UNUSED_OPTIONAL = ("rfc3987_syntax",)
"""Optional packages that jsonschema (Altair's chart validator) imports when installed, and that nothing in
this app uses: ``rfc3987_syntax`` checks the JSON-schema format ``iri``, which no Vega-Lite schema uses (its
formats are ``uri``, ``uri-reference`` and ``color-hex``), and compiles 38 grammars at import: 5 of the
7 seconds ``import altair`` took on a loaded 2-core machine. Marked absent before anything imports jsonschema,
so jsonschema skips that one format check; the charts, their validation and every number are unchanged."""


def skip_unused_optional_imports() -> None:
    """Mark ``UNUSED_OPTIONAL`` as not installed, unless jsonschema is already imported (then it is too late, and
    changing nothing is right)."""
    if "jsonschema" in sys.modules:
        return
    for name in UNUSED_OPTIONAL:
        sys.modules.setdefault(name, None)  # type: ignore[arg-type] - ``import`` then raises ImportError


def settle_heap() -> None:
    """The server's start is over: collect its garbage once, then freeze what is left (``gc.freeze``).

    What lives now (the modules, Streamlit, Altair's schemas, the lesson pages' experiments, the first
    program's animation) lives as long as the process; every full collection used to walk all of it again:
    about 300,000 objects, a pause of 110-240 ms holding the GIL, several times while a class of 60 opens the
    link and runs its programs. Frozen, they are never walked again (the objects made later still are); they
    are still freed when nothing refers to them.
    """
    gc.collect()
    gc.freeze()


FIRST_RUN_SECONDS = 120.0
"""Longest the warm-up's thread waits for the server's first script run to end before it freezes the heap anyway."""


def freeze_first_run(starter: threading.Thread) -> None:
    """Once the server's first script run (``starter``) is over, freeze what it made (``gc.freeze``, no collection).

    That run imported the app, Streamlit's elements and the page's libraries: most of what the process will ever
    hold. The warm-up's ``settle_heap`` freezes it too, but only once every page is warm, which a class arriving at
    a fresh server puts off (``CROWD_PATIENCE_SECONDS``); until then each full collection walked all of it again.
    Measured with ``bench/bench_load.py -n 60 --distinct``: the full collections after the class opened the link
    took 100-130 ms of CPU each (holding the GIL), 12-18 ms once this froze the heap. Freezing is a moment's work
    (no collection: the garbage of that moment stays, once).
    """
    if starter is not threading.current_thread() and starter is not threading.main_thread():
        starter.join(FIRST_RUN_SECONDS)
    gc.freeze()


def _after_first_run(warm_up: WarmUp, starter: threading.Thread) -> None:
    freeze_first_run(starter)
    warm_up.run()


def _runs_in_progress() -> bool:
    """Whether a page's script run holds a run slot right now (``lucid.session.script_slots``)."""
    from lucid.session.script_slots import RUNS

    return RUNS.free < RUNS.n


def _runs_queued() -> bool:
    """Whether more script runs than run slots are under way, or were within ``CROWD_MEMORY_SECONDS``: more visitors
    at once than slots, now or a moment ago. Runs waiting for a computation another run does count too: a class
    opening one link waits mostly for its first student's computation, with every slot free."""
    from lucid.session.script_slots import RUNS

    return RUNS.crowded_within(CROWD_MEMORY_SECONDS)


_CURRENT: WarmUp | None = None
_START_LOCK = threading.Lock()


def enabled() -> bool:
    """Whether this server warms its pages up (``LUCID_WARMUP`` is not 0, off, no or false)."""
    return os.environ.get(ENV, "1").strip().lower() not in {"0", "off", "no", "false"}


def start(warm_up: WarmUp | None = None) -> WarmUp | None:
    """Start the warm-up in a daemon thread, once per process (later calls return the one started; None when
    the environment turns it off)."""
    global _CURRENT
    with _START_LOCK:
        if _CURRENT is None and enabled():
            skip_unused_optional_imports()
            starter = threading.current_thread()  # the first script run (app.py's) holds no run slot: wait for it
            _CURRENT = warm_up or WarmUp(busy=lambda: starter.is_alive() or _runs_in_progress(),
                                         settle=settle_heap)
            with _CURRENT._lock:
                _CURRENT.running = True  # pending from this moment, before the thread is scheduled
            threading.Thread(target=_after_first_run, args=(_CURRENT, starter), name="lucid-page-warmup",
                             daemon=True).start()
        return _CURRENT


def current() -> WarmUp | None:
    """The warm-up this process started, if any."""
    return _CURRENT


def pending(page: str) -> bool:
    """Whether this process's warm-up is still preparing ``page``'s defaults in this run's language."""
    warm_up = _CURRENT
    return warm_up is not None and warm_up.pending(page)


def fill_in_later(page: str) -> None:
    """The slot of an experiment the warm-up is still preparing: one line, and a fragment that reruns the
    page as soon as the warm-up has ``page`` (the full run then draws the experiment in its place)."""
    import streamlit as st

    @st.fragment(run_every=POLL_SECONDS)
    def waiting() -> None:
        if not pending(page):
            st.rerun()
        st.caption(":material/hourglass_top: " + _(PREPARING))

    waiting()
