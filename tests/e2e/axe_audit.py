"""axe-core in a page the browser tests opened: inject the installed copy, run the WCAG 2.0/2.1 A and AA rules,
and say every violation in words a person can act on.

axe-core is an npm package pinned in ``tests/e2e/axe/package.json`` and installed by ``scripts/axe_setup.sh``
(which ``scripts/test.sh`` runs); the page gets the file from disk through Playwright, never from the network.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

AXE_DIR = Path(__file__).resolve().parent / "axe"
AXE_JS = AXE_DIR / "node_modules" / "axe-core" / "axe.min.js"
WCAG_AA_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")

RUN_AXE = """async (tags) => {
  const result = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations'],
                                          elementRef: true});
  // Where the element sits, in Streamlit's and the project's own names: the data-testid and st-key-/lucid- classes
  // of it and its ancestors, innermost first (axe's shortest selector may name none of them).
  const within = (e) => {
    const names = [];
    for (let x = e; x && x.nodeType === 1; x = x.parentElement) {
      if (x.dataset && x.dataset.testid) names.push(x.dataset.testid);
      for (const c of x.classList || []) if (/^(st-key-|lucid-)/.test(c)) names.push('.' + c);
    }
    return names.join(' < ');
  };
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({target: n.target.map(String), html: n.html.slice(0, 300),
                                within: n.element ? within(n.element) : '',
                                summary: (n.failureSummary || '').slice(0, 400)})),
  }));
}"""


@dataclass(frozen=True)
class Finding:
    """One element that fails one rule: enough to find it (selector, HTML) and to know why."""

    rule: str
    impact: str
    help: str
    target: str
    html: str
    summary: str
    within: str = ""
    """The element's and its ancestors' ``data-testid`` and ``st-key-``/``lucid-`` classes, innermost first."""

    def __str__(self) -> str:
        why = " ".join(self.summary.split())
        return (f"[{self.impact}] {self.rule} ({self.help})\n    at {self.target}\n    within {self.within}\n"
                f"    {self.html}\n    {why}")


def audit(page) -> list[Finding]:
    """Every WCAG 2.0/2.1 A and AA violation axe-core finds in ``page`` now, one per element and rule."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE_JS))
    found = page.evaluate(RUN_AXE, list(WCAG_AA_TAGS))
    return [Finding(v["id"], v["impact"] or "", v["help"], " ".join(n["target"]), n["html"], n["summary"],
                    n["within"]) for v in found for n in v["nodes"]]
