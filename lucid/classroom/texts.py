"""Text a room's record keeps for students to read: a message id and its values, never a finished sentence.

A room lives in a shared store (this process's memory or Redis) and is read by every student's session,
each in its own language. A sentence written into the record in the teacher's language would reach a
Korean student in English (or the reverse), so the record holds ``{"msgid": ..., "params": {...}}`` (JSON)
and ``shown`` renders it in the reader's language where it is displayed. Plain strings (a label such as
``grad x``, a formula) are shown as they are.
"""
from __future__ import annotations

from typing import Any

from lucid.i18n import Message


def stored(msgid: str, **params: Any) -> dict[str, Any]:
    """The record's form of a message (mark ``msgid`` with ``N_`` where it is written, for extraction)."""
    return {"msgid": msgid, "params": {k: v for k, v in params.items()}}


def shown(value: object) -> str:
    """A stored value as the current reader's text: a stored message in their language, a string as it is."""
    if isinstance(value, dict) and isinstance(value.get("msgid"), str):
        params = value.get("params")
        return Message(value["msgid"], params if isinstance(params, dict) else {}).render()
    return "" if value is None else str(value)
