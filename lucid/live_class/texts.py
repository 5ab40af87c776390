"""Text a room's record keeps for students to read: a message id and its values, never a finished sentence.

A room lives in a shared store (this process's memory or Redis) and is read by every student's session,
each in its own language. A sentence written into the record in the teacher's language would reach a
Korean student in English (or the reverse), so the record holds ``{"msgid": ..., "params": {...}}`` (JSON)
and ``shown`` renders it in the reader's language where it is displayed. Plain strings (a label such as
``grad x``, a formula) are shown as they are.
"""
from __future__ import annotations

from typing import Any

from lucid.i18n import Message, _


def stored(msgid: str, **params: Any) -> dict[str, Any]:
    """The record's form of a message (mark ``msgid`` with ``N_`` where it is written, for extraction)."""
    return {"msgid": msgid, "params": {k: v for k, v in params.items()}}


def shown(value: object) -> str:
    """A stored value as the current reader's text: a stored message in their language, a string as it is."""
    if isinstance(value, dict) and isinstance(value.get("msgid"), str):
        params = value.get("params")
        return Message(value["msgid"], params if isinstance(params, dict) else {}).render()
    return "" if value is None else str(value)


def question_context(question: dict[str, Any]) -> str:
    """The step a question asks about, in one Markdown line: the upstream gradient and the node it flows into.

    A phone shows the question without the graph beside it, so "grad x = ?" alone gives a student nothing
    to work from; this line names what arrives from above (``grad t13 = 1.000``) and where it goes. Names
    and numbers are code spans (a name such as ``w_1_b`` is not read as Markdown). Empty for the seed step,
    which has no upstream.
    """
    upstream = shown(question.get("upstream"))
    name = question.get("name")
    if not upstream or not isinstance(name, str):
        return ""
    return _("Upstream gradient {upstream}, flowing back into {name}").format(upstream=f"`{upstream}`",
                                                                              name=f"`{name}`")
