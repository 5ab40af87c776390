"""The backward-pass player as files of its own: one ES module and one stylesheet, two hosts.

``player.js`` plays a ``lucid.viz.player.animation.Animation`` in the browser (stepping, slider, keys,
autoplay, the lens, the explanation); its pure logic (steps, per-step patches, fitting, the lens's
view, keeping the current node in view) is ``logic.mjs``, tested under Node and put into the script
the hosts get (``script``); ``player.css`` is its look. They ship inside the package, so the player
works offline, and the same files serve both hosts: the Streamlit component
(``lucid.ui.playground.clickable_graph``) and the notebook widget (``lucid.viz.stepper``), so a fix to the
player lands in both. The module's default export tells the hosts apart: Streamlit calls it with
its component object, anywidget calls it with nothing and gets the widget's ``render``.

For a screen reader and a keyboard (WCAG 2.1 AA, issue 28) the graph is also text, in step with the picture:
the SVG is a group named "Computation graph, N nodes"; its tensor nodes (a collapsed drawing's boxes too) are
buttons in topological order, named from ``Animation.nodes`` (``node_text``) with the gradient they show at the
step on screen, the node receiving gradient marked ``aria-current="step"``; ops, edges and cluster frames are
hidden from the tree (a node's name says its op, inputs and users). The graph is ONE Tab stop (the node last
focused, first the first input): ↓/↑ move between nodes, Enter or Space does what a click does (the node's
facts, a box opened or closed), →/← still step. Space and arrows on any other focused control are that
control's. Each step is announced in one short line (title, arithmetic, "details below"); reduced motion and
browser zoom are honoured (player.css, ``logic.zoomOf``).

Nothing here imports Streamlit or anywidget: this module only reads files and describes sizing.
"""
from __future__ import annotations

import hashlib
import json
import re
from functools import cache
from importlib import resources

from lucid.i18n import N_, _
from lucid.viz.explanation.document import EXPLANATION_CSS
from lucid.viz.player.animation import Animation

KEYS_HELP = N_("Keys: → or Page Down: next step · ← or Page Up: previous · Home / End: first / last · "
              "Space: play / pause (not while typing in the editor)")


def player_words() -> dict[str, str]:
    """The player's own words in the reader's language (the script has the English ones built in).

    Sent with every render, so a language switch relabels a player that is already on the page.
    ``{k}``, ``{n}``, ``{where}`` and ``{s}`` are filled in by the script.
    """
    return {
        "bar": _("Backward pass steps"), "step": _("Step"), "keys": _("⌨ Keys"),
        "first": _("First"), "first_title": _("First step (Home)"),
        "prev": _("Prev"), "prev_title": _("Previous step (← or Page Up)"),
        "prev_lesson": _("Previous link's last step (← or Page Up)"),
        "next": _("Next"), "next_title": _("Next step (→ or Page Down)"),
        "next_lesson": _("Next link of the lesson (→ or Page Down)"),
        "last": _("Last"), "last_title": _("Last step (End)"),
        "play": _("Play"), "pause": _("Pause"), "play_title": _("Play / pause (Space)"),
        "inspect_title": _("Node inspector: jump to it below the graph (click a node to pick it)"),
        "inspect_label": _("Jump to the node inspector"), "speed": _("Autoplay speed"),
        "per_step": _("{s} s / step"), "step_of": _("step {k} of {n}"), "lesson": _("Lesson {where}"),
        "room_lost": _("Not connected · not following the teacher"), "room_ended": _("The class has ended"),
        **graph_words(),
    }


def graph_words() -> dict[str, str]:
    """The words of the graph as text (``logic.mjs``'s ``nodeName``, player.js's ``graphText``): node names,
    the graph's name and its keys, in the reader's language. ``{op}``, ``{inputs}``, ``{value}``, ``{grad}``,
    ``{status}``, ``{names}``, ``{n}`` and ``{name}`` are filled in by the script."""
    return {
        "graph_label": _("Computation graph, {n} nodes"),
        "graph_keys": _("Tab reaches the graph once; then ↓ and ↑ move between its nodes, inputs first; Enter or "
                        "Space opens a node's facts or a box; → and ← step through the backward pass."),
        "node_op": _("{op} of {inputs}"), "node_leaf": _("input"), "node_const": _("constant"),
        "node_value": _("value {value}"), "node_grad": _("gradient {grad}, {status}"),
        "grad_final": _("final"), "grad_partial": _("partial"), "grad_pending": _("gradient pending"),
        "grad_none": _("no gradient"), "node_inputs": _("inputs {names}"), "node_users": _("used by {names}"),
        "node_output": _("the output"), "box_name": _("{name}; box: Enter opens or closes it"),
        "details_below": _("Details below."), "player": _("Backward pass player"),
        "explanation": _("Explanation of the step"),
    }

