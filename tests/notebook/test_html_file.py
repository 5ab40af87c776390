"""``save_html``: one self-contained HTML file of the player (issue 29), read back as a browser would.

The file's data is parsed out of its ``<script type="application/json">`` element and checked: the
animation, the language, and the node facts written ahead of time (no kernel offline), with the numbers of
``f = (x + y) · z`` at x = −2, y = 5, z = −4 (∂f/∂x = ∂f/∂y = z = −4, ∂f/∂z = x + y = 3).
The browser side (stepping, clicking, no network) is tests/e2e/test_html_player_browser.py.
"""
from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from lucid import Tensor
from lucid.notebook import html_file
from lucid.notebook.html_file import HtmlTooLarge, script_json
from lucid.viz import player, save_html

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")

HOSTILE = "</script><b>"


class _Parts(HTMLParser):
    """The elements a browser would see at the top level of the file: scripts (type, text) and the <html> lang."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[tuple[str | None, str]] = []
        self.lang: str | None = None
        self.title = ""
        self._in: str | None = None
        self._in_picture = False
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "svg" or tag == "noscript":  # the page's own <title> only, not the drawing's
            self._in_picture = True
        if tag == "html":
            self.lang = dict(attrs).get("lang")
        if tag == "script" or (tag == "title" and not self._in_picture):
            self._in = tag
            if tag == "script":
                self.scripts.append((dict(attrs).get("type"), ""))

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in == "script":
            kind, text = self.scripts[-1]
            self.scripts[-1] = (kind, text + data)
        elif self._in == "title":
            self.title += data


def _graph(y_name: str = "y") -> Tensor:
    x, y, z = (Tensor(-2.0, requires_grad=True, name="x"), Tensor(5.0, requires_grad=True, name=y_name),
               Tensor(-4.0, requires_grad=True, name="z"))
    f = (x + y) * z
    f.name = "f"
    f.backward()
    return f


def _read(path: Path) -> tuple[_Parts, dict]:
    parts = _Parts()
    parts.feed(path.read_text(encoding="utf-8"))
    (data,) = [text for kind, text in parts.scripts if kind == "application/json"]
    return parts, json.loads(data)


def _facts(data: dict, node: str, step: int) -> str:
    """What the file shows for ``node`` clicked at trace ``step`` (as offline.js looks it up)."""
    shown = None
    for start, index in data["facts"][node]:
        if start <= step:
            shown = data["texts"][index]
    return shown


def test_script_json_escapes_every_character_that_could_end_the_element_and_reads_back_the_same():
    value = {"name": "</script><b>&amp;", "lines": "a\u2028b\u2029c", "<!--": ["-->"]}
    text = script_json(value)
    assert not re.search("[<>&\u2028\u2029]", text)
    assert "\\u003c/script\\u003e\\u003cb\\u003e\\u0026amp;" in text and "a\\u2028b\\u2029c" in text
    assert json.loads(text) == value


def test_a_node_named_like_a_closing_script_tag_stays_text(tmp_path):
    path = save_html(_graph(HOSTILE), tmp_path / "f.html")
    source = path.read_text(encoding="utf-8")
    assert HOSTILE not in source  # nowhere raw: not in the JSON, not in the page
    parts, data = _read(path)
    assert [kind for kind, _ in parts.scripts] == ["application/json", "module"]  # nothing broke out
    assert parts.tags.count("script") == 2
    # the name is in the data, as text a browser shows escaped (Graphviz's SVG, the facts' HTML)
    assert "&lt;/script&gt;&lt;b&gt;" in data["player"]["anim"]["svg"]
    assert "t1 · &lt;/script&gt;&lt;b&gt;" in _facts(data, "t1", 0)


def test_the_players_own_files_hold_nothing_that_would_end_their_element():
    for text in (player.script(), player.stylesheet(), (Path(player.__file__).parent / "offline.js").read_text()):
        assert not re.search(r"</(script|style)|<!--", text, re.IGNORECASE)
    assert html_file._inline("a = '</script>'; /* <!-- */") == "a = '<\\/script>'; /* <\\!-- */"


def test_the_file_states_its_language_and_title_and_speaks_korean_when_asked(tmp_path):
    parts, data = _read(save_html(_graph(), tmp_path / "en.html", lang="en"))
    assert parts.lang == "en"
    assert parts.title == "The backward pass of f, step by step · Lucid Graph Lab"
    assert data["player"]["words"]["next"] == "Next"
    parts, data = _read(save_html(_graph(), tmp_path / "ko.html", lang="ko"))
    assert parts.lang == "ko"
    assert parts.title == "f의 역전파, 한 단계씩 · Lucid Graph Lab"
    assert data["player"]["words"]["next"] == "다음"
    assert data["player"]["anim"]["titles"][1].startswith("단계 1 / 4")
    assert "값" in _facts(data, "t0", 4) and "기울기" in _facts(data, "t0", 4)


def test_the_node_facts_are_written_for_every_step_where_they_change_with_the_right_numbers(tmp_path):
    _parts, data = _read(save_html(_graph(), tmp_path / "f.html"))
    nodes = data["player"]["anim"]["nodes"]["order"]
    names = {n["id"]: n["name"] for n in nodes}
    assert set(data["facts"]) == {f"t{k}" for k in range(5)} == set(names)
    x_id = next(i for i, n in names.items() if n.startswith("x"))
    z_id = next(i for i, n in names.items() if n.startswith("z"))
    # the steps: 1 f → t2 (−4), 2 f → z (3), 3 t2 → x (−4), 4 t2 → y (−4); x's gradient arrives at step 3
    assert "not reached yet at this step" in _facts(data, x_id, 2)
    for step in (3, 4):
        reached = _facts(data, x_id, step)
        assert "Gradient (final)</div><pre>-4</pre>" in reached and "Value</div><pre>-2</pre>" in reached
    assert [s for s, _ in data["facts"][x_id]] == [0, 3]
    assert "not reached yet at this step" in _facts(data, z_id, 1)
    z_facts = _facts(data, z_id, 2)  # grad z = x + y = 3, its value −4
    assert "Gradient (final)</div><pre>3</pre>" in z_facts and "Value</div><pre>-4</pre>" in z_facts
    assert "Used by: t4 · f" in z_facts and "Made by" not in z_facts
    for timeline in data["facts"].values():
        starts = [s for s, _ in timeline]
        assert starts[0] == 0 and starts == sorted(set(starts))
    assert len(data["texts"]) < 5 * 5  # one text per change, not nodes × steps


def test_a_file_larger_than_the_limit_is_refused_with_a_message(tmp_path, monkeypatch):
    monkeypatch.setattr(html_file, "HTML_LIMIT_BYTES", 50_000)
    with pytest.raises(HtmlTooLarge, match=r"larger than 0 MB .*export single steps"):
        save_html(_graph(), tmp_path / "f.html")
    assert not (tmp_path / "f.html").exists()
    assert html_file.HTML_LIMIT_BYTES == 50_000  # the documented limit is the module's, read at the call
    monkeypatch.undo()
    assert html_file.HTML_LIMIT_BYTES == 20_000_000


def test_the_facts_stop_counting_as_soon_as_they_pass_the_budget():
    from lucid.notebook.widget import record

    rec = record(_graph())
    with pytest.raises(HtmlTooLarge):
        html_file.facts_timeline(rec, 5, budget=500)


def test_a_class_mode_cut_keeps_nothing_of_the_asked_step_or_later(tmp_path):
    from lucid.notebook.widget import animate, record

    rec = record(_graph())
    anim = animate(rec)
    text = html_file.html_text(rec, anim, lang="en", step=4, upto=2)
    parts = _Parts()
    parts.feed(text)
    data = json.loads(next(t for k, t in parts.scripts if k == "application/json"))
    assert data["player"]["anim"]["trace_steps"] in ([], [0, 1])
    assert len(data["player"]["anim"]["titles"]) == 2 and data["player"]["step"] == 1
    assert all(start < 2 for timeline in data["facts"].values() for start, _ in timeline)
    # step 1 (t2 gets −4) is in the file; z's 3 (step 2) and x's and y's −4 (steps 3, 4) are not
    assert [s for s, _ in data["facts"]["t2"]] == [0, 1]
    for node in ("t0", "t1", "t3"):
        assert [s for s, _ in data["facts"][node]] == [0]
        assert "not reached yet at this step" in _facts(data, node, 1)
    reached = [re.search(r"<b>(t[0-9]) ·", t)[1] for t in data["texts"] if "Gradient (" in t]
    assert sorted(reached) == ["t2", "t4"]  # the output's seed and t2's −4 only


def test_bad_arguments_are_refused_with_what_to_pass(tmp_path):
    from lucid.viz import StepperError

    with pytest.raises(StepperError, match="lang must be one of 'en', 'ko'"):
        save_html(_graph(), tmp_path / "f.html", lang="fr")
    with pytest.raises(StepperError, match="step 9 is outside"):
        save_html(_graph(), tmp_path / "f.html", step=9)
    with pytest.raises(StepperError, match="stepper\\(\\) takes a Tensor"):
        save_html(3.0, tmp_path / "f.html")


def test_a_program_source_opens_at_the_chosen_step(tmp_path):
    _parts, data = _read(save_html("a = 1.5\nb = -2.0\nout = a * b + a", tmp_path / "p.html", step=2))
    assert data["player"]["step"] == 2 and data["player"]["embedded"] is True
    assert len(data["player"]["anim"]["titles"]) == len(data["player"]["anim"]["changes"])


def test_a_steppers_file_keeps_its_step_view_and_language(tmp_path):
    pytest.importorskip("anywidget")
    from lucid.viz import stepper

    player_widget = stepper(_graph(), step=3, lang="ko", direction="LR", seconds=2.5)
    parts, data = _read(player_widget.save_html(tmp_path / "s.html"))
    assert parts.lang == "ko" and data["player"]["step"] == 3 and data["player"]["seconds"] == 2.5
    assert data["player"]["anim"]["titles"] == player_widget.animation.titles
    parts, data = _read(save_html(player_widget, tmp_path / "en.html", lang="en"))
    assert parts.lang == "en" and data["player"]["anim"]["titles"][3].startswith("Step 3 of 4")
    # the widget answers a click with the same facts the file holds
    player_widget.inspect("t0", 4)
    assert player_widget.inspection == _facts(_read(tmp_path / "s.html")[1], "t0", 4)


def test_without_javascript_the_file_shows_the_step_it_opens_at(tmp_path):
    page = save_html(_graph(), tmp_path / "f.html", step=2).read_text(encoding="utf-8")
    still = page[page.index("<noscript>"):page.index("</noscript>")]
    assert "<b>Step 2 of 4: f → z through ×</b>" in still and "<svg" in still
    arithmetic = re.sub(r"<[^>]+>", "", still[still.index('<div class="lgl-arith">'):])
    assert arithmetic.startswith("grad f · ∂f/∂z= 1.000 · 3.000= 3.000⇒ grad z= 3.000")  # grad f · ∂f/∂z = 1 · 3
    assert "this is a still picture of step 2." in still


def test_a_cut_files_still_picture_is_of_a_kept_step():
    from lucid.notebook.widget import animate, record

    rec = record(_graph())
    page = html_file.html_text(rec, animate(rec), lang="en", step=4, upto=2)
    still = page[page.index("<noscript>"):page.index("</noscript>")]
    assert "Step 1 of 4" in still and "Step 2 of 4" not in still and "3.000 final" not in still
