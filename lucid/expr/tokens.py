"""Characters -> tokens, refusing everything outside the language at its exact spot.

Only printable ASCII, tab and newline may appear anywhere (comments included):
this rules out look-alike letters that Python would quietly normalise to ASCII
names, NUL bytes, right-to-left marks and the like. The tokenizer also matches
brackets, so "'(' was never closed" points at the bracket that was opened.
"""
from __future__ import annotations

import keyword
import re
import unicodedata
from typing import NamedTuple

from lucid.expr.errors import ExprError, line_text, position_of
from lucid.expr.limits import Limits


class Token(NamedTuple):
    kind: str  # "name", "number", "op", "newline", "end"
    text: str
    line: int
    col: int


MAX_NAME_LENGTH = 64  # names end up in messages and graph labels

_BAD_CHAR = re.compile(r"[^\t\n\x20-\x7e]")

_TOKEN = re.compile(r"""
  (?P<ws>[ \t]+)
| (?P<comment>\#[^\n]*)
| (?P<newline>\n)
| (?P<number>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)
| (?P<name>[A-Za-z_][A-Za-z0-9_]*)
| (?P<op>\*\*|<=|>=|==|!=|\.\.\.|[-+*/@()\[\],=:.<>])
""", re.VERBOSE)

# Python spellings the language deliberately leaves out, tried before _TOKEN.
_FORBIDDEN = re.compile(r":=|//|\*\*=|[-+*/@%&|^]=|<<|>>|->")
_FORBIDDEN_FIRST = frozenset(":/*-+@%&|^<>")
_FORBIDDEN_MESSAGES = {
    ":=": "the walrus operator ':=' is not allowed; assign on its own line with '='",
    "//": "floor division '//' is not supported; use '/'",
    "<<": "bit shifts are not supported",
    ">>": "bit shifts are not supported",
    "->": "'->' is not allowed",
}
_CHAR_MESSAGES = {
    "'": "strings are not allowed",
    '"': "strings are not allowed",
    "{": "braces are not allowed (no dicts, sets or format fields)",
    "}": "braces are not allowed (no dicts, sets or format fields)",
    ";": "';' is not allowed: write one statement per line",
    "\\": "'\\' is not allowed: to continue a line, wrap the expression in parentheses",
    "%": "'%' is not supported",
    "&": "bitwise operators are not supported",
    "|": "bitwise operators are not supported",
    "^": "'^' is not supported; for powers use '**'",
    "~": "'~' is not supported",
    "!": "'!' is not supported; for 'not equal' use '!='",
}
_NUMBER_TAIL = re.compile(r"[A-Za-z0-9_.]+")
_OPENERS = {"(": ")", "[": "]"}
_CLOSERS = {")": "(", "]": "["}

KEYWORD_MESSAGES = {
    "import": "imports are not allowed", "from": "imports are not allowed",
    "lambda": "lambda is not allowed", "def": "defining functions is not allowed",
    "class": "defining classes is not allowed",
    "if": "conditionals are not supported; see where(cond, a, b)",
    "else": "conditionals are not supported; see where(cond, a, b)",
    "elif": "conditionals are not supported; see where(cond, a, b)",
    "for": "loops and comprehensions are not supported", "while": "loops are not supported",
    "and": "'and' is not supported", "or": "'or' is not supported", "not": "'not' is not supported",
    "in": "'in' is not supported", "is": "'is' is not supported",
}
_KEYWORDS = (set(keyword.kwlist) - {"True", "False", "None"}) | {"print", "exec", "eval", "compile", "open"}


def fail(source: str, offset: int, message: str, kind: str = "syntax", length: int = 1) -> ExprError:
    """An ExprError at a character offset of ``source``."""
    line, col = position_of(source, offset)
    return ExprError(message, line, col, line_text(source, line), kind, length)


