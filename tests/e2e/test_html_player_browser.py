"""The offline HTML player (``save_html``, the Playground's *Interactive HTML*) in a real Chromium (issue 29).

Each file is opened from disk (``file://``) with EVERY other request routed to fail, as on a laptop with the
network off: the test then checks that no request other than the file itself was even tried, steps with →
(nothing focused: the page's keys are the player's) and sees the explanation change, clicks a node and sees
its facts with the right numbers, and runs axe's WCAG A/AA rules on the page. Two files: one written by the
notebook API (``lucid.viz.save_html`` with a node named ``</script><b>``, and a Korean stepper's ``save_html``),
one downloaded from the app's Export panel (English and Korean); the same file without JavaScript and inside an
``<iframe>`` (the README's LMS and slide recipes). A screenshot of each is saved as ``artifacts/e2e-html-player-*.png``.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.axe_audit import AXE_JS, audit
from tests.e2e.conftest import _unavailable
from tests.e2e.test_playground_browser import open_playground
from tests.e2e.waits import SLOW, after_paint, wait_until_idle

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
TITLE = ".lucid-player .lucid-expl-head"
EXPLANATION = ".lucid-player .lucid-expl-body"


def _network_off(tab) -> list[str]:
    """Abort every request of ``tab`` but ``file:`` ones; returns the list that collects every URL asked."""
    asked: list[str] = []

    def route(r):
        asked.append(r.request.url)
        if r.request.url.startswith("file:"):
            r.continue_()
        else:
            r.abort()

    tab.route("**/*", route)
    return asked


def _offline(tab, path: Path) -> list[str]:
    """Open ``path`` from disk with every request but ``file:`` ones aborted; returns the list of every URL asked."""
    asked = _network_off(tab)
    errors: list[str] = []
    tab.on("pageerror", lambda err: errors.append(str(err)))
    tab.goto(path.as_uri())
    tab.wait_for_selector("#lucid-offline .lucid-player svg g.node", timeout=SLOW)
    after_paint(tab)
    assert errors == []
    return asked


def _text(tab, selector: str) -> str:
    return tab.eval_on_selector(selector, "e => e.textContent")


def _step_and_click(tab, *, node: str, facts: list[str]) -> None:
    """→ changes the explanation; a click on ``node`` shows facts holding every text of ``facts``."""
    before = _text(tab, EXPLANATION)
    title = _text(tab, TITLE)
    tab.keyboard.press("ArrowRight")
    tab.wait_for_function("([sel, old]) => document.querySelector(sel).textContent !== old",
                          arg=[EXPLANATION, before])
    assert _text(tab, TITLE) != title
    tab.click(f"#lucid-offline svg g.node#{node}")
    tab.wait_for_selector("#lucid-offline .lucid-facts .lucid-facts-head")
    shown = _text(tab, "#lucid-offline .lucid-facts")
    for part in facts:
        assert part in shown


def _no_violations(tab) -> None:
    if not AXE_JS.exists():
        _unavailable(f"axe-core is not installed at {AXE_JS} (bash scripts/axe_setup.sh)")
    found = audit(tab)
    assert found == [], "\n".join(str(f) for f in found)


@pytest.fixture()
def saved_file(tmp_path) -> Path:
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")
    from lucid import Tensor
    from lucid.viz import save_html

    x, y, z = (Tensor(-2.0, requires_grad=True, name="x"), Tensor(5.0, requires_grad=True, name="</script><b>"),
               Tensor(-4.0, requires_grad=True, name="z"))
    f = (x + y) * z
    f.name = "f"
    f.backward()
    return save_html(f, tmp_path / "backward.html")


def test_the_notebook_apis_file_steps_and_shows_facts_with_the_network_off(tab, saved_file):
    asked = _offline(tab, saved_file)
    assert tab.eval_on_selector("html", "e => e.lang") == "en"
    assert tab.title() == "The backward pass of f, step by step · Lucid Graph Lab"
    assert "Step 0 of 4" in _text(tab, TITLE)
    # the hostile name is drawn as text, and no <b> came out of it: the page's only scripts are the file's two
    assert "</script><b>" in _text(tab, "#lucid-offline svg g.node#t1")
    assert tab.eval_on_selector_all("script", "els => els.length") == 2
    _step_and_click(tab, node="t3", facts=["t3 · z", "Value", "-4", "Used by: t4 · f"])
    assert "not reached yet at this step" in _text(tab, "#lucid-offline .lucid-facts")  # step 1: z still pending
    # stepping on keeps the picked node's facts in step: at step 2 z's gradient (x + y = 3) is final
    tab.keyboard.press("ArrowRight")
    tab.wait_for_function("() => document.querySelector('#lucid-offline .lucid-facts').textContent"
                          ".includes('Gradient (final)')")
    assert "Gradient (final)3" in _text(tab, "#lucid-offline .lucid-facts").replace("\n", "")
    tab.keyboard.press("End")
    tab.wait_for_function("sel => document.querySelector(sel).textContent.includes('Step 4 of 4')", arg=TITLE)
    ARTIFACTS.mkdir(exist_ok=True)
    tab.screenshot(path=str(ARTIFACTS / "e2e-html-player-notebook.png"), full_page=True)
    _no_violations(tab)
    assert asked == [saved_file.as_uri()], f"requests beside the file: {asked}"


def test_a_korean_steppers_file_speaks_korean_offline_from_the_step_on_screen(tab, tmp_path):
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")
    pytest.importorskip("anywidget")
    from lucid.viz import stepper

    player = stepper("a = 1.5\nb = -2.0\nout = a * b + a", lang="ko")
    player.step = 1  # as if stepped in the notebook: the file opens where the player is
    path = player.save_html(tmp_path / "ko.html")
    asked = _offline(tab, path)
    assert tab.eval_on_selector("html", "e => e.lang") == "ko"
    assert "단계 1 / 4" in _text(tab, TITLE)
    _step_and_click(tab, node="t0", facts=["t0 · a", "값", "1.5"])
    _no_violations(tab)
    assert asked == [path.as_uri()]


#: The app's language, its Make button and what the file then says (the page's language is the file's).
APP_LANGUAGES = [("", "Make interactive HTML", "en", "Step 0 of", ["t0 ·", "Value", "Gradient"]),
                 ("playground?lang=ko", "대화형 HTML 만들기", "ko", "단계 0 /", ["t0 ·", "값", "기울기"])]


@pytest.mark.parametrize(("query", "make", "lang", "first", "facts"), APP_LANGUAGES, ids=["en", "ko"])
def test_the_apps_interactive_html_download_plays_offline(page, app_url, tmp_path, browser, query, make, lang,
                                                          first, facts):
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")
    open_playground(page, app_url, query)
    page.locator(".st-key-pg_export_open summary").click()
    wait_until_idle(page)
    page.get_by_role("button", name=make).click()
    download_button = page.locator(".st-key-pg_dl_html button").first
    download_button.wait_for(timeout=SLOW)
    with page.expect_download() as got:
        download_button.click()
    path = tmp_path / got.value.suggested_filename
    got.value.save_as(path)
    assert path.name == "lucid-backward.html"

    context = browser.new_context(viewport={"width": 1200, "height": 900})
    offline = context.new_page()
    try:
        asked = _offline(offline, path)
        assert offline.eval_on_selector("html", "e => e.lang") == lang
        assert first in _text(offline, TITLE)
        _step_and_click(offline, node="t0", facts=facts)
        ARTIFACTS.mkdir(exist_ok=True)
        offline.screenshot(path=str(ARTIFACTS / f"e2e-html-player-app-{lang}.png"), full_page=True)
        _no_violations(offline)
        assert asked == [path.as_uri()]
    finally:
        context.close()


def test_with_javascript_off_the_file_shows_its_still_picture(browser, saved_file):
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1200, "height": 900})
    page = context.new_page()
    try:
        page.goto(saved_file.as_uri())
        still = page.locator(".lucid-still")
        still.wait_for()
        assert page.locator(".lucid-still svg g.node").count() == 5 + 2  # five tensors, two ops
        assert "Step 0 of 4: seed grad f = 1" in still.text_content()
        assert "this is a still picture of step 0." in still.text_content()
    finally:
        context.close()


def test_the_file_in_an_iframe_steps_once_clicked_as_the_lms_and_slide_recipes_say(tab, saved_file):
    """The README's recipe: a course page (or a reveal.js slide) holds the file in an <iframe>."""
    course = saved_file.parent / "course.html"
    course.write_text('<!DOCTYPE html><html lang="en"><head><title>Week 3</title></head><body><main>'
                      '<h1>Week 3: backpropagation</h1><iframe src="backward.html" title="Backward pass, step by step" '
                      'width="100%" height="720" style="border:0"></iframe></main></body></html>', encoding="utf-8")
    asked = _network_off(tab)
    tab.goto(course.as_uri())
    frame = tab.frame_locator("iframe")
    frame.locator("#lucid-offline svg g.node").first.wait_for(timeout=SLOW)
    frame.locator("h1").click()  # a click inside the frame gives it the keys
    before = frame.locator(".lucid-expl-head").text_content()
    tab.keyboard.press("ArrowRight")
    frame.locator(".lucid-expl-head", has_text="Step 1 of 4").wait_for()
    assert before != frame.locator(".lucid-expl-head").text_content()
    assert sorted(asked) == sorted([course.as_uri(), saved_file.as_uri()])
