"""The one translation layer: every string a person reads goes through ``_``/``ngettext`` here.

Why a ``ContextVar`` and not a module-global switch: Streamlit runs each session's script in its own
thread, so one student choosing 한국어 must not turn a neighbour's page Korean. Each run (or each
computation on behalf of a run) sets the language for its own context with ``use_language`` or
``set_language``; everything below reads it.

Catalogs are standard gettext ``.po`` files under ``lucid/locale/<lang>/LC_MESSAGES/lucid.po``,
extracted with Babel (``babel.cfg`` at the top of the repository). Only the ``.po`` is kept in the
repository: it is compiled in memory the first time a language is used, so a fresh clone works with
no build step. Missing or fuzzy entries fall back to the English text.

Strings that must be marked where they are defined but translated where they are shown (gallery
titles, tables at module level) use ``N_`` (a no-op marker Babel extracts) and are passed through
``_`` at display time.
"""
from __future__ import annotations

import functools
import gettext as stdlib_gettext
import io
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from pathlib import Path

DOMAIN = "lucid"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DEFAULT_LANGUAGE = "en"
#: The languages the interface offers, each named in its own language (what a picker shows).
LANGUAGES: dict[str, str] = {"en": "English", "ko": "한국어"}

_language: ContextVar[str] = ContextVar("lucid_language", default=DEFAULT_LANGUAGE)


def normalize_language(value: object) -> str:
    """A supported language code for ``value`` (``"ko"``, ``"ko-KR"``, ``"ko_KR"``, ``"KO"``), else English.

    Links and browsers send many spellings; anything not offered falls back to the default rather
    than failing, since a link with ``lang=xx`` should still open.
    """
    if not isinstance(value, str):
        return DEFAULT_LANGUAGE
    code = value.strip().replace("_", "-").split("-")[0].lower()
    return code if code in LANGUAGES else DEFAULT_LANGUAGE


def current_language() -> str:
    """The language of the current context (thread / task / ``use_language`` block)."""
    return _language.get()


def set_language(language: object) -> Token[str]:
    """Set the language for the rest of the current context (one Streamlit script run); returns a reset token."""
    return _language.set(normalize_language(language))


@contextmanager
def use_language(language: object) -> Iterator[str]:
    """Within the block, the current context speaks ``language`` (a cached build made for one language)."""
    token = set_language(language)
    try:
        yield _language.get()
    finally:
        _language.reset(token)


@functools.cache
def translations(language: str) -> stdlib_gettext.NullTranslations:
    """The compiled catalog of ``language``: every ``.po`` of its folder merged, compiled to ``.mo`` in memory, once.

    ``lucid.po`` holds the Playground's messages, ``lessons.po`` the lesson pages', ``forward.po`` forward mode's
    and ``grad()``'s, ``classroom.po`` class mode's (kept apart so several people can translate at once without
    editing one file); ``merged_catalog`` says how they are combined. English needs no catalog, and no Babel:
    the library alone speaks English; the app and notebook extras bring Babel for the other languages, and
    without it a language falls back to English rather than failing.
    """
    if language == DEFAULT_LANGUAGE:
        return stdlib_gettext.NullTranslations()
    try:
        from babel.messages.mofile import write_mo
        from babel.support import Translations
    except ImportError:  # pragma: no cover - the app's requirements install Babel
        return stdlib_gettext.NullTranslations()
    catalog = merged_catalog(language)
    if catalog is None:
        return stdlib_gettext.NullTranslations()
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    buffer.seek(0)
    return Translations(fp=buffer, domain=DOMAIN)


def catalog_files(language: str, locale_dir: Path = LOCALE_DIR) -> list[Path]:
    """The ``.po`` files of ``language``: ``lucid.po`` first, then the others by name."""
    folder = locale_dir / language / "LC_MESSAGES"
    files = sorted(folder.glob("*.po")) if folder.is_dir() else []
    return sorted(files, key=lambda path: (path.stem != DOMAIN, path.name))


def _usable(message) -> bool:
    """Whether a catalog entry has a translation to use: every form non-empty and not fuzzy."""
    strings = message.string if isinstance(message.string, tuple | list) else (message.string,)
    return not message.fuzzy and all(strings)


def merged_catalog(language: str, locale_dir: Path = LOCALE_DIR):
    """One Babel catalog of every ``.po`` of ``language`` (None when it has none).

    A message found in several files takes the first usable translation in ``catalog_files`` order
    (``lucid.po`` first); an empty or fuzzy entry never hides a translation another file has.
    """
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import read_po

    files = catalog_files(language, locale_dir)
    if not files:
        return None
    merged: Catalog | None = None
    for path in files:
        with path.open("rb") as fh:
            catalog = read_po(fh, locale=language, domain=DOMAIN)
        if merged is None:
            merged = catalog
            continue
        for message in catalog:
            if not message.id:
                continue
            known = merged.get(message.id, context=message.context)
            if known is None or (not _usable(known) and _usable(message)):
                if known is not None:  # Catalog's item assignment would keep the old text: replace it whole
                    merged.delete(message.id, context=message.context)
                merged[message.id] = message
    return merged


def _(message: str) -> str:
    """``message`` in the current language (the English text when it has no translation)."""
    return translations(current_language()).gettext(message)


gettext = _


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a counted message for ``n`` in the current language (Korean has one form, English two)."""
    return translations(current_language()).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` translated in ``context``: the same English word may need two Korean words."""
    return translations(current_language()).pgettext(context, message)


