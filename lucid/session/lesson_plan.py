"""A lesson: an ordered list of Playground links that a presenter's clicker steps through.

The teacher writes the plan once, as a small TOML file (pasted or uploaded)::

    title = "Backprop in 50 minutes"

    [[link]]
    title = "The chain rule"
    code = '''
    x = 2.0
    y = x * x
    '''

    [[link]]
    url = "https://lab.example/playground?code=x+%3D+3.0%0Ay+%3D+x+*+x&step=2&style=circuit"

    [[link]]
    title = "The sigmoid gate"
    example = "cs231n-sigmoid"
    style = "circuit"
    classroom = true

Each ``[[link]]`` holds a program (``code``), a shared Playground link (``url``, or just its query
``code=…&step=…``) or a gallery example's slug (``example``; a ``url`` may name one too,
``?example=cs231n-sigmoid``), an optional start ``step`` and ``title``, and any view word a Playground
link carries (``VIEW_WORDS``: ``style``, ``dir``, ``hide``, ``large``, ``zoom``, ``classroom``, ``speed``,
``lang``), which win over the same words in its ``url``. A view word's value is checked like the
Playground's own (``view_word``): a misspelt one is refused, naming the link, the key and its line,
rather than opening the default view in front of the class. A plain list of links, one per line, is a
plan too. The lesson then travels in the Playground's own URL (``lesson=``: the links and their views
packed like a long program, ``at=``: which link is on screen), so the lesson itself is a link a teacher
can bookmark; a lesson packed before links carried views still opens.

Opening a link applies its view (``opened_view``). The drawing (``DRAWING_WORDS``: style, direction,
what the nodes show, compact drawing) belongs to the link: a link that leaves one out is drawn the
default way, exactly as that link opens on its own. The room's setup (``ROOM_WORDS``: Classroom mode,
graph size, autoplay speed, language) belongs to the lecturer: a link that names one sets it, one that
does not keeps what is on screen, so a link copied on a laptop never switches Classroom mode off, a
Korean lecture back to English, or the speed the lecturer chose, in the middle of the lecture.

After the last step of one program, Next opens the next link at its start step; Previous at step 0 goes
back to the previous link's last step. Nothing here trusts its input: a plan or a packed lesson is
bounded in size and number of links, every field is checked by type, and a program is only ever text
for ``lucid.expr`` (never evaluated here). Pure functions, no Streamlit, so they are tested directly.
"""
from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from lucid import gallery, i18n
from lucid.i18n import L_, Message
from lucid.session import plan_bounds, share
from lucid.session.browser_events import json_text_problem
from lucid.session.plan_bounds import MAX_LINKS, MAX_PLAN_CHARS, LessonError
from lucid.session.stepping import OLD_SPEEDS, SPEEDS

LESSON_KEY = "lesson"
"""Query parameter holding the packed lesson."""
AT_KEY = "at"
"""Query parameter holding the position in the lesson (0 is the first link)."""

MAX_PACKED_CHARS = 120_000
"""What a ``lesson=`` parameter may unpack to (the links' programs and titles as JSON)."""
MAX_TITLE_CHARS = 120
"""A link's title is one line on the screen; longer ones are cut."""

LAST = -1
"""Start step meaning "the program's last step" (where Previous from the next link lands)."""

LANGUAGE_KEY = "lang"
DRAWING_WORDS = ("dir", "hide", "large", "style")
"""View words that describe how a link's program is drawn: the link's own, the default when it says nothing
(the same words a class's students take from their teacher, ``lucid.live_class.feed.DRAWING_WORDS``)."""
ROOM_WORDS = ("classroom", "zoom", "speed", LANGUAGE_KEY)
"""View words that describe the room (projector, pace, language): the lecturer's, kept unless a link names one."""
VIEW_WORDS = (*DRAWING_WORDS, *ROOM_WORDS)
"""Every view word a lesson link may carry: ``share.VIEW_DEFAULTS``'s and the language."""
assert set(VIEW_WORDS) == {*share.VIEW_DEFAULTS, LANGUAGE_KEY}

