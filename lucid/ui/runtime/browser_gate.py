"""A gate in front of Streamlit's session state: every widget value a browser sends is checked before it is kept.

Streamlit parses what a websocket client sends for a widget before any page code runs: JSON text
for components (``json_value``, ``json_trigger_value``) goes straight to Python's parser, and a
parse error there (100,000 levels of nesting, a 5,000-digit number, text that is not JSON sent for
a component's state) ends the script run with a traceback on the page. It also calls a component's
event callback once per event of a batch, whatever the batch's length. A student's own script can
send any of this. The gate wraps ``SessionState.set_widgets_from_proto`` (where a rerun's widget
values enter the session) and, for each value:

- a value of another kind than the widget was registered with (``WidgetMetadata.value_type``: a bool
  for a select slider, a string for a checkbox) is dropped: Streamlit's own deserializers assume the
  kind and raise, on every later run too, since the value stays in the session;
- a component's state (``json_value``) is dropped: no component of this app keeps state in the browser
  (the player only sends events), so one can only be forged, and Streamlit lets a component's state
  override its events (a forged ``{"node": ...}`` would stand in for every later click);
- JSON text is looked at before parsing (``browser_events.json_text_problem``: length, depth, long
  numbers) and dropped if it fails, or if it does not parse;
- a batch of component events is cut to the last event of each name (``last_of_each_event``), so a
  batch of 30,000 clicks is one click;
- a number that is not finite (NaN, the infinities) is dropped: no widget sends one, and an int number
  input's ``int(NaN)`` raises;
- text and lists longer than any of this app's widgets hold are dropped (``MAX_TEXT_CHARS``,
  ``MAX_LIST_ITEMS``).

A dropped value is as if the browser had not sent it: the widget keeps its value, the page runs.
``install()`` is called first thing by every page (``lucid.ui.runtime.entry``); a session's first run has no
widgets registered yet, so Streamlit reads none of its values before the gate is in place.
"""
from __future__ import annotations

import json
import math
import threading
from typing import Any

from lucid.session.browser_events import json_text_problem, last_of_each_event
from lucid.ui.runtime import streamlit_internals

MAX_TEXT_CHARS = 100_000
"""A text value: ten times the longest program the language accepts (``Limits.max_source_chars``)."""
MAX_LIST_ITEMS = 1_000
"""A list value (multiselect, a range slider): more items than any of the app's widgets offers."""
COMPONENT_STATE = False
"""Whether a component of the app keeps state in the browser (``setStateValue``); none does."""
MAX_BYTES = 1_000_000
"""A bytes or Arrow value: the app has no widget that sends one; a megabyte is generous."""

_KIND = {"int_value": "number", "double_value": "number",
         "int_array_value": "numbers", "double_array_value": "numbers"}
"""Value kinds the browser may send for one another: an int number input registers ``double_value`` and
the browser sends ``int_value``."""
_JSON_FIELDS = ("json_value", "json_trigger_value")
_LIST_FIELDS = ("double_array_value", "int_array_value", "string_array_value")
_installed = threading.Lock()
_done: list[bool] = []


def admitted(state: Any, expected: str | None = None) -> Any | None:
    """``state`` (a ``WidgetState`` proto) as the session may keep it, or None to drop it.

    ``expected``: the value kind the widget was registered with (None: a widget the session does not
    know, which Streamlit ignores). A batch of component events comes back rewritten to its last event
    of each name.
    """
    field = state.WhichOneof("value")
    if field is None:
        return state
    if expected is not None and _KIND.get(field, field) != _KIND.get(expected, expected):
        return None
    value = getattr(state, field)
    if field in _JSON_FIELDS:
        if field == "json_value" and not COMPONENT_STATE:
            return None
        if json_text_problem(value) is not None:
            return None
        try:
            parsed = json.loads(value)
        except ValueError:
            return None
        if field == "json_trigger_value":
            kept = last_of_each_event(parsed)
            if kept is None:
                return None
            if len(kept) != (len(parsed) if isinstance(parsed, list) else 1):
                state = type(state)(id=state.id, json_trigger_value=json.dumps(kept, separators=(",", ":")))
        return state
    if field == "double_value":
        return state if math.isfinite(value) else None
    if field == "string_value":
        return state if len(value) <= MAX_TEXT_CHARS else None
    if field in _LIST_FIELDS:
        items = list(value.data)
        if len(items) > MAX_LIST_ITEMS:
            return None
        if field == "string_array_value" and any(len(item) > MAX_TEXT_CHARS for item in items):
            return None
        if field == "double_array_value" and not all(math.isfinite(item) for item in items):
            return None
        return state
    if field in ("bytes_value", "arrow_value"):
        size = len(value) if field == "bytes_value" else value.ByteSize()
        return state if size <= MAX_BYTES else None
    return state


def filtered(widget_states: Any, kinds: dict[str, Any]) -> Any:
    """A copy of a ``WidgetStates`` proto with only the admitted values.

    ``kinds``: widget id -> its ``WidgetMetadata`` (``value_type``), as the session registered them.
    """
    out = streamlit_internals.widget_states_class()()
    for state in widget_states.widgets:
        metadata = kinds.get(state.id)
        kept = admitted(state, getattr(metadata, "value_type", None))
        if kept is not None:
            out.widgets.append(kept)
    return out


def install() -> None:
    """Put the gate in front of every session's widget values (once per process; later calls do nothing)."""
    with _installed:
        if _done:
            return
        SessionState = streamlit_internals.session_state_class()
        original = SessionState.set_widgets_from_proto

        def set_widgets_from_proto(self: Any, widget_states: Any) -> None:
            original(self, filtered(widget_states, self._new_widget_state.widget_metadata))

        set_widgets_from_proto.__doc__ = original.__doc__
        SessionState.set_widgets_from_proto = set_widgets_from_proto  # type: ignore[method-assign]
        _done.append(True)
