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


PROJECTOR = {"width": 1280, "height": 720}
_SHARED: dict[int, object] = {}
"""Per browser, the context the class tabs open in (closed with the browser)."""


class SharedTab:
    """What a test holds of a class tab opened in the shared context: closing it closes the tab (the student
    leaves), never the context the other tabs are in."""

    def __init__(self, tab) -> None:
        self.tab = tab

    def close(self) -> None:
        if not self.tab.is_closed():
            self.tab.close()


def new_tab(browser, own_context: bool = False):
    """A tab at 1280×720 and what closes it. Each is its own page (its own Streamlit session and sessionStorage);
    they share one context, whose caches hold Streamlit's frontend after the first (a fresh context costs 5.3-6.0 s
    of CPU per Playground load, a new tab in a warm one 2.7 s), unless ``own_context``: a test that cuts one tab's
    network (``context.set_offline``) gives that tab a context of its own."""
    if own_context:
        context = browser.new_context(viewport=PROJECTOR)
        tab = context.new_page()
    else:
        shared = _SHARED.get(id(browser))
        if shared is None or not shared.browser.is_connected():
            shared = _SHARED[id(browser)] = browser.new_context(viewport=PROJECTOR)
        tab = shared.new_page()
        context = SharedTab(tab)
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


def students_join(browser, app_url: str, code: str, n: int, contexts: list, own_contexts: bool = False) -> list:
    """``n`` students' tabs open the join link and follow the teacher (``own_contexts``: each in a context of its
    own, for a test that cuts one's network)."""
    from tests.e2e.waits import wait_until_idle

    students = []
    for _ in range(n):
        context, student = new_tab(browser, own_context=own_contexts)
        contexts.append(context)
        student.goto(f"{app_url}/playground?room={code}")
        student.get_by_text("following the teacher").wait_for(timeout=SLOW)
        student.locator(PLAYER).wait_for(timeout=SLOW)
        wait_until_idle(student)
        students.append(student)
    return students
