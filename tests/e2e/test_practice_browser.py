"""A student defines swish with a wrong derivative, reads where it fails, fixes it, and steps the graph with it."""
from __future__ import annotations

import math

import pytest

from tests.e2e.waits import SLOW, frame_id, wait_for_new_frame, wait_until_idle

pytestmark = pytest.mark.e2e

GRAPH = ".st-key-pg_graph"
NODES = f"{GRAPH} g.node"
PLAYER = f"{GRAPH} .lucid-player"
EDITOR = ".st-key-pg_source textarea"
PROGRAM = ("def swish(x) = x * sigmoid(x)\n"
           "d swish / d x = {rule}\n"
           "w = 0.5\na = 1.5\nb = -0.3\ny = swish(w * a + b)\n")
WRONG = "sigmoid(x) * (1 + (1 - sigmoid(x)))"
RIGHT = "sigmoid(x) * (1 + x * (1 - sigmoid(x)))"
ERROR_BOX = "[data-testid='stAlertContentError']"
SUCCESS_BOX = "[data-testid='stAlertContentSuccess']"


def run_program(page, source: str, shows: str | None = None) -> None:
    """Type the program and run it (Ctrl+Enter); wait for its visible effect (the new graph, or ``shows`` when
    the drawing stays the same: a fixed rule changes gradients, not the forward picture), then for the run."""
    before = frame_id(page, GRAPH)
    editor = page.locator(EDITOR)
    editor.fill(source)
    editor.press("Control+Enter")
    if shows is None:
        wait_for_new_frame(page, before, GRAPH)
    else:
        page.locator(shows).wait_for(timeout=SLOW)
    wait_until_idle(page)


def test_a_student_fixes_a_wrong_swish_derivative_and_steps_the_graph_with_it(page, app_url):
    page.goto(app_url)
    page.wait_for_selector(NODES, timeout=SLOW)
    wait_until_idle(page)

    run_program(page, PROGRAM.format(rule=WRONG))
    error = page.locator(ERROR_BOX)
    error.wait_for(timeout=SLOW)
    told = error.inner_text()
    assert "d swish / d x is wrong at the program's values (x = 0.45)" in told
    s = 1 / (1 + math.exp(-0.45))
    assert f"expected {s * (1 + 0.45 * (1 - s)):.6g}" in told and f"your rule gives {s * (2 - s):.6g}" in told
    assert page.locator(NODES).count() > 0  # the graph is still drawn, with the wrong rule

    run_program(page, PROGRAM.format(rule=RIGHT), shows=SUCCESS_BOX)
    success = page.locator(SUCCESS_BOX)
    assert "swish: every rule agrees with central differences" in success.inner_text()
    assert page.locator(ERROR_BOX).count() == 0

    # Step 1 goes from y back through swish: its explanation multiplies by the student's rule
    page.locator(PLAYER).get_by_role("button", name="Next", exact=True).click()
    page.wait_for_function("sel => document.querySelector(sel)?.dataset.step === '1'", arg=PLAYER)
    body = page.locator(f"{PLAYER} .lucid-expl-body")
    page.wait_for_function("sel => document.querySelector(sel)?.textContent.includes('the rule of swish')",
                           arg=f"{PLAYER} .lucid-expl-body", timeout=SLOW)
    assert f"{s * (1 + 0.45 * (1 - s)):.4f}" in body.inner_text()
    assert page.locator("[data-testid='stException']").count() == 0
