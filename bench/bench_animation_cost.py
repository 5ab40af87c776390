"""The animation budget's prediction against the measured build: work units vs CPU seconds, side by side.

For each program (the gallery, ``stack`` of one scalar repeated k times, the scalar MLP collapsed and
with boxes opened) it predicts the build's work units (``lucid.viz.player.animation_cost``), builds the
animation the way the Playground does (``shared_animation``, past the budget: collapsed or refused) and
prints the measured CPU time per predicted unit. The budget's docstring states the factor this ratio
stays within; a refused program prints how long the refused build would have taken at the budget's rate.

    python bench/bench_animation_cost.py            # all rows
    python bench/bench_animation_cost.py --quick    # the small rows only
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from large_programs import scalar_mlp_source  # noqa: E402

from lucid.gallery import EXAMPLES  # noqa: E402
from lucid.session import analysis as shared  # noqa: E402
from lucid.session.options import DrawOptions  # noqa: E402
from lucid.viz.player.animation_cost import AnimationTooCostly  # noqa: E402

UNIT_SECONDS = 16e-6  # the rate the budget's docstring assumes


def stack_source(k: int) -> str:
    return "a = 0.5\ny = stack([" + ", ".join(["a"] * k) + "])\ny.sum()"


def row(name: str, source: str, expanded: tuple[str, ...] = ()) -> tuple[str, int, float | None, str]:
    an = shared.analyze(source)
    try:
        work = shared.plan_animation(an, DrawOptions(), expanded).work.work
    except AnimationTooCostly as err:
        return name, err.work, None, "refused"
    shared.ANIMATIONS.clear()
    t0 = time.process_time()
    anim = shared.shared_animation(an, DrawOptions(), expanded)
    how = "collapsed" if anim.collapsed is not None else "full"
    return name, work, time.process_time() - t0, how


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    rows = [(f"gallery {e.slug}", e.source) for e in EXAMPLES]
    ks = [25, 100] if args.quick else [25, 100, 200, 400, 800, 1600, 2900]
    rows += [(f"stack of {k}", stack_source(k)) for k in ks]
    rows += [(f"scalar MLP, {s} samples", scalar_mlp_source(samples=s)) for s in ([3] if args.quick else [3, 10, 18])]
    print(f"{'program':34} {'predicted units':>15} {'measured s':>10} {'s / (units·16µs)':>17}  drawn")
    worst = 0.0
    for name, source in rows:
        name, work, seconds, how = row(name, source)
        if seconds is None:
            print(f"{name:34} {work:15,} {'-':>10} {'-':>17}  {how} (would be ~{work * UNIT_SECONDS:.0f} s)")
            continue
        ratio = seconds / max(work * UNIT_SECONDS, 1e-9)
        if work > 5_000:  # tiny builds are dominated by the fixed cost of one dot call
            worst = max(worst, ratio, 1 / max(ratio, 1e-9))
        print(f"{name:34} {work:15,} {seconds:10.2f} {ratio:17.2f}  {how}")
    print(f"worst factor between prediction and measurement (builds over 5,000 units): {worst:.1f}")


if __name__ == "__main__":
    main()
