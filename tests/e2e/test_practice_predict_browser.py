"""On a phone, a student practises predicting the CS231n circuit's gradients alone (issue 30).

f = (x + y) * z asks grad q = z = −4 first, then grad z = q = 3. While a step is asked the player cannot step
onto it; a right answer lets it; a wrong one gets the class mode's diagnosis. Nothing is wider than the phone.
"""
from __future__ import annotations

import pytest

from tests.e2e.waits import SLOW, wait_until_idle

pytestmark = pytest.mark.e2e

PHONE = {"width": 390, "height": 844}
PLAYER = ".st-key-pg_graph .lucid-player"
ANSWER = ".st-key-pg_practice_answer input"
CHECK = ".st-key-pg_practice_check button"
SUCCESS = "[data-testid='stAlertContentSuccess']"
ERROR = "[data-testid='stAlertContentError']"


def answer(page, typed: str, shows: str) -> None:
    field = page.locator(ANSWER)
    field.fill(typed)
    page.locator(CHECK).click()
    page.get_by_text(shows).first.wait_for(timeout=SLOW)
    wait_until_idle(page)


def held(page, n: int) -> None:
    """Wait until the player holds ``n`` steps (what the last payload the page sent it has)."""
    page.wait_for_function("([sel, n]) => document.querySelector(sel)?.__player?.n === n", arg=[PLAYER, n],
                           timeout=SLOW)


def step_to_the_end(page) -> str | None:
    """Press → and End on the page (not in a field); the trace step the player shows then."""
    page.evaluate("() => document.activeElement?.blur()")
    for key in ("ArrowRight", "ArrowRight", "End"):
        page.keyboard.press(key)
    return page.evaluate("sel => document.querySelector(sel)?.dataset.traceStep ?? null", PLAYER)


def test_a_phone_student_predicts_one_right_one_wrong_and_the_player_waits(page, app_url):
    page.set_viewport_size(PHONE)
    page.goto(f"{app_url}/playground?example=cs231n-circuit&practice=predict")
    page.locator(ANSWER).wait_for(timeout=SLOW)
    page.locator(PLAYER).wait_for(timeout=SLOW)
    wait_until_idle(page)
    assert page.get_by_text("hold after step 1?").count() == 1
    held(page, 1)  # step 1 is asked: the player holds only the seed

    answer(page, "-4", "Right: grad q = −4.000")
    assert page.get_by_text("hold after step 2?").count() == 1
    held(page, 2)  # steps 0 and 1: the one just answered is shown, step 2 is asked
    assert step_to_the_end(page) == "1"

    answer(page, "-3", "The sign is flipped")
    assert "Not −3.000" in page.locator(ERROR).last.inner_text()
    held(page, 2)

    wide = page.evaluate("() => [...document.querySelectorAll('.st-key-pg_practice_open *')]"
                         ".filter(e => e.getBoundingClientRect().right > window.innerWidth + 1).length")
    assert wide == 0  # the practice fits the phone
    assert page.locator("[data-testid='stException']").count() == 0
