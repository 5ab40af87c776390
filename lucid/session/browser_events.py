"""Every value the player component sends back from the browser, checked before the app acts on it.

A node click arrives as JSON that anyone with a websocket can write: Streamlit parses it and hands it
over, so its shape, types and sizes are whatever the sender chose (``step: Infinity``, a node id of
5,000 digits, a list where a dict belongs, a value from a program that is no longer on screen). This
module turns such a value into a ``NodeClick`` the app can trust, or refuses it with a short reason
(``BadBrowserValue``); it never walks into nested values, so no depth or size of JSON costs more than
a few checks. It imports nothing from Streamlit, so the rules are tested on their own.

The limits are part of the server's budget:

- ``MAX_NODE_ID_CHARS``: a node id is ``t<k>``, ``op<k>`` or ``g<k>`` with at most this many characters
  (no graph the language allows has ten-digit indices, and ``int`` of a long digit string is itself work).
- ``MAX_PROGRAM_KEY_CHARS``: the program key the click carries is compared, never parsed, and a longer one
  cannot be ours.
- ``MAX_STEP``: a step is a whole number in ``0 .. n_steps - 1``, and never above this bound whatever the
  program (finite, not a bool, not a float with a fraction).
- ``MAX_JSON_CHARS``, ``MAX_JSON_DEPTH``, ``MAX_NUMBER_CHARS``: JSON text from the browser (a component's
  events or state) is looked at before any parser sees it: longer, deeper or with a longer number than
  these, it is dropped whole (Python's parser raises on 100,000 levels or a 5,000-digit number, and
  parsing megabytes is work nobody asked for).
- ``MAX_EVENTS``: a batch of component events keeps only the last event of each name (what a page
  reads anyway); a batch of more events than this is not even sorted, it is dropped.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

MAX_NODE_ID_CHARS = 12
"""``op`` and ten digits: longer ids are refused before any digit is converted."""
MAX_PROGRAM_KEY_CHARS = 64
"""The program key is a short hex digest; a click carrying anything longer is not from this page."""
MAX_STEP = 10_000_000
"""No backward trace the limits allow has this many steps; a larger number is refused before any arithmetic."""

NODE_ID = re.compile(r"(?:t|op|g)[0-9]{1,10}")
"""The ids the player puts on clickable nodes: tensor ``t<k>``, its op ``op<k>``, a collapsed graph's box ``g<k>``."""

MAX_JSON_CHARS = 64 * 1024
"""A click is under 100 characters; the player keeps no component state."""
MAX_JSON_DEPTH = 16
"""A batch of clicks is three levels deep (list, event, value)."""
MAX_NUMBER_CHARS = 32
"""More digits than any step, index or float the app sends (``-1.2345678901234567e-308`` is 24)."""
MAX_EVENTS = 10_000
"""Events in one batch: more are refused without looking at them (the browser sends one per click)."""

_CLICK_FIELDS = frozenset({"node", "step", "program", "anim"})
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_LONG_NUMBER = re.compile(rf"[-+0-9.eE]{{{MAX_NUMBER_CHARS + 1},}}")
_BRACKET = re.compile(r"[\[\]{}]")


class BadBrowserValue(ValueError):
    """A value from the browser that the app will not act on; the message says which rule it broke."""


@dataclass(frozen=True)
class NodeClick:
    """A click on a node of the graph on screen: the node's id and the backward-trace step it was clicked at."""

    node: str
    step: int
    anim: str | None = None
    """The id of the animation the player holds (``animation_id``), when the click says: the page then need not
    send that animation again with the run the click starts."""