_LINK_KEYS = ("code", "url", "example", "step", "title")
_HIDE_WORDS = "v values, g gradients, s shapes, c constants"


@dataclass(frozen=True)
class LessonLink:
    """One view of the lesson: a program, the step it opens at (None: the seed), a title (may be empty) and
    the view words the link names (``view``: sorted ``(word, value)`` pairs, values as a Playground link
    writes them; the words it leaves out are settled by ``opened_view``)."""

    source: str
    step: int | None = None
    title: str = ""
    view: tuple[tuple[str, str], ...] = ()

    def words(self) -> dict[str, str]:
        """The view words this link names, as a dict."""
        return dict(self.view)


@dataclass(frozen=True)
class Lesson:
    """The ordered links of a lesson and its title."""

    links: tuple[LessonLink, ...]
    title: str = ""

    def __len__(self) -> int:
        return len(self.links)


def _title(value: object, where: object) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise LessonError(L_("{where}: title must be text",
                             where=where))
    return " ".join(value.split())[:MAX_TITLE_CHARS]


def _step(value: object, where: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 1_000_000:
        raise LessonError(L_("{where}: step must be a whole number from 0",
                             where=where))
    return value


def view_word(name: str, value: object) -> str | None:
    """``value`` of view word ``name`` as a Playground link writes it, or None when it is not one of its values.

    Accepts what a link's query holds (text) and what TOML gives (``classroom = true``, ``zoom = 150``);
    an old ``speed=very fast`` reads as ``fast``, as in the Playground; ``hide`` is letters of ``vgsc``.
    """
    if name == "classroom" and isinstance(value, bool):
        return "1" if value else "0"
    if name == "zoom" and isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or len(value) > 20:
        return None
    text = value.strip()
    if name == "hide":
        return "".join(ch for ch in share.HIDEABLE if ch in text) if set(text) <= set(share.HIDEABLE) else None
    if name == LANGUAGE_KEY:
        return text.lower() if text.lower() in i18n.LANGUAGES else None
    text = text.upper() if name == "dir" else text.lower()
    if name == "speed":
        text = OLD_SPEEDS.get(text, text)
    return text if text in share.VIEW_CHOICES.get(name, ()) else None


def _choices(name: str) -> str:
    if name == "hide":
        return L_("letters of vgsc ({letters})", letters=_HIDE_WORDS)
    if name == LANGUAGE_KEY:
        return ", ".join(i18n.LANGUAGES)
    if name == "classroom":
        return "true, false"
    if name == "speed":
        return ", ".join(SPEEDS)
    return ", ".join(sorted(share.VIEW_CHOICES[name], key=lambda v: (v != share.VIEW_DEFAULTS[name], v.isdigit(),
                                                                      int(v) if v.isdigit() else 0, v)))


def _checked_word(name: str, value: object, where: object) -> str:
    word = view_word(name, value)
    if word is None:
        short = isinstance(value, str) and len(value) <= 40 or isinstance(value, int | float) and abs(value) < 1e9
        raise LessonError(L_("{where}: {key} must be one of {choices}, not {value}",
                             where=where, key=name, choices=_choices(name),
                             value=repr(value) if short else type(value).__name__))
    return word


def _view(words: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(words.items()))


def opened_view(link: LessonLink) -> dict[str, str | None]:
    """The view words that change when ``link`` opens: word -> value, or None for "back to the default".

    Every drawing word is in it (the link's value, else None: drawn the default way); a room word only
    when the link names it (else the lecturer's setting stays). See the module's docstring for why.
    """
    words = link.words()
    opened: dict[str, str | None] = {name: words.get(name) for name in DRAWING_WORDS}
    opened.update({name: words[name] for name in ROOM_WORDS if name in words})
    return opened


def link_from_url(text: str, where: object = "link") -> LessonLink:
    """A shared Playground link (a whole URL or only its query ``code=…&step=…``) as a lesson link.

    The program is the link's ``code=``/``z=``, else the gallery example its ``example=`` names; its view
    words (``VIEW_WORDS``) come along, each checked (``view_word``). Other parameters (``at=``,
    ``room=``…) are not the link's view and are left out.
    """
    text = text.strip()
    if len(text) > 4 * share.MAX_DECODED:
        raise LessonError(L_("{where}: the link is too long",
                             where=where))
    query = urlsplit(text).query if "?" in text else text
    try:
        params = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True, max_num_fields=32).items()}
    except ValueError:
        raise LessonError(L_("{where}: not a Playground link",
                             where=where)) from None
    shared = share.decode(params)
    source = shared.source
    if (source is None or not source.strip()) and params.get("example"):
        source = _example(params["example"], where)
    if source is None or not source.strip():
        raise LessonError(L_("{where}: the link carries no program (code=, z= or example=)",
                             where=where))
    words = {name: _checked_word(name, params[name], where) for name in VIEW_WORDS if name in params}
    return LessonLink(source, shared.step, view=_view(words))


