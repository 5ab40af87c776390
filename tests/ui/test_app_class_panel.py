"""The teacher's class panel is safe to project: before *Reveal* it shows the question and how many answered of
those present, nothing that gives the answer away (no histogram, no right answer, no diagnosis); after *Reveal*
(or while the teacher peeks, a toggle that is off by default) the class's answers are there, as a readable
histogram with its counts in words."""
from __future__ import annotations

import pytest

from lucid import gallery
from lucid.ui.live_class import answer_chart, room_service
from tests.class_pages import page

CIRCUIT = gallery.by_slug("cs231n-circuit").source
CHART = "vega_lite_chart"


@pytest.fixture()
def asked():
    """A class on the circuit at step 2, its question (grad x = -4 at step 3) answered -4 by one student and 4 by
    another; yields the teacher's page, the room's code and the question."""
    rooms = room_service.rooms()
    code, token = rooms.open(CIRCUIT, 0, {"classroom": "1"}, step=2)
    teacher = page(room=code, teach=token, code=CIRCUIT, step="2")
    teacher.session_state["pg_step"] = 2
    next(b for b in teacher.button if b.label == "Ask the class").click().run()
    question = rooms.view(code).question
    for answer in ("-4", "4"):
        student = page(room=code)
        student.text_input(key="pg_answer").input(answer)
        next(b for b in student.button if b.label == "Submit").click().run()
    teacher.run()
    yield teacher, code, question
    if rooms.view(code) is not None:
        rooms.end(code, token)
        room_service.publish(code)


def _block(node, key: str):
    """The block drawn with ``key`` (a keyed container), searched through the whole page."""
    if getattr(node, "key", None) == key and hasattr(node, "markdown"):
        return node
    for child in getattr(node, "children", {}).values():
        found = _block(child, key)
        if found is not None:
            return found
    return None


def _said(at) -> str:
    """Every text of the teacher's class panel (what the projector shows above the graph)."""
    panel = _block(at._tree, "pg_class_panel")
    assert panel is not None
    return "\n".join([m.value for m in panel.markdown] + [c.value for c in panel.caption]
                     + [w.value for w in panel.warning] + [s.value for s in panel.success])


def test_before_reveal_the_panel_shows_the_question_and_the_count_and_nothing_of_the_answers(asked):
    teacher, _code, _q = asked
    said = _said(teacher)
    assert "Asked at step 3: grad x = ?" in said
    assert "**2 / 2** answered" in said
    assert not teacher.get(CHART)
    for giveaway in ("Most common wrong answer", "sign is flipped", "Revealed", "right:", "−4.000", "✓"):
        assert giveaway not in said, giveaway
    peek = teacher.toggle(key="pg_peek")
    assert peek.value is False and "not for the projector" in peek.help


def test_after_reveal_the_panel_shows_the_histogram_the_rate_and_the_diagnosis(asked):
    teacher, _code, _q = asked
    next(b for b in teacher.button if b.label == "Reveal").click().run()
    assert not teacher.exception
    said = _said(teacher)
    assert "Revealed: grad x = −4.000" in said
    assert "**1** right (50%)" in said
    assert "Most common wrong answer: **4.000** (1 student)" in said and "sign is flipped" in said
    assert "Answers: −4.000 ✓ right: 1 · 4.000: 1" in said  # the chart's text alternative
    assert len(teacher.get(CHART)) == 1


def test_peeking_shows_the_answers_before_the_reveal_with_a_warning(asked):
    teacher, _code, _q = asked
    teacher.toggle(key="pg_peek").set_value(True).run()
    said = _said(teacher)
    assert "Peeking: not for the projector. Right answer: grad x = −4.000" in said
    assert "Most common wrong answer: **4.000**" in said and len(teacher.get(CHART)) == 1
    assert [b.label for b in teacher.button if b.label == "Reveal"] == ["Reveal"]  # still open to answers


def test_the_histogram_has_whole_number_ticks_wide_bars_and_marks_the_right_answer_in_words(asked):
    _teacher, _code, q = asked
    values = [-4.0, -4.0, -4.0, 4.0, 2.0]
    assert answer_chart.rows(q, values) == [{"answer": "−4.000 ✓", "count": 3, "right": True},
                                            {"answer": "2.000", "count": 1, "right": False},
                                            {"answer": "4.000", "count": 1, "right": False}]
    spec = answer_chart.chart(q, values).to_dict()
    bars, _labels = spec["layer"]
    assert bars["mark"]["size"] >= 40 and spec["width"] == {"step": answer_chart.STEP_PX}
    axis = bars["encoding"]["y"]["axis"]
    assert axis["format"] == "d" and axis["tickMinStep"] == 1 and axis["tickCount"] == 4  # 0, 1, 2, 3, 4
    assert answer_chart.caption(q, []) == "No answers yet."
