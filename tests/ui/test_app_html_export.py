"""The Export panel's *Interactive HTML* (issue 29), driven by Streamlit's AppTest (no browser).

The file is the program on screen in the page's language; made by its own button, then offered for download.
A student's page while the class predicts a step offers no file at all, and the file the app's maker writes
for a held step holds nothing of that step: grad x = −0.875 after step 5 of ``SOURCE`` (no earlier step
shows that number). The file in a browser: tests/e2e/test_html_player_browser.py.
"""
from __future__ import annotations

import json
import re
import shutil

import pytest

from lucid.session.analysis import analyze
from lucid.session.options import DrawOptions
from lucid.ui.playground.html_export import html_file
from tests.ui.test_app_class_hold import SOURCE, asked  # noqa: F401 - the open question's fixture
from tests.ui.test_app_exports import downloads, start

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot is not installed")


def _data(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="lucid-data">(.*?)</script>', page, re.DOTALL)
    return json.loads(found[1])


def test_make_interactive_html_writes_the_program_on_screen_then_offers_the_download():
    at = start("x = 3.0\ny = x * x\n")
    assert "Interactive HTML" not in downloads(at)
    at.button(key="pg_make_html").click().run()
    assert not at.exception and not at.warning
    files = at.session_state["pg_html_files"]
    (page,) = files._store.values()
    text = page.decode("utf-8")
    assert text.startswith('<!DOCTYPE html>\n<html lang="en">')
    data = _data(text)
    assert len(data["player"]["anim"]["changes"]) == 3  # the seed, then x's two contributions
    assert "Gradient (final)</div><pre>6</pre>" in data["texts"][data["facts"]["t0"][-1][1]]  # dy/dx = 2x = 6
    assert downloads(at)["Interactive HTML"].proto.label == "Interactive HTML"


def test_the_file_is_written_in_the_language_it_is_given():
    """The page hands its language to the maker (a Korean page's click is driven in tests/e2e: AppTest cannot
    send the Korean page's other widgets back)."""
    page = html_file(analyze("x = 3.0\ny = x * x\n"), DrawOptions(), (), step=0, upto=None, language="ko")
    text = page.decode("utf-8")
    data = _data(text)
    assert text.startswith('<!DOCTYPE html>\n<html lang="ko">') and data["player"]["words"]["next"] == "다음"
    assert data["player"]["anim"]["titles"][1].startswith("단계 1 / 2")
    assert "기울기 (확정)</div><pre>6</pre>" in data["texts"][data["facts"]["t0"][-1][1]]


def test_a_held_students_page_offers_no_html_file(asked):  # noqa: F811
    from tests.class_pages import page

    code, _token = asked
    at = page(room=code)
    at.session_state["pg_export_open"] = True
    at.run()
    assert not [b for b in at.button if b.key == "pg_make_html"]
    assert not at.get("download_button")


def test_the_apps_file_for_a_held_step_stops_before_it():
    analysis = analyze(SOURCE)
    page = html_file(analysis, DrawOptions(direction="LR"), (), step=6, upto=5, language="en").decode("utf-8")
    data = _data(page)
    assert len(data["player"]["anim"]["changes"]) == 5 and data["player"]["step"] == 4
    assert "0.875" not in page and "0.8750" not in page
    whole = html_file(analysis, DrawOptions(direction="LR"), (), step=6, upto=None, language="en").decode("utf-8")
    assert "0.875" in whole  # the same file after the reveal holds it

