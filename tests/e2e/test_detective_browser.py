"""A teacher makes a gradient detective link and a student solves it in a few checks (issue 30), in Chromium.

The teacher opens the scalar gallery program, unfolds *Gradient detective: break one rule*, makes the link for the
first mistake offered and reads the answer key. The student opens the link in another browser (its own session):
the editor is folded, the graph in view; a click on the culprit's node in the graph chooses it, *Check this node*
fails it and the graph outlines it (``data-lucid-check="fail"``, dashed, and said in the node's name); a right node
passes; axe finds no WCAG A/AA violation on the student's page with the marks on; naming the node and the
mistake solves the case with its score. Screenshots go to ``artifacts/``.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e.axe_audit import audit
from tests.e2e.waits import SLOW, wait_until_idle

pytestmark = pytest.mark.e2e

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
PLAYER = ".st-key-pg_graph .lucid-player"


def choose(page, key: str, option: str) -> None:
    """Pick ``option`` (its visible text, or the start of it) in the Streamlit selectbox keyed ``key``."""
    box = page.locator(f".st-key-{key} [role=combobox]")
    box.scroll_into_view_if_needed()
    box.click()
    page.get_by_role("option").filter(has_text=option).first.click()
    wait_until_idle(page)


def teacher_link(page, app_url) -> tuple[str, int, str]:
    page.goto(f"{app_url}/playground?example=scalar")
    page.locator(PLAYER).wait_for(timeout=SLOW)
    wait_until_idle(page)
    page.get_by_text("Gradient detective: break one rule").click()
    page.locator(".st-key-pg_detective_make button").wait_for(timeout=SLOW)
    wait_until_idle(page)  # the expander's opening run is over: a click now is not lost in it
    page.locator(".st-key-pg_detective_make button").click()
    page.get_by_text("Answer key").wait_for(timeout=SLOW)
    wait_until_idle(page)
    link = page.locator("[data-testid='stCode'] code").filter(has_text="detective=").inner_text().strip()
    answer = page.locator("p").filter(has_text="(not in the link)").inner_text()
    culprit = int(re.search(r"· t(\d+) ·", answer).group(1))
    mistake = answer.split("(not in the link):", 1)[1].split(" · t")[0].strip()
    return link, culprit, mistake


def check(page, node: int) -> None:
    page.locator(f"{PLAYER} g#t{node}").click()  # the graph chooses the node to check
    wait_until_idle(page)
    page.locator(".st-key-pg_detective_check button").click()
    page.get_by_text(re.compile(rf"^[✓✗] t{node} ·")).first.wait_for(timeout=SLOW)
    wait_until_idle(page)


def test_a_student_finds_the_broken_rule_from_the_teachers_link(browser, app_url, page):
    link, culprit, mistake = teacher_link(page, app_url)
    assert link.startswith("?code=") and "&detective=" in link

    student = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    try:
        student.goto(f"{app_url}/playground{link}")
        student.locator(PLAYER).wait_for(timeout=SLOW)
        student.get_by_text("one backward rule of this program is broken").first.wait_for(timeout=SLOW)
        wait_until_idle(student)
        assert student.locator("[data-testid='stDataFrame']").count() == 0  # the right engine's numbers stay hidden

        right = 0 if culprit != 0 else 1
        check(student, right)
        check(student, culprit)
        fails = student.locator(f"{PLAYER} g#t{culprit}")
        student.wait_for_function("sel => document.querySelector(sel)?.getAttribute('data-lucid-check') === 'fail'",
                                  arg=f"{PLAYER} g#t{culprit}", timeout=SLOW)
        assert "check failed" in fails.locator(":scope > title").text_content()
        assert student.locator(f"{PLAYER} g#t{right}").get_attribute("data-lucid-check") == "pass"
        assert student.get_by_text("Checks used: 2").count() == 1
        found = audit(student)  # the panel, the marks and their spoken names: WCAG 2.0/2.1 A and AA
        assert found == [], "\n".join(str(f) for f in found)
        ARTIFACTS.mkdir(exist_ok=True)
        student.locator(PLAYER).screenshot(path=str(ARTIFACTS / "e2e-detective-graph.png"))

        choose(student, "pg_detective_culprit", f"t{culprit} ·")
        choose(student, "pg_detective_mistake", mistake)
        student.locator(".st-key-pg_detective_accuse button").click()
        student.get_by_text("Solved with 2 node checks and 0 wrong guesses.").wait_for(timeout=SLOW)
        student.screenshot(path=str(ARTIFACTS / "e2e-detective-solved.png"), full_page=True)
        assert student.locator("[data-testid='stException']").count() == 0
    finally:
        student.context.close()
