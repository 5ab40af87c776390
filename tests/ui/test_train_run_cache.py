"""The Train page trains each setting once per server; new sessions and reruns show that run's numbers at once.

Training is deterministic in its settings, so a class opening the page (or one student rerunning it)
must not train again: that was seconds per session. Pressing Train still trains in front of the class,
and lands on the same numbers.
"""
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from lucid.data import load
from lucid.lessons.training import TrainingRun, bce_loss, fit, make_model, make_optimizer, prepare, train
from lucid.ui.lesson_pages import large_graph_view
from lucid.ui.runtime.process_cache import cache_of

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "train_mlp.py")


def test_train_is_the_page_loop_from_a_fresh_model():
    prepared = prepare(load("two moons"))
    run = train(prepared, "Adam", 5, 0.03, 25, seed=3)
    model = make_model(2, 5, 3)
    expected = fit(lambda: bce_loss(model, prepared.Z, prepared.y),
                   make_optimizer("Adam", model.parameters(), 0.03), 25)
    assert run.losses == expected
    for got, want in zip(run.model.parameters(), model.parameters()):
        np.testing.assert_array_equal(got.data, want.data)


def test_a_training_run_counts_its_parameters_gradients_and_losses_as_bytes():
    run = train(prepare(load("two moons")), "SGD", 4, 0.1, 10)
    params = sum(p.data.nbytes + p.grad.nbytes for p in run.model.parameters())
    assert params > 0 and run.approx_bytes() == params + 32 * 10 + 4096
    assert isinstance(run, TrainingRun)


def _open(hidden: int, steps: int) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    at.slider(key="train_hidden").set_value(hidden)
    at.slider(key="train_steps").set_value(steps).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _numbers(at: AppTest) -> dict[str, str]:
    wanted = ("first loss", "final loss", "train accuracy", "test accuracy")
    return {m.label: m.value for m in at.metric if m.label in wanted}


def test_two_sessions_with_the_same_settings_train_once_and_show_the_same_numbers(monkeypatch):
    import lucid.lessons.training as training

    calls = []
    real = training.train

    def counted(prepared, optimizer_name, hidden, lr, steps, seed=0, on_step=None):
        calls.append((hidden, steps))
        return real(prepared, optimizer_name, hidden, lr, steps, seed, on_step)

    monkeypatch.setattr(training, "train", counted)  # the page imports it on every run
    first = _open(hidden=29, steps=170)  # unusual settings, so no other test trained them
    second = _open(hidden=29, steps=170)
    second.run()  # a rerun of the same session, too
    assert calls.count((29, 170)) == 1
    assert _numbers(first) == _numbers(second) and len(_numbers(first)) == 4

    second.button(key="train_button").click().run()  # the teacher presses Train: it trains again, live
    assert calls.count((29, 170)) == 2
    assert _numbers(second) == _numbers(first)


def test_pressing_train_for_new_settings_trains_once_and_keeps_the_run_for_everyone(monkeypatch):
    import lucid.lessons.training as training

    calls = []
    real = training.train
    monkeypatch.setattr(training, "train", lambda *a, **k: calls.append(a[2:5]) or real(*a, **k))
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    at.slider(key="train_hidden").set_value(27)
    at.slider(key="train_steps").set_value(130)
    at.button(key="train_button").click().run()  # new settings and Train in one rerun: one training
    assert not at.exception
    assert calls.count((27, 0.1, 130)) == 1
    other = _open(hidden=27, steps=130)  # a classmate with the same settings reads that run
    assert calls.count((27, 0.1, 130)) == 1
    assert _numbers(other) == _numbers(at)


def test_a_graph_drawn_by_dot_is_laid_out_once_per_dot_text(monkeypatch):
    laid_out = []
    real = large_graph_view.to_svg
    monkeypatch.setattr(large_graph_view, "to_svg", lambda source: laid_out.append(source) or real(source))
    cache = cache_of(large_graph_view._svg_of)
    dot = 'digraph { a -> b [label="grad += 0.12345"] }'
    assert large_graph_view._svg_of(dot) == large_graph_view._svg_of(dot)
    assert laid_out == [dot] and ("en", (dot,), ()) in cache  # the key: the language and the arguments
    assert cache.max_bytes is not None and cache.bytes >= len(large_graph_view._svg_of(dot))
