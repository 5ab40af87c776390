"""The class panel's watcher: an invisible component that reruns only the student's class panel.

The player (``clickable_graph``) reads the room's feed; when the question changes (opened, revealed,
closed) it tells this watcher through a window event, and the watcher sends its own event. The watcher
is drawn inside the class panel's fragment, so Streamlit reruns that fragment alone: opening a question
for 120 students costs 120 runs of a small panel, not 120 runs of the whole Playground.

If the page drew no watcher (no class panel), the player asks for a whole rerun instead.
"""
from __future__ import annotations

import streamlit as st

_JS = r"""
export default function(component) {
  const { data, setTriggerValue } = component;
  window.__lucidRoomWatch = (window.__lucidRoomWatch || 0) + 1;
  let sent = null;
  const fire = () => {
    const q = window.__lucidRoomQ;
    if (q === undefined || q === data.question || q === sent) return;
    sent = q;
    setTriggerValue('question', q);
  };
  window.addEventListener('lucid-room-q', fire);
  fire();  // a change seen before this watcher was drawn
  return () => {
    window.removeEventListener('lucid-room-q', fire);
    window.__lucidRoomWatch -= 1;
  };
}
"""

_CSS = """
/* The watcher has nothing to show: its element takes no room in the class panel. */
.stElementContainer[class*="_room_watch"] { display: none; }
"""

_component: list = []


def _ignore() -> None:
    """The event only asks for the rerun; its value is not read."""


def room_watch(key: str, question: str) -> None:
    """Draw the watcher (inside a fragment); ``question`` is the question key this run shows."""
    if not _component:
        _component.append(st.components.v2.component("lucid_room_watch", js=_JS, css=_CSS,
                                                      isolate_styles=False))
    _component[0](key=key, data={"question": question}, on_question_change=_ignore)
