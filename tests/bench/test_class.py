"""bench/bench_class.py end to end at a tiny size, over the real server and the real feed (speed is printed by
the bench, not tested here): every student sees every step the teacher sent, and every answer reaches the
teacher's panel."""
from __future__ import annotations

from bench import bench_class


def test_two_students_follow_every_step_and_their_answers_reach_the_teacher(monkeypatch):
    monkeypatch.setattr(bench_class, "STEPS", [1, 2, 3, 2])
    monkeypatch.setattr(bench_class, "ASK_AFTER", (3,))
    monkeypatch.setattr(bench_class, "IDLE_SECONDS", 1.0)
    monkeypatch.setattr(bench_class, "WARMUP_WAIT", 0.0)  # the idle figure is not read here
    result = bench_class.run_n(2, redis=False, timeout=120)
    assert result.errors == []
    assert len(result.propagation) == 2 * 4  # (student, step) pairs: each student's feed showed each step
    assert result.answers_expected == 2 and len(result.answer_latency) == 2
    # each answer is on the teacher's screen when the watcher's read or the panel's run showed it, whichever first
    assert len(result.count_run_latency) == 2
    assert all(shown <= run for shown, run in zip(result.answer_latency, result.count_run_latency, strict=True))
    assert result.peak_rss > 0 and result.class_minutes > 0
    assert "| 2 | 1 |" in bench_class.table([result])