def whole_number(value: object, *, low: int, high: int, what: str) -> int:
    """``value`` as an int in ``low .. high``: ints, and floats with no fraction (JSON has one number type).

    Refused: bools, NaN and the infinities (Python's JSON reader accepts ``NaN`` and ``Infinity``),
    fractions, strings, and anything out of range (checked before converting, so ``1e308`` costs nothing).
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadBrowserValue(f"{what} must be a whole number, not {type(value).__name__}")
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            raise BadBrowserValue(f"{what} must be a whole number, not {value!r}")
    if not low <= value <= high:
        raise BadBrowserValue(f"{what} must be between {low} and {high}, not {_short(value)}")
    return int(value)


def _short(value: int | float) -> str:
    """A number for a message, never longer than a line (an int of 4,000 digits is cut, not printed)."""
    if isinstance(value, float) or abs(value) < 10**15:
        return repr(value)
    return f"a number of about {int(value.bit_length() * 0.30103) + 1:,} digits"  # str() of it could itself fail


def node_id(value: object) -> str:
    """``value`` if it is an id the player puts on a clickable node (``t<k>``, ``op<k>``, ``g<k>``), else refused."""
    if not isinstance(value, str):
        raise BadBrowserValue(f"the node id must be text, not {type(value).__name__}")
    if len(value) > MAX_NODE_ID_CHARS or not NODE_ID.fullmatch(value):
        raise BadBrowserValue(f"not a node id of this graph: {value[:MAX_NODE_ID_CHARS]!r}"
                              + ("…" if len(value) > MAX_NODE_ID_CHARS else ""))
    return value


def node_click(value: object, *, program_key: str, n_steps: int) -> NodeClick:
    """The click ``value`` (``{"node": id, "step": k, "program": key}``) checked against the program on screen.

    ``program_key`` is the key the page gave the player with this program; a click carrying another key
    (a click on the previous program's drawing, still in flight when the new one was run) is refused, so
    is one without a key. ``n_steps``: the backward trace's step count (0: only step 0 exists).
    The player also says which animation it holds (``anim``, optional): an id compared, never parsed.
    Only these fields are looked at, each by type first: nested values are never traversed.
    """
    if not isinstance(value, dict):
        raise BadBrowserValue(f"a click must be an object, not {type(value).__name__}")
    if len(value) > len(_CLICK_FIELDS) or not set(value) <= _CLICK_FIELDS:
        raise BadBrowserValue("a click has only the fields node, step, program and anim")
    program = value.get("program")
    if not isinstance(program, str) or len(program) > MAX_PROGRAM_KEY_CHARS:
        raise BadBrowserValue("a click must name its program")
    if program != program_key:
        raise BadBrowserValue("the click was made on another program's drawing")
    node = node_id(value.get("node"))
    step = whole_number(value.get("step"), low=0, high=min(max(n_steps - 1, 0), MAX_STEP), what="the step")
    anim = value.get("anim")
    if anim is not None and (not isinstance(anim, str) or len(anim) > MAX_PROGRAM_KEY_CHARS):
        raise BadBrowserValue("the animation a click names must be a short id")
    return NodeClick(node, step, anim)


_LESSON_FIELDS = frozenset({"move", "at", "program"})
LESSON_MOVES = frozenset({"next", "prev"})
"""What the player asks of a lesson: Next past a program's last step, Previous before its step 0."""


def lesson_move(value: object, *, program_key: str, at: int) -> str:
    """The lesson move ``value`` (``{"move": "next"|"prev", "at": k, "program": key}``), checked: the move.

    The player sends one when Next is pressed at the last step (or Previous at step 0) of a lesson's link.
    It names the program and the link it was made on: a move made on a drawing or a link no longer on
    screen (a replayed message, a second press still in flight) is refused, so a move is never applied
    twice. Only the three fields are looked at, each by type first.
    """
    if not isinstance(value, dict):
        raise BadBrowserValue(f"a lesson move must be an object, not {type(value).__name__}")
    if len(value) != len(_LESSON_FIELDS) or set(value) != _LESSON_FIELDS:
        raise BadBrowserValue("a lesson move has exactly the fields move, at and program")
    program = value.get("program")
    if not isinstance(program, str) or len(program) > MAX_PROGRAM_KEY_CHARS or program != program_key:
        raise BadBrowserValue("the move was made on another program's drawing")
    move = value.get("move")
    if not isinstance(move, str) or move not in LESSON_MOVES:
        raise BadBrowserValue("a lesson move is next or prev")
    if whole_number(value.get("at"), low=0, high=MAX_STEP, what="the lesson position") != at:
        raise BadBrowserValue("the move was made on another link of the lesson")
    return move


def json_text_problem(text: str, *, max_chars: int = MAX_JSON_CHARS, max_depth: int = MAX_JSON_DEPTH) -> str | None:
    """Why ``text`` must not reach a JSON parser (too long, too deep, a number too long), or None.

    A linear scan, no parsing: string literals are set aside, then brackets are counted and runs of
    number characters measured. Text that passes may still be invalid JSON; the parser then says so.
    """
    if len(text) > max_chars:
        return f"{len(text):,} characters of JSON (the limit is {max_chars:,})"
    bare = _JSON_STRING.sub('""', text)
    if _LONG_NUMBER.search(bare):
        return f"a number longer than {MAX_NUMBER_CHARS} characters"
    depth = 0
    for bracket in _BRACKET.finditer(bare):
        depth += 1 if bracket.group() in "[{" else -1
        if depth > max_depth:
            return f"JSON nested more than {max_depth} levels deep"
    return None


def last_of_each_event(payloads: object) -> list[object] | None:
    """A batch of component events (``[{"event": name, "value": ...}, ...]``) cut to the last event of each name.

    A page reads only the last value of each event, and a click is idempotent, so the rest is work an
    attacker chose. None when the batch is not a list of at most ``MAX_EVENTS`` items (drop it whole);
    items that are not events are dropped.
    """
    if isinstance(payloads, dict):
        payloads = [payloads]
    if not isinstance(payloads, list) or len(payloads) > MAX_EVENTS:
        return None
    last: dict[str, object] = {}
    for payload in payloads:
        if isinstance(payload, dict) and isinstance(payload.get("event"), str):
            last.pop(payload["event"], None)
            last[payload["event"]] = payload
    return list(last.values())
