"""Forward mode and grad() at ``?lang=ko``: Korean words around the very numbers the English page shows.

The Playground runs as ``app.py`` runs it (the link's ``lang=`` first, then the page). Streamlit formats a
select box's options when a test sets its value, so widget changes happen inside ``use_language``, as they
would in the Korean session.
"""
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from lucid import gallery
from lucid.autograd import backward_trace
from lucid.autograd.forward_trace import forward_trace
from lucid.expr import ExprError, run
from lucid.i18n import _, use_language
from lucid.ui.playground.forward_mode_view import ALL_INPUTS
from lucid.viz.explanation.explain import explain
from lucid.viz.explanation.forward_explain import ForwardExplainer
from lucid.viz.graph.dot import to_dot
from lucid.viz.graph.style import DERIVATIVE_CLUSTER

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "playground.py")
NUMBER = re.compile(r"[-−]?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?")
HANGUL = re.compile(r"[가-힣]")
ENGLISH_RUN = re.compile(r"\b[A-Za-z][a-z]+(?:[ -]+[A-Za-z][a-z]+)+\b")
NOTATION = re.compile(r"\\?\([A-Za-z][A-Za-z ,.\\-]*\\?\)|tangent\\?\(\w+\\?\)")
"""An English term glossed in parentheses (접벡터(tangent) on first use) and the ``tangent(t2)`` notation."""


def run_page(path: str) -> None:
    import runpy

    from lucid.ui.runtime import language

    language.follow_link()
    runpy.run_path(path, run_name="__main__")


def open_playground(example: str, lang: str) -> AppTest:
    at = AppTest.from_function(run_page, args=(PAGE,), default_timeout=120)
    at.query_params["lang"] = lang
    at.query_params["example"] = example
    at.session_state["pg_forward_open"] = True  # the reader opens the folded Forward mode panel
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _keyed(widgets, suffix: str):
    return next(w for w in widgets if w.key and w.key.endswith(suffix))


def pick(at: AppTest, lang: str, value: str) -> AppTest:
    """Move the forward panel's chosen input number, as a reader of ``lang`` does."""
    with use_language(lang):
        _keyed(at.selectbox, "_forward_input").set_value(value).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def numbers(text: str) -> list[str]:
    return NUMBER.findall(text)


def tangent_table(at: AppTest):
    return next(f.value for f in at.dataframe if len(f.value.columns) == 3)


def panel_explanation(at: AppTest) -> list[str]:
    """The step's title and sentences: the bold title (``**Step 3 of 3: …**``), then the lines after it."""
    values = [m.value for m in at.markdown]
    start = next(i for i, v in enumerate(values) if re.match(r"\*\*(Step|단계) \d", v))
    return values[start:]


# ----- the Forward mode panel ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def both_languages():
    return {lang: pick(open_playground("reverse-3-to-1", lang), lang, "x[1]") for lang in ("en", "ko")}


def test_the_forward_panel_has_korean_labels_and_options(both_languages):
    ko = both_languages["ko"]
    assert "전진 모드(forward mode): 입력 하나의 접벡터(tangent)를 앞으로 전달하기" in [e.label for e in ko.expander]
    picker = _keyed(ko.selectbox, "_forward_input")
    assert picker.label == "1만큼 움직일 입력 원소 (나머지는 그대로)"
    assert picker.options == ["x[0]", "x[1]", "x[2]", "모든 입력 원소를 한꺼번에 (각각 1씩 움직임)"]
    slider = _keyed(ko.slider, "_forward_step_x[1]")
    assert slider.label == "전진 단계" and slider.value == slider.max == 3
    assert _keyed(ko.toggle, "_forward_both").label == "야코비 행렬 전체를 두 방법으로 만들기"


def test_the_forward_panel_in_korean_shows_the_english_numbers(both_languages):
    en, ko = both_languages["en"], both_languages["ko"]
    (en_line,) = [c.value for c in en.code if c.value.startswith("ḟ")]
    (ko_line,) = [c.value for c in ko.code if c.value.startswith("ḟ")]
    assert en_line == "ḟ = Σ pushed forward on tangent(t2) = [     0 −1.382      0] → −1.382"
    assert ko_line == "ḟ = tangent(t2) = [     0 −1.382      0]에 Σ의 전진 규칙 적용 → −1.382"
    assert numbers(ko_line) == numbers(en_line)
    en_table, ko_table = tangent_table(en), tangent_table(ko)
    assert list(ko_table.columns) == ["노드", "접벡터", "값"]
    assert ko_table.to_numpy().tolist() == en_table.to_numpy().tolist()
    assert ko_table.to_numpy().tolist()[-1] == ["f", "ḟ", "−1.382"]  # ∂f/∂x₁ = x₁cos x₁ + sin x₁ at x₁ = −1
    captions = " ".join(c.value for c in ko.caption)
    assert "이 프로그램의 미분을 모두 구하려면 순전파 3번 또는 역전파 1번이 필요합니다." in captions
    assert "여기서는 후진 모드\\(reverse mode\\)가 유리합니다." in captions
    assert "ḟ: 이 방향을 따른 출력의 방향 미분\\(directional derivative\\)입니다." in captions


