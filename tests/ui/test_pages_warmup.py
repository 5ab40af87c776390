"""The server's warm-up: each lesson page's defaults computed once in the background; a page never waits for it.

While the warm-up still prepares a page, the page draws its titles, text and controls at once and, in
each default experiment's slot, a line saying it is being prepared (a fragment reruns the page when the
warm-up has it). Once it is done the page shows exactly the numbers it shows without a warm-up, read
from the caches the warm-up filled. A page run without a warm-up computes on demand, as always.
"""
import gc
import threading
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from lucid.lessons import training
from lucid.ui.lesson_pages import lesson_cache
from lucid.ui.runtime import warmup
from lucid.ui.runtime.process_cache import cache_of, holds

PAGES = Path(__file__).resolve().parents[2] / "pages"
TIMEOUT = 180
PREPARING = "Preparing this experiment for everyone"


def page(name: str) -> AppTest:
    at = AppTest.from_file(str(PAGES / f"{name}.py"), default_timeout=TIMEOUT).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def preparing(at: AppTest) -> int:
    return sum(PREPARING in c.value for c in at.caption)


class Held:
    """A warm-up whose work for every page waits until ``release()``: the page is opened in between."""

    def __init__(self, monkeypatch, pages=warmup.PAGES, languages=("en",)):
        self.gate = threading.Event()

        def held(work):
            def run():
                assert self.gate.wait(TIMEOUT)
                work()
            return run

        self.warm_up = warmup.WarmUp([warmup.Page(p.name, p.modules, held(p.work)) for p in pages],
                                     languages=languages, patience=0.0)
        self.warm_up.running = True
        monkeypatch.setattr(warmup, "_CURRENT", self.warm_up)
        self.thread = threading.Thread(target=self.warm_up.run, daemon=True)
        self.thread.start()

    def release(self) -> None:
        self.gate.set()
        assert self.warm_up.finished.wait(TIMEOUT)


def test_a_page_run_without_a_warm_up_has_nothing_pending(monkeypatch):
    monkeypatch.setattr(warmup, "_CURRENT", None)
    assert not warmup.pending("train_mlp")


def test_the_environment_can_turn_the_warm_up_off(monkeypatch):
    monkeypatch.setattr(warmup, "_CURRENT", None)
    for value in ("0", "off", " False "):
        monkeypatch.setenv("LUCID_WARMUP", value)
        assert not warmup.enabled() and warmup.start() is None and warmup.current() is None
    monkeypatch.setenv("LUCID_WARMUP", "1")
    assert warmup.enabled()


def test_pending_is_per_page_and_language_until_the_warm_up_has_it(monkeypatch, capsys):
    done = []
    gate = threading.Event()
    warm_up = warmup.WarmUp([warmup.Page("a", (), lambda: done.append("a")),
                             warmup.Page("b", (), lambda: gate.wait(TIMEOUT) and done.append("b"))],
                            modules=(), languages=("en", "ko"), patience=0.0)
    assert not warm_up.pending("a", "en")  # not started: nothing pending
    thread = threading.Thread(target=warm_up.run)
    thread.start()
    while not warm_up.running:
        pass
    assert warm_up.pending("b", "en") and warm_up.pending("a", "ko")
    assert not warm_up.pending("elsewhere", "en") and not warm_up.pending("a", "fr")
    gate.set()
    thread.join(TIMEOUT)
    assert done == ["a", "b", "a", "b"] and not warm_up.pending("b", "ko") and not warm_up.running
    assert "lucid: page warm-up done in" in capsys.readouterr().out


def test_a_page_whose_warm_up_fails_is_computed_on_demand(monkeypatch):
    def broken() -> None:
        raise MemoryError("no room")

    warm_up = warmup.WarmUp([warmup.Page("a", ("a module that does not exist",), broken)], modules=(),
                            languages=("en",), patience=0.0)
    warm_up.run()
    assert not warm_up.pending("a", "en") and warm_up.failures == [
        "import a module that does not exist: No module named 'a module that does not exist'",
        "a (en): MemoryError: no room"]


def test_the_warm_up_waits_for_script_runs_in_progress_but_not_forever():
    busy = threading.Event()
    busy.set()
    order = []
    warm_up = warmup.WarmUp([warmup.Page("a", (), lambda: order.append("warm-up"))], modules=(),
                            languages=("en",), patience=30.0, busy=busy.is_set)
    thread = threading.Thread(target=warm_up.run)
    thread.start()
    order.append("visitor's run")
    busy.clear()
    thread.join(TIMEOUT)
    assert order == ["visitor's run", "warm-up"]
    stubborn = warmup.WarmUp([warmup.Page("a", (), lambda: order.append("anyway"))], modules=(),
                             languages=("en",), patience=0.01, busy=lambda: True)
    stubborn.run()
    assert order[-1] == "anyway"


