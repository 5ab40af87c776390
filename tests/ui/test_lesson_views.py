"""A lesson link keeps the view its link was made in: every view word, gallery examples, the packed lesson."""
import json

import pytest

from lucid import gallery
from lucid.session import lesson_plan as lesson
from lucid.session import share
from lucid.session.options import DrawOptions
from lucid.ui.lesson_plan import view as lesson_view

SIGMOID = gallery.by_slug("cs231n-sigmoid").source
EVERY_WORD = ("style=circuit&dir=LR&hide=gc&large=compact&zoom=150&classroom=1&speed=slow&lang=ko")


def test_a_url_link_keeps_every_view_word_a_playground_link_carries():
    link = lesson.link_from_url(f"http://h/playground?code=x+%3D+1.0&step=2&{EVERY_WORD}&room=ABCD&at=3")
    assert link.source == "x = 1.0" and link.step == 2
    assert link.words() == {"style": "circuit", "dir": "LR", "hide": "gc", "large": "compact", "zoom": "150",
                            "classroom": "1", "speed": "slow", "lang": "ko"}  # room= and at= are not the view


def test_a_link_without_view_words_names_none():
    assert lesson.link_from_url("?code=x+%3D+1.0").view == ()


def test_an_example_link_opens_the_gallery_program():
    link = lesson.link_from_url("/playground?example=cs231n-sigmoid&classroom=1&style=circuit")
    assert link.source == SIGMOID and link.words() == {"classroom": "1", "style": "circuit"}


def test_a_table_takes_the_same_view_words_in_toml_types_and_they_win_over_its_url():
    plan = lesson.parse_plan('''
[[link]]
url = "?code=x+%3D+1.0&style=circuit&dir=LR"
style = "standard"
classroom = true
zoom = 150
speed = "very fast"

[[link]]
example = "cs231n-sigmoid"
title = "The sigmoid gate"
hide = "g"
classroom = false
''')
    first, second = plan.links
    assert first.words() == {"style": "standard", "dir": "LR", "classroom": "1", "zoom": "150", "speed": "fast"}
    assert (second.source, second.title) == (SIGMOID, "The sigmoid gate")
    assert second.words() == {"hide": "g", "classroom": "0"}


def test_a_plan_of_link_lines_may_name_examples():
    plan = lesson.parse_plan("# lecture\n/playground?example=cs231n-circuit&style=circuit\n?code=y+%3D+2.0\n")
    assert [link.source for link in plan.links] == [gallery.by_slug("cs231n-circuit").source, "y = 2.0"]


@pytest.mark.parametrize("text, message", [
    ('[[link]]\ncode = "x = 1"\nstyle = "circuits"',
     "link 1, line 3: style must be one of standard, circuit, not 'circuits'"),
    ('[[link]]\ncode = "x = 1"\n\n[[link]]\ncode = "y = 1"\n# a comment\ndir = "up"',
     "link 2, line 7: dir must be one of TB, LR, not 'up'"),
    ('[[link]]\ncode = "x = 1"\nzoom = 300',
     "link 1, line 3: zoom must be one of screen, width, 75, 100, 150, not 300"),
    ('[[link]]\ncode = "x = 1"\nhide = "xyz"', "link 1, line 3: hide must be one of letters of vgsc"),
    ('[[link]]\ncode = "x = 1"\nclassroom = "yes"', "link 1, line 3: classroom must be one of true, false, not 'yes'"),
    ('[[link]]\ncode = "x = 1"\nlang = "fr"', "link 1, line 3: lang must be one of en, ko, not 'fr'"),
    ('[[link]]\ncode = "x = 1"\nspeed = "warp"', "link 1, line 3: speed must be one of fast, normal, slow"),
    ('[[link]]\nurl = "?code=x&style=cricuit"', "link 1, line 2: style must be one of standard, circuit"),
    ('[[link]]\nexample = "sigmoid"', "link 1, line 2: no gallery example is called 'sigmoid' (one of scalar,"),
    ('[[link]]\nurl = "/playground?example=nope"', "link 1, line 2: no gallery example is called 'nope'"),
    ('[[link]]\nexample = "mlp"\ncode = "x = 1"', "link 1, line 1: give one of code, url or example"),
    ("?code=x\n\n?code=y&zoom=300", "line 3: zoom must be one of"),
])
def test_a_misspelt_view_word_is_refused_naming_the_link_the_key_and_its_line(text, message):
    with pytest.raises(lesson.LessonError) as err:
        lesson.parse_plan(text)
    assert str(err.value).startswith(message)


def test_the_packed_lesson_carries_each_links_view():
    plan = lesson.parse_plan('title = "T"\n[[link]]\nurl = "?code=x+%3D+1.0&' + EVERY_WORD + '"\n'
                             '[[link]]\nexample = "cs231n-sigmoid"\ntitle = "Sigmoid"\n')
    assert lesson.decode(lesson.encode(plan, 1)) == (plan, 1)
    assert lesson.unpack_lesson(lesson.pack_lesson(plan)).links[0].words()["style"] == "circuit"


def test_a_lesson_packed_before_links_had_views_still_opens_with_no_view_words():
    old = share.pack(json.dumps({"t": "Old", "l": [["x = 1.0", 2, "First"], ["y = 2.0", None, ""]]}))
    plan = lesson.unpack_lesson(old)
    assert plan == lesson.Lesson((lesson.LessonLink("x = 1.0", 2, "First"), lesson.LessonLink("y = 2.0")), "Old")


@pytest.mark.parametrize("words", [
    {"colour": "red"}, {"style": "circuits"}, {"zoom": 150}, {"classroom": True}, {"hide": "xyz"},
    {"lang": "fr"}, [], "style=circuit", {"style": ["circuit"]},
])
def test_a_forged_view_in_a_packed_lesson_makes_the_lesson_unreadable(words):
    packed = share.pack(json.dumps({"t": "", "l": [["x = 1.0", None, "", words]]}))
    assert lesson.unpack_lesson(packed) is None


def test_a_links_drawing_is_its_own_and_the_room_setup_the_lecturers():
    drawn = lesson.LessonLink("x = 1.0", view=(("classroom", "1"), ("style", "circuit")))
    assert lesson.opened_view(drawn) == {"dir": None, "hide": None, "large": None, "style": "circuit",
                                         "classroom": "1"}
    # no view words: the default drawing, and Classroom mode, graph size, speed and language left as they are
    assert lesson.opened_view(lesson.LessonLink("x = 1.0")) == {"dir": None, "hide": None, "large": None,
                                                                 "style": None}
    assert set(lesson.DRAWING_WORDS) | set(lesson.ROOM_WORDS) == {*share.VIEW_DEFAULTS, "lang"}


def test_the_next_links_drawing_options_are_those_its_widgets_will_take():
    circuit = lesson.LessonLink("x = 1.0", view=(("hide", "g"), ("style", "circuit")))
    assert lesson_view.link_options(circuit) == DrawOptions("LR", True, False, True, True, "auto", "circuit")
    assert lesson_view.link_options(lesson.LessonLink("x = 1.0")) == DrawOptions()
    assert lesson_view.link_options(lesson.LessonLink("x", view=(("dir", "LR"), ("large", "full")))) == DrawOptions(
        "LR", large=False)


def test_a_link_without_a_title_is_headed_by_its_gallery_examples_title():
    assert lesson_view.heading(lesson.LessonLink(SIGMOID)) == "CS231n: a sigmoid neuron, gate by gate"
    assert lesson_view.heading(lesson.LessonLink(SIGMOID, title="Gates")) == "Gates"
    assert lesson_view.heading(lesson.LessonLink("x = 1.0")) == ""