def N_(message: str) -> str:
    """Mark ``message`` for extraction without translating it now; ``_`` translates it where it is shown."""
    return message


def locale_name(language: str | None = None) -> str:
    """The CLDR locale of a language code, for Babel's number formatting."""
    return normalize_language(language or current_language())


def format_decimal(value: float, pattern: str | None = None) -> str:
    """``value`` with the current language's decimal and grouping signs (CLDR, through Babel)."""
    try:
        from babel.numbers import format_decimal as babel_format_decimal
    except ImportError:  # pragma: no cover - English without Babel: Python's own grouping
        return f"{value:,}"
    return babel_format_decimal(value, format=pattern, locale=locale_name())


def format_integer(value: int) -> str:
    """A count with the current language's grouping (1,234 in both English and Korean)."""
    return format_decimal(int(value), "#,##0")


def format_percent(value: float, pattern: str | None = None) -> str:
    """``value`` (0.25) as a percentage in the current language's style."""
    try:
        from babel.numbers import format_percent as babel_format_percent
    except ImportError:  # pragma: no cover - English without Babel
        return f"{value:.0%}"
    return babel_format_percent(value, format=pattern, locale=locale_name())


class Message:
    """A message kept as its English template and values, rendered in whichever language reads it.

    Text computed once and shared by every session (an ``ExprError`` kept in the process-wide cache, a
    reason in a cached table) must not be frozen in the language of the session that happened to compute
    it: it holds a ``Message``, and ``str()`` renders it where it is shown, in that reader's language.
    Values that are ``Message`` themselves are rendered too. A translation whose placeholders do not
    match the English ones falls back to English rather than failing.
    """

    __slots__ = ("msgid", "plural", "n", "params")

    def __init__(self, msgid: str, params: dict[str, object] | None = None, *, plural: str | None = None,
                 n: int | None = None) -> None:
        self.msgid = msgid
        self.plural = plural
        self.n = n
        self.params = tuple((params or {}).items())

    def render(self, language: str | None = None) -> str:
        if language is not None:
            with use_language(language):
                return self.render()
        if self.plural is not None:
            template = ngettext(self.msgid, self.plural, int(self.n or 0))
            english = self.msgid if self.n == 1 else self.plural
        else:
            template = _(self.msgid)
            english = self.msgid
        if not self.params and self.plural is None:
            return template
        values = {k: str(v) if isinstance(v, Message) else v for k, v in self.params}
        values.setdefault("n", self.n)
        try:
            return template.format(**values)
        except (KeyError, IndexError, ValueError):  # a translation with the wrong placeholders: English
            return english.format(**values)

    def __str__(self) -> str:
        return self.render()

    def __contains__(self, part: str) -> bool:
        return part in self.render()

    def __format__(self, spec: str) -> str:
        return format(self.render(), spec)

    def __repr__(self) -> str:
        return f"Message({self.msgid!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Message):
            return (self.msgid, self.plural, self.n, self.params) == (other.msgid, other.plural, other.n,
                                                                      other.params)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.msgid, self.plural, self.n))


def L_(msgid: str, **params: object) -> Message:
    """A lazily translated message: ``L_("unmatched '{text}'", text=t)``; Babel extracts ``msgid``."""
    return Message(msgid, params)


def LN_(singular: str, plural: str, n: int, **params: object) -> Message:
    """A lazily translated counted message; ``{n}`` in the templates is the count."""
    return Message(singular, params, plural=plural, n=n)


def english(value: object) -> str:
    """``value`` in English, whatever the current language (for code that inspects a message's words)."""
    return value.render(DEFAULT_LANGUAGE) if isinstance(value, Message) else str(value)


def text(value: object) -> str:
    """``value`` as the current reader's text: a ``Message`` is rendered, anything else is ``str()``."""
    return value.render() if isinstance(value, Message) else str(value)


def T_(msgid: str, **values: object) -> list[object]:
    """``msgid`` translated and cut at its ``{name}`` placeholders, each value put in its place.

    For text whose pieces are not all plain strings (an explanation's names in bold, formulas in code
    spans): the sentence is translated whole, so each language keeps its own word order, and the pieces
    keep their type. A value that is a list or tuple is spliced in. A translation whose placeholders do
    not match the English ones falls back to the English sentence.
    """
    try:
        return _split(_(msgid), values)
    except (KeyError, ValueError):
        return _split(msgid, values)


def TN_(singular: str, plural: str, n: int, **values: object) -> list[object]:
    """``T_`` for a counted sentence: the form for ``n`` (``{n}`` in the templates is the count)."""
    values.setdefault("n", n)
    try:
        return _split(ngettext(singular, plural, n), values)
    except (KeyError, ValueError):
        return _split(singular if n == 1 else plural, values)


def _split(template: str, values: dict[str, object]) -> list[object]:
    out: list[object] = []
    for literal, field, _spec, _conv in _FORMATTER.parse(template):
        if literal:
            out.append(literal)
        if field is None:
            continue
        value = values[field]
        if isinstance(value, list | tuple):
            out.extend(value)
        else:
            out.append(value if isinstance(value, str) else text(value))
    return out


#: Babel's keywords for this project: the standard ones plus the lazy and template helpers above.
KEYWORDS: dict[str, object] = {"_": None, "gettext": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2),
                               "N_": None, "L_": None, "LN_": (1, 2), "T_": None,
                               "TN_": (1, 2)}


_FORMATTER = __import__("string").Formatter()
