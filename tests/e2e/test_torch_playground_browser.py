"""In a real browser: the Playground imports a recorded PyTorch step (a ``.lucid`` file) and plays it (issue 31).

The file is the gallery's own (``lucid/torch/recordings/mlp_step.lucid``), uploaded through the editor's
"Import a PyTorch recording" popover as a person would; the graph shows torch's layers and parameter names, →
steps through torch's backward pass in the browser, the explanation follows each step, and the gallery entry
plays the same file.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from lucid import gallery
from lucid.torch.analysis import analyze_recording
from lucid.viz import explain
from tests.e2e.waits import SLOW, after_paint, wait_until_idle

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = gallery.RECORDINGS[0]
GRAPH = ".st-key-pg_graph"
PLAYER = f"{GRAPH} .lucid-player"
NODES = f"{GRAPH} .lucid-svg-host g.node"


def open_playground(tab, app_url: str) -> None:
    tab.goto(f"{app_url}/playground")
    tab.wait_for_selector(NODES, timeout=SLOW)
    wait_until_idle(tab)


def shown_step(tab) -> int:
    return int(tab.eval_on_selector(PLAYER, "el => Number(el.dataset.step)"))


def explanation(tab) -> str:
    return tab.locator(f"{PLAYER} .lucid-expl").inner_text()


def node_texts(tab) -> str:
    return " ".join(tab.eval_on_selector_all(NODES, "els => els.map(e => e.textContent)"))


def wait_for_recording(tab) -> None:
    tab.get_by_text("Playing the PyTorch recording").first.wait_for(timeout=SLOW)
    tab.wait_for_function("sel => [...document.querySelectorAll(sel)].some(n => n.textContent.includes('fc1.weight'))",
                          arg=NODES, timeout=SLOW)
    wait_until_idle(tab)
    after_paint(tab)


def step_with_the_arrow_key(tab) -> None:
    """→ walks torch's steps one by one; each step's explanation is that step's, as lucid explains it."""
    analysis = analyze_recording(SHIPPED.data())
    assert shown_step(tab) == 0
    seen = [explanation(tab)]
    tab.evaluate("() => document.activeElement && document.activeElement.blur()")
    for k in range(1, 4):
        tab.keyboard.press("ArrowRight")
        tab.wait_for_function("([sel, k]) => document.querySelector(sel)?.dataset.step === String(k)",
                              arg=[PLAYER, k], timeout=SLOW)
        seen.append(explanation(tab))
        current = tab.evaluate("sel => document.querySelector(sel)?.id", f"{NODES}.current")
        assert current == f"t{analysis.index_of(analysis.trace.steps[k].parent)}"
        assert f"Step {k} of {analysis.n_steps - 1}" in seen[-1]
    assert len(set(seen)) == len(seen)  # the explanation changed at every step
    assert "fc2.bias" in seen[2] and explain(analysis.trace, 2).title_markdown.split(":")[0] in seen[2]


def test_an_uploaded_recording_draws_torchs_graph_and_steps_with_the_arrow_key(tab, app_url):
    open_playground(tab, app_url)
    program = tab.locator("textarea").first.input_value()
    tab.get_by_role("button", name="Import a PyTorch recording").click()
    uploader = tab.locator("[data-testid='stPopoverBody'] [data-testid='stFileUploaderDropzoneInput']")
    uploader.set_input_files(str(ROOT / "lucid" / SHIPPED.file))
    wait_for_recording(tab)
    texts = node_texts(tab)
    assert "fc1.weight" in texts and "fc2.bias" in texts and "linear" in texts
    tab.keyboard.press("Escape")  # the popover closes; the player keeps the keys
    after_paint(tab)
    step_with_the_arrow_key(tab)
    assert tab.locator("textarea").first.input_value() == program  # the program waits in the editor


def test_the_gallery_entry_plays_the_recording(tab, app_url):
    open_playground(tab, app_url)
    tab.get_by_role("combobox", name="Gallery").click()
    tab.get_by_role("option", name=SHIPPED.title).click()
    wait_for_recording(tab)
    step_with_the_arrow_key(tab)
