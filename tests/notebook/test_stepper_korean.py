"""``stepper(..., lang="ko")``: the player's words, its explanations and a clicked node's facts in Korean.

The facts once hard-coded "Value", "Gradient", "Used by" inside a Korean player (issue 29); they come
from the same catalog messages as the app's node inspector now.
"""
import importlib.util
import shutil

import pytest

from lucid import Tensor
from lucid.i18n import current_language
from lucid.viz import StepperError, stepper

if importlib.util.find_spec("anywidget") is None:  # found, not imported at collection (a second per process)
    pytest.skip("anywidget is not installed", allow_module_level=True)
pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")


def readme_output() -> Tensor:
    """The README's notebook snippet: inputs without names."""
    x, y, z = Tensor(-2.0, requires_grad=True), Tensor(5.0, requires_grad=True), Tensor(-4.0, requires_grad=True)
    f = (x + y) * z
    f.backward()
    return f


def test_a_korean_player_shows_korean_facts_for_a_clicked_node():
    w = stepper(readme_output(), lang="ko")
    w._on_message(w, {"kind": "inspect", "node": "t2", "step": 4}, [])
    facts = w.inspection
    assert "<b>t2 · +</b> — 중간 결과, 스칼라" in facts
    assert "<div>값</div><pre>3</pre>" in facts
    assert "<div>기울기 (확정)</div><pre>-4</pre>" in facts
    assert "<b>+</b> 연산이 만듦: <code>out = a + b</code>" in facts
    assert "국소 미분: <code>∂out/∂a = 1</code>, <code>∂out/∂b = 1</code>" in facts
    assert "입력 (부모): t0 · 입력, t1 · 입력" in facts
    assert "사용하는 곳: t4 · ×" in facts
    for english in ("Value", "Gradient", "Made by", "Local derivatives", "Inputs (parents)", "Used by", "scalar"):
        assert english not in facts


def test_a_korean_player_says_when_a_gradient_has_not_arrived_and_when_it_is_partial():
    x = Tensor(1.5, requires_grad=True)
    out = x * x + x
    out.backward()
    w = stepper(out, lang="ko")
    w.inspect("t0", step=0)
    assert "<div>기울기</div><pre>이 단계에서는 아직 도달하지 않음</pre>" in w.inspection
    shown = []
    for k in range(w.n_steps):
        w.inspect("t0", step=k)
        shown.append(w.inspection)
    partial = [facts for facts in shown if "부분값" in facts]
    assert partial, "x gets three contributions: partial after the first"
    assert "<div>기울기 (부분값: 기여분이 아직 더 남았습니다)</div>" in partial[0]
    assert "<div>기울기 (확정)</div><pre>4</pre>" in shown[-1]  # d(x·x + x)/dx = 2x + 1 = 4

def test_the_korean_players_titles_keys_and_explanations_are_korean_and_the_session_stays_english():
    before = current_language()
    w = stepper(readme_output(), lang="ko")
    assert current_language() == before
    assert w.title(1) == "단계 1 / 4: out → t2 (× 연산을 거쳐)"
    assert w.data["keys_help"].startswith("키 (플레이어를 클릭해 포커스를 준 뒤)")
    assert w.data["words"]["first"] == "처음"
    assert ('국소 미분(local derivative, ×의 규칙): <code class="lgl-formula">∂out/∂t2 = t3 = −4.000</code>'
            in w.animation.explanations[1])
    english = stepper(readme_output())  # a later player in the session's language
    assert english.title(1) == "Step 1 of 4: out → t2 through ×"
    english.inspect("t2", step=4)
    assert "<div>Value</div><pre>3</pre>" in english.inspection and "Used by: t4 · ×" in english.inspection


def test_an_unknown_language_is_refused_with_the_choices():
    with pytest.raises(StepperError, match="lang must be one of 'en', 'ko', not 'fr'"):
        stepper(readme_output(), lang="fr")


def test_facts_escape_names_in_korean_too():
    x = Tensor(2.0, requires_grad=True, name="<b>x</b>")
    out = x * x
    out.backward()
    w = stepper(out, lang="ko")
    w.inspect("t0", step=w.n_steps - 1)
    assert "&lt;b&gt;x&lt;/b&gt;" in w.inspection and "<b>x</b>" not in w.inspection
