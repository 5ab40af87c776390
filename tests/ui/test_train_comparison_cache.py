"""The tensors-vs-scalars comparison reports progress while it runs and is computed once per server."""
import threading
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from lucid.data import load
from lucid.lessons.training import compare_tensor_scalar, prepare
from lucid.session.memo import SharedCache

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "train_mlp.py")


@pytest.fixture(scope="module")
def moons():
    return prepare(load("two moons"))


def test_the_comparison_reports_progress_step_by_step_up_to_done(moons):
    seen: list[tuple[float, str]] = []
    result = compare_tensor_scalar(moons.Z, moons.y, hidden=3, steps=6, samples=16,
                                   on_progress=lambda done, text: seen.append((done, text)))
    fractions = [done for done, _ in seen]
    assert fractions == sorted(fractions) and fractions[0] == 0.0 and fractions[-1] == 1.0
    assert [t for _, t in seen if t.startswith("Training as scalars: step")] == [
        f"Training as scalars: step {k} of 6…" for k in range(1, 7)]
    assert result.scalar.final_loss == pytest.approx(result.tensor.final_loss, abs=1e-12)


def test_time_spent_drawing_progress_is_not_counted_as_training(moons):
    import time

    def slow(done: float, text: str) -> None:
        time.sleep(0.05)

    result = compare_tensor_scalar(moons.Z, moons.y, hidden=2, steps=4, samples=8, on_progress=slow)
    assert result.scalar.seconds < 4 * 0.05  # four scalar steps reported, none of their sleep counted


def test_a_shared_memo_computes_a_key_once_for_many_threads_and_stays_bounded():
    memo: SharedCache[int] = SharedCache(max_entries=3)
    calls = []
    memo.get("a", lambda: calls.append("a") or 1)
    threads = [threading.Thread(target=memo.get, args=("a", lambda: calls.append("again") or 2)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == ["a"] and memo.hits == 8
    for k in "bcde":
        memo.get(k, lambda k=k: k)
    assert len(memo) == 3 and "a" not in memo


def test_two_sessions_with_the_same_sliders_compute_the_comparison_once(monkeypatch):
    import lucid.lessons.training as training

    calls = []
    real = training.compare_tensor_scalar

    def counted(*args, **kwargs):
        calls.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(training, "compare_tensor_scalar", counted)  # the page imports it on every run
    shown = []
    for _ in range(2):  # two browser sessions, same settings (unusual ones, so no other test cached them)
        at = AppTest.from_file(PAGE, default_timeout=120).run()
        at.slider(key="cmp_samples").set_value(72)
        at.slider(key="cmp_steps").set_value(3).run()
        assert not at.exception
        shown.append({m.label: m.value for m in at.metric})
    assert len([c for c in calls if c["samples"] == 72 and c["steps"] == 3]) == 1
    assert callable(calls[-1]["on_progress"])  # computed under a progress bar
    assert shown[0]["nodes per step"] == shown[1]["nodes per step"]
