"""Making any user text (variable names, op parameters) safe inside DOT.

Names come from people typing in a web page, so they may hold quotes, ``<``,
``>``, ``&``, braces, backslashes (which Graphviz expands: ``\\N`` is the node's
name, even inside HTML-like labels), newlines or control characters. Every piece
of user text passes through ``html_text`` (labels) or ``attribute_text``
(tooltips) before it reaches a DOT attribute; ids and classes are never user text.
"""
from __future__ import annotations

import unicodedata

#: Longest name shown in full; longer names end in an ellipsis (the tooltip keeps more).
NAME_LIMIT = 32
NBSP = "\u00a0"


def visible(text: str) -> str:
    """Replace newlines and other control characters with visible stand-ins.

    Called for every piece of text of every frame and explanation (about 1,800 times for one small program), so
    text with nothing to replace returns at once: ``str.isprintable`` is False for every character replaced below
    (categories Cc, Cs, Co, Cn, and the line and paragraph separators), so a printable text has none of them."""
    text = str(text)
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch in "\r\n":
            out.append("⏎")
        elif ch == "\t":
            out.append(" ")
        elif unicodedata.category(ch) in ("Cc", "Cs", "Co", "Cn") or ch in "\u2028\u2029":
            out.append("\ufffd")
        else:
            out.append(ch)
    return "".join(out)


def shorten(text: str, limit: int = NAME_LIMIT) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis."""
    return text if len(text) <= limit else text[: max(limit - 1, 1)] + "…"


def html_text(text: str, *, keep_spaces: bool = False) -> str:
    """Text for inside an HTML-like label: entities for markup, doubled backslashes.

    ``keep_spaces`` turns spaces into non-breaking ones so fixed-width number
    columns keep their alignment (SVG collapses runs of ordinary spaces).
    """
    s = visible(text)
    s = (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
         .replace('"', "&quot;").replace("'", "&#39;").replace("\\", "\\\\"))
    if keep_spaces:
        s = s.replace(" ", NBSP)
    return s


def attribute_text(text: str) -> str:
    """Text for a plain quoted attribute (tooltips): no backslash escapes, quotes escaped."""
    return visible(text).replace("\\", "⧵").replace('"', '\\"')
