"""Program and step in the URL's query parameters, so a teacher can prepare links for a lesson.

Short programs travel as readable text (``code=``); longer ones as urlsafe
base64 of zlib (``z=``), which keeps a 2-layer MLP well under any URL limit.
Decoding never trusts the link: bad base64, a zip bomb or a nonsense step just
give ``None`` for that part, and the page falls back to its default.
Pure functions, no Streamlit, so they are tested directly.
"""
from __future__ import annotations

import base64
import binascii
import zlib
from collections.abc import Mapping
from dataclasses import dataclass

from lucid.session.stepping import OLD_SPEEDS, SPEEDS

PLAIN_KEY = "code"
PACKED_KEY = "z"
STEP_KEY = "step"

PLAIN_LIMIT = 120
"""Programs up to this many characters stay readable in the URL."""

MAX_DECODED = 20_000
"""Longest program a link may unpack to (the expression language rejects far less)."""


@dataclass(frozen=True)
class SharedView:
    """What a link asks for: a program (or None) and a step (or None)."""

    source: str | None
    step: int | None


def pack(source: str) -> str:
    """``source`` as compact URL-safe text: zlib, then urlsafe base64 without padding."""
    packed = base64.urlsafe_b64encode(zlib.compress(source.encode("utf-8"), 9)).decode("ascii")
    return packed.rstrip("=")


def unpack(text: str, limit: int = MAX_DECODED) -> str | None:
    """Inverse of ``pack``; None for anything that is not a packed text of at most ``limit`` characters."""
    if not text or len(text) > 4 * limit or any(not (c.isascii() and (c.isalnum() or c in "-_=")) for c in text):
        return None
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        inflater = zlib.decompressobj()
        data = inflater.decompress(raw, limit + 1)
        if len(data) > limit or inflater.unconsumed_tail or not inflater.eof:
            return None
        return data.decode("utf-8")
    except (binascii.Error, zlib.error, UnicodeDecodeError, ValueError):
        return None


def encode(source: str, step: int | None = None) -> dict[str, str]:
    """Query parameters for a program (and step): plain when short and single-line-friendly, else packed."""
    params: dict[str, str] = {}
    if len(source) <= PLAIN_LIMIT:
        params[PLAIN_KEY] = source
    else:
        params[PACKED_KEY] = pack(source)
    if step is not None:
        params[STEP_KEY] = str(int(step))
    return params


def decode(params: Mapping[str, str]) -> SharedView:
    """Read a program and a step from query parameters (either encoding); tolerant of junk."""
    source: str | None = None
    if PACKED_KEY in params:
        source = unpack(str(params[PACKED_KEY]))
    if source is None and PLAIN_KEY in params:
        plain = str(params[PLAIN_KEY])
        source = plain if len(plain) <= MAX_DECODED else None
    step: int | None = None
    raw_step = str(params.get(STEP_KEY, "")).strip()
    if raw_step.isascii() and raw_step.isdigit() and len(raw_step) <= 9:  # '²'.isdigit() is True too
        step = int(raw_step)
    return SharedView(source, step)


VIEW_DEFAULTS: dict[str, str] = {
    "classroom": "0",   # 1: Classroom mode
    "dir": "TB",        # LR: left to right
    "hide": "",         # letters of what the drawing leaves out: v values, g gradients, s shapes, c constants
    "large": "auto",    # compact | full
    "speed": "normal",  # one of stepper.SPEEDS (fast 0.5 s .. slowest 6 s); an old "very fast" opens as fast
    "zoom": "screen",   # width | 75 | 100 | 150
    "style": "standard",  # circuit: the CS231n-style drawing
}
"""How a link describes the view, and the value each key takes when the link leaves it out.

Only what differs from these travels, so a plain link stays short and an old link
(without view keys) opens the default view.
"""

VIEW_CHOICES: dict[str, frozenset[str]] = {
    "classroom": frozenset({"0", "1"}),
    "dir": frozenset({"TB", "LR"}),
    "large": frozenset({"auto", "compact", "full"}),
    "speed": frozenset(SPEEDS),
    "zoom": frozenset({"screen", "width", "75", "100", "150"}),
    "style": frozenset({"standard", "circuit"}),
}
HIDEABLE = "vgsc"


def encode_view(view: Mapping[str, str]) -> dict[str, str]:
    """Query parameters for a view: only the keys whose value differs from ``VIEW_DEFAULTS``."""
    clean = decode_view(view)
    return {k: v for k, v in clean.items() if v != VIEW_DEFAULTS[k]}


def decode_view(params: Mapping[str, str]) -> dict[str, str]:
    """The full view a link asks for; a missing, unknown or malformed value falls back to its default."""
    view = dict(VIEW_DEFAULTS)
    for name, allowed in VIEW_CHOICES.items():
        value = str(params.get(name, view[name])).strip()
        if name == "speed":
            value = OLD_SPEEDS.get(value, value)
        if value in allowed:
            view[name] = value
    hide = str(params.get("hide", ""))
    view["hide"] = "".join(ch for ch in HIDEABLE if ch in hide) if len(hide) <= len(HIDEABLE) else ""
    return view
