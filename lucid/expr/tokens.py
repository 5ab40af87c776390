"""Characters -> tokens, refusing everything outside the language at its exact spot.

Names may be written in any script, as in Python (``가중치 = 2.0``), and
comments may hold any visible text; ``lucid.expr.characters`` says which
characters are refused and why (invisible ones, text-reordering ones,
look-alike variants, names mixing scripts). The operators the app prints
(``×``, ``·``, ``−``, ``÷``) read as ``*``, ``-``, ``/``. The tokenizer also
matches brackets, so "'(' was never closed" points at the bracket that was opened.
"""
from __future__ import annotations

import keyword
import re
import unicodedata
from typing import NamedTuple

from lucid.expr.characters import (
    OPERATOR_ALIASES,
    SUPERSCRIPTS,
    describe,
    is_name_char,
    is_name_start,
    name_problem,
    refusal,
)
from lucid.expr.errors import ExprError, line_text, position_of
from lucid.expr.limits import Limits
from lucid.i18n import L_, N_, Message


class Token(NamedTuple):
    kind: str  # "name", "number", "op", "def", "newline", "end"
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
| (?P<op>\*\*|<=|>=|==|!=|\.\.\.|[-+*/@()\[\],=:.<>])
""", re.VERBOSE | re.ASCII)

# Python spellings the language deliberately leaves out, tried before _TOKEN.
_FORBIDDEN = re.compile(r":=|//|\*\*=|[-+*/@%&|^]=|<<|>>|->")
_FORBIDDEN_FIRST = frozenset(":/*-+@%&|^<>")
_FORBIDDEN_MESSAGES = {
    ":=": N_("the walrus operator ':=' is not allowed; assign on its own line with '='"),
    "//": N_("floor division '//' is not supported; use '/'"),
    "<<": N_("bit shifts are not supported"),
    ">>": N_("bit shifts are not supported"),
    "->": N_("'->' is not allowed"),
}
_CHAR_MESSAGES = {
    "'": N_("strings are not allowed"),
    '"': N_("strings are not allowed"),
    "{": N_("braces are not allowed (no dicts, sets or format fields)"),
    "}": N_("braces are not allowed (no dicts, sets or format fields)"),
    ";": N_("';' is not allowed: write one statement per line"),
    "\\": N_("'\\' is not allowed: to continue a line, wrap the expression in parentheses"),
    "%": N_("'%' is not supported"),
    "&": N_("bitwise operators are not supported"),
    "|": N_("bitwise operators are not supported"),
    "^": N_("'^' is not supported; for powers use '**'"),
    "~": N_("'~' is not supported"),
    "!": N_("'!' is not supported; for 'not equal' use '!='"),
}
# What people paste from word processors and math text, and what to type instead.
_LOOKALIKES = {"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2217": "*",
               "\u2044": "/", "\u2215": "/", "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'}
_OPENERS = {"(": ")", "[": "]"}
_CLOSERS = {")": "(", "]": "["}

KEYWORD_MESSAGES = {
    "import": N_("imports are not allowed"), "from": N_("imports are not allowed"),
    "lambda": N_("lambda is not allowed"),
    "class": N_("defining classes is not allowed"),
    "if": N_("conditionals are not supported; see where(cond, a, b)"),
    "else": N_("conditionals are not supported; see where(cond, a, b)"),
    "elif": N_("conditionals are not supported; see where(cond, a, b)"),
    "for": N_("loops and comprehensions are not supported"), "while": N_("loops are not supported"),
    "and": N_("'and' is not supported"), "or": N_("'or' is not supported"), "not": N_("'not' is not supported"),
    "in": N_("'in' is not supported"), "is": N_("'is' is not supported"),
}
_KEYWORDS = (set(keyword.kwlist) - {"True", "False", "None"}) | {"print", "exec", "eval", "compile", "open"}


def fail(source: str, offset: int, message: str | Message, kind: str = "syntax", length: int = 1) -> ExprError:
    """An ExprError at a character offset of ``source``."""
    line, col = position_of(source, offset)
    return ExprError(message, line, col, line_text(source, line), kind, length)


def check_text(source: str, limits: Limits) -> None:
    """Length, line-count and character checks, before anything else looks at the text."""
    if len(source) > limits.max_source_chars:
        raise fail(source[:limits.max_source_chars + 1], limits.max_source_chars,
                   L_("the program is too long: {count} characters (the limit is {max_source_chars})",
                      count=len(source), max_source_chars=limits.max_source_chars),
                   "limit")
    lines = source.count("\n") + 1
    if lines > limits.max_lines:
        cut = 0
        for _ in range(limits.max_lines):
            cut = source.index("\n", cut) + 1
        raise fail(source, cut, L_("the program has too many lines: {lines} (the limit is {max_lines})",
                                   lines=lines, max_lines=limits.max_lines),
                   "limit")
    for bad in _BAD_CHAR.finditer(source):
        message = refusal(bad.group())
        if message:
            raise fail(source, bad.start(), message, "character")


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
            known = _FORBIDDEN_MESSAGES.get(text)
            message = L_(known) if known else L_(
                "augmented assignment '{text}' is not supported; write name = name {op} ...", text=text, op=text[:-1])
            raise fail(source, pos, message, length=len(text))
        ch = source[pos]
        if is_name_start(ch):
            end = pos + 1
            while end < n and is_name_char(source[end]):
                end += 1
            tokens.append(_name_token(source, pos, end, line, col))
            pos = end
            continue
        if not ch.isascii():
            if ch not in OPERATOR_ALIASES:
                raise _foreign(source, pos, tokens, line_start)
            tokens.append(Token("op", OPERATOR_ALIASES[ch], line, col))
            pos += 1
            continue
        m = _TOKEN.match(source, pos)
        if m is None:
            ch = source[pos]
            known = _CHAR_MESSAGES.get(ch)
            raise fail(source, pos, L_(known) if known else L_("unexpected character {shown}", shown=repr(ch)))
        kind, text = m.lastgroup, m.group()
        if kind == "newline":
            if not stack:
                tokens.append(Token("newline", text, line, col))
            line, line_start = line + 1, m.end()
        elif kind == "number":
            tail = m.end()
            while tail < n and (source[tail] == "." or is_name_char(source[tail])):
                tail += 1
            if tail > m.end():
                whole = source[pos:tail]
                raise fail(source, pos, L_("invalid number {whole}: write plain decimal numbers such as 3, 0.5 or 1e-3",
                                           whole=repr(whole)), length=len(whole))
            tokens.append(Token(kind, text, line, col))
        elif kind == "op":
            if text in _OPENERS:
                stack.append((text, pos))
            elif text in _CLOSERS:
                if not stack:
                    raise fail(source, pos, L_("unmatched '{text}'",
                                               text=text))
                opener, _ = stack.pop()
                if _CLOSERS[text] != opener:
                    raise fail(source, pos, L_("'{text}' does not match '{opener}'",
                                               text=text, opener=opener))
            tokens.append(Token(kind, text, line, col))
        pos = m.end()
    if stack:
        opener, at = stack[-1]
        raise fail(source, at, L_("'{opener}' was never closed",
                                  opener=opener))
    col = pos - line_start + 1
    tokens.append(Token("newline", "", line, col))
    tokens.append(Token("end", "", line, col))
    return tokens


def _name_token(source: str, start: int, end: int, line: int, col: int) -> Token:
    """A name in NFC form (invisible differences removed), or the reason it cannot be one."""
    typed = source[start:end]
    problem = name_problem(typed)
    if problem:
        at, message = problem
        raise fail(source, start + at, message, "character")
    text = unicodedata.normalize("NFC", typed)
    if len(text) > MAX_NAME_LENGTH:
        raise fail(source, start, L_("names can be at most {limit} characters long", limit=MAX_NAME_LENGTH),
                   "name", len(typed))
    if text.startswith("_"):
        raise fail(source, start, L_("names starting with '_' are not allowed ({text})",
                                     text=repr(text)), "name", len(typed))
    if text == "def":  # the one keyword the language has: a line that defines an op (see parser.definition)
        return Token("def", text, line, col)
    if text in _KEYWORDS:
        known = KEYWORD_MESSAGES.get(text)
        message = L_(known) if known else L_("'{text}' is not supported", text=text)
        raise fail(source, start, message, length=len(typed))
    return Token("name", text, line, col)


def _foreign(source: str, pos: int, tokens: list[Token], line_start: int) -> ExprError:
    """Why a non-ASCII character that is neither part of a name nor an operator alias cannot be here."""
    ch = source[pos]
    if ch in _SUPERSCRIPT_CHARS:
        return _superscript(source, pos, tokens, line_start)
    if unicodedata.category(ch) == "Zs":
        return fail(source, pos, L_("character {shown} is only allowed in comments: use an ordinary space",
                                    shown=describe(ch)),
                    "character")
    if unicodedata.category(ch) == "Nd":
        return fail(source, pos, L_("digit {shown} is not allowed: use the digits 0-9",
                                    shown=describe(ch)), "character")
    plain = _LOOKALIKES.get(ch) or unicodedata.normalize("NFKC", ch)
    if len(plain) == 1 and " " < plain <= "~":
        return fail(source, pos, L_("character {shown} is not allowed: type '{plain}' instead",
                                    shown=describe(ch), plain=plain), "character")
    return fail(source, pos, L_("character {shown} is only allowed in comments and names",
                                shown=describe(ch)), "character")


_SUPERSCRIPT_CHARS = frozenset("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺")


def _superscript(source: str, pos: int, tokens: list[Token], line_start: int) -> ExprError:
    """``2.2 × 10⁻³`` (as the app prints numbers) points at the whole number and says how to type it."""
    end = pos
    while end < len(source) and source[end] in _SUPERSCRIPT_CHARS:
        end += 1
    run = source[pos:end]
    power = run.translate(SUPERSCRIPTS)
    if not any(c.isdigit() for c in power):
        return fail(source, pos, L_("superscript {shown} is not supported",
                                    shown=describe(source[pos])), length=len(run))
    power = power.lstrip("+")
    ten = tokens[-1] if tokens else None
    line, _ = position_of(source, pos)

    def offset(tok: Token) -> int:
        return line_start + tok.col - 1

    if ten is not None and ten.kind == "number" and ten.text == "10" and ten.line == line \
            and offset(ten) + 2 == pos:
        before = tokens[-3:-1] if len(tokens) >= 3 else []
        if len(before) == 2 and before[0].kind == "number" and before[1].text == "*" and before[0].line == line:
            start = offset(before[0])
            return fail(source, start, L_("'{source}' is how the app prints a number; in a program write "
                                          "{text}e{power}", source=source[start:end], text=before[0].text,
                                          power=power), length=end - start)
        start = offset(ten)
        return fail(source, start, L_("'{source}' is how the app prints a power of ten; in a program write 1e{power}",
                                      source=source[start:end], power=power), length=end - start)
    return fail(source, pos, L_("superscript {shown} is not supported: for powers write **, like x**{power}",
                                shown=describe(source[pos]), power=power), length=len(run))
