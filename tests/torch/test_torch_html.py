"""``Recording.save_html``: a recorded PyTorch pass as one offline HTML file, with torch's own numbers (issue 29).

``out = a · b + a`` at a = 1.5, b = −2 with upstream gradient −0.8: torch gives a.grad = −0.8 · (b + 1) = 0.8
and b.grad = −0.8 · a = −1.2; the file's last facts of a and b say the same, final. No anywidget needed.
"""
from __future__ import annotations

import json
import os
import re
import shutil

import pytest

if os.environ.get("CI") == "true":
    import torch  # noqa: F401 - CI installs torch; these tests must run there
torch = pytest.importorskip("torch")

from lucid.torch import record  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")


def test_a_recorded_pass_saves_as_an_offline_file_with_torchs_gradients(tmp_path):
    a = torch.tensor(1.5, requires_grad=True)
    b = torch.tensor(-2.0, requires_grad=True)
    with record(names={"a": a, "b": b}) as rec:
        out = a * b + a
    out.backward(torch.tensor(-0.8))
    assert a.grad.item() == pytest.approx(0.8) and b.grad.item() == pytest.approx(-1.2)

    page = rec.save_html(tmp_path / "torch.html", lang="ko").read_text(encoding="utf-8")
    assert page.startswith('<!DOCTYPE html>\n<html lang="ko">')
    data = json.loads(re.search(r'id="lucid-data">(.*?)</script>', page, re.DOTALL)[1])
    names = {n["id"]: n["name"] for n in data["player"]["anim"]["nodes"]["order"]}
    last = {}
    for node, timeline in data["facts"].items():
        last[names[node].split(",")[0]] = data["texts"][timeline[-1][1]]
    (a_facts,) = [t for name, t in last.items() if name.startswith("a")]
    (b_facts,) = [t for name, t in last.items() if name.startswith("b")]
    assert "기울기 (확정)</div><pre>0.8</pre>" in a_facts and "값</div><pre>1.5</pre>" in a_facts
    assert "기울기 (확정)</div><pre>-1.2</pre>" in b_facts and "값</div><pre>-2</pre>" in b_facts
