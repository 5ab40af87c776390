"""The Forward mode panel's "whole Jacobian both ways": predicted, refused past its budget, built in a build
slot, and kept for the whole server process.

Before, every rerun of a tab with the toggle on built both Jacobians again in its script thread, outside every
slot: 4,096 input numbers through a chain of ops cost tens of CPU seconds per rerun, and two such tabs slowed
everyone's graphs. Now the cost is predicted from the program's counts (``lucid.lessons.jacobian_cost``) before
anything runs; past ``MAX_JACOBIAN_WORK`` the caller gets ``JacobianTooCostly`` with the reason in its reader's
language; otherwise the build takes a slot of ``lucid.session.analysis.BUILD_LANES`` (a cheap one, or the single
expensive one that animation builds and GIF renders share) and its result is kept in ``JACOBIANS``, keyed by
program and seed, so a rerun, another tab or the whole class opening the same link builds it once.

No Streamlit import: the page passes its own stop check.
"""
from __future__ import annotations

from collections.abc import Hashable

import numpy as np

from lucid.lessons.forward_reverse import JacobianTooCostly, ModeComparison, compare_modes
from lucid.lessons.jacobian_cost import jacobian_cost, refusal
from lucid.session.analysis import BUILD_LANES, MB, Analysis
from lucid.session.memo import SharedCache, StopCheck


def comparison_bytes(comparison: ModeComparison) -> int:
    """Memory a kept comparison holds: its two matrices (at most ``MAX_ENTRIES`` numbers each) and a record."""
    return comparison.forward.matrix.nbytes + comparison.reverse.matrix.nbytes + 1024


JACOBIANS: SharedCache[ModeComparison] = SharedCache(max_entries=128, max_bytes=16 * MB, ttl_seconds=3600,
                                                     sizeof=comparison_bytes)
"""Both Jacobians of a program by (source, seed), shared by every session: at most 4,096 entries each, so
16 MB holds every comparison a class asks for. Language-free (numbers and counts only)."""


def jacobian_key(analysis: Analysis) -> Hashable:
    return "jacobian", analysis.source, analysis.seed


def _build(analysis: Analysis) -> ModeComparison:
    with np.errstate(all="ignore"):
        return compare_modes(analysis.program)


def shared_comparison(analysis: Analysis, *, should_stop: StopCheck | None = None) -> ModeComparison:
    """``compare_modes(analysis.program)``, built once per server process, in a build slot, within its budget.

    Raises ``JacobianTooCostly`` (predicted, nothing run) or ``ValueError`` as ``compare_modes`` does, and
    ``lucid.session.memo.WaitCancelled`` when ``should_stop`` turns true while this caller waits for a slot or for
    another session's build of the same program.
    """
    key = jacobian_key(analysis)
    if key in JACOBIANS:
        return JACOBIANS.get(key, lambda: _build(analysis), should_stop=should_stop)
    cost = jacobian_cost(analysis.program)
    reason = refusal(cost)
    if reason is not None:
        raise JacobianTooCostly(reason)
    return JACOBIANS.get(key, lambda: _build(analysis), should_stop=should_stop, slots=BUILD_LANES.slot(cost.cheap))
