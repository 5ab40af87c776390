"""Tabs of a class in a real browser: each its own context (its own session), at the projector's 1280×720."""
from __future__ import annotations

from tests.e2e.conftest import ACTION_TIMEOUT_MS
from tests.e2e.waits import SLOW

PLAYER = ".lucid-player"
ALERT = "[data-testid='stAlertContainer']"
"""Streamlit's message boxes (st.success, st.info, st.warning, st.error): a student's receipt and verdict are read
there, not by the page's text alone, since the class panel's live region (``room_watch``, read by screen readers,
not shown) says the same words."""
ROOM_STATUS = ".lucid-room-status"
"""The player's connection line (not connected, class ended)."""


def new_tab(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    tab = context.new_page()
    tab.set_default_timeout(ACTION_TIMEOUT_MS)
    return context, tab


def trace_step(tab) -> str | None:
    """The trace step the player shows."""
    return tab.evaluate("sel => document.querySelector(sel)?.dataset.traceStep ?? null", PLAYER)


ROOM_STATE = """async (sel) => {
  const root = document.querySelector(sel);
  const d = root ? {...root.dataset} : null;
  const link = new URL(location.href).searchParams.get('room');
  let feed = null;
  if (link) {
    try { feed = await (await fetch(`/app/static/rooms/${link}.json`, {cache: 'no-store'})).text(); }
    catch (e) { feed = String(e); }
  }
  return {player: d, feed, url: location.href, status: root?.querySelector('.lucid-room-status')?.textContent};
}"""


def room_state(tab) -> dict:
    """What a tab's player knows of its class (its data attributes: the step shown, the feed version and step read,
    the last rerun it asked for) and the room's feed as the tab reads it now: said when a wait fails."""
    try:
        return tab.evaluate(ROOM_STATE, PLAYER)
    except Exception as err:  # noqa: BLE001 - the tab is gone: say so
        return {"error": repr(err)}


def wait_step(tab, step: int) -> None:
    try:
        tab.wait_for_function("([sel, k]) => document.querySelector(sel)?.dataset.traceStep === k",
                              arg=[PLAYER, str(step)], timeout=SLOW)
    except Exception as err:
        raise AssertionError(f"the player did not reach step {step}: {room_state(tab)}") from err


def teacher_starts_a_class(browser, app_url: str, contexts: list, example: str = "cs231n-circuit",
                           extra: str = ""):
    """A teacher's tab opens ``example`` (``extra``: more link words, e.g. ``&classroom=1``) and starts a class
    (``contexts`` collects its context to close)."""
    from tests.e2e.waits import wait_until_idle

    context, teacher = new_tab(browser)
    contexts.append(context)
    teacher.goto(f"{app_url}/playground?example={example}{extra}")
    teacher.locator(PLAYER).wait_for(timeout=SLOW)
    wait_until_idle(teacher)
    teacher.get_by_text("Teach a live class").click()
    teacher.get_by_role("button", name="Start a class").click()
    teacher.get_by_text("0 students").wait_for(timeout=SLOW)
    wait_until_idle(teacher)
    return teacher


def students_join(browser, app_url: str, code: str, n: int, contexts: list) -> list:
    """``n`` students' tabs open the join link and follow the teacher (each its own context)."""
    from tests.e2e.waits import wait_until_idle

    students = []
    for _ in range(n):
        context, student = new_tab(browser)
        contexts.append(context)
        student.goto(f"{app_url}/playground?room={code}")
        student.get_by_text("following the teacher").wait_for(timeout=SLOW)
        student.locator(PLAYER).wait_for(timeout=SLOW)
        wait_until_idle(student)
        students.append(student)
    return students
