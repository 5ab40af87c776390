"""A lesson is an ordered list of Playground links: written once as a plan, carried in the URL, stepped by a clicker."""
import pytest

from lucid.session import lesson_plan as lesson
from lucid.session import share
from lucid.session.browser_events import BadBrowserValue, lesson_move

PLAN = '''
title = "Backprop in 50 minutes"

[[link]]
title = "The chain rule"
code = """
x = 2.0
y = x * x
"""

[[link]]
url = "http://localhost:8501/playground?code=a+%3D+3.0%0Ab+%3D+a+*+4.0&step=2"

[[link]]
code = "w = 1.5"
step = 1
'''


def test_a_toml_plan_gives_the_links_in_order_with_programs_steps_and_titles():
    plan = lesson.parse_plan(PLAN)
    assert plan.title == "Backprop in 50 minutes"
    assert plan.links == (lesson.LessonLink("x = 2.0\ny = x * x", None, "The chain rule"),
                          lesson.LessonLink("a = 3.0\nb = a * 4.0", 2, ""),
                          lesson.LessonLink("w = 1.5", 1, ""))
    assert len(plan) == 3


def test_one_shared_link_per_line_is_a_plan_too():
    links = "\n".join(["# my lecture", "http://h/playground?code=x+%3D+1.0&step=0",
                       "?" + "&".join(f"{k}={v}" for k, v in share.encode("y = 2.0", 3).items()),
                       "/playground?" + f"z={share.pack('q = 1.0  # ' + 'x' * 200)}"])
    plan = lesson.parse_plan(links)
    assert [link.source[:7] for link in plan.links] == ["x = 1.0", "y = 2.0", "q = 1.0"]
    assert [link.step for link in plan.links] == [0, 3, None]


@pytest.mark.parametrize("text, message", [
    ("", "no [[link]]"),
    ("title = 'x'", "no [[link]]"),
    ("[[link]]\ncode = 'x = 1'\nurl = 'code=y'", "give one of code, url or example"),
    ("[[link]]\nstep = 2", "give one of code, url or example"),
    ("[[link]]\ncode = 'x = 1'\nstep = -1", "step must be a whole number"),
    ("[[link]]\ncode = 'x = 1'\nstep = true", "step must be a whole number"),
    ("[[link]]\ncode = 'x = 1'\nstpe = 1", "unknown key 'stpe'"),
    ("[[link]]\nurl = 'https://example.org/other'", "carries no program"),
    ("[[link]\ncode = 'x'", "not a lesson plan"),
    ("[[link]]\ncode = 42", "code must be a program"),
    ("[[link]]\ncode = '" + "x" * 20_001 + "'", "longer than 20,000"),
    ("[[link]]\ncode = 'x = 1'\n" * 41, "at most 40 links"),
    ("x" * 200_001, "longer than 200,000"),
])
def test_a_bad_plan_says_what_to_fix(text, message):
    with pytest.raises(lesson.LessonError, match=message.replace("[", r"\[")):
        lesson.parse_plan(text)


def test_a_lesson_survives_the_url_round_trip_and_its_position_is_clamped():
    plan = lesson.parse_plan(PLAN)
    params = lesson.encode(plan, 2)
    assert params["at"] == "2" and params["lesson"].replace("-", "").replace("_", "").isalnum()
    assert lesson.decode(params) == (plan, 2)
    assert lesson.decode({**params, "at": "99"}) == (plan, 2)
    assert lesson.decode({**params, "at": "²"}) == (plan, 0)
    assert lesson.decode({**params, "at": "-1"}) == (plan, 0)
    assert lesson.decode({"at": "1"}) is None


@pytest.mark.parametrize("packed", [
    "!!!", "A" * 500_000, share.pack("not json"), share.pack("[]"), share.pack('{"t": "", "l": []}'),
    share.pack('{"t": "", "l": [["x = 1", null, ""]], "extra": 1}'),
    share.pack('{"t": "", "l": [["x = 1", 1.5, ""]]}'), share.pack('{"t": "", "l": [["x = 1", true, ""]]}'),
    share.pack('{"t": "", "l": [["", null, ""]]}'), share.pack('{"t": "", "l": [[1, null, ""]]}'),
    share.pack('{"t": "", "l": [["x = 1", null, ""]' + ', ["x = 1", null, ""]' * 40 + ']}'),
    share.pack('{"t": "", "l": [[[[[["x"]]]]]]}'),
    share.pack('{"t": "", "l": [["' + "x" * 20_001 + '", null, ""]]}'),
    share.pack("[" * 100_000),
])
def test_a_forged_lesson_parameter_is_ignored(packed):
    assert lesson.unpack_lesson(packed) is None
    assert lesson.decode({"lesson": packed, "at": "0"}) is None


def test_titles_are_one_short_line():
    plan = lesson.parse_plan("[[link]]\ncode = 'x = 1'\ntitle = '''a\nb   c" + "d" * 300 + "'''")
    assert plan.links[0].title.startswith("a b cddd") and len(plan.links[0].title) == lesson.MAX_TITLE_CHARS


def test_next_after_the_last_step_opens_the_next_link_at_its_start_step():
    plan = lesson.parse_plan(PLAN)
    assert lesson.next_link(plan, 0) == lesson.Move(1, 2)   # the link's own step=2
    assert lesson.next_link(plan, 1) == lesson.Move(2, 1)
    assert lesson.next_link(plan, 2) is None                # after the last link: nowhere to go


def test_previous_at_step_0_goes_back_to_the_previous_links_last_step():
    plan = lesson.parse_plan(PLAN)
    assert lesson.previous_link(plan, 2) == lesson.Move(1, lesson.LAST)
    assert lesson.previous_link(plan, 0) is None
    assert lesson.entry_step(lesson.LAST, 7) == 6
    assert lesson.entry_step(3, 7) == 3
    assert lesson.entry_step(30, 7) == 6
    assert lesson.entry_step(lesson.LAST, 0) == 0


def test_the_position_reads_as_the_screen_shows_it():
    plan = lesson.parse_plan(PLAN)
    assert [lesson.where(plan, k) for k in range(3)] == ["1 / 3", "2 / 3", "3 / 3"]


# ----- the player's request to cross a link boundary, as the browser sends it -----------------------
def test_a_lesson_move_from_the_player_is_accepted_for_the_program_and_link_on_screen():
    assert lesson_move({"move": "next", "at": 1, "program": "abc"}, program_key="abc", at=1) == "next"
    assert lesson_move({"move": "prev", "at": 0.0, "program": "abc"}, program_key="abc", at=0) == "prev"


@pytest.mark.parametrize("value", [
    None, [], "next", {"move": "next", "at": 1},
    {"move": "next", "at": 1, "program": "abc", "extra": 1},
    {"move": "next", "at": 1, "program": "old"},
    {"move": "next", "at": 2, "program": "abc"},
    {"move": "jump", "at": 1, "program": "abc"},
    {"move": "next", "at": True, "program": "abc"},
    {"move": "next", "at": float("nan"), "program": "abc"},
    {"move": "next", "at": 10**400, "program": "abc"},
    {"move": ["next"], "at": 1, "program": "abc"},
])
def test_a_lesson_move_for_another_drawing_or_link_or_of_a_bad_shape_is_refused(value):
    with pytest.raises(BadBrowserValue):
        lesson_move(value, program_key="abc", at=1)
