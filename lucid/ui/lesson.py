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
    url = "https://lab.example/playground?code=x+%3D+3.0%0Ay+%3D+x+*+x&step=2"

Each ``[[link]]`` holds a program (``code``) or a shared Playground link (``url``, or just its query
``code=…&step=…``), an optional start ``step`` and ``title``. A plain list of links, one per line, is a
plan too. The lesson then travels in the Playground's own URL (``lesson=``: the links packed like a long
program, ``at=``: which link is on screen), so the lesson itself is a link a teacher can bookmark.

After the last step of one program, Next opens the next link at its start step; Previous at step 0 goes
back to the previous link's last step. Nothing here trusts its input: a plan or a packed lesson is
bounded in size and number of links, every field is checked by type, and a program is only ever text
for ``lucid.expr`` (never evaluated here). Pure functions, no Streamlit, so they are tested directly.
"""
from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from lucid.i18n import L_
from lucid.ui import plan_bounds, share
from lucid.ui.browser_events import json_text_problem
from lucid.ui.plan_bounds import MAX_LINKS, MAX_PLAN_CHARS, LessonError

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


@dataclass(frozen=True)
class LessonLink:
    """One view of the lesson: a program, the step it opens at (None: the seed) and a title (may be empty)."""

    source: str
    step: int | None = None
    title: str = ""


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


def link_from_url(text: str, where: object = "link") -> LessonLink:
    """A shared Playground link (a whole URL or only its query ``code=…&step=…``) as a lesson link."""
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
    view = share.decode(params)
    if view.source is None or not view.source.strip():
        raise LessonError(L_("{where}: the link carries no program (code= or z=)",
                             where=where))
    return LessonLink(view.source, view.step)


def _link_from_table(table: object, where: object) -> LessonLink:
    if not isinstance(table, dict):
        raise LessonError(L_("{where}: must be a [[link]] table",
                             where=where))
    unknown = set(table) - {"code", "url", "step", "title"}
    if unknown:
        raise LessonError(L_("{where}: unknown key {value} (use code, url, step, title)",
                             where=where, value=repr(sorted(unknown)[0])))
    code, url = table.get("code"), table.get("url")
    if (code is None) == (url is None):
        raise LessonError(L_("{where}: give either code or url",
                             where=where))
    if url is not None:
        if not isinstance(url, str):
            raise LessonError(L_("{where}: url must be text",
                                 where=where))
        link = link_from_url(url, where)
    else:
        if not isinstance(code, str) or not code.strip():
            raise LessonError(L_("{where}: code must be a program",
                                 where=where))
        if len(code) > share.MAX_DECODED:
            raise LessonError(L_("{where}: the program is longer than {MAX_DECODED} characters",
                                 where=where, MAX_DECODED=format(share.MAX_DECODED, ",")))
        link = LessonLink(code.strip("\n"))
    step = _step(table.get("step"), where)
    return LessonLink(link.source, step if step is not None else link.step, _title(table.get("title"), where))


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
    links = tuple(_link_from_table(t, L_("link {k}", k=i + 1)) for i, t in enumerate(tables))
    return _checked(Lesson(links, _title(plan.get("title"), "the plan")))


def _link_lines(text: str, error: LessonError) -> Lesson:
    """A plan that is not TOML: one shared link per line (comments and blank lines aside), else ``error``."""
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]
    if not lines or not all("code=" in line or "z=" in line for line in lines):
        raise error
    if len(lines) > MAX_LINKS:
        raise LessonError(L_("a lesson has at most {MAX_LINKS} links, not {count}",
                             MAX_LINKS=MAX_LINKS, count=len(lines)))
    return _checked(Lesson(tuple(link_from_url(line, L_("line {k}", k=i + 1)) for i, line in enumerate(lines))))


def _checked(lesson: Lesson) -> Lesson:
    if not lesson.links:
        raise LessonError(L_("the plan has no links"))
    if len(_as_json(lesson)) > MAX_PACKED_CHARS:
        raise LessonError(L_("the lesson's programs are longer than {MAX_PACKED_CHARS} characters in all",
                             MAX_PACKED_CHARS=format(MAX_PACKED_CHARS, ",")))
    return lesson


def _as_json(lesson: Lesson) -> str:
    rows = [[link.source, link.step, link.title] for link in lesson.links]
    return json.dumps({"t": lesson.title, "l": rows}, separators=(",", ":"), ensure_ascii=False)


def pack_lesson(lesson: Lesson) -> str:
    """The lesson as one URL-safe parameter value (``lesson=``)."""
    return share.pack(_as_json(lesson))


def unpack_lesson(text: str) -> Lesson | None:
    """Inverse of ``pack_lesson``; None for anything that is not a lesson of sensible size and shape."""
    raw = share.unpack(text, limit=MAX_PACKED_CHARS)
    if raw is None or json_text_problem(raw, max_chars=MAX_PACKED_CHARS, max_depth=3) is not None:
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
        if not (isinstance(row, list) and len(row) == 3 and isinstance(row[0], str) and isinstance(row[2], str)):
            return None
        source, step, title = row
        if not source.strip() or len(source) > share.MAX_DECODED:
            return None
        if step is not None and (isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= 1_000_000):
            return None
        links.append(LessonLink(source, step, " ".join(title.split())[:MAX_TITLE_CHARS]))
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
