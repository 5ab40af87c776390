"""The one exception the expression language raises, with a position a person can act on.

Everything that goes wrong inside ``lucid.expr.run`` (bad characters, syntax,
unknown names, shapes, limits, numeric trouble, even our own bugs) becomes an
``ExprError`` so the app can always show "message + line + caret" and never a
traceback.
"""
from __future__ import annotations

# Kinds, so callers can react without parsing messages.
KINDS = ("character", "syntax", "name", "argument", "shape", "limit", "numeric", "internal")

_WINDOW = 72  # longest stretch of a source line shown around the caret


class ExprError(Exception):
    """A problem in the user's program at ``line``/``col`` (1-based, in characters).

    ``str(err)`` is the message, then the offending line, then a caret under the
    column (``^^^`` when ``length`` covers a whole name or operator).
    ``caret_text()`` is just those last two lines, for a UI that shows the
    message separately.
    """

    def __init__(self, message: str, line: int = 1, col: int = 1, source_line: str = "",
                 kind: str = "syntax", length: int = 1) -> None:
        super().__init__(message, line, col, source_line, kind, length)
        self.message = message
        self.line = max(1, int(line))
        self.col = max(1, int(col))
        self.source_line = source_line
        self.kind = kind
        self.length = max(1, int(length))

    def caret_text(self) -> str:
        """The offending line (cut to a window around the spot) and a caret line under it."""
        text = "".join(ch if ch == "\t" or " " <= ch <= "~" else "?" for ch in self.source_line)
        start = 0
        if len(text) > _WINDOW:
            start = max(0, min(self.col - 1 - _WINDOW // 2, len(text) - _WINDOW))
        shown = text[start:start + _WINDOW]
        prefix = "..." if start > 0 else ""
        suffix = "..." if start + _WINDOW < len(text) else ""
        offset = self.col - 1 - start
        pad = "".join("\t" if ch == "\t" else " " for ch in shown[:offset])
        pad += " " * (offset - len(shown[:offset]))
        width = max(1, min(self.length, len(shown) - offset))
        return f"{prefix}{shown}{suffix}\n{' ' * len(prefix)}{pad}{'^' * width}"

    def __str__(self) -> str:
        return f"{self.message} (line {self.line}, column {self.col})\n{self.caret_text()}"


def position_of(source: str, offset: int) -> tuple[int, int]:
    """1-based (line, col) of a character offset into ``source``."""
    offset = max(0, min(offset, len(source)))
    line = source.count("\n", 0, offset) + 1
    start = source.rfind("\n", 0, offset) + 1
    return line, offset - start + 1


def line_text(source: str, line: int) -> str:
    """Text of 1-based ``line`` of ``source`` without its newline ('' past the end)."""
    start = 0
    for _ in range(line - 1):
        start = source.find("\n", start) + 1
        if start == 0:
            return ""
    end = source.find("\n", start)
    return source[start:] if end < 0 else source[start:end]
