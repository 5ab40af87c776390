"""Classroom mode on every lesson page: 20 px type, and every chart's tick labels at least 14 px."""
import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

PAGES = Path(__file__).resolve().parents[2] / "pages"
LESSON_PAGES = ["gradient_check", "train_mlp", "pitfalls", "broadcasting", "op_reference"]
CHARTS = {"gradient_check": 1, "train_mlp": 2, "pitfalls": 1, "broadcasting": 0, "op_reference": 0}
"""Vega-Lite charts each page draws with its default settings (train: the loss curve and the boundary)."""


def page_classroom():
    """``lucid.ui.projector.lesson_pages``, imported when a test runs: it imports altair (and so pandas), seconds
    that every pytest process would otherwise pay to collect this file."""
    from lucid.ui.projector import lesson_pages

    return lesson_pages


def open_page(name: str, classroom: str | None) -> AppTest:
    at = AppTest.from_file(str(PAGES / f"{name}.py"), default_timeout=180)
    if classroom is not None:
        at.query_params["classroom"] = classroom
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def chart_specs(at: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("vega_lite_chart")]


def classroom_css(at: AppTest) -> bool:
    return any(f"font-size: {page_classroom().CLASSROOM_ROOT_PX}px" in str(e.proto.body) for e in at.get("html"))


@pytest.mark.parametrize("name", LESSON_PAGES)
def test_in_classroom_mode_a_page_has_20px_type_and_readable_chart_ticks(name):
    at = open_page(name, "1")
    assert classroom_css(at)
    specs = chart_specs(at)
    assert len(specs) == CHARTS[name]
    for spec in specs:
        assert spec["config"]["axis"]["labelFontSize"] >= 14
        assert spec["config"]["axis"]["titleFontSize"] >= 14
        assert spec["config"]["legend"]["labelFontSize"] >= 14


@pytest.mark.parametrize("name", ["pitfalls", "gradient_check"])
def test_outside_classroom_mode_a_page_keeps_its_usual_type(name):
    at = open_page(name, None)
    assert not classroom_css(at)
    assert all("labelFontSize" not in spec.get("config", {}).get("axis", {}) for spec in chart_specs(at))


def test_the_sessions_classroom_setting_decides_over_the_link():
    assert page_classroom().is_on({"lucid_classroom": True}, {}) is True
    assert page_classroom().is_on({"lucid_classroom": False}, {"classroom": "1"}) is False
    assert page_classroom().is_on({}, {"classroom": "1"}) is True
    assert page_classroom().is_on({}, {"classroom": "yes"}) is False


def test_a_classroom_chart_sizes_ticks_legends_and_titles():
    import altair as alt
    import pandas as pd

    line = alt.Chart(pd.DataFrame({"a": [1, 2], "b": [3, 4]})).mark_line().encode(x="a", y="b")
    config = page_classroom().chart(line + line, on=True).to_dict()["config"]
    assert config["axis"] == {"labelFontSize": 16, "titleFontSize": 18}
    assert config["legend"] == {"labelFontSize": 16, "titleFontSize": 18}
    assert config["title"] == {"fontSize": 18}
    assert page_classroom().chart(line, on=False) is line
    assert page_classroom().classroom_fonts(False) == {}
