"""Which Unicode characters a program may hold, and where, so no two different programs look alike.

Names follow Python's rules (PEP 3131): a name starts with a character of
XID_Start and goes on with XID_Continue (``str.isidentifier``), and names are
compared after NFKC normalisation. Three deliberate tightenings keep what is on
screen and what runs the same thing:

- Canonical differences (a Hangul syllable typed as one character or as its
  jamo) are invisible, so a name is silently put in NFC form. A name whose NFKC
  form differs from that (fullwidth ``ｘ``, the ligature ``ﬁ``, math ``𝐱``, the
  micro sign ``µ``) is refused with the plain letter to type instead: Python
  would quietly read it as another name, and a drawn name is always what was typed.
- The letters of one name come from one script (UTS #39 "highly restrictive"):
  Latin with Cyrillic ``а`` in ``bаd`` is refused; Latin may mix with Hangul, Han
  and Kana the way Korean, Chinese and Japanese writers do (``W1_가중치``).
- U+00B7 MIDDLE DOT continues a name in Python, but here it is multiplication,
  as the app prints it (``×``, ``·`` and ``⋅`` are ``*``, ``−`` is ``-``, ``÷`` is ``/``).

Everywhere, comments included, characters that cannot be seen or that reorder
text are refused: controls, bidirectional overrides and isolates, zero-width
and other default-ignorable characters (the Hangul fillers among them), line
and paragraph separators, surrogates, private-use and unassigned code points.
Comments may hold any other text.
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache

from lucid.i18n import L_, Message

#: Operators the app prints, read back as the language's own.
OPERATOR_ALIASES = {"×": "*", "·": "*", "⋅": "*", "−": "-", "÷": "/"}

#: Superscripts: the app prints ``2.2 × 10⁻³``; a program writes ``2.2e-3``.
SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")

_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")

# Default_Ignorable_Code_Point (Unicode DerivedCoreProperties): drawn as nothing at all.
_IGNORABLE = ((0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
              (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
              (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
              (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF))

# Scripts that may share a name with each other and with Latin (UTS #39 highly restrictive).
_CJK_SETS = (frozenset({"Han", "Hangul"}), frozenset({"Han", "Kana"}), frozenset({"Han", "Bopomofo"}))
# Greek and Cyrillic letters drawn like Latin ones: a name made only of these reads as a Latin name.
_LATIN_LOOKALIKES = dict(zip(
    "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧονρАВЕКМНОРСТХІЈЅаеорсухіјѕԁһԛԝӏ",
    "ABEZHIKMNOPTYXovpABEKMHOPCTXIJSaeopcyxijsdhqwl"))
_SCRIPT_WORDS = {"CJK": "Han", "IDEOGRAPHIC": "Han", "HIRAGANA": "Kana", "KATAKANA": "Kana",
                 "KATAKANA-HIRAGANA": "Kana", "HALFWIDTH": "Kana"}


def is_ignorable(ch: str) -> bool:
    """A character with no glyph of its own (zero-width, joiners, fillers, variation selectors ...)."""
    code = ord(ch)
    return any(lo <= code <= hi for lo, hi in _IGNORABLE)


def describe(ch: str) -> str:
    """``'가' (U+AC00 HANGUL SYLLABLE GA)``; invisible characters only by code and name."""
    code = f"U+{ord(ch):04X}"
    name = unicodedata.name(ch, "")
    shown = f"'{ch}' " if ch.isprintable() and ch.strip() and not is_ignorable(ch) else ""
    return f"{shown}({code}{' ' + name if name else ''})"


@lru_cache(maxsize=8192)  # a program uses few distinct characters; Hangul text repeats them
def refusal(ch: str) -> Message | None:
    """Why ``ch`` may appear nowhere in a program, not even in a comment (None: it may, somewhere)."""
    if ch in "\t\n" or " " <= ch <= "~":
        return None
    shown = describe(ch)
    category = unicodedata.category(ch)
    if ch in _BIDI:
        return L_("character {shown} is not allowed: it changes the order in which text is displayed, so the "
                  "program would not read as it runs", shown=shown)
    if is_ignorable(ch) or category == "Cf":
        return L_("character {shown} is not allowed: it is invisible, so two programs that look the same could "
                  "differ; delete it", shown=shown)
    if category == "Cc" or category in ("Zl", "Zp"):
        return L_("character {shown} is not allowed: only ordinary spaces, tabs and new lines may separate code",
                  shown=shown)
    if category in ("Cs", "Co", "Cn"):
        return L_("character {shown} is not allowed: it is not a character that can be shown (unassigned, "
                  "private or a lone surrogate)", shown=shown)
    return None


@lru_cache(maxsize=8192)
def script_of(ch: str) -> str | None:
    """The script of a letter (``Latin``, ``Hangul``, ``Han`` ...); None for digits, ``_`` and marks."""
    if ch.isascii():
        return "Latin" if ch.isalpha() else None
    if unicodedata.category(ch) in ("Mn", "Mc", "Me", "Nd", "Pc"):
        return None
    word = unicodedata.name(ch, "?").split(" ")[0]
    return _SCRIPT_WORDS.get(word, word.title())


def scripts_may_mix(scripts: set[str]) -> bool:
    """One script, or Latin and the scripts written together in Korean, Chinese or Japanese."""
    rest = scripts - {"Latin"}
    return len(scripts) <= 1 or any(rest <= s for s in _CJK_SETS)


def is_name_start(ch: str) -> bool:
    return ch.isidentifier() and ch not in OPERATOR_ALIASES


def is_name_char(ch: str) -> bool:
    return ch not in OPERATOR_ALIASES and (ch.isascii() and (ch.isalnum() or ch == "_")
                                           or not ch.isascii() and ("a" + ch).isidentifier())


@lru_cache(maxsize=8192)
def _letter_problem(ch: str) -> Message | None:
    """Why the non-ASCII character ``ch`` cannot be part of a name, whatever its neighbours."""
    plain = unicodedata.normalize("NFKC", ch)
    if plain != unicodedata.normalize("NFC", ch):
        return L_("character {shown} is a variant of '{plain}': type '{plain}' instead (names are compared after "
                  "Unicode NFKC normalisation, so both would be one name)", shown=describe(ch), plain=plain)
    if unicodedata.category(ch) == "Nd":
        return L_("digit {shown} is not allowed in names: use the digits 0-9", shown=describe(ch))
    return None


def name_problem(text: str) -> tuple[int, Message] | None:
    """(index into ``text``, message) of the first reason ``text`` cannot be a name, else None."""
    for i, ch in enumerate(text):
        problem = None if ch.isascii() else _letter_problem(ch)
        if problem:
            return i, problem
    if unicodedata.normalize("NFKC", text) != unicodedata.normalize("NFC", text):
        return 0, L_("name '{text}' changes under Unicode NFKC normalisation: type it in plain letters", text=text)
    first: tuple[int, str] | None = None
    seen: set[str] = set()
    for i, ch in enumerate(text):
        script = script_of(ch)
        if script is None:
            continue
        if first is None:
            first = (i, script)
        seen.add(script)
        if not scripts_may_mix(seen):
            return i, L_("name '{text}' mixes {first} letters with the {script} {shown}: letters of different "
                         "scripts can look identical, so write each name in one script", text=text, first=first[1],
                         script=script, shown=describe(ch))
    letters = [ch for ch in text if script_of(ch) is not None]
    if letters and all(ch in _LATIN_LOOKALIKES for ch in letters):
        latin = "".join(_LATIN_LOOKALIKES.get(ch, ch) for ch in text)
        script = script_of(letters[0])
        return 0, L_("name '{text}' looks like the Latin name '{latin}' but is written in {script} letters, such "
                     "as {shown}: type it in Latin letters", text=text, latin=latin, script=script,
                     shown=describe(letters[0]))
    return None