def describe_char(ch: str) -> str:
    """A safe, readable description of a character that is not allowed."""
    code = f"U+{ord(ch):04X}"
    name = unicodedata.name(ch, "")
    shown = repr(ch) if ch.isprintable() and ch.strip() else ""
    return " ".join(part for part in (shown, f"({code}{' ' + name if name else ''})") if part)


def check_text(source: str, limits: Limits) -> None:
    """Length, line-count and character checks, before anything else looks at the text."""
    if len(source) > limits.max_source_chars:
        raise fail(source[:limits.max_source_chars + 1], limits.max_source_chars,
                   f"the program is too long: {len(source)} characters (the limit is {limits.max_source_chars})",
                   "limit")
    lines = source.count("\n") + 1
    if lines > limits.max_lines:
        cut = 0
        for _ in range(limits.max_lines):
            cut = source.index("\n", cut) + 1
        raise fail(source, cut, f"the program has too many lines: {lines} (the limit is {limits.max_lines})",
                   "limit")
    bad = _BAD_CHAR.search(source)
    if bad:
        ch = bad.group()
        raise fail(source, bad.start(), f"character {describe_char(ch)} is not allowed: "
                   "use plain ASCII letters, digits, operators and spaces", "character")


def tokenize(source: str, limits: Limits) -> list[Token]:
    """Tokens of an already-normalised program; newlines inside brackets are dropped."""
    check_text(source, limits)
    tokens: list[Token] = []
    stack: list[tuple[str, int]] = []  # open brackets and their offsets
    pos, line, line_start, n = 0, 1, 0, len(source)
    while pos < n:
        col = pos - line_start + 1
        bad = _FORBIDDEN.match(source, pos) if source[pos] in _FORBIDDEN_FIRST else None
        if bad:
            text = bad.group()
            message = _FORBIDDEN_MESSAGES.get(text) or (
                f"augmented assignment '{text}' is not supported; write name = name {text[:-1]} ...")
            raise fail(source, pos, message, length=len(text))
        m = _TOKEN.match(source, pos)
        if m is None:
            ch = source[pos]
            raise fail(source, pos, _CHAR_MESSAGES.get(ch, f"unexpected character {ch!r}"))
        kind, text = m.lastgroup, m.group()
        if kind == "newline":
            if not stack:
                tokens.append(Token("newline", text, line, col))
            line, line_start = line + 1, m.end()
        elif kind == "number":
            tail = _NUMBER_TAIL.match(source, m.end())
            if tail:
                whole = text + tail.group()
                raise fail(source, pos, f"invalid number {whole!r}: write plain decimal numbers such as 3, 0.5 "
                           "or 1e-3", length=len(whole))
            tokens.append(Token(kind, text, line, col))
        elif kind == "name":
            if len(text) > MAX_NAME_LENGTH:
                raise fail(source, pos, f"names can be at most {MAX_NAME_LENGTH} characters long", "name", len(text))
            if text.startswith("_"):
                raise fail(source, pos, f"names starting with '_' are not allowed ({text!r})", "name", len(text))
            if text in _KEYWORDS:
                message = KEYWORD_MESSAGES.get(text, f"'{text}' is not supported")
                raise fail(source, pos, message, length=len(text))
            tokens.append(Token(kind, text, line, col))
        elif kind == "op":
            if text in _OPENERS:
                stack.append((text, pos))
            elif text in _CLOSERS:
                if not stack:
                    raise fail(source, pos, f"unmatched '{text}'")
                opener, _ = stack.pop()
                if _CLOSERS[text] != opener:
                    raise fail(source, pos, f"'{text}' does not match '{opener}'")
            tokens.append(Token(kind, text, line, col))
        pos = m.end()
    if stack:
        opener, at = stack[-1]
        raise fail(source, at, f"'{opener}' was never closed")
    col = pos - line_start + 1
    tokens.append(Token("newline", "", line, col))
    tokens.append(Token("end", "", line, col))
    return tokens
