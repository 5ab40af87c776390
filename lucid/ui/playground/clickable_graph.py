"""The backward-pass player: the laid-out graph, its controls and the explanation, played in the browser.

A Streamlit v2 component (trusted JavaScript, no build step, no network) hosts the player
whose script and stylesheet are files of their own (``lucid.viz.player``: the notebook widget
hosts the same files). It receives one ``lucid.viz.player.animation.Animation`` payload per program and plays it
with no server round trip: First/Prev/Next/Last, the slider, the keys a
presenter's clicker sends (→/PageDown, ←/PageUp, Home/End, Space) and Play/Pause
(scheduled against a start time, so steps are evenly spaced) only swap the
looks of the few nodes and edges a step changes. The step is mirrored into the
page's URL (``?step=``) with ``history.replaceState``. A click on a node is the
one thing that goes back to the server: it reports ``{node, step, program}`` for the
node inspector, and the page reads it with ``take_click`` before it draws anything.

What comes back is treated as untrusted (``lucid.session.browser_events`` checks every
field): one websocket message can carry thousands of click events and Streamlit calls
the component's event callback once per event, so ``lucid.ui.runtime.browser_gate`` cuts a
batch to its last event before Streamlit sees it, the callback does nothing, and the
script run reads the click once (a click is idempotent), acting on it only if it was
made on the program now on screen (the program key it carries).

Everything placed in the page is SVG that went through an XML serializer on the
server and explanation HTML that escapes user text (see ``lucid.viz.player.animation``).
The node receiving gradient (and the edge it flows along) is kept inside the
screen, below the sticky control bar. In Classroom mode *Fit screen* fits the
whole graph into the screen below the bar; when that draws node text (names,
values, gradients: the size most node text is set in) under ``min_text_px``
pixels high, a lens (an SVG ``<use>`` of the same graph, so it shows every
step's looks with no copy to keep in step) magnifies the node receiving gradient
and its edge above the explanation, or under a wide graph. The autoplay speed is
chosen in the player's bar and reported to the server (``on_speed``). In a lesson (``lucid.session.lesson_plan``) the
bar shows the place in it, and Next after the last step (Prev at step 0) sends a lesson move instead of
stopping; on a phone-wide screen the explanation goes below the graph.
"""
from __future__ import annotations

import hashlib
import json
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import streamlit as st

from lucid.i18n import _
from lucid.session.browser_events import BadBrowserValue, NodeClick, lesson_move, node_click
from lucid.ui.runtime import component_payload
from lucid.viz.player import KEYS_HELP, animation_id, player_words, room_events, script, sizing, stylesheet
from lucid.viz.player.animation import Animation

_component: list = []


def _player_component():  # registered on first use, from inside a script run
    if not _component:
        component_payload.install()
        _component.append(st.components.v2.component("lucid_animation_player", js=room_events() + "\n" + script(),
                                                      css=stylesheet(),
                                                      isolate_styles=False))
    return _component[0]


_ENCODED: OrderedDict[int, tuple[weakref.ref, str, str]] = OrderedDict()
_ENCODED_LOCK = threading.RLock()  # reentrant: a collected animation's callback may run inside it
ENCODED_BUDGET_CHARS = 48 * 1024 * 1024
"""The animations' JSON texts kept at most (the least recently drawn go first; they are made again if asked)."""
_encoded_chars = [0]