def _example(slug: object, where: object) -> str:
    example = gallery.by_slug(slug) if isinstance(slug, str) else None
    if example is None:
        shown = slug if isinstance(slug, str) and len(slug) <= 40 else type(slug).__name__
        raise LessonError(L_("{where}: no gallery example is called {value} (one of {slugs})",
                             where=where, value=repr(shown), slugs=", ".join(e.slug for e in gallery.EXAMPLES)))
    return example.source


def _link_from_table(table: object, where: object, key_where=None) -> LessonLink:
    """One ``[[link]]`` table as a link. ``key_where(key)``: how to name the line of ``key`` in a message."""
    if not isinstance(table, dict):
        raise LessonError(L_("{where}: must be a [[link]] table",
                             where=where))
    key_where = key_where or (lambda _key: where)
    unknown = set(table) - {*_LINK_KEYS, *VIEW_WORDS}
    if unknown:
        name = sorted(unknown)[0]
        raise LessonError(L_("{where}: unknown key {value} (use {keys})",
                             where=key_where(name), value=repr(name), keys=", ".join((*_LINK_KEYS, *VIEW_WORDS))))
    sources = [name for name in ("code", "url", "example") if table.get(name) is not None]
    if len(sources) != 1:
        raise LessonError(L_("{where}: give one of code, url or example",
                             where=where))
    code, url = table.get("code"), table.get("url")
    if url is not None:
        if not isinstance(url, str):
            raise LessonError(L_("{where}: url must be text",
                                 where=key_where("url")))
        link = link_from_url(url, key_where("url"))
    elif code is not None:
        if not isinstance(code, str) or not code.strip():
            raise LessonError(L_("{where}: code must be a program",
                                 where=key_where("code")))
        if len(code) > share.MAX_DECODED:
            raise LessonError(L_("{where}: the program is longer than {MAX_DECODED} characters",
                                 where=key_where("code"), MAX_DECODED=format(share.MAX_DECODED, ",")))
        link = LessonLink(code.strip("\n"))
    else:
        link = LessonLink(_example(table["example"], key_where("example")))
    step = _step(table.get("step"), key_where("step"))
    words = link.words() | {name: _checked_word(name, table[name], key_where(name))
                            for name in VIEW_WORDS if name in table}
    return LessonLink(link.source, step if step is not None else link.step,
                      _title(table.get("title"), key_where("title")), _view(words))


_HEADER_LINE = re.compile(r"""[ \t]*\[\[[ \t]*(?:link|"link"|'link')[ \t]*\]\]""")


