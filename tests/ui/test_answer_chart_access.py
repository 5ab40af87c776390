"""The teacher's histogram is named and tells right from wrong without colour (issue 28, WCAG 1.1.1 and 1.4.1).

Vega makes a spec's ``description`` the ``aria-label`` of the chart it draws (role ``graphics-document``), so
the spec carries the counts in words; a right answer's bar is marked ✓ under it, a wrong one's is not, so a
grey-scale projector or a colour-blind eye reads the difference from the labels, not the two colours.
"""
from lucid.i18n import use_language
from lucid.ui.live_class import answer_chart

QUESTION = {"expected": -4.0, "label": "grad x"}
VALUES = [-4.0, -4.0, -4.0, 4.0, 2.0]


def test_the_chart_is_named_by_its_counts_in_words():
    spec = answer_chart.chart(QUESTION, VALUES).to_dict()
    assert spec["description"] == answer_chart.caption(QUESTION, VALUES)
    assert spec["description"] == "Answers: −4.000 ✓ right: 3 · 2.000: 1 · 4.000: 1"


def test_right_and_wrong_bars_differ_by_a_mark_under_the_bar_not_only_by_colour():
    rows = answer_chart.rows(QUESTION, VALUES)
    assert [(r["answer"], r["right"]) for r in rows] == [("−4.000 ✓", True), ("2.000", False), ("4.000", False)]
    spec = answer_chart.chart(QUESTION, VALUES).to_dict()
    bars = spec["layer"][0]
    assert bars["encoding"]["x"]["field"] == "answer"  # the axis labels under the bars carry the ✓
    assert bars["encoding"]["color"]["scale"]["range"] == [answer_chart.RIGHT_COLOUR, answer_chart.WRONG_COLOUR]


def test_rounds_side_by_side_are_named_round_by_round_in_korean_too():
    with use_language("ko"):
        spec = answer_chart.rounds_chart(QUESTION, [("1회", [4.0, 4.0]), ("2회", VALUES)]).to_dict()
    assert spec["description"].startswith("1회: ") and " · 2회: " in spec["description"]
    assert "✓" in spec["description"].split(" · 2회: ")[1]