SCRIPT_FILE = "player.js"
LOGIC_FILE = "logic.mjs"
STYLESHEET_FILE = "player.css"
ROOM_EVENTS_FILE = "room_events.js"
"""The class events a student's player and the class panel's watcher exchange (DOM events, no globals): the
Streamlit host puts it at the start of the player's module (``lucid.ui.playground.clickable_graph``), and
``lucid.ui.live_class.room_watch`` at the start of the watcher's. The notebook host has no class: it needs none."""

LOGIC_IMPORT = re.compile(r"^import \{(?P<names>[^}]*)\} from '\./logic\.mjs';\n", re.MULTILINE)
"""player.js's one import: the pure logic (``logic.mjs``, tested under Node), names listed without aliases."""


def _read(name: str) -> str:
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")


def inline_logic(player_js: str, logic_mjs: str) -> str:
    """``player_js`` with its import of ``logic.mjs`` replaced by that module's text, its ``export``s dropped.

    Neither host can resolve a relative import (Streamlit and anywidget are handed the module as text), so
    they get one self-contained module; its exports stay player.js's own. Refuses a script without exactly
    one such import, and an import that renames (``a as b``): the names must be the module's own.
    """
    found = list(LOGIC_IMPORT.finditer(player_js))
    if len(found) != 1:
        raise ValueError(f"{SCRIPT_FILE} must import {LOGIC_FILE} exactly once, not {len(found)} times")
    names = found[0]["names"]
    if re.search(r"\bas\b", names):
        raise ValueError(f"{SCRIPT_FILE} imports {LOGIC_FILE} under other names: {names.strip()}")
    body = re.sub(r"^export (?=(?:async )?function |const |let |class )", "", logic_mjs, flags=re.MULTILINE)
    start, end = found[0].span()
    return player_js[:start] + body + player_js[end:]


@cache
def room_events() -> str:
    """The class events' few lines (constants and two functions), to put at the start of a module."""
    return _read(ROOM_EVENTS_FILE)


@cache
def script() -> str:
    """The player's ES module, self-contained: player.js with the pure logic put in (read once per process)."""
    return inline_logic(_read(SCRIPT_FILE), _read(LOGIC_FILE))


@cache
def stylesheet() -> str:
    """The player's CSS: the explanation fragment's default look, then the player's own (which overrides it)."""
    return EXPLANATION_CSS + _read(STYLESHEET_FILE)


def sizing(classroom: bool) -> dict[str, float | bool]:
    """How the player sizes the graph, per mode.

    Normal mode: scale limits and the screen height kept for the controls above the graph (a big graph
    scrolls and the current node is followed). Classroom mode (``whole_graph``): "Fit screen" fits the whole
    graph into the screen below the controls (``margin`` px left under it, never less than ``min_height``
    px tall), so a class sees every node at once; when that makes node text smaller than ``min_text_px``
    on screen, a lens above the explanation shows the step's node whole (with its edge when that fits too)
    with text ``lens_text_px`` to ``lens_max_px`` high, in the height the step's title and whole arithmetic
    line leave on screen (measured in the browser); a node too big for that (a gradient grid) is shown as
    its card (``lucid.viz.explanation.lens_card``). ``lens_height`` and ``lens_keep`` are no longer read. Beside the
    explanation the graph takes up to ``graph_share`` of the row, and no more than it needs (down to
    ``min_graph_share``): the explanation and its lens get the rest. A wide graph that leaves at least
    ``lens_under_px`` px of its column empty below it gets the lens there instead.
    """
    if classroom:
        return {"min_scale": 0.0, "max_scale": 1.8, "reserve": 0, "min_text_px": 18, "whole_graph": True,
                "margin": 12, "min_height": 200, "lens_text_px": 18.5, "lens_max_px": 30, "lens_height": 0.4,
                "lens_keep": 170, "graph_share": 0.64, "min_graph_share": 0.4, "lens_under_px": 220}
    return {"min_scale": 0.7, "max_scale": 1.25, "reserve": 270, "min_text_px": 0, "whole_graph": False}


def animation_id(anim: Animation) -> str:
    """A short id of an animation's content: the browser reloads the picture only when it changes."""
    digest = hashlib.blake2b(digest_size=8)
    digest.update(anim.svg.encode("utf-8"))
    digest.update(json.dumps([anim.changes, [v[0] for v in anim.variants]]).encode("utf-8"))
    return digest.hexdigest()
