"""Hostile lesson plans (issue 24): a long dotted key and deep nesting, as plain strings, and what they cost.

``dotted_key_plan(n)`` is ``a.a.a…= 1`` of about ``n`` characters: Python's ``tomllib`` spends time and
memory quadratic in its number of parts (40 KB of it: about 1.5 GB and seconds of CPU).
``deep_nesting_plan(depth, kind)`` opens ``depth`` inline arrays, inline tables or table-header brackets:
the parser recurses once per level and ends in ``RecursionError``. ``lucid.session.plan_bounds`` refuses both
before the parser sees them.

Run ``python bench/attack_lesson_plan.py``: for each attack it times the guarded ``parse_plan`` on the full
plan and ``tomllib`` alone on a small version (a 4 KB dotted key; nesting 300 deep, which the parser still
survives), each with its peak traced memory (``tracemalloc``), and prints the ratio. The full bomb is never
given to ``tomllib``: that is the point.
"""
from __future__ import annotations

import sys
import time
import tomllib
import tracemalloc
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(ROOT))


def dotted_key_plan(n_chars: int = 100_000) -> str:
    """``a.a.a…a = 1`` of about ``n_chars`` characters (one key of ``n_chars / 2`` parts)."""
    return "a" + ".a" * max(n_chars // 2, 0) + " = 1\n"


def deep_nesting_plan(depth: int = 10_000, kind: str = "array") -> str:
    """A plan nested ``depth`` deep: ``"array"`` (``x = [[[…]]]``), ``"table"`` (``x = {a={a=…}}``) or
    ``"header"`` (a line of ``[`` where a table header would start)."""
    if kind == "array":
        return "x = " + "[" * depth + "]" * depth + "\n"
    if kind == "table":
        return "x = " + "{a=" * depth + "1" + "}" * depth + "\n"
    if kind == "header":
        return "[" * depth + "link" + "]" * depth + "\n"
    raise ValueError(f"unknown kind {kind!r}")


def measure(fn: Callable[[], object]) -> tuple[float, int, str]:
    """CPU seconds, peak traced bytes and the outcome (``ok`` or the exception's name) of ``fn()``."""
    tracemalloc.start()
    start = time.process_time()
    try:
        fn()
        outcome = "ok"
    except Exception as err:  # the outcome is what is measured
        outcome = type(err).__name__
    seconds = time.process_time() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, peak, outcome


def main() -> None:
    from lucid.session import lesson_plan as lesson

    rows = [
        ("dotted key", dotted_key_plan(100_000), dotted_key_plan(4_000), "4 KB"),
        ("nested arrays", deep_nesting_plan(10_000, "array"), deep_nesting_plan(300, "array"), "300 deep"),
        ("nested tables", deep_nesting_plan(10_000, "table"), deep_nesting_plan(300, "table"), "300 deep"),
    ]
    print(f"{'attack':15s} {'guarded parse_plan (full)':>34s}   {'tomllib alone (small)':>34s}   ratio (time, memory)")
    for name, full, small, small_size in rows:
        g_time, g_peak, g_out = measure(lambda text=full: lesson.parse_plan(text))
        t_time, t_peak, t_out = measure(lambda text=small: tomllib.loads(text))
        print(f"{name:15s} {len(full):7,d} ch {g_time * 1e3:7.2f} ms {g_peak / 1e6:6.2f} MB {g_out:12s}"
              f"   {small_size:>8s} {t_time * 1e3:7.2f} ms {t_peak / 1e6:6.2f} MB {t_out:8s}"
              f"   x{t_time / max(g_time, 1e-6):,.0f}, x{t_peak / max(g_peak, 1):,.0f}")


if __name__ == "__main__":
    main()
