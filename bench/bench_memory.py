"""Memory of one server process when a whole class runs the largest programs the limits allow.

Thirty sessions (threads, as Streamlit runs them) each run a different near-limit
program through the process-wide cache the Playground uses (``shared_analysis``),
all at once. Printed: the bytes the cache keeps, the process's RSS afterwards and
its peak (``VmHWM``), against the 1 GB a classroom server should stay under.
Each session keeps only its source text, as the Playground does, so the cache's
byte budget and its limit on computations at once are what bound memory.

    python bench/bench_memory.py            # 30 sessions
    python bench/bench_memory.py -n 8       # fewer
"""
from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lucid.session import analysis as shared  # noqa: E402

MB = 1 << 20


def large_program(k: int) -> str:
    """A program near the element limits: a million-element input, its square and two reductions."""
    return f"x = rand(1000, 1000) * {k + 1}\ny = x * x\nz = y.sum(axis=0)\nout = z.sum()\n"


def rss_mb() -> tuple[float, float]:
    now = peak = 0.0
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            now = int(line.split()[1]) / 1024
        elif line.startswith("VmHWM:"):
            peak = int(line.split()[1]) / 1024
    return now, peak


def run(n: int) -> dict[str, float]:
    shared.ANALYSES.clear()
    before, _ = rss_mb()
    errors: list[str] = []
    start = threading.Barrier(n)

    def session(k: int) -> None:
        start.wait()
        try:
            a = shared.shared_analysis(large_program(k), 0)
            assert a.trace is not None
        except Exception as err:  # noqa: BLE001 - reported below
            errors.append(repr(err))

    t0 = time.perf_counter()
    threads = [threading.Thread(target=session, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    after, peak = rss_mb()
    return {"sessions": n, "wall_s": wall, "rss_before_mb": before, "rss_after_mb": after, "peak_mb": peak,
            "cache_mb": shared.ANALYSES.bytes / MB, "cache_entries": len(shared.ANALYSES),
            "computations": shared.ANALYSES.computations, "errors": len(errors)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=30, help="sessions, each with its own near-limit program")
    r = run(ap.parse_args(argv).n)
    print(f"{r['sessions']} sessions, each its own near-limit program, all at once: {r['wall_s']:.1f} s")
    print(f"cache keeps {r['cache_entries']} programs, {r['cache_mb']:.0f} MB "
          f"(budget {shared.ANALYSES.max_bytes / MB:.0f} MB); {r['computations']} computations")
    print(f"RSS {r['rss_before_mb']:.0f} MB before, {r['rss_after_mb']:.0f} MB after, peak {r['peak_mb']:.0f} MB "
          f"({'under' if r['peak_mb'] < 1024 else 'OVER'} 1 GB); errors: {r['errors']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
