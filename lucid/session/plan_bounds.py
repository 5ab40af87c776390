"""Bounds a lesson plan must keep before any TOML parser reads it: one linear scan, no parsing.

Why: Python's ``tomllib`` takes time and memory quadratic in the number of parts of one dotted key
(``a.a.a.…= 1``: 40 KB of it costs about 1.5 GB and seconds of CPU), and it recurses once per level of
nested inline arrays and tables, so ``x = [[[[…`` ends in ``RecursionError``. A plan is pasted by whoever
holds the page, so both are a few keystrokes away. ``problem`` walks the text once, keeping track of
what TOML would treat as a string (basic ``"…"``, literal ``'…'``, multi-line ``\"\"\"…\"\"\"`` and ``'''…'''``,
with escapes) or a comment, and refuses, naming the limit and the line, anything no lesson plan needs:
a very long text or line, too many lines, a long key or unquoted word, a key of many dotted parts,
deep nesting, more ``[[link]]`` tables than a lesson holds. Text that passes may still be invalid TOML;
the parser then says so, and a plan that passes costs the parser time linear in its length.

No Streamlit here: ``lucid.session.lesson_plan`` calls it, and tests call it directly.
"""
from __future__ import annotations

import re

from lucid.i18n import L_, Message

MAX_PLAN_CHARS = 200_000
"""A plan file's text (ten programs at the language's own limit of 10,000 characters, and their links)."""
MAX_LINKS = 40
"""Links in one lesson: a long lecture has a dozen views; more is not a lesson plan."""
MAX_LINES = 10_000
"""Lines of a plan: forty links, each a program at the language's limit of 200 lines and a few keys."""
MAX_LINE_CHARS = 50_000
"""Characters on one physical line, inside multi-line strings too: a ``url = "…"`` line holds a whole shared
link (at most 40,000 characters, four times the longest program a link carries); a program's own lines are
far shorter. Generous on purpose: it only names the line of a text that is not a plan."""
MAX_KEY_CHARS = 100
"""Characters of one key, all its parts, dots and quotes included (a plan's keys are ``title``, ``link``,
``code``, ``url``, ``step``)."""
MAX_BARE_CHARS = 100
"""Characters of one unquoted word: a key part, a number, a date, ``true`` (the longest TOML date-time is
35). Also keeps an integer of thousands of digits, which Python refuses to convert, away from the parser."""
MAX_KEY_PARTS = 8
"""Parts of one dotted key (``a.b.c`` has three). The parser's cost grows with the square of this number;
a plan needs one part."""
MAX_NESTING = 16
"""Brackets and braces open at once outside strings: ``[[link]]`` opens two, ``link = [{code = "…"}]`` two.
The parser recurses once per level and fails a few hundred levels deep."""

_BARE = re.compile(r"[A-Za-z0-9_\-+:]+")
_SPACE = re.compile(r"[ \t\r]+")
_BASIC_BODY = re.compile(r'[^"\\\n]*(?:\\.[^"\\\n]*)*')
_LITERAL_BODY = re.compile(r"[^'\n]*")
_OTHER = re.compile(r"[^\s\"'#\[\]{}=.A-Za-z0-9_\-+:]+")
"""A run of characters that mean nothing to the scan (taken whole, so junk costs one step per run)."""
_LINK_HEADER = re.compile(r"""\[\[[ \t]*(?:link|"link"|'link')[ \t]*\]\]""")


class LessonError(ValueError):
    """A lesson plan that cannot be used; the message says what to fix (for the teacher, not a traceback)."""


def _where(text: str, pos: int) -> tuple[int, int]:
    """The 1-based line and column of ``pos`` (worked out only for a refusal, so the scan stays one pass)."""
    line_start = text.rfind("\n", 0, pos) + 1
    return text.count("\n", 0, pos) + 1, pos - line_start + 1


def _refuse(text: str, pos: int, message: Message) -> LessonError:
    line, column = _where(text, pos)
    return LessonError(L_("line {line}, column {column}: {problem}", line=line, column=column, problem=message))


def _end_of_multiline(text: str, pos: int, quote: str) -> int:
    """Where a multi-line string opened just before ``pos`` ends (after its closing quotes), or the text's end.

    The closing delimiter is three quotes not escaped by a backslash (basic strings only); up to two more
    quotes just before it belong to the string, so a whole run of quotes is taken.
    """
    fence = quote * 3
    while True:
        end = text.find(fence, pos)
        if end < 0:
            return len(text)
        if quote == '"':
            backslashes = 0
            while end - backslashes - 1 >= pos and text[end - backslashes - 1] == "\\":
                backslashes += 1
            if backslashes % 2:
                pos = end + 1
                continue
        while end < len(text) and text[end] == quote:
            end += 1
        return end


