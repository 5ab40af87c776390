"""The in-browser player in a real Chromium: no rerun per step, presenter keys, even autoplay, always in view.

Measured in the page itself (``performance.now()`` and a MutationObserver on the
player's ``data-step``), and the websocket is watched with Playwright's frame
events: stepping must not send Streamlit a single message.
"""
from __future__ import annotations

import json
import statistics
import urllib.parse

import pytest

from lucid import gallery
from lucid.session import share
from lucid.session.analysis import analyze
from tests.e2e.conftest import ARTIFACTS
from tests.e2e.waits import SLOW, after_paint, url_step, wait_until_idle

pytestmark = pytest.mark.e2e

GRAPH = ".st-key-pg_graph"
PLAYER = f"{GRAPH} .lucid-player"
NODES = f"{GRAPH} g.node"


def open_link(tab, app_url: str, slug: str, *, step: int | None = None, classroom: bool = False) -> None:
    source = gallery.by_slug(slug).source
    tab.goto(f"{app_url}/?{urllib.parse.urlencode(share.encode(source, step=step))}")
    tab.wait_for_selector(NODES, timeout=SLOW)
    wait_until_idle(tab)
    if classroom:
        tab.locator(".st-key-pg_classroom label").click()
        tab.wait_for_selector(f"{PLAYER}.lucid-classroom", timeout=SLOW)
        wait_until_idle(tab)
    after_paint(tab)


def focus_page(tab) -> None:
    """Nothing focused (a presenter's clicker sends its keys to the page itself)."""
    tab.evaluate("() => document.activeElement && document.activeElement.blur()")


def shown_step(tab) -> int:
    return int(tab.eval_on_selector(PLAYER, "el => Number(el.dataset.step)"))


def current_id(tab) -> str | None:
    return tab.evaluate("sel => document.querySelector(sel)?.id ?? null", f"{GRAPH} g.node.current")


def watch_websocket(tab) -> list[str]:
    """Every message the page sends Streamlit from now on (Streamlit's socket is opened on load, so watch first)."""
    sent: list[str] = []
    tab.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(str(payload)[:40])))
    return sent


def test_next_updates_graph_and_explanation_in_the_click_itself_and_sends_nothing(tab, app_url):
    sent = watch_websocket(tab)
    open_link(tab, app_url, "mlp")
    a = analyze(gallery.by_slug("mlp").source)
    tab.wait_for_timeout(500)  # let the page's own start-up messages go out
    before = len(sent)
    timings = []
    for step in range(1, 6):
        result = tab.evaluate("""(sel) => {
            const root = document.querySelector(sel);
            const next = [...root.querySelectorAll('button')].find(b => b.textContent.trim() === 'Next');
            const t0 = performance.now();
            next.click();
            const sync = {step: Number(root.dataset.step),
                          current: root.querySelector('g.node.current')?.id,
                          title: root.querySelector('.lucid-expl-head').textContent};
            return new Promise(done => requestAnimationFrame(() => done({...sync, ms: performance.now() - t0})));
        }""", PLAYER)
        # Everything changed inside the click handler itself (no server round trip could fit there)
        assert result["step"] == step
        assert result["current"] == f"t{a.index_of(a.trace.steps[step].parent)}"
        assert result["title"].startswith(f"Step {step} of {a.n_steps - 1}")
        timings.append(result["ms"])
    tab.wait_for_timeout(500)
    assert sent[before:] == [], "stepping must not send anything to the server"
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "e2e-next-latency.json").write_text(json.dumps({"next_to_next_frame_ms": timings}))
    assert url_step(tab, 5) == 5  # mirrored into the URL by the page


def test_presenter_keys_step_and_play_but_not_while_typing(tab, app_url):
    open_link(tab, app_url, "scalar")
    n = analyze(gallery.by_slug("scalar").source).n_steps
    tab.locator(".lucid-keys").hover()
    assert "Page Down" in tab.get_attribute(".lucid-keys", "title")
    focus_page(tab)
    for key, expected in [("ArrowRight", 1), ("PageDown", 2), ("ArrowRight", 3), ("ArrowLeft", 2),
                          ("PageUp", 1), ("End", n - 1), ("Home", 0)]:
        tab.keyboard.press(key)
        assert shown_step(tab) == expected, key
    tab.keyboard.press("Space")
    tab.wait_for_function("sel => document.querySelector(sel).dataset.playing === '1'", arg=PLAYER)
    tab.keyboard.press("Space")
    tab.wait_for_function("sel => document.querySelector(sel).dataset.playing === '0'", arg=PLAYER)
    at = shown_step(tab)
    editor = tab.locator(".st-key-pg_source textarea")
    editor.click()
    editor.press("End")
    for key in ("ArrowRight", "ArrowLeft", "PageDown", "Home", "Space"):
        editor.press(key)
    assert shown_step(tab) == at  # the editor keeps its keys
    assert tab.eval_on_selector(PLAYER, "el => el.dataset.playing") == "0"