def test_the_warm_up_waits_longer_for_a_crowd_queued_for_run_slots_but_not_forever():
    clock = {"queued": True}
    order = []
    waited = {}

    def step(name):
        def work():
            order.append(name)
            waited[name] = time.monotonic() - start
        return work

    crowd = warmup.WarmUp([warmup.Page("a", (), step("after the crowd"))], modules=(), languages=("en",),
                          patience=0.05, busy=lambda: clock["queued"], crowd_patience=30.0,
                          crowded=lambda: clock["queued"])
    start = time.monotonic()
    thread = threading.Thread(target=crowd.run)
    thread.start()
    time.sleep(0.5)  # ten times its patience for one visitor: still waiting while runs queue
    order.append("the class's runs")
    clock["queued"] = False
    thread.join(TIMEOUT)
    assert order == ["the class's runs", "after the crowd"] and waited["after the crowd"] >= 0.5
    endless = warmup.WarmUp([warmup.Page("a", (), step("anyway"))], modules=(), languages=("en",),
                            patience=0.01, busy=lambda: True, crowd_patience=0.2, crowded=lambda: True)
    start = time.monotonic()
    endless.run()
    assert order[-1] == "anyway" and 0.2 <= waited["anyway"] < 5.0  # a server crowded for ever still warms


def test_the_warm_up_waits_between_the_waves_of_a_crowd_not_only_while_runs_queue():
    crowd = {"here": True}
    order = []
    warm_up = warmup.WarmUp([warmup.Page("a", (), lambda: order.append("warm-up"))], modules=(),
                            languages=("en",), patience=0.01, busy=lambda: False, crowd_patience=30.0,
                            crowded=lambda: crowd["here"])
    thread = threading.Thread(target=warm_up.run)
    thread.start()
    time.sleep(0.3)  # no run in progress (the class between opening the link and running its programs)
    order.append("the class's next wave")
    crowd["here"] = False
    thread.join(TIMEOUT)
    assert order == ["the class's next wave", "warm-up"]


def test_a_visitor_waiting_for_a_page_ends_the_warm_up_s_wait_for_a_crowd():
    order = []
    warm_up = warmup.WarmUp([warmup.Page("a", (), lambda: order.append("warmed"))], modules=(),
                            languages=("en",), patience=0.01, busy=lambda: True, crowd_patience=300.0,
                            crowded=lambda: True)
    thread = threading.Thread(target=warm_up.run, daemon=True)
    thread.start()
    time.sleep(0.2)
    assert order == [] and warm_up.running  # the crowd goes first
    assert warm_up.pending("a", "en")  # a visitor of page a waits for it
    thread.join(TIMEOUT)
    assert order == ["warmed"] and not warm_up.pending("a", "en")


def test_the_heap_is_frozen_once_the_server_s_first_run_is_over():
    first_run = threading.Event()
    frozen = []
    starter = threading.Thread(target=lambda: first_run.wait(TIMEOUT))
    starter.start()
    before = gc.get_freeze_count()
    freezer = threading.Thread(target=lambda: (warmup.freeze_first_run(starter), frozen.append(gc.get_freeze_count())))
    try:
        freezer.start()
        time.sleep(0.2)
        assert frozen == []  # the first run still imports and computes
        first_run.set()
        freezer.join(TIMEOUT)
        assert frozen and frozen[0] > before + 10_000  # this test process's modules and objects, at least
    finally:
        gc.unfreeze()


def test_once_warm_the_server_freezes_what_its_start_made_out_of_the_collectors_way():
    events = []
    warm_up = warmup.WarmUp([warmup.Page("a", (), lambda: events.append("a"))], modules=(), languages=("en", "ko"),
                            patience=0.0, settle=lambda: events.append("settled"))
    warm_up.run()
    assert events == ["a", "a", "settled"]  # once, after every page in every language
    frozen = gc.get_freeze_count()
    try:
        warmup.settle_heap()
        assert gc.get_freeze_count() > frozen + 10_000  # this test process's modules and objects, at least
        assert gc.get_count()[0] < 700  # and the collector starts from nothing young
    finally:
        gc.unfreeze()