def _check_lines(text: str) -> None:
    if text.count("\n") >= MAX_LINES:
        raise LessonError(L_("the plan has more than {MAX_LINES} lines",
                             MAX_LINES=format(MAX_LINES, ",")))
    lines = text.split("\n")
    longest = max(range(len(lines)), key=lambda i: len(lines[i]))
    if len(lines[longest]) > MAX_LINE_CHARS:
        raise LessonError(L_("line {line} is longer than {MAX_LINE_CHARS} characters",
                             line=longest + 1, MAX_LINE_CHARS=format(MAX_LINE_CHARS, ",")))


def problem(text: str) -> LessonError | None:
    """Why ``text`` must not reach a TOML parser, as the error to raise, or None; linear in ``len(text)``."""
    try:
        check(text)
    except LessonError as err:
        return err
    return None


def check(text: str) -> None:
    """Raise ``LessonError`` naming the first bound ``text`` breaks (see the ``MAX_`` constants)."""
    if len(text) > MAX_PLAN_CHARS:
        raise LessonError(L_("the plan is longer than {MAX_PLAN_CHARS} characters",
                             MAX_PLAN_CHARS=format(MAX_PLAN_CHARS, ",")))
    _check_lines(text)
    pos, depth, links = 0, 0, 0
    line_start = True  # nothing but spaces since the last newline (where a [table] header may begin)
    header_depth = -1  # the depth a table header opened at, while inside one
    key_start, parts, expect_part = -1, 0, False  # the dotted key (or value) being read
    size = len(text)
    while pos < size:
        char = text[pos]
        space = _SPACE.match(text, pos)
        if space:
            pos = space.end()
            continue
        starts_part = char in "\"'" and not text.startswith(char * 3, pos) or _BARE.match(text, pos) is not None
        if starts_part:
            if not expect_part:
                key_start, parts = pos, 0
            parts += 1
            if parts > MAX_KEY_PARTS:
                raise _refuse(text, key_start, L_("a dotted key has more than {MAX_KEY_PARTS} parts",
                                                  MAX_KEY_PARTS=MAX_KEY_PARTS))
            if char == '"':
                pos = _BASIC_BODY.match(text, pos + 1).end()
                pos += 1 if pos < size and text[pos] in '"\\' else 0
            elif char == "'":
                pos = _LITERAL_BODY.match(text, pos + 1).end()
                pos += 1 if pos < size and text[pos] == "'" else 0
            else:
                word = _BARE.match(text, pos)
                if word.end() - pos > MAX_BARE_CHARS:
                    raise _refuse(text, pos, L_("a word outside quotes is longer than {MAX_BARE_CHARS} characters",
                                                MAX_BARE_CHARS=MAX_BARE_CHARS))
                pos = word.end()
            expect_part, line_start = False, False
            continue
        if char == "." and key_start >= 0 and not expect_part:
            expect_part = True
            pos += 1
            continue
        ends_key = char == "=" or (char == "]" and header_depth >= 0)
        if ends_key and key_start >= 0 and pos - key_start > MAX_KEY_CHARS:
            raise _refuse(text, key_start, L_("a key is longer than {MAX_KEY_CHARS} characters",
                                              MAX_KEY_CHARS=MAX_KEY_CHARS))
        key_start, parts, expect_part = -1, 0, False
        if char == "\n":
            line_start = True
            pos += 1
            continue
        if char == "#":
            end = text.find("\n", pos)
            pos = size if end < 0 else end
            continue
        if char in "\"'":  # a multi-line string (a single quote started a part above)
            pos = _end_of_multiline(text, pos + 3, char)
            line_start = False
            continue
        if char in "[{":
            if char == "[" and line_start and depth == 0:
                header_depth = 0
                if _LINK_HEADER.match(text, pos):
                    links += 1
                    if links > MAX_LINKS:
                        raise _refuse(text, pos, L_("a lesson has at most {MAX_LINKS} links; this is link {count}",
                                                    MAX_LINKS=MAX_LINKS, count=links))
            depth += 1
            if depth > MAX_NESTING:
                raise _refuse(text, pos, L_("brackets and braces are nested more than {MAX_NESTING} deep",
                                            MAX_NESTING=MAX_NESTING))
        elif char in "]}":
            depth = max(depth - 1, 0)
            if header_depth >= 0 and depth <= header_depth:
                header_depth = -1
        line_start = False
        other = _OTHER.match(text, pos)
        pos = other.end() if other else pos + 1
