"""Keyboard only, in a real browser (WCAG 2.1.1, 4.1.3): the Playground from load to stepping, and a student's
class from the join link to the verdict, with Tab, typing and Enter alone; the Tab counts are printed.

A student who cannot use a mouse, or hears the page through a screen reader, must be able to answer a class's
question: the answer field and Submit are reached by Tab, Enter submits, and the page's live region (a
``role=status`` element that is there before anything is said in it) says the new question, "Answer received"
and the verdict. The test records what every live region says while it happens (a MutationObserver), as a screen
reader would hear it: text that appears inside a region already on the page. The connection's loss and return
are said there too.
"""
from __future__ import annotations

import urllib.parse

import pytest

from lucid.session import share
from tests.e2e.class_tabs import ALERT, PLAYER, new_tab, teacher_starts_a_class
from tests.e2e.conftest import ARTIFACTS
from tests.e2e.waits import SLOW, after_paint, frame_id, wait_for_new_frame, wait_until_idle
from tests.large_programs import scalar_mlp_source

pytestmark = pytest.mark.e2e

SHOTS = ARTIFACTS / "screenshots"
GRAPH = ".st-key-pg_graph"
PG_PLAYER = f"{GRAPH} .lucid-player"
PROGRAM = "a = 2.0\nb = a * a\n"
MOST_TABS = 80
"""No control this test reaches may take more Tab presses than this from where the test starts."""
STUDENT_TABS = 1
"""Tab presses from a fresh page to the skip link to the answer field (issue 28: "a small number of Tab stops");
Enter on it puts the focus in the field (without it: 18 presses past the whole Playground)."""

FOCUSED = """() => { const e = document.activeElement; if (!e || e === document.body) return 'body';
  return `${e.tagName.toLowerCase()} "${(e.getAttribute('aria-label') || e.textContent || '').trim().slice(0, 40)}"`
    + (e.className && typeof e.className === 'string' ? ` .${e.className.split(' ')[0]}` : ''); }"""