def _key_lines(text: str, n_tables: int):
    """``where(k, key)`` for messages about table ``k``: "link 2, line 14" naming the line of ``key`` in it.

    The ``[[link]]`` headers are found line by line; when their count is not the number of tables the
    parser found (a table written inline, a header inside a multi-line string), messages name the link only.
    """
    lines = text.split("\n")
    headers = [i for i, line in enumerate(lines) if _HEADER_LINE.match(line)]
    known = len(headers) == n_tables

    def where(k: int, key: str | None = None) -> Message:
        if not known:
            return L_("link {k}", k=k + 1)
        start, end = headers[k], headers[k + 1] if k + 1 < n_tables else len(lines)
        line = start
        if key is not None:
            name = re.escape(key)
            pattern = re.compile(rf"""[ \t]*(?:{name}|"{name}"|'{name}')[ \t]*=""")
            line = next((i for i in range(start + 1, end) if pattern.match(lines[i])), start)
        return L_("link {k}, line {line}", k=k + 1, line=line + 1)
    return where


def parse_plan(text: str) -> Lesson:
    """The lesson a teacher wrote: TOML with ``[[link]]`` tables, or one shared link per line.

    The text is measured (``plan_bounds``) before the TOML parser sees it, and whatever the parser still
    raises becomes a ``LessonError``: a message naming the link or line and what is wrong, never a traceback.
    """
    if len(text) > MAX_PLAN_CHARS:
        raise LessonError(L_("the plan is longer than {MAX_PLAN_CHARS} characters",
                             MAX_PLAN_CHARS=format(MAX_PLAN_CHARS, ",")))
    plan, error = None, plan_bounds.problem(text)
    if error is None:
        try:
            plan = tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            error = LessonError(L_("not a lesson plan: {err}",
                                   err=err))
        except (ValueError, RecursionError, MemoryError) as err:  # e.g. an integer of 5,000 digits
            error = LessonError(L_("not a lesson plan: the TOML reader gave up ({err})",
                                   err=type(err).__name__))
    if plan is None:
        return _link_lines(text, error)
    unknown = set(plan) - {"title", "link"}
    if unknown:
        raise LessonError(L_("unknown key {value} (a plan has a title and [[link]] tables)",
                             value=repr(sorted(unknown)[0])))
    tables = plan.get("link")
    if not isinstance(tables, list) or not tables:
        raise LessonError(L_("the plan has no [[link]] tables"))
    if len(tables) > MAX_LINKS:
        raise LessonError(L_("a lesson has at most {MAX_LINKS} links, not {count}",
                             MAX_LINKS=MAX_LINKS, count=len(tables)))
    where = _key_lines(text, len(tables))
    links = tuple(_link_from_table(t, where(i), lambda key, i=i: where(i, key)) for i, t in enumerate(tables))
    return _checked(Lesson(links, _title(plan.get("title"), "the plan")))


def _link_lines(text: str, error: LessonError) -> Lesson:
    """A plan that is not TOML: one shared link per line (comments and blank lines aside), else ``error``."""
    lines = [(k, line.strip()) for k, line in enumerate(text.splitlines(), start=1)
             if line.strip() and not line.strip().startswith("#")]
    if not lines or not all(any(word in line for word in ("code=", "z=", "example=")) for _k, line in lines):
        raise error
    if len(lines) > MAX_LINKS:
        raise LessonError(L_("a lesson has at most {MAX_LINKS} links, not {count}",
                             MAX_LINKS=MAX_LINKS, count=len(lines)))
    return _checked(Lesson(tuple(link_from_url(line, L_("line {k}", k=k)) for k, line in lines)))


def _checked(lesson: Lesson) -> Lesson:
    if not lesson.links:
        raise LessonError(L_("the plan has no links"))
    if len(_as_json(lesson)) > MAX_PACKED_CHARS:
        raise LessonError(L_("the lesson's programs are longer than {MAX_PACKED_CHARS} characters in all",
                             MAX_PACKED_CHARS=format(MAX_PACKED_CHARS, ",")))
    return lesson


def _as_json(lesson: Lesson) -> str:
    """Each link a row ``[source, step, title]``, with its view words as a fourth item when it names any."""
    rows = [[link.source, link.step, link.title, *([link.words()] if link.view else [])] for link in lesson.links]
    return json.dumps({"t": lesson.title, "l": rows}, separators=(",", ":"), ensure_ascii=False)


