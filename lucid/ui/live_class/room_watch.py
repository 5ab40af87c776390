"""The class panel's watcher: an invisible component that reruns only the student's class panel.

The player (``clickable_graph``) reads the room's feed; when the question changes (opened, revealed,
closed) it tells this watcher through a window event (``lucid/viz/player/room_events.js``, the start of both
modules), with the question's card from the feed: the watcher shows the card at once (the question asked, or
its answer once revealed), sends its own event, and the fragment's run replaces the card with the form or
the verdict. The watcher is drawn inside the class panel's fragment, so Streamlit reruns that fragment alone:
opening a question for 120 students costs 120 runs of a small panel, not 120 runs of the whole Playground.

If the page drew no watcher (no class panel), the player asks for a whole rerun instead.
"""
from __future__ import annotations

from lucid.i18n import _
from lucid.ui.live_class import room_push
from lucid.ui.runtime.file_component import file_component
from lucid.ui.runtime.stylesheets import package_text
from lucid.viz import player

SCRIPT_FILE = "room_watch.js"
STYLESHEET_FILE = "room_watch.css"


def _prelude() -> str:
    """The class events the watcher shares with the player (``room_events.js``), put before its own script."""
    return player.room_events() + "\n"


def script() -> str:
    """The watcher's ES module: the class events it shares with the player, then its own."""
    return _prelude() + package_text(__package__, SCRIPT_FILE)


def _ignore() -> None:
    """The event only asks for the rerun; its value is not read."""


def room_watch(key: str, question: str, announce: dict[str, str] | None = None, form: str | None = None) -> None:
    """Draw the watcher (inside a fragment); ``question`` is the question key this run shows, ``announce`` what the
    student's live region says now (``{"key", "text"}``: said once per key) or None, ``form`` the CSS selector of
    the open question's answer form (the page's skip link leads to it) or None."""
    words = {"asked": _("Question about step {step}: {label} = ? · the answer box is on its way"),
             "revealed": _("The answer: {label} = {answer}"),
             "lost": _("Not connected · not following the teacher"), "ended": _("The class has ended"),
             "back": _("Connected again · following the teacher"), "skip": _("Skip to the answer field")}
    file_component("lucid_room_watch", __package__, SCRIPT_FILE, STYLESHEET_FILE, prelude=_prelude())(
        key=key, data={"question": question, "words": words, "announce": announce, "form": form},
        on_question_change=_ignore)


ANSWER_SCRIPT_FILE = "answer_watch.js"
ANSWER_STYLESHEET_FILE = "answer_watch.css"


def answer_watch(key: str, feed: str, seen: int, *, teacher_key: str, question: str, answered: int, count: str,
                 words: str | None) -> None:
    """The teacher's answer count, pushed: ``feed`` the room's feed address (``room_feed.feed_url``), ``seen`` the
    answers this process had taken when this run read the answers, ``teacher_key`` the room's key for the count
    (``room_push.teacher_key``; only ever drawn on the teacher's page), ``question`` the open round's id,
    ``answered`` how many answered it as this run counted, ``count`` the CSS selector of the panel's count,
    ``words`` its bold part in the page's language with ``{answered}`` and ``{students}`` in it
    (``room_view._count_words``; None: the count waits for the panel's run).

    Each read is held until the server takes another answer; its numbers go into the count at once, then the
    question's fragment runs again (once per draw of this watcher: the popover of who has not answered, the
    histogram while peeking) and draws this watcher again with the new ``seen``."""
    watch = file_component("lucid_answer_watch", __package__, ANSWER_SCRIPT_FILE, ANSWER_STYLESHEET_FILE)
    watch(key=key, data={"feed": feed, "seen": seen, "key": teacher_key, "q": question, "answered": answered,
                         "count": count, "words": words, "header": room_push.KEY_HEADER}, on_answers_change=_ignore)