def encoded_animation(anim: Animation) -> tuple[str, str]:
    """``anim``'s JSON text (``json.dumps(anim.to_json())``) and its ``animation_id``, made once per animation.

    Animations are shared by every session (``lucid.session.analysis``) and read-only, so the text is kept
    beside the animation while it lives (within ``ENCODED_BUDGET_CHARS``): a rerun, or the next student on
    the same link, does not encode 100-400 KB again.
    """
    key = id(anim)
    with _ENCODED_LOCK:
        found = _ENCODED.get(key)
        if found is not None and found[0]() is anim:
            _ENCODED.move_to_end(key)
            return found[1], found[2]
    text = json.dumps(anim.to_json())
    # the picture's id and a digest of everything else: two programs can draw the same picture and differ in
    # their gradients and explanations only (a defined op whose rule was fixed), and the browser keeps an
    # animation whose id it already holds
    content_id = animation_id(anim) + hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()
    with _ENCODED_LOCK:
        _drop(key)
        _ENCODED[key] = (weakref.ref(anim, lambda ref, key=key: _forget(key, ref)), text, content_id)
        _encoded_chars[0] += len(text)
        while _encoded_chars[0] > ENCODED_BUDGET_CHARS and len(_ENCODED) > 1:
            _drop(next(iter(_ENCODED)))
    return text, content_id


def _drop(key: int) -> None:
    found = _ENCODED.pop(key, None)
    if found is not None:
        _encoded_chars[0] -= len(found[1])


def _forget(key: int, ref: weakref.ref) -> None:
    """The animation is gone: so is its text (unless the slot already holds a newer animation's)."""
    with _ENCODED_LOCK:
        if key in _ENCODED and _ENCODED[key][0] is ref:
            _drop(key)


def program_key(seed: object, source: str) -> str:
    """The key of a program on screen: the player sends it back with a click, so clicks made on another
    program's drawing (still in flight when a new program ran) are told apart and dropped."""
    return hashlib.blake2b(f"{seed}\n{source}".encode(), digest_size=8).hexdigest()


def _ignore_event() -> None:
    """The player's event callback. Streamlit calls it once per event of a message, and a crafted message
    can hold tens of thousands: it does nothing, and ``take_click`` reads the batch once per run."""


def take_click(key: str, *, program_id: str, n_steps: int) -> NodeClick | None:
    """The node click that started this run, checked, or None (no click, or one the app will not act on).

    Call it in the script body before the page uses the step or the inspector, and before the player
    ``key`` is drawn. Streamlit keeps only the last event of each name in a batch, which is the one that
    counts (a click is idempotent). A click on another program's drawing, or with a step, node id or
    shape the player never sends (``lucid.session.browser_events``), is dropped without a word: the person who
    sent it sees the page as it was.
    """
    try:
        state = st.session_state.get(key)
    except (RecursionError, ValueError, TypeError):  # a crafted component state Streamlit cannot read
        return None
    if not isinstance(state, dict):
        return None
    try:
        return node_click(state.get("node"), program_key=program_id, n_steps=n_steps)
    except BadBrowserValue:
        return None


