"""The Playground's view in its link: Classroom mode, style, layout, drawing options, speed and size.

A teacher prepares a lesson as a link; whoever opens it gets the same view, not
only the same program. The link's words (``share.VIEW_DEFAULTS``) are mapped to
the view widgets' session state here: once when a session starts
(``restore_view``, before the widgets are drawn) and back into the URL on every
run (``publish_view``), so the address bar always holds the view on screen.
"""
from __future__ import annotations

import streamlit as st

from lucid.ui import share
from lucid.ui.options import DIRECTIONS, LARGE_MODES, PRESETS, ZOOMS

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


def restore_view(key: str) -> None:
    """On a session's first run, give every view widget its value from the link (or the default)."""
    done = f"{key}_view_restored"
    if st.session_state.get(done):
        return
    st.session_state[done] = True
    for suffix, value in widget_values(share.decode_view(st.query_params.to_dict())).items():
        st.session_state[f"{key}_{suffix}"] = value


def publish_view(key: str) -> None:
    """Write the view on screen into the URL: non-default keys set, default ones removed."""
    suffixes = ("classroom", "direction", "large", "speed", "zoom", "preset", *_SHOWN.values())
    current = {s: st.session_state[f"{key}_{s}"] for s in suffixes if f"{key}_{s}" in st.session_state}
    params = share.encode_view(link_view(current))
    for name in share.VIEW_DEFAULTS:
        if name not in params and name in st.query_params:
            del st.query_params[name]
    changed = {k: v for k, v in params.items() if st.query_params.get(k) != v}
    if changed:
        st.query_params.update(changed)
