"""The Playground's view in its link: Classroom mode, style, layout, drawing options, speed and size.

A teacher prepares a lesson as a link; whoever opens it gets the same view, not
only the same program. The link's words (``share.VIEW_DEFAULTS``) are mapped to
the view widgets' session state here: whenever the page is entered (``enter``,
before the widgets are drawn: a session's first run, a reload, a return from
another page or through the browser's Back) and back into the URL on every run
(``publish_view``), so the address bar always holds the view on screen.
``remember`` keeps that URL in the session for a return through the menu, which
arrives with a bare address.
"""
from __future__ import annotations

import streamlit as st

from lucid.session import share
from lucid.session.options import DIRECTIONS, LARGE_MODES, PRESETS, ZOOMS
from lucid.ui.playground.keys import keys
from lucid.ui.projector import mode as classroom_state
from lucid.ui.runtime import language

_LARGE_WORDS = {"auto": "Automatic", "compact": "Always compact", "full": "Never compact"}
_ZOOM_WORDS = {"screen": "Fit screen", "width": "Fit width", "75": "75%", "100": "100%", "150": "150%"}
_DIRECTION_WORDS = {code: label for label, code in DIRECTIONS.items()}
_SHOWN = {"v": "values", "g": "grads", "s": "shapes", "c": "constants"}
_STYLE_WORDS = {"standard": "Standard", "circuit": "Circuit (CS231n)"}

assert set(_LARGE_WORDS.values()) == set(LARGE_MODES) and set(_ZOOM_WORDS.values()) == set(ZOOMS)
assert set(_STYLE_WORDS.values()) == set(PRESETS)


def widget_values(view: dict[str, str]) -> dict[str, object]:
    """Session-state values of the view widgets (key suffix -> value) for a decoded link view."""
    values: dict[str, object] = {
        "classroom": view["classroom"] == "1",
        "direction": _DIRECTION_WORDS[view["dir"]],
        "large": _LARGE_WORDS[view["large"]],
        "speed": view["speed"],
        "zoom": _ZOOM_WORDS[view["zoom"]],
        "preset": _STYLE_WORDS[view["style"]],
    }
    values.update({name: letter not in view["hide"] for letter, name in _SHOWN.items()})
    return values


def link_view(widgets: dict[str, object]) -> dict[str, str]:
    """The inverse of ``widget_values``: the link words for the widgets' current values."""
    return share.decode_view({
        "classroom": "1" if widgets.get("classroom") else "0",
        "dir": DIRECTIONS.get(str(widgets.get("direction")), "TB"),
        "hide": "".join(letter for letter, name in _SHOWN.items() if widgets.get(name) is False),
        "large": next((w for w, label in _LARGE_WORDS.items() if label == widgets.get("large")), "auto"),
        "speed": str(widgets.get("speed", "normal")),
        "zoom": next((w for w, label in _ZOOM_WORDS.items() if label == widgets.get("zoom")), "screen"),
        "style": next((w for w, label in _STYLE_WORDS.items() if label == widgets.get("preset")), "standard"),
    })


PROGRAM_KEYS = (share.PLAIN_KEY, share.PACKED_KEY, "example")
VIEW_SUFFIXES = ("classroom", "direction", "large", "speed", "zoom", "preset", *_SHOWN.values())
"""Session-state key suffixes of the view widgets (``<key>_<suffix>``)."""


def link_asks(params: dict[str, str]) -> bool:
    """Whether a URL names a program or part of the view beyond Classroom mode.

    A page switch through the menu names none of these (at most ``classroom=``, which every page carries).
    A step alone names nothing: it is a step of no program in particular.
    """
    return any(name in params for name in (*PROGRAM_KEYS, *share.VIEW_DEFAULTS) if name != classroom_state.URL_KEY)


def entering(key: str) -> bool:
    """True on a session's first run of the page and on the first run after coming back from another page.

    Streamlit drops a widget's state whenever a run does not draw it; the view widgets are drawn on every
    run of the page, so their state is missing exactly when the page is entered.
    """
    return keys(key).classroom not in st.session_state


def enter(key: str) -> bool:
    """On entering the page, set every view widget (and the program and step to show) from the URL.

    The URL is the source of truth: a link, a reload, the browser's Back and Forward all arrive as a URL.
    A URL that names nothing (the menu's page switch) stands for what this session showed last, which is
    put back into the address bar first. Classroom mode, when the URL leaves it out, is the session's
    (``classroom_state``), kept across pages. Returns whether the page was entered.
    """
    if not entering(key):
        return False
    params = st.query_params.to_dict()
    remembered = st.session_state.get(keys(key).link)
    st.session_state[keys(key).resumed] = resumed = not link_asks(params) and bool(remembered)
    if resumed:
        # Classroom mode is the session's (it may have changed on another page); the rest is the old link.
        params = {k: v for k, v in remembered.items() if k != classroom_state.URL_KEY} | (
            {classroom_state.URL_KEY: params[classroom_state.URL_KEY]} if classroom_state.URL_KEY in params else {})
        st.query_params.from_dict(params)
        language.publish()  # the language is the session's too, whatever it was when that link was kept
    view = share.decode_view(params)
    linked = classroom_state.from_link(params)
    view["classroom"] = "1" if (classroom_state.is_on() if linked is None else linked) else "0"
    # Handed to the widgets as their value (``lucid.ui.playground.controls``), not set under their keys: a widget
    # both given a value and set through the Session State API makes Streamlit log a warning.
    values = widget_values(view)
    st.session_state[keys(key).entered_view] = {keys(key).of(suffix): value for suffix, value in values.items()}
    # The speed is no widget (the player's bar sets it): plain session state survives page switches, so the
    # link's value is put in place here rather than offered to a widget.
    st.session_state[keys(key).speed] = values["speed"]
    # The program and step come from the URL too: the editor reads it when its text is missing, and the
    # stepper starts at the linked step for a program it treats as newly shown.
    st.session_state.pop(keys(key).source, None)
    st.session_state.pop(keys(key).shown, None)
    return True


def entered_value(key: str, suffix: str, default: object) -> object:
    """The value view widget ``<key>_<suffix>`` shows: its own state, else what the page was entered with."""
    widget_key = keys(key).of(suffix)
    if widget_key in st.session_state:
        return st.session_state[widget_key]
    return st.session_state.get(keys(key).entered_view, {}).get(widget_key, default)


def resumed(key: str) -> bool:
    """Whether this run entered the page through the menu and put back the session's last link (asked once).

    The step in that link is the last one the server heard of; the browser tab knows the one it showed.
    """
    return bool(st.session_state.pop(keys(key).resumed, False))


def remember(key: str) -> None:
    """Keep the URL the page shows now, to put it back when the page is entered again through the menu."""
    st.session_state[keys(key).link] = st.query_params.to_dict()


def publish_view(key: str) -> None:
    """Write the view on screen into the URL: non-default keys set, default ones removed."""
    current = {s: st.session_state[keys(key).of(s)] for s in VIEW_SUFFIXES if keys(key).of(s) in st.session_state}
    params = share.encode_view(link_view(current))
    for name in share.VIEW_DEFAULTS:
        if name not in params and name in st.query_params:
            del st.query_params[name]
    changed = {k: v for k, v in params.items() if st.query_params.get(k) != v}
    if changed:
        st.query_params.update(changed)
    if "classroom" in current:
        classroom_state.set_on(bool(current["classroom"]))