def animation_player(anim: Animation, *, key: str, step: int, program_id: str,
                     seconds: float, classroom: bool = False, zoom: str | float = "screen",
                     beside: bool = True, follow_first: bool = False, share_url: bool = True,
                     top: int = 60, speeds: dict[str, float] | None = None, speed: str | None = None,
                     on_speed: Callable[[str], None] | None = None, resume: bool = False,
                     lesson: dict[str, Any] | None = None, on_lesson: Callable[[str], None] | None = None,
                     inspector_key: str | None = None, room: dict[str, Any] | None = None,
                     on_step: Callable[[object], None] | None = None, browser_holds: str | None = None,
                     marks: list[list[str]] | None = None) -> None:
    """Play ``anim`` in the browser, starting at ``step``; a click on a node is read back with ``take_click``.

    Steps in and out (``step``, the ``step`` of a click, the URL's ``step=``) are steps of the backward
    trace; a collapsed animation (``anim.trace_steps``) plays one box step at a time and maps them.
    A click on a box or an open group's header (``g<n>``) of a collapsed drawing is reported too.

    ``seconds`` per step for Play; ``beside`` puts the explanation beside the graph (else below);
    ``follow_first`` scrolls to the current node on the first picture too (a link that opens at a later step);
    ``top`` is the height of the page's top bar, under which the control bar sticks;
    ``program_id`` names the program (``program_key``): a new drawing of the same program keeps the step on
    screen, and clicks carry it back; ``resume`` (the page was entered again through the menu) starts at
    the step this tab last showed for it.
    ``speeds`` (label -> seconds), when given with ``on_speed``, puts the autoplay speed choice in the
    player's bar, showing ``speed``; ``on_speed(label)`` runs when another speed is chosen.
    ``lesson`` (``at``: the link's index, ``where``: "2 / 5", ``title``, ``has_prev``, ``has_next``) shows the
    place in a lesson in the bar; Next after the last step (Prev at step 0) then asks for the neighbouring
    link, and ``on_lesson("next" | "prev")`` runs with the move once ``browser_events.lesson_move`` accepts it.
    ``inspector_key``: the key of the node inspector's container, which a button in the bar scrolls to.
    ``room`` (class mode, ``lucid.ui.live_class.room_view``): ``role`` "teacher" reports every step shown, and
    ``on_step(value)`` gets the event's raw value (``{step, program}``, unchecked: the caller checks it);
    ``role`` "student" polls ``feed`` every ``poll_ms`` and shows the teacher's step while ``follow``, and
    asks for a rerun when the feed's program or question (``question``: the key this run shows) changed.
    ``browser_holds``: the id of the animation the player said it holds (the click that started this run
    names it, ``NodeClick.anim``). When it is this one, the payload carries ``"anim": null`` with its id and
    the player keeps drawing the animation it has: a click does not send 100-400 KB back to the browser
    that has them. A player that finds itself without that animation (it was drawn anew) asks for it
    (its ``missing`` event), and that run sends it whole.
    ``marks``: nodes to outline, ``[svg id, "pass" | "fail", words]`` (the words join the node's spoken name).
    """
    def step_reported() -> None:
        try:
            state = st.session_state.get(key)
        except (RecursionError, ValueError, TypeError):  # a crafted component state Streamlit cannot read
            return
        if on_step is not None and isinstance(state, dict):
            on_step(state.get("step"))

    def speed_chosen() -> None:
        try:
            state = st.session_state.get(key)
        except (RecursionError, ValueError, TypeError):  # a crafted component state Streamlit cannot read
            return
        value = state.get("speed") if isinstance(state, dict) else None
        if on_speed is not None and speeds and isinstance(value, str) and value in speeds:
            on_speed(value)

    def lesson_asked() -> None:
        try:
            state = st.session_state.get(key)
        except (RecursionError, ValueError, TypeError):  # a crafted component state Streamlit cannot read
            return
        if on_lesson is None or lesson is None or not isinstance(state, dict):
            return
        try:
            move = lesson_move(state.get("lesson"), program_key=program_id, at=int(lesson["at"]))
        except BadBrowserValue:
            return
        on_lesson(move)

    anim_text, anim_id = encoded_animation(anim)
    rest: dict[str, Any] = {"anim_id": anim_id, "step": int(step), "program_id": program_id,
                            "seconds": float(seconds), "classroom": classroom, "zoom": zoom, "beside": beside,
                            "follow_first": follow_first, "share_url": share_url, "top": top, "resume": resume,
                            "keys_help": _(KEYS_HELP), "words": player_words(), **sizing(classroom),
                            "speeds": [[k, v] for k, v in (speeds or {}).items()] if on_speed else [],
                            "speed": speed, "lesson": lesson if on_lesson else None,
                            "inspector_key": inspector_key, "room": room, "marks": marks or []}
    # The browser gets exactly ``json.dumps({"anim": anim.to_json(), **rest})``, the animation's part encoded once.
    if browser_holds is not None and browser_holds == anim_id:
        data = component_payload.EncodedJSON("anim", None, "null", "held", rest)
    else:
        data = component_payload.EncodedJSON("anim", anim.to_json(), anim_text, anim_id, rest)
    _player_component()(key=key, data=data, on_node_change=_ignore_event, on_speed_change=speed_chosen,
                        on_lesson_change=lesson_asked, on_step_change=step_reported,
                        on_room_change=_ignore_event, on_missing_change=_ignore_event)
