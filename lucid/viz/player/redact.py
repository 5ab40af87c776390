"""An animation cut before a step: what a student's player may hold while the class predicts that step.

While a question about trace step ``upto`` is open, a student's browser must not receive the
gradient it asks for, nor any later one. ``redacted(anim, upto)`` keeps only the animation steps that
end before ``upto``: their per-step changes, the node and edge looks those changes use, and their titles
and explanations. What is left is exactly what the class has been shown, and the player plays it as it
would any animation (its last step is the last one shown).

What the rest of the payload holds, checked against ``build_animation``:

- ``svg`` is the graph at step 0 (the seed): every gradient but the output's reads "pending". A
  collapsed drawing's step 0 is the seed alone too (``CollapsedView`` gives the seed a step of its own),
  so cutting after step 0 never cuts into the picture the layout was made from.
- The label widths are the same in every frame (so one layout serves all): a node's row is padded to
  the widest of its value and all its gradients. The padding says how many characters the widest number
  takes (for a 4-digit format, at most its sign and order of magnitude), never the number.
- ``titles`` say "Step k of n": the step count stays visible, as the question itself says which step it asks.
- ``collapsed`` counts boxes and nodes, nothing about gradients.
- ``nodes`` (the graph as text) names each node with its forward value; its per-step gradients are cut
  like the steps.

``held(anim, upto)`` is the same, remembered for the few (animation, upto) pairs a server has open at a
time, so a class of students shares one copy. The copy shares the original's strings (the SVG, the looks,
the explanations: no text is copied) and never changes the shared animation.
"""
from __future__ import annotations

import bisect
import threading
import weakref
from collections import OrderedDict

from lucid.viz.player.animation import Animation

HELD_CAPACITY = 16
"""Redacted copies kept: one per open question per program drawing (a server runs a few classes at once)."""


def kept_steps(anim: Animation, upto: int) -> int:
    """How many animation steps end before trace step ``upto`` (at least step 0, the seed, for ``upto >= 1``).

    ``upto`` below 1 is taken as 1: step 0 is the seed gradient (1 at the output), which the picture
    itself shows.
    """
    upto = max(int(upto), 1)
    if anim.trace_steps:
        return bisect.bisect_left(anim.trace_steps, upto)
    return min(upto, anim.n_steps)


def redacted(anim: Animation, upto: int) -> Animation:
    """A new animation with only the steps of ``anim`` that end before trace step ``upto`` (``anim`` untouched).

    Looks that only later steps use are dropped and the kept ones renumbered, so nothing in the payload
    belongs to step ``upto`` or later. An ``upto`` past the end keeps every step.
    """
    kept = kept_steps(anim, upto)
    if kept >= anim.n_steps:
        return anim
    changes = anim.changes[:kept]
    used = sorted({v for step in changes for v in step})
    renumber = {old: new for new, old in enumerate(used)}
    return Animation(svg=anim.svg, variants=[anim.variants[v] for v in used],
                     changes=[[renumber[v] for v in step] for step in changes],
                     current=anim.current[:kept], edge=anim.edge[:kept], titles=anim.titles[:kept],
                     explanations=anim.explanations[:kept], trace_steps=anim.trace_steps[:kept],
                     collapsed=anim.collapsed, nodes=_nodes_before(anim, kept))


def _nodes_before(anim: Animation, kept: int) -> dict | None:
    """The graph's text with only the gradients of the trace steps the first ``kept`` animation steps show."""
    if anim.nodes is None:
        return None
    shown = (anim.trace_steps[kept - 1] + 1 if kept > 0 else 0) if anim.trace_steps else kept
    return {"order": anim.nodes["order"], "grads": [g for g in anim.nodes["grads"] if g[0] < shown]}


_held: OrderedDict[tuple[int, int], tuple[weakref.ref, Animation]] = OrderedDict()
_lock = threading.Lock()


def held(anim: Animation, upto: int) -> Animation:
    """``redacted(anim, upto)``, remembered per (animation, step) for the last ``HELD_CAPACITY`` pairs.

    Keyed by the shared animation's identity (checked through a weak reference, so a rebuilt animation
    that happens to get the id of one gone is never served the old copy).
    """
    key = (id(anim), kept_steps(anim, upto))
    with _lock:
        entry = _held.get(key)
        if entry is not None and entry[0]() is anim:
            _held.move_to_end(key)
            return entry[1]
    copy = redacted(anim, upto)
    with _lock:
        _held[key] = (weakref.ref(anim), copy)
        _held.move_to_end(key)
        while len(_held) > HELD_CAPACITY:
            _held.popitem(last=False)
    return copy


def held_count() -> int:
    """How many redacted copies are remembered now (for tests and budgets)."""
    with _lock:
        return len(_held)