def test_autoplay_steps_are_evenly_spaced(tab, app_url):
    open_link(tab, app_url, "scalar")
    tab.evaluate("""(sel) => {
        const root = document.querySelector(sel);
        window.__shown = [];
        new MutationObserver(() => window.__shown.push([Number(root.dataset.step), performance.now()]))
          .observe(root, {attributes: true, attributeFilter: ['data-step']});
    }""", PLAYER)
    tab.get_by_role("button", name="Play", exact=True).click()
    interval = 1000.0  # the default speed, "normal": a step a second
    tab.wait_for_function("() => window.__shown.length >= 11", timeout=30_000)
    tab.get_by_role("button", name="Pause", exact=True).click()
    shown = tab.evaluate("window.__shown")[:11]
    steps = [s for s, _ in shown]
    assert steps == list(range(1, 12))
    start = shown[0][1]
    gaps = [b[1] - a[1] for a, b in zip(shown, shown[1:])]
    drift = [t - start - i * interval for i, (_, t) in enumerate(shown)]
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "e2e-autoplay-gaps.json").write_text(json.dumps({"gaps_ms": gaps, "drift_ms": drift}))
    # Steps are due at start + i * interval (the schedule itself: tickDelay, tests/js): a late tick is not carried
    # into the ones after it, so the typical step is on time even when a loaded machine makes one late.
    assert statistics.median(abs(d) for d in drift) <= 0.1 * interval, drift
    assert statistics.median(gaps) == pytest.approx(interval, rel=0.1), gaps
    assert drift[-1] <= 0.1 * interval + max(drift[:-1]), drift  # lateness never accumulates


def _node_checks(tab) -> dict:
    return tab.evaluate("""(sel) => {
        const root = document.querySelector(sel);
        const bar = root.querySelector('.lucid-bar').getBoundingClientRect();
        const cur = root.querySelector('g.node.current').getBoundingClientRect();
        const svg = root.querySelector('.lucid-svg-host svg');
        const scale = svg.getScreenCTM().a;
        // names, values and gradients (the kind/shape caption line is set smaller on purpose)
        let smallest = Infinity;
        root.querySelectorAll('g.node text').forEach(t => {
            const size = parseFloat(t.getAttribute('font-size'));
            if (size >= 11) smallest = Math.min(smallest, size * scale);
        });
        const host = root.querySelector('.lucid-svg-host').getBoundingClientRect();
        const expl = root.querySelector('.lucid-expl-body').firstElementChild || root.querySelector('.lucid-expl-body');
        const line = expl.getBoundingClientRect();
        return {top: cur.top, bottom: cur.bottom, left: cur.left, right: cur.right, bar: bar.bottom,
                expl_top: line.top, expl_first_line: line.top + Math.min(line.height, 40),
                width: innerWidth, height: innerHeight, host_left: host.left, host_right: host.right,
                smallest_text_px: smallest};
    }""", PLAYER)


@pytest.mark.parametrize("slug", ["mlp", "scalar"])
def test_at_1280x720_every_current_node_stays_in_view(tab, app_url, slug):
    """Normal mode from the first step taken (a fresh page shows its editor first); a big graph scrolls
    and follows the current node. Classroom mode (the whole graph at once, the current node magnified)
    is ``test_projector_browser``."""
    tab.set_viewport_size({"width": 1280, "height": 720})
    open_link(tab, app_url, slug)
    n = analyze(gallery.by_slug(slug).source).n_steps
    focus_page(tab)
    tab.wait_for_timeout(1000)  # the page settles after the mode change (the editor folds away)
    for step in range(n):
        if step:
            tab.keyboard.press("ArrowRight")
        assert shown_step(tab) == step
        if step == 0:
            continue
        box = _node_checks(tab)
        # the explanation's first (arithmetic) line is on screen too, below the bar
        assert box["bar"] - 0.5 <= box["expl_top"] and box["expl_first_line"] <= box["height"], (step, box)
        assert box["top"] >= box["bar"] - 0.5, (step, box)  # not under the sticky control bar
        assert box["bottom"] <= box["height"] + 0.5, (step, box)  # not below the fold
        assert box["left"] >= max(0, box["host_left"]) - 0.5, (step, box)
        assert box["right"] <= min(box["width"], box["host_right"]) + 0.5, (step, box)
    buttons = tab.eval_on_selector_all(f"{PLAYER} .lucid-btn[data-action]:not(.lucid-inspect)",
                                       "els => els.map(b => [b.textContent.trim(), b.scrollWidth <= b.clientWidth])")
    assert [t for t, _ in buttons] == ["First", "Prev", "Next", "Last", "Play"]
    assert all(fits for _, fits in buttons), buttons  # never truncated


def test_a_link_opens_at_its_step_and_the_node_inspector_gets_the_step_of_the_click(tab, app_url):
    a = analyze(gallery.by_slug("scalar").source)
    open_link(tab, app_url, "scalar", step=3)
    assert shown_step(tab) == 3
    focus_page(tab)
    tab.keyboard.press("ArrowRight")
    assert url_step(tab, 4) == 4
    k = a.index_of(a.trace.steps[4].parent)
    tab.locator(f"{GRAPH} g.node#t{k}").click()
    inspector = tab.locator(".st-key-pg_inspector")
    inspector.get_by_text(f"t{k} · ").first.wait_for(timeout=SLOW)
    wait_until_idle(tab)
    assert shown_step(tab) == 4  # the rerun for the inspector leaves the player where it was
    got = a.trace.grads_at(4)[id(a.order[k])]
    assert f"{float(got):.6g}" in inspector.inner_text()  # its gradient as it stands at step 4
    tab.reload()
    tab.wait_for_selector(NODES, timeout=SLOW)
    wait_until_idle(tab)
    assert shown_step(tab) == 4  # a reload restores the step from the URL
