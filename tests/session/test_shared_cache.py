"""The process-wide cache: one computation per (program, seed, options) for a whole class, bounded memory."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from lucid.session import analysis as an
from lucid.session.memo import SharedCache
from lucid.session.options import DrawOptions


def test_thirty_sessions_asking_at_once_compute_once():
    cache: SharedCache[int] = SharedCache(max_entries=4)
    calls = []
    start = threading.Barrier(30)
    results = []

    def compute():
        calls.append(1)
        time.sleep(0.2)  # long enough that every other session arrives while it runs
        return 42

    def session():
        start.wait()
        results.append(cache.get(("prog", 0), compute))

    threads = [threading.Thread(target=session) for _ in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and cache.computations == 1
    assert results == [42] * 30


def test_an_error_reaches_the_session_that_computed_and_is_not_kept():
    cache: SharedCache[int] = SharedCache(max_entries=4)
    with pytest.raises(ValueError):
        cache.get("k", lambda: (_ for _ in ()).throw(ValueError("bad program")))
    assert "k" not in cache
    assert cache.get("k", lambda: 7) == 7


def test_entries_are_bounded_by_count_bytes_and_age():
    now = [0.0]
    cache: SharedCache[bytes] = SharedCache(max_entries=3, max_bytes=100, ttl_seconds=60, sizeof=len,
                                            clock=lambda: now[0])
    for i in range(5):
        cache.get(i, lambda: b"x" * 10)
    assert len(cache) == 3 and 0 not in cache and 4 in cache
    cache.get("big", lambda: b"y" * 90)  # pushes older entries out to stay under 100 bytes
    assert cache.bytes <= 100 and "big" in cache
    assert cache.get("huge", lambda: b"z" * 500) == b"z" * 500  # returned, but too large to keep
    assert "huge" not in cache
    now[0] = 61.0
    assert "big" not in cache  # expired


def test_same_program_in_two_sessions_is_one_shared_analysis_and_animation():
    an.ANALYSES.clear()
    an.ANIMATIONS.clear()
    source = "a = 1.5\nb = -2.0\nout = tanh(a * b) + a"
    before = an.ANALYSES.computations
    first = an.shared_analysis(source, 0)
    second = an.shared_analysis(source, 0)
    assert first is second and an.ANALYSES.computations == before + 1
    options = DrawOptions()
    built = an.ANIMATIONS.computations
    assert an.shared_animation(first, options) is an.shared_animation(second, options)
    assert an.ANIMATIONS.computations == built + 1


def test_different_programs_seeds_and_options_never_share_state():
    an.ANALYSES.clear()
    a = an.shared_analysis("x = randn(3)\nout = sum(x * x)", 0)
    b = an.shared_analysis("x = randn(3)\nout = sum(x * x)", 1)
    c = an.shared_analysis("x = randn(3)\nout = sum(x * x * 2)", 0)
    assert a is not b and a is not c
    assert not np.array_equal(a.order[0].data, b.order[0].data)
    assert np.allclose(c.order[0].data, a.order[0].data)
    assert np.allclose(c.order[0].grad if c.order[0].grad is not None else c.trace.steps[-1].accumulated,
                       2 * (a.order[0].grad if a.order[0].grad is not None else a.trace.steps[-1].accumulated))
    assert c.order[0] is not a.order[0]  # same numbers, separate tensors: nothing mutable is shared
    lr = an.shared_animation(a, DrawOptions(direction="LR"))
    tb = an.shared_animation(a, DrawOptions(direction="TB"))
    assert lr is not tb and lr.svg != tb.svg


def test_analysis_bytes_counts_the_arrays_a_trace_keeps():
    small = an.analyze("x = randn(10)\nout = sum(x * x)")
    large = an.analyze("x = randn(100000)\nout = sum(x * x)")
    assert an.analysis_bytes(large) > 100000 * 8 * 3
    assert an.analysis_bytes(small) < 100000


def test_analysis_bytes_counts_the_records_of_a_trace_of_many_steps():
    """A stack of 3,900 scalars keeps almost no arrays but 3,903 step records: the shared cache must see them
    (before, it counted 0.2 MB of the 1.9 MB such an analysis keeps, so 48 of them passed the budget unseen)."""
    import gc
    import tracemalloc

    source = "a=randn()+7\ny=stack([" + ",".join(["a"] * 3900) + "])\ny.sum()"
    an.analyze("a=randn()+1\ny=stack([a,a])\ny.sum()")  # first-call setup is not the analysis's
    gc.collect()
    tracemalloc.start()
    try:
        analysis = an.analyze(source)
        gc.collect()
        kept, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(analysis.trace.steps) == 3903
    assert kept / 2 <= an.analysis_bytes(analysis) <= 2 * kept


def test_at_most_max_concurrent_different_programs_compute_at_once():
    cache: SharedCache[int] = SharedCache(max_entries=16, max_concurrent=2)
    running, peak = [0], [0]
    lock = threading.Lock()

    def compute(k: int) -> int:
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return k

    threads = [threading.Thread(target=cache.get, args=(k, lambda k=k: compute(k))) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert peak[0] == 2 and cache.computations == 8


def test_the_caption_names_the_colours_the_drawing_uses():
    from lucid.session.analysis import analyze
    from lucid.ui.playground.player_view import caption_text, colour_word
    from lucid.viz.graph.style import EDGE_STYLE, PROGRESS_STYLE, VERMILLION

    assert PROGRESS_STYLE["current"]["color"] == EDGE_STYLE["flowing"]["color"] == VERMILLION
    text = caption_text(analyze("x = 3.0\ny = x * x"))
    assert "thick orange-red border" in text and "thick orange-red arrow" in text
    assert "red arrow" not in text.replace("orange-red arrow", "")
    assert colour_word("#0072b2") == "blue" and colour_word("#123456") == "#123456"