HEAR = """() => {
  // What a screen reader hears: text that appears inside a live region already on the page (shown, not
  // aria-hidden). A region inserted with its text already in it is not counted: it is not reliably announced.
  window.__heard = [];
  const region = (n) => {
    const e = n && (n.nodeType === 1 ? n : n.parentElement);
    const r = e && e.closest('[aria-live]:not([aria-live="off"]), [role=status], [role=alert], [role=log]');
    return r && !r.closest('[aria-hidden="true"]') && r.getClientRects().length ? r : null;
  };
  new MutationObserver((changes) => {
    for (const c of changes) {
      const r = region(c.target);
      const said = r && r.textContent.trim();
      if (said && window.__heard[window.__heard.length - 1] !== said) window.__heard.push(said);
    }
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def press_until(tab, done_js: str, what: str, key: str = "Tab", arg=None) -> int:
    """Press ``key`` until ``done_js`` (given the focused element) holds; the number of presses."""
    for n in range(1, MOST_TABS + 1):
        tab.keyboard.press(key)
        if tab.evaluate(f"(arg) => {{ const e = document.activeElement; return !!({done_js}); }}", arg):
            return n
    raise AssertionError(f"{what}: not focused after {MOST_TABS} presses of {key}; focus is on {tab.evaluate(FOCUSED)}")


def heard(tab) -> list[str]:
    return tab.evaluate("() => window.__heard || []")


def wait_heard(tab, words: str, what: str) -> None:
    try:
        tab.wait_for_function("w => (window.__heard || []).some((t) => t.includes(w))", arg=words, timeout=SLOW)
    except Exception as err:
        raise AssertionError(f"no live region said {words!r} ({what}); heard: {heard(tab)}") from err


def test_the_playground_runs_a_typed_program_and_steps_by_keyboard_alone(tab, app_url):
    counts: dict[str, int] = {}
    tab.goto(f"{app_url}/playground")
    tab.wait_for_selector(f"{PG_PLAYER} g.node.current", timeout=SLOW)
    wait_until_idle(tab)
    counts["page start -> Program editor"] = press_until(
        tab, "e && e.matches('textarea[aria-label=\"Program\"]')", "the Program editor")
    tab.keyboard.press("Control+A")
    tab.keyboard.type(PROGRAM)  # Enter in the editor is a new line
    counts["editor -> Run (Shift+Tab)"] = press_until(
        tab, "e && e.tagName === 'BUTTON' && e.textContent.trim().endsWith('Run')", "the Run button", key="Shift+Tab")
    tab.keyboard.press("Enter")
    tab.locator(f"{PG_PLAYER} .lucid-step-label", has_text="step 0 of 2").wait_for(timeout=SLOW)
    wait_until_idle(tab)
    assert tab.locator("textarea[aria-label='Program']").input_value() == PROGRAM

    for key, step in (("ArrowRight", "1"), ("ArrowRight", "2"), ("ArrowLeft", "1")):  # focus stays on Run
        tab.keyboard.press(key)
        tab.wait_for_function("([sel, s]) => document.querySelector(sel)?.dataset.step === s", arg=[PG_PLAYER, step],
                              timeout=SLOW)
    tab.locator(f"{PG_PLAYER} .lucid-step-label", has_text="step 1 of 2").wait_for(timeout=SLOW)

    # The Drawing popover: Enter on its button puts the focus in its panel (Streamlit left it on the button, the
    # panel's first control 38 Tabs away), Escape closes it and gives the focus back to the button.
    counts["Run -> Drawing (Shift+Tab)"] = press_until(
        tab, "e && e.matches('[data-testid=\"stPopoverButton\"]') && e.textContent.includes('Drawing')",
        "the Drawing button", key="Shift+Tab")
    tab.keyboard.press("Enter")
    tab.wait_for_function("() => !!document.activeElement?.closest('[data-testid=\"stPopoverBody\"]')",
                          timeout=SLOW)
    counts["Drawing -> its panel's first control"] = 0  # Enter alone: no Tab
    tab.keyboard.press("Escape")
    tab.wait_for_selector("[data-testid='stPopoverBody']", state="detached", timeout=SLOW)
    tab.wait_for_function("() => document.activeElement?.matches('[data-testid=\"stPopoverButton\"]')",
                          timeout=SLOW)

    # Node facts by Enter: the graph is one Tab stop, ↓ walks its nodes, Enter opens the node's facts.
    counts["Drawing -> the graph"] = press_until(tab, "e && e.closest('g.node')", "a graph node")
    tab.keyboard.press("ArrowDown")  # the next node (the graph's own keys, while a node has the focus)
    node = tab.evaluate("() => document.activeElement.closest('g.node').id")
    tab.keyboard.press("Enter")
    tab.locator(".st-key-pg_inspector").get_by_text(f"{node} · ").first.wait_for(timeout=SLOW)
    assert tab.evaluate("() => document.activeElement.closest('g.node')?.id") == node  # the focus stays
    print(f"\nTab presses (Playground): {counts}")
    assert tab.locator("[data-testid='stException']").count() == 0


def test_a_box_of_a_collapsed_graph_opens_by_keyboard_alone(tab, app_url):
    """Tab to the graph, ↓ to the first box (a neuron of the scalar MLP), Enter: the box opens under the focus."""
    tab.goto(f"{app_url}/playground?{urllib.parse.urlencode(share.encode(scalar_mlp_source()))}")
    tab.wait_for_selector(f"{GRAPH} .lucid-svg-host g.node[tabindex]", timeout=SLOW)
    wait_until_idle(tab)
    counts = {"page start -> the graph": press_until(tab, "e && e.closest('g.node')", "a graph node")}
    counts["first node -> first box (↓)"] = press_until(
        tab, "e && /^g[0-9]+$/.test(e.closest('g.node')?.id || '')", "a box of the collapsed graph", key="ArrowDown")
    box = tab.evaluate("() => document.activeElement.closest('g.node').id")
    old = frame_id(tab, GRAPH)
    tab.keyboard.press("Enter")
    wait_for_new_frame(tab, old, GRAPH)
    wait_until_idle(tab)
    title = tab.evaluate("() => document.activeElement.querySelector(':scope > title')?.textContent || ''")
    assert tab.evaluate("() => document.activeElement.closest('g.node')?.id") == box and "click to close" in title
    print(f"\nTab presses (collapsed graph): {counts}")


def test_a_student_joins_answers_and_hears_the_question_receipt_and_verdict_by_keyboard_alone(browser, app_url):
    contexts: list = []
    counts: dict[str, int] = {}
    try:
        teacher = teacher_starts_a_class(browser, app_url, contexts)  # the teacher is not the one under test
        code = urllib.parse.parse_qs(urllib.parse.urlparse(teacher.url).query)["room"][0]
        context, student = new_tab(browser, own_context=True)  # its network is cut below
        contexts.append(context)
        student.goto(f"{app_url}/playground?room={code}")  # the join link
        student.get_by_text("following the teacher").wait_for(timeout=SLOW)
        student.locator(PLAYER).wait_for(timeout=SLOW)
        wait_until_idle(student)
        student.evaluate(HEAR)

        teacher.get_by_role("button", name="Ask the class").click()
        answer = student.get_by_label("Your answer")
        answer.wait_for(timeout=SLOW)
        heading = student.get_by_text("Next step:").inner_text()  # "Next step: <label> = ?"
        label = heading.split("Next step:", 1)[1].split("=", 1)[0].strip()
        wait_heard(student, f"{label} = ?", "the new question")
        wait_until_idle(student)
        after_paint(student)

        assert student.evaluate(FOCUSED) == "body"  # nothing has had the focus yet: Tab starts at the page's top
        counts["page start -> skip link"] = press_until(
            student, "e && e.matches('a.lucid-skip-answer')", "the skip link to the answer field")
        link = student.locator("a.lucid-skip-answer")
        assert link.inner_text() == "Skip to the answer field" and link.is_visible()  # seen while focused
        after_paint(student)
        SHOTS.mkdir(parents=True, exist_ok=True)
        student.screenshot(path=str(SHOTS / "keyboard-student-skip-link.png"))
        student.keyboard.press("Enter")
        student.wait_for_function("() => document.activeElement?.matches('input[aria-label=\"Your answer\"]')",
                                  timeout=SLOW)
        student.keyboard.type("-4")
        counts["Your answer -> Submit"] = press_until(
            student, "e && e.tagName === 'BUTTON' && e.textContent.trim() === 'Submit'", "the Submit button")
        student.keyboard.press("Enter")
        student.locator(ALERT, has_text="Answer received").wait_for(timeout=SLOW)
        wait_heard(student, "Answer received", "the answer's receipt")
        tree = student.locator(".lucid-room-live").aria_snapshot()  # in Chromium's accessibility tree, as a status
        assert tree.startswith("- status") and "Answer received" in tree, tree

        teacher.get_by_text("1 / 1").wait_for(timeout=SLOW)
        wait_until_idle(teacher)
        teacher.get_by_role("button", name="Reveal").click()
        student.locator(ALERT, has_text="your answer").wait_for(timeout=SLOW)
        wait_heard(student, "your answer", "the verdict")

        context.set_offline(True)  # the network cut: the player cannot read the room's feed
        wait_heard(student, "Not connected", "the connection lost")
        context.set_offline(False)
        wait_heard(student, "Connected again", "the connection back")
        print(f"\nTab presses (student): {counts}\nheard: {heard(student)}")
        assert counts["page start -> skip link"] <= STUDENT_TABS, counts
        assert counts["Your answer -> Submit"] <= 3, counts  # the optional nickname, then Submit
        assert student.locator("[data-testid='stException']").count() == 0
    finally:
        for context in contexts:
            context.close()