def test_the_step_explanation_is_korean_sentences(both_languages):
    en, ko = panel_explanation(both_languages["en"]), panel_explanation(both_languages["ko"])
    assert en[0] == "**Step 3 of 3: ḟ from tangent\\(t2\\)**"
    assert ko[0] == "**단계 3 / 3: tangent\\(t2\\)에서 ḟ 계산**"
    assert ko[1:4] == ["순전파: f = Σ\\(t2\\).",
                       "접벡터 규칙: Σ 연산은 원소별 연산이 아니므로, 전진 규칙\\(jvp\\)이 "
                       "국소 미분을 입력의 접벡터 전체에 한꺼번에 적용합니다: ḟ = 축에 대한 Σ ȧ.",
                       "비교용 역전파 규칙\\(Σ\\): ∂out/∂aᵢ = 1."]
    sentences = ko[:5]
    assert all(HANGUL.search(s) for s in sentences)
    assert [s for s in sentences if ENGLISH_RUN.search(NOTATION.sub(" ", s))] == []
    assert [numbers(s) for s in ko[4:5]] == [numbers(s) for s in en[4:5]] == [["−1.382"]]


def test_step_zero_in_korean_names_the_direction_with_the_same_seed():
    at = pick(open_playground("reverse-3-to-1", "ko"), "ko", "x[2]")
    with use_language("ko"):
        _keyed(at.slider, "_forward_step_x[2]").set_value(0).run()
    assert not at.exception
    assert panel_explanation(at)[0] == "**단계 0: 방향 고르기**"
    assert "ẋ = [    0     0 1.000]" in [c.value for c in at.code]
    assert any(m.value.startswith("전진 모드\\(forward mode\\)는 입력이 이 방향으로 움직일 때") for m in at.markdown)


def test_every_input_at_once_is_offered_and_pushed_in_korean():
    en = pick(open_playground("gradient-penalty", "en"), "en", ALL_INPUTS)
    ko = pick(open_playground("gradient-penalty", "ko"), "ko", ALL_INPUTS)
    (en_line,) = [c.value for c in en.code if c.value.startswith("tangent(out)")]
    (ko_line,) = [c.value for c in ko.code if c.value.startswith("tangent(out)")]
    assert numbers(ko_line) == numbers(en_line)
    program = run(gallery.by_slug("gradient-penalty").source)
    program.output.backward()
    expected = sum(float(t.grad.sum()) for t in program.inputs)  # J · (1, …, 1): the sum of the gradient
    assert float(numbers(ko_line)[-1].replace("−", "-")) == pytest.approx(expected, rel=1e-3)


def test_the_jacobian_both_ways_in_korean():
    results = {}
    for lang in ("en", "ko"):
        at = open_playground("forward-1-to-3", lang)
        with use_language(lang):
            _keyed(at.toggle, "_forward_both").set_value(True).run()
        assert not at.exception
        results[lang] = at
    en, ko = results["en"], results["ko"]
    headings = [m.value for m in ko.markdown if m.value.startswith("**") and "모드:" in m.value]
    assert headings == ["**전진 모드: 순전파 1번**", "**후진 모드: 역전파 3번**"]
    blocks = [c.value for c in ko.code if c.value.count("\n") == 2]
    assert blocks == [c.value for c in en.code if c.value.count("\n") == 2] and blocks[0] == blocks[1]
    assert any(c.value == "두 야코비 행렬이 같습니다. 행: 출력 원소(3개), 열: 입력 원소(1개, 입력을 만든 순서대로)."
               for c in ko.caption)


# ----- a grad() example, explained and drawn in Korean --------------------------------------------------
def test_a_grad_example_on_the_korean_playground_tells_its_lesson_in_korean():
    ko = open_playground("gradient-penalty", "ko")
    lesson = next(c.value for c in ko.caption if c.value.startswith(":material/lightbulb:"))
    assert "grad(loss, x)는 역전파(backward pass)로 만든 값(보라색 노드)이므로" in lesson
    gallery_picker = next(b for b in ko.selectbox if b.key and "_example" in b.key)
    assert gallery_picker.value == gallery.by_slug("gradient-penalty").title  # the English key, shown translated
    assert {"기울기 페널티", "헤세 행렬-벡터 곱(Hessian-vector product)", "전진 모드와 후진 모드: 입력 셋, 출력 하나",
            "전진 모드와 후진 모드: 입력 하나, 출력 셋"} <= set(gallery_picker.options)


