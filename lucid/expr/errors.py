"""The one exception the expression language raises, with a position a person can act on.

Everything that goes wrong inside ``lucid.expr.run`` (bad characters, syntax,
unknown names, shapes, limits, numeric trouble, even our own bugs) becomes an
``ExprError`` so the app can always show "message + line + caret" and never a
traceback.
"""
from __future__ import annotations

import unicodedata

from lucid.i18n import Message, _, text

# Kinds, so callers can react without parsing messages.
KINDS = ("character", "syntax", "name", "argument", "shape", "limit", "numeric", "internal")

_WINDOW = 72  # longest stretch of a source line shown around the caret


class ExprError(Exception):
    """A problem in the user's program at ``line``/``col`` (1-based, in characters).

    ``str(err)`` is the message, then the offending line, then a caret under the
    column (``^^^`` when ``length`` covers a whole name or operator).
    ``caret_text()`` is just those last two lines, for a UI that shows the
    message separately.

    The message is kept as its template (``template``: a ``lucid.i18n.Message``, or plain text) and
    ``message`` renders it in the language of whoever reads it: one program's error is computed once
    and shown to every session of the server, each in its own language.
    """

    def __init__(self, message: str | Message, line: int = 1, col: int = 1, source_line: str = "",
                 kind: str = "syntax", length: int = 1) -> None:
        super().__init__(message, line, col, source_line, kind, length)
        self.template = message
        self.line = max(1, int(line))
        self.col = max(1, int(col))
        self.source_line = source_line
        self.kind = kind
        self.length = max(1, int(length))

    @property
    def message(self) -> str:
        """The message in the current language (``lucid.i18n``)."""
        return text(self.template)

    def caret_cells(self) -> tuple[list[tuple[str, int]], int, int, bool, bool]:
        """The shown stretch of the line as (character, columns) cells, the caret's first cell and its
        width in cells, and whether text was cut before / after the stretch.

        A wide character (East Asian Width W or F: a Hangul syllable, a CJK ideograph) takes two
        columns, a combining mark none; characters that cannot be shown become U+FFFD.
        """
        cells = [_cell(ch) for ch in self.source_line]
        at = min(self.col - 1, len(cells))
        start = 0
        if sum(w for _, w in cells) > _WINDOW:
            # keep the caret near the middle, without leaving the end of the window empty
            while start < at and sum(w for _, w in cells[start:at]) > _WINDOW // 2 \
                    and sum(w for _, w in cells[start + 1:]) >= _WINDOW:
                start += 1
        end = start
        used = 0
        while end < len(cells) and used + cells[end][1] <= _WINDOW:
            used += cells[end][1]
            end += 1
        end = max(end, min(len(cells), at + 1))
        width = max(1, min(self.length, end - at))
        return cells[start:end], at - start, width, start > 0, end < len(cells)

    def caret_text(self) -> str:
        """The offending line (cut to a window around the spot) and a caret line under it."""
        cells, at, width, cut_before, cut_after = self.caret_cells()
        prefix = "..." if cut_before else ""
        suffix = "..." if cut_after else ""
        shown = "".join(ch for ch, _ in cells)
        pad = "".join("\t" if ch == "\t" else " " * w for ch, w in cells[:at])
        pad += " " * (at - len(cells[:at]))
        carets = "^" * max(1, sum(w for _, w in cells[at:at + width]))
        return f"{prefix}{shown}{suffix}\n{' ' * len(prefix)}{pad}{carets}"

    def __str__(self) -> str:
        where = _("(line {line}, column {col})").format(line=self.line, col=self.col)
        return f"{self.message} {where}\n{self.caret_text()}"


def position_of(source: str, offset: int) -> tuple[int, int]:
    """1-based (line, col) of a character offset into ``source``."""
    offset = max(0, min(offset, len(source)))
    line = source.count("\n", 0, offset) + 1
    start = source.rfind("\n", 0, offset) + 1
    return line, offset - start + 1


def line_text(source: str, line: int) -> str:
    """Text of 1-based ``line`` of ``source`` without its newline ('' past the end)."""
    start = 0
    for _k in range(line - 1):
        start = source.find("\n", start) + 1
        if start == 0:
            return ""
    end = source.find("\n", start)
    return source[start:] if end < 0 else source[start:end]


def _cell(ch: str) -> tuple[str, int]:
    """How a character of the source line is shown in a caret display, and how many columns it takes."""
    if ch == "\t":
        return ch, 1
    if not ch.isprintable() or _invisible(ch):
        return "\ufffd", 1
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me"):
        return ch, 0
    return ch, 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def _invisible(ch: str) -> bool:
    from lucid.expr.characters import is_ignorable  # errors.py is imported by everything: keep it light
    return is_ignorable(ch)
