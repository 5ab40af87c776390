"""A lesson plan is measured before the TOML parser sees it: what would cost the parser quadratic time or a
RecursionError is refused with the limit and the line, and every plan a teacher writes still reads."""
from pathlib import Path

import pytest

from bench.attack_lesson_plan import deep_nesting_plan, dotted_key_plan
from lucid.i18n import english, use_language
from lucid.session import lesson_plan as lesson
from lucid.session import plan_bounds, share
from lucid.ui.lesson_plan.view import EXAMPLE_PLAN
from tests.session.test_lesson_plan import PLAN as UI_PLAN
from tests.ui.test_app_lesson import PLAN as APP_PLAN

ROOT = Path(__file__).resolve().parents[2]


def refusal(text: str) -> str:
    with pytest.raises(lesson.LessonError) as caught:
        lesson.parse_plan(text)
    return english(caught.value.args[0])


@pytest.fixture
def no_toml_parser(monkeypatch):
    """The TOML parser must not be reached: a refusal comes from the pre-check alone."""
    def must_not_run(text):
        raise AssertionError("tomllib.loads was called")
    monkeypatch.setattr(lesson.tomllib, "loads", must_not_run)


def test_a_100_kb_dotted_key_is_refused_before_the_parser(no_toml_parser):
    bomb = dotted_key_plan(100_000)
    assert len(bomb) >= 100_000
    assert refusal(bomb) == "line 1 is longer than 50,000 characters"


def test_a_dotted_key_of_many_parts_is_refused_at_its_first_character(no_toml_parser):
    assert refusal(dotted_key_plan(40_000)) == "line 1, column 1: a dotted key has more than 8 parts"
    assert refusal("[[link]]\ncode = 'x = 1'\n" + "a . " * 8 + "a = 1") == \
        "line 3, column 1: a dotted key has more than 8 parts"
    assert refusal("[" + "t." * 8 + "t]") == "line 1, column 2: a dotted key has more than 8 parts"


@pytest.mark.parametrize("kind", ["array", "table", "header"])
def test_10000_deep_nesting_is_refused_without_recursion(no_toml_parser, kind):
    assert refusal(deep_nesting_plan(10_000, kind)).endswith("brackets and braces are nested more than 16 deep")


def test_nesting_just_inside_the_limit_reaches_the_parser():
    text = "[[link]]\ncode = 'x = 1'\nextra = " + "[" * 16 + "]" * 16
    assert refusal(text).startswith("link 1, line 3: unknown key 'extra' (use code, url, example, step, title, dir")


@pytest.mark.parametrize("text, message", [
    ("x" * 200_001, "the plan is longer than 200,000 characters"),
    ("\n" * 10_000, "the plan has more than 10,000 lines"),
    ("[[link]]\ncode = 'x'\ntitle = '" + "t" * 50_000 + "'", "line 3 is longer than 50,000 characters"),
    ("[[link]]\ncode = 'x = 1'\n" + '"' + "k" * 100 + '" = 1', "line 3, column 1: a key is longer than 100 characters"),
    ("[[link]]\ncode = 'x = 1'\n" + "k" * 101 + " = 1",
     "line 3, column 1: a word outside quotes is longer than 100 characters"),
    ("[[link]]\ncode = 'x = 1'\nstep = " + "1" * 5000,
     "line 3, column 8: a word outside quotes is longer than 100 characters"),
    ("[[link]]\ncode = 'x = 1'\n" * 41, "line 81, column 1: a lesson has at most 40 links; this is link 41"),
    ("x = " + "{a = " * 17, "line 1, column 85: brackets and braces are nested more than 16 deep"),
])
def test_every_limit_names_itself_and_the_line(no_toml_parser, text, message):
    assert refusal(text) == message


def test_each_limit_is_a_documented_constant():
    names = [name for name in vars(plan_bounds) if name.startswith("MAX_")]
    assert set(names) == {"MAX_PLAN_CHARS", "MAX_LINKS", "MAX_LINES", "MAX_LINE_CHARS", "MAX_KEY_CHARS",
                          "MAX_BARE_CHARS", "MAX_KEY_PARTS", "MAX_NESTING"}
    source = (ROOT / "lucid" / "session" / "plan_bounds.py").read_text(encoding="utf-8")
    for name in names:
        assert f'{name} = ' in source and source.split(f"{name} = ", 1)[1].split("\n", 2)[1].startswith('"""')
    assert lesson.MAX_LINKS is plan_bounds.MAX_LINKS and lesson.LessonError is plan_bounds.LessonError


def test_brackets_quotes_and_dots_inside_strings_and_comments_do_not_count():
    deep = "[" * 40 + "{" * 40
    text = (f"title = 'a.b.c.d.e.f.g.h.i.j {deep}'  # {deep} a.b.c.d.e.f.g.h.i.j\n"
            f"[[link]]  # [[link]] {deep}\n"
            f'title = "quote \\" still a string {deep} \\\\"\n'
            f'code = """\nx = 1  # {deep} \\""" still inside\n"""\n'
            f"[[link]]\ncode = '''\ny = 2  # {deep} '' still inside\n'''\n"
            f"[[link]]\ncode = \"\"\"z = 3 \"\"\"\"\nstep = 1\n")
    plan = lesson.parse_plan(text)
    assert [link.source.strip() for link in plan.links] == [f'x = 1  # {deep} """ still inside',
                                                             f"y = 2  # {deep} '' still inside", 'z = 3 "']
    assert plan.links[0].title.startswith("quote \" still a string [[[")


def test_a_program_with_long_lines_and_many_lines_still_reads():
    program = "\n".join(f"v{i} = {i}.0" for i in range(199)) + "\nw = " + " + ".join(["v1"] * 2400)
    plan = lesson.parse_plan(f'[[link]]\ncode = """\n{program}\n"""\n' * 8)
    assert len(plan) == 8 and plan.links[0].source == program


def test_a_shared_link_longer_than_any_key_is_still_a_plan():
    packed = share.pack("q = 1.0\n" + "\n".join(f"x{i} = {i}.5 * q" for i in range(150)))
    assert len(packed) > plan_bounds.MAX_BARE_CHARS
    plan = lesson.parse_plan(f"# a lecture\n/playground?z={packed}\n")
    assert plan.links[0].source.startswith("q = 1.0")
    plan = lesson.parse_plan(f'[[link]]\nurl = "/playground?z={packed}"\nstep = 3\n')
    assert plan.links[0].step == 3


def test_what_the_parser_still_refuses_is_a_lesson_error_not_a_traceback(monkeypatch):
    def deep(text):
        raise RecursionError("maximum recursion depth exceeded")
    monkeypatch.setattr(lesson.tomllib, "loads", deep)
    assert refusal("[[link]]\ncode = 'x = 1'") == "not a lesson plan: the TOML reader gave up (RecursionError)"


@pytest.mark.parametrize("plan", [UI_PLAN, APP_PLAN, EXAMPLE_PLAN], ids=["ui-tests", "app-tests", "page-example"])
def test_every_plan_the_project_shows_still_reads(plan):
    assert plan_bounds.problem(plan) is None
    assert len(lesson.parse_plan(plan)) >= 2


def test_a_refusal_reads_in_the_teachers_language():
    with pytest.raises(lesson.LessonError) as caught:
        lesson.parse_plan("[[link]]\ncode = 'x = 1'\nstep = " + "[" * 20)
    with use_language("ko"):
        assert str(caught.value.args[0]) == "3번째 줄, 24번째 글자: 대괄호와 중괄호가 16단계보다 깊게 중첩되어 있습니다"