def test_a_grad_example_is_explained_in_korean_step_by_step_with_the_same_numbers():
    program = run(gallery.by_slug("gradient-penalty").source)
    trace = backward_trace(program.output)
    code_blocks = re.compile(r"```\n(.*?)\n```", re.S)
    for step in range(len(trace.steps)):
        english = explain(trace, step)
        with use_language("ko"):
            korean = explain(trace, step)
        assert korean.title == english.title or HANGUL.search(korean.title)
        assert numbers(korean.arithmetic) == numbers(english.arithmetic)
        assert code_blocks.findall(korean.markdown) == code_blocks.findall(english.markdown)
        assert HANGUL.search(korean.text)
        assert not ENGLISH_RUN.search(re.sub(r"grad \w+", " ", korean.arithmetic)), korean.arithmetic
    with use_language("ko"):
        penalty_step = explain(trace, 5).text
        copies = explain(trace, 9)  # sum's backward rule made a broadcast_to node: its rule is in words
    assert copies.arithmetic.startswith("복사된 축들에 대해 합한 grad t11: 3 → 3, 축 0에 대한 Σ → 스칼라")
    assert "순전파(forward): t11 = 새 축 / 크기 1인 축을 따라 복사한 t10" in copies.text
    assert explain(trace, 9).arithmetic.startswith("grad t11 summed over the copied axes: 3 → 3")
    assert "연쇄 법칙(chain rule): grad g += grad t13 · ∂t13/∂g" in penalty_step
    assert "grad g 값은 아직 부분값입니다: 다른 경로를 따라 기여분 1개가 더 도착합니다" in penalty_step


def test_the_recorded_backward_pass_is_captioned_in_korean():
    program = run(gallery.by_slug("gradient-penalty").source)
    english = to_dot(program.output, backward_trace(program.output), 2).source
    with use_language("ko"):
        korean = to_dot(program.output, backward_trace(program.output), 2).source
    assert DERIVATIVE_CLUSTER in english and DERIVATIVE_CLUSTER not in korean
    assert "∂ grad(…)가 기록한 역전파" in korean
    assert "(backward pass: part of the gradient through" in english
    assert "(역전파: " in korean and "쪽을 지나는 기울기의 일부)" in korean
    assert english.count("class=derivative") == korean.count("class=derivative") > 0


def test_forward_explanations_in_korean_keep_the_arithmetic_of_the_english():
    program = run("x = [0.5, -1.0, 2.0]\nw = 1.5\ny = tanh(x * w)\nout = sum(y * y)")
    trace = forward_trace(program.output, {program.variables["x"]: np.array([1.0, 0.0, 0.0])})
    explainer = ForwardExplainer(trace)
    english = [explainer.seed_text()] + [explainer.step_text(i) for i in range(1, len(trace.steps) + 1)]
    with use_language("ko"):
        korean = [explainer.seed_text()] + [explainer.step_text(i) for i in range(1, len(trace.steps) + 1)]
    for en, ko in zip(english, korean):
        assert numbers(ko.arithmetic) == numbers(en.arithmetic)
        assert len(ko.lines) == len(en.lines) and all(HANGUL.search(line) for line in ko.lines)
    product, tanh = korean[1], korean[2]
    assert product.title == "단계 1 / 4: ẋ에서 tangent(t2) 계산"
    assert "w: 이 방향으로는 움직이지 않으므로(접벡터 0) 그 항은 빠집니다." in product.lines
    assert tanh.lines[1] == ("접벡터 규칙: ẏ = ∂y/∂t2 ⊙ tangent(t2). 움직이는 입력마다 접벡터에 국소 미분을 곱해 "
                             "더합니다(연쇄 법칙을 앞쪽으로 적용한 것).")
    assert tanh.arithmetic == english[2].arithmetic  # formulas and numbers only: the same in both languages


# ----- grad()'s errors --------------------------------------------------------------------------------
def test_grad_errors_read_in_korean_at_the_same_place():
    with pytest.raises(ExprError) as info:
        run("x = 1.0\ngrad(x * 2, 3.0)")
    assert "x must have a gradient" in str(info.value)
    with use_language("ko"):
        message = str(info.value)
    assert message.startswith("grad(): x에는 기울기가 있어야 합니다. w = [0.5, -1.0] 같은 리프 노드")
    assert "(2행, 13열)" in message and info.value.col == 13  # at the constant, as in English
    with pytest.raises(ExprError) as info:
        run("A = randn(200, 200)\ny = sum(A @ A @ A @ A @ A)\ng = grad(y, A)")
    with use_language("ko"):
        assert "grad(): 기울기를 구하는 행렬 곱에 곱셈-덧셈이 50,000,000번 넘게 필요합니다" in str(info.value)


def test_the_jacobian_comparison_refuses_in_korean():
    from lucid.lessons.forward_reverse import compare_modes

    with pytest.raises(ValueError) as info:
        compare_modes(run("const(2.0) * 3"))
    with use_language("ko"):
        assert str(info.value) == ("이 프로그램에는 기울기가 필요한(requires grad) 입력이 없으므로 "
                                   "야코비 행렬도 없습니다")
    assert _(ALL_INPUTS) == "every input number at once (each moves by 1)"