def test_op_reference_draws_its_text_and_controls_at_once_and_the_table_once_the_warm_up_has_it(monkeypatch):
    held = Held(monkeypatch)
    at = page("op_reference")
    assert at.title[0].value == "Op reference" and "live gradient check" in at.markdown[-1].value
    assert at.number_input(key="ops_seed").value == 0 and at.text_input(key="ops_filter").value == ""
    assert len(at.multiselect(key="ops_groups").value) == 9  # every group chosen, as always
    assert preparing(at) == 1 and not at.metric and not at.dataframe
    held.release()
    at.run()
    assert not at.exception and preparing(at) == 0
    warmed = {m.label: m.value for m in at.metric}
    assert warmed == {m.label: m.value for m in page("op_reference").metric}  # what a page computes itself
    assert warmed["ops"] == "49" and warmed["gradcheck fails"] == "0"


def test_pitfalls_draws_all_three_sections_at_once_with_each_experiment_filling_in(monkeypatch):
    held = Held(monkeypatch)
    at = page("pitfalls")
    assert [h.value for h in at.header] == [
        "1 · Assigning a gradient instead of accumulating it", "2 · Forgetting to zero the gradients between steps",
        "3 · A recursive topological sort on a deep graph"]
    assert at.number_input(key="pitfall_x").value == 3.0 and at.select_slider(key="pitfall_n").value == 2000
    assert preparing(at) == 3 and not at.get("imgs") and not at.dataframe
    assert not any("RecursionError" in e.value for e in at.error)
    assert [m.value for m in at.metric] == ["3", "6"]  # the cheap part of pitfall 1 is drawn at once
    held.release()
    at.run()
    assert not at.exception and preparing(at) == 0
    assert any("RecursionError" in e.value for e in at.error) and len(at.dataframe) == 1
    assert any("backward through" in s.value for s in at.success)


def test_a_setting_other_than_the_defaults_is_computed_on_demand_while_the_warm_up_runs(monkeypatch):
    held = Held(monkeypatch)  # not released until the end: the defaults stay pending
    at = page("op_reference")
    at.number_input(key="ops_seed").set_value(7).run()
    assert not at.exception and preparing(at) == 0 and at.metric[0].value == "49"
    assert held.warm_up.pending("op_reference", "en")
    held.release()


def test_the_warm_up_computes_exactly_what_the_train_page_asks_for_first(monkeypatch):
    train_page = next(p for p in warmup.PAGES if p.name == "train_mlp")
    held = Held(monkeypatch, pages=[train_page])
    at = page("train_mlp")
    assert at.title[0].value == "Train an MLP" and at.slider(key="train_hidden").value == 8
    assert at.button(key="train_button") is not None and at.slider(key="cmp_samples").value == 32
    assert preparing(at) == 2 and not at.metric  # the run's slot and the comparison's
    held.release()
    name, _optimizer, hidden, _lr, _steps, _seed = lesson_cache.TRAIN_DEFAULTS
    assert holds(lesson_cache.trained, *lesson_cache.TRAIN_DEFAULTS)
    assert holds(lesson_cache.comparison, name, lesson_cache.compare_hidden(hidden), lesson_cache.COMPARE_LR,
                 lesson_cache.COMPARE_STEPS, lesson_cache.COMPARE_SAMPLES)

    calls = []
    real_train, real_compare = training.train, training.compare_tensor_scalar
    monkeypatch.setattr(training, "train", lambda *a, **k: calls.append("train") or real_train(*a, **k))
    monkeypatch.setattr(training, "compare_tensor_scalar",
                        lambda *a, **k: calls.append("compare") or real_compare(*a, **k))
    at.run()
    assert not at.exception and preparing(at) == 0 and calls == []  # every number read from the warm-up's caches
    warmed = run_numbers(at)

    cache_of(lesson_cache.trained).clear()  # the same page on a server without a warm-up: it trains itself
    monkeypatch.setattr(warmup, "_CURRENT", None)
    assert run_numbers(page("train_mlp")) == warmed and calls == ["train"]
    assert warmed["nodes per step"] == ["13", "1,330"] and len(warmed["final loss"]) == 3  # run, tensors, scalars


def run_numbers(at: AppTest) -> dict[str, list[str]]:
    """The Train page's numbers that do not depend on the clock (the comparison's times do)."""
    numbers: dict[str, list[str]] = {}
    for m in at.metric:
        if not m.label.startswith("time") and "build" not in m.label:
            numbers.setdefault(m.label, []).append(m.value)
    return numbers


@pytest.mark.parametrize("name", ["gradient_check", "broadcasting"])
def test_the_pages_without_shared_work_wait_only_for_their_libraries(monkeypatch, name):
    held = Held(monkeypatch)
    at = page(name)
    assert at.title and preparing(at) == (2 if name == "gradient_check" else 1) and not at.dataframe
    held.release()
    at.run()
    assert not at.exception and preparing(at) == 0 and at.dataframe