def pack_lesson(lesson: Lesson) -> str:
    """The lesson as one URL-safe parameter value (``lesson=``)."""
    return share.pack(_as_json(lesson))


def unpack_lesson(text: str) -> Lesson | None:
    """Inverse of ``pack_lesson``; None for anything that is not a lesson of sensible size and shape.

    A row of three items is a link without view words (every lesson packed before links kept their view);
    a fourth must be an object of at most ``len(VIEW_WORDS)`` view words, each value one a link may write.
    """
    raw = share.unpack(text, limit=MAX_PACKED_CHARS)
    if raw is None or json_text_problem(raw, max_chars=MAX_PACKED_CHARS, max_depth=4) is not None:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(data, dict) or set(data) != {"t", "l"} or not isinstance(data["t"], str):
        return None
    rows = data["l"]
    if not isinstance(rows, list) or not 0 < len(rows) <= MAX_LINKS:
        return None
    links = []
    for row in rows:
        if not (isinstance(row, list) and len(row) in (3, 4) and isinstance(row[0], str) and isinstance(row[2], str)):
            return None
        source, step, title = row[:3]
        words = row[3] if len(row) == 4 else {}
        if not (isinstance(words, dict) and len(words) <= len(VIEW_WORDS) and set(words) <= set(VIEW_WORDS)
                and all(view_word(k, v) == v for k, v in words.items())):
            return None
        if not source.strip() or len(source) > share.MAX_DECODED:
            return None
        if step is not None and (isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= 1_000_000):
            return None
        links.append(LessonLink(source, step, " ".join(title.split())[:MAX_TITLE_CHARS], _view(words)))
    return Lesson(tuple(links), " ".join(data["t"].split())[:MAX_TITLE_CHARS])


def encode(lesson: Lesson, at: int) -> dict[str, str]:
    """Query parameters for a lesson at link ``at`` (the link's own program goes in ``code=``/``z=``)."""
    return {LESSON_KEY: pack_lesson(lesson), AT_KEY: str(position(at, len(lesson)))}


def decode(params: Mapping[str, str]) -> tuple[Lesson, int] | None:
    """The lesson a URL carries and the link it is at (0 when ``at=`` is missing or junk), or None."""
    packed = params.get(LESSON_KEY)
    if not packed:
        return None
    lesson = unpack_lesson(str(packed))
    if lesson is None:
        return None
    return lesson, position_in(lesson, params.get(AT_KEY, ""))


def position_in(lesson: Lesson, raw_at: object) -> int:
    """The link an ``at=`` value names, kept inside the lesson (0 for junk)."""
    text = str(raw_at).strip()
    return position(int(text) if text.isascii() and text.isdigit() and len(text) <= 4 else 0, len(lesson))


def position(at: int, n_links: int) -> int:
    """``at`` kept inside the lesson's links."""
    return max(0, min(int(at), n_links - 1)) if n_links > 0 else 0


@dataclass(frozen=True)
class Move:
    """Where a move across a link boundary lands: the link's index and the step to open it at (or ``LAST``)."""

    at: int
    step: int


def next_link(lesson: Lesson, at: int) -> Move | None:
    """After the last step of link ``at``: the next link at its start step (None after the last link)."""
    if at + 1 >= len(lesson):
        return None
    link = lesson.links[at + 1]
    return Move(at + 1, link.step if link.step is not None else 0)


def previous_link(lesson: Lesson, at: int) -> Move | None:
    """Before step 0 of link ``at``: the previous link at its last step (None before the first link)."""
    if at <= 0 or at > len(lesson):
        return None
    return Move(at - 1, LAST)


def where(lesson: Lesson, at: int) -> str:
    """Where in the lesson the class is, as the screen shows it: ``2 / 5`` (1-based)."""
    return f"{position(at, len(lesson)) + 1} / {len(lesson)}"


def entry_step(step: int, n_steps: int) -> int:
    """A move's step for a program of ``n_steps`` steps: ``LAST`` is its last step; others are clamped."""
    last = max(n_steps - 1, 0)
    return last if step == LAST else max(0, min(step, last))
