"""Streamlit's own text on every page reaches WCAG 2.1 AA contrast, measured in Chromium (issue 28, 1.4.3).

The colours are the browser's computed ones (``getComputedStyle``): each visible text's colour, faded by the
opacity of every element around it, over the background painted behind it (the first opaque background up its
ancestors, with the translucent ones on top blended in). Captions and ``st.code``'s syntax colours failed
before ``lucid/ui/projector/contrast.css`` (3.9:1 and 2.5-3.6:1). Both modes are measured: Classroom mode
changes sizes, and 24 px text (or 18.66 px bold) only needs 3:1.

Left to other checks: the graph's SVG (``tests/viz/test_contrast.py`` measures every label on its fill), the
player's own controls (the player's audit) and disabled controls, which WCAG exempts.
"""
from __future__ import annotations

import pytest

from lucid.ui.runtime import document
from tests.e2e.waits import SLOW, wait_until_idle

pytestmark = pytest.mark.e2e

#: url path -> what appears only once the page has computed its main result (a Playwright selector)
PAGES = {
    "playground": "css=.st-key-pg_graph g.node",
    "gradient_check": "text=All 3 inputs agree",
    "pitfalls": "css=[data-testid='stCode'] .token.comment",  # st.code highlights after it draws
    "broadcasting": "text=lucid's backward gives the same",
    "op_reference": "text=differentiable ops agree with central differences",
    "train_mlp": "text=nodes per step",
}
LEFT_OUT = "svg, .lucid-player, :disabled, [aria-disabled='true'], [data-testid='stIconMaterial']"

LOW_CONTRAST_JS = """
(leftOut) => {
  const parse = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const linear = (c) => { c /= 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const lum = ([r, g, b]) => 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
  const over = (top, under) => [0, 1, 2].map(i => top[i] * top[3] + under[i] * (1 - top[3])).concat([1]);
  const background = (el) => {
    // A slider's value floats above its thumb: it is drawn on what is behind the slider, not on the thumb.
    const start = el.closest('[data-testid="stSliderThumbValue"]')?.closest('[data-testid="stSlider"]') ?? el;
    const layers = [];
    for (let e = start; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    return layers.reverse().reduce((under, top) => over(top, under), [255, 255, 255, 1]);
  };
  const out = [];
  let measured = 0;
  const seen = new Set();
  const walker = document.createTreeWalker(document.querySelector('[data-testid="stApp"]'), NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || !n.textContent.trim() || seen.has(el) || el.closest(leftOut)) continue;
    seen.add(el);
    const control = el.closest('[data-testid="stElementContainer"], [data-testid="stButton"], label');
    if (control?.querySelector(':disabled')) continue;  // a disabled control's label
    if (!el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
    const box = el.getBoundingClientRect();
    if (box.width < 2 || box.height < 2) continue;
    const style = getComputedStyle(el);
    let opacity = 1;
    for (let e = el; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
    const bg = background(el), c = parse(style.color);
    const fg = over([c[0], c[1], c[2], c[3] * opacity], bg);
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    const ratio = (hi + 0.05) / (lo + 0.05);
    const size = parseFloat(style.fontSize), bold = Number(style.fontWeight) >= 700;
    const needed = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    measured += 1;
    const words = JSON.stringify(n.textContent.trim().slice(0, 40));
    if (ratio < needed) out.push(`${ratio.toFixed(2)}:1 < ${needed}: ${words} `
      + `(${style.color} x ${opacity.toFixed(2)} on rgb(${bg.slice(0, 3).map(Math.round)}), `
      + `${el.closest('[data-testid]')?.dataset.testid} ${String(el.className).slice(0, 40)})`);
  }
  return { measured, failing: out };
}
"""


def measure(page) -> dict:
    """The page's texts below AA, once the app's stylesheet is in (``st.html`` draws a moment after the page's
    text on a fresh load: its code is loaded on first use)."""
    page.wait_for_function(f"() => document.querySelector('.st-key-{document.HEAD_KEY} style')", timeout=SLOW)
    return page.evaluate(LOW_CONTRAST_JS, LEFT_OUT)


@pytest.mark.parametrize("query", ["", "?classroom=1", "?lang=ko"], ids=["normal", "classroom", "korean"])
def test_every_text_of_every_page_reaches_aa_contrast(page, app_url, query):
    results = {}
    for path, marker in PAGES.items():
        if query == "?lang=ko" and marker.startswith("text="):
            marker = "css=h1"  # the marker texts are English
        page.goto(f"{app_url}/{path}{query}")
        page.locator(marker).first.wait_for(timeout=2 * SLOW)
        wait_until_idle(page, timeout=2 * SLOW)
        results[path] = measure(page)
    print({path: r["measured"] for path, r in results.items()})
    assert all(r["measured"] > 10 for r in results.values()), results
    assert {path: r["failing"] for path, r in results.items() if r["failing"]} == {}


def test_captions_and_code_comments_are_the_darkened_colours(page, app_url):
    page.goto(f"{app_url}/pitfalls")
    page.locator(PAGES["pitfalls"]).first.wait_for(timeout=SLOW)
    wait_until_idle(page)
    caption = page.evaluate("""() => { const c = document.querySelector('[data-testid="stCaptionContainer"]');
        return [getComputedStyle(c).opacity, getComputedStyle(c.querySelector('p') ?? c).color]; }""")
    comment = page.evaluate("""() => getComputedStyle(
        document.querySelector('[data-testid="stCode"] .token.comment')).color""")
    assert caption == ["1", "rgb(97, 94, 90)"]  # #615E5A: 6.4:1 on white (Streamlit's 60 % fade was 3.9:1)
    assert comment == "rgb(89, 93, 107)"  # #595D6B: 6.1:1 on the code block (Streamlit's grey was 3.5:1)
