"""The five lesson pages at ``?lang=ko`` (Streamlit AppTest): Korean headings, labels and sentences, and the
very same numbers as the English page.

Each page runs as ``app.py`` runs it: the link's ``lang=`` is followed first (``language.follow_link``), then
the page file.
"""
import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from lucid.i18n import use_language
from lucid.lessons.pitfalls import first_failing_chain_length

PAGES = Path(__file__).resolve().parents[2] / "pages"
NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?%?")


def run_page(path: str) -> None:
    import runpy

    from lucid.ui.runtime import language

    language.follow_link()
    runpy.run_path(path, run_name="__main__")


def open_page(name: str, lang: str = "ko") -> AppTest:
    at = AppTest.from_function(run_page, args=(str(PAGES / f"{name}.py"),), default_timeout=180)
    if lang != "en":
        at.query_params["lang"] = lang
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def without_comments(code: str) -> str:
    """Code with its comments cut off (the comments are translated, the code is not)."""
    return "\n".join(line.split("#")[0].rstrip() for line in code.splitlines())


def numbers(text: str) -> list[str]:
    return NUMBER.findall(text)


def metrics(at: AppTest) -> list[tuple[str, str]]:
    return [(m.label, m.value) for m in at.metric]


def headings(at: AppTest) -> list[str]:
    return [e.value for kind in ("title", "header", "subheader") for e in getattr(at, kind)]


def widget_labels(at: AppTest) -> dict[str, str]:
    """Each keyed widget's label, by key."""
    found = {}
    for kind in ("text_input", "number_input", "selectbox", "radio", "select_slider", "slider", "button",
                 "multiselect"):
        for w in getattr(at, kind):
            if w.key:
                found[w.key] = w.label
    return found


def column_headings(frame) -> list[str]:
    """What a table shows above its columns: the configured label, else the column's name."""
    config = json.loads(frame.proto.columns or "{}")
    return [config.get(str(c), {}).get("label", str(c)) for c in frame.value.columns]


# ----- no English left --------------------------------------------------------------------------
ENGLISH_RUN = re.compile(r"\b[A-Za-z][a-z]+(?:[ -]+[A-Za-z][a-z]+)+\b")
NOTATION = re.compile(r"`[^`]*`|\([A-Za-z][A-Za-z ,.-]*\)|\bgrad \w+")
"""Code spans, an English term glossed in parentheses (the glossary's 기울기(gradient) on first use) and the
``grad x`` notation stay as they are."""
FROM_THE_PLAYGROUND = re.compile(
    r"^:material/lightbulb:|^Ready-made programs|^Runs the program|^Step \d+:|loss sum|sample \d|"
    r"^\(your own program\)$")
"""Text these pages borrow from the Playground's modules (the program editor and gallery, the collapsed
graph's step words and box names), translated on the Playground's branch, not in this one."""


def borrowed(text: str) -> bool:
    from lucid.gallery import EXAMPLES

    return bool(FROM_THE_PLAYGROUND.search(text)) or text in {e.title for e in EXAMPLES}


def visible_text(at: AppTest) -> list[str]:
    texts = headings(at)
    for kind in ("markdown", "caption", "success", "error", "warning", "info"):
        texts += [e.value for e in getattr(at, kind)]
    texts += [m.label for m in at.metric]
    for kind in ("text_input", "number_input", "selectbox", "radio", "select_slider", "slider", "button",
                 "multiselect"):
        for w in getattr(at, kind):
            texts += [w.label] + ([w.help] if getattr(w, "help", None) else [])
            if kind in ("selectbox", "multiselect"):
                texts += [str(o) for o in w.options]
    for frame in at.dataframe:
        texts += column_headings(frame)
    return [str(t) for t in texts]


def english_left(at: AppTest) -> list[str]:
    """Visible texts with a run of two or more English words outside code, glosses and borrowed text."""
    return [t for t in visible_text(at) if not borrowed(t) and ENGLISH_RUN.search(NOTATION.sub(" ", t))]


@pytest.mark.parametrize("name", ["pitfalls", "broadcasting", "gradient_check", "op_reference", "train_mlp"])
def test_no_english_sentence_or_label_is_left_on_the_korean_page(name):
    assert english_left(open_page(name)) == []


def test_the_english_run_detector_does_see_english():
    at = open_page("pitfalls", "en")
    assert "Three classic pitfalls" in english_left(at)


# ----- each page: Korean words, English numbers ----------------------------------------------------
def test_pitfalls_in_korean_show_the_same_gradients_trajectories_and_sorts():
    en, ko = open_page("pitfalls", "en"), open_page("pitfalls")
    assert headings(ko)[:4] == ["세 가지 흔한 실수", "1 · 기울기를 누적하지 않고 대입하기",
                                "2 · 단계 사이에 기울기를 0으로 초기화하지 않기",
                                "3 · 깊은 그래프에서 재귀로 위상 정렬하기"]
    assert widget_labels(ko)["pitfall_lr"] == "학습률" and widget_labels(ko)["pitfall_n"] == "사슬의 덧셈 개수 N"
    assert metrics(ko) == metrics(en) and [v for _, v in metrics(ko)] == ["3", "6"]
    assert ko.dataframe[0].value.columns.tolist() == ["단계", "w (zero_grad 사용)", "w (zero_grad 없음)"]
    assert ko.dataframe[0].value.to_numpy().tolist() == en.dataframe[0].value.to_numpy().tolist()
    assert [numbers(s.value) for s in ko.success] == [numbers(s.value) for s in en.success]
    assert [numbers(e.value) for e in ko.error] == [numbers(e.value) for e in en.error]
    nodes = 2 * first_failing_chain_length() + 1  # the page opens on the shortest chain that fails
    assert any(f"노드 {nodes:,}개를 거쳐 역전파 완료, dx = 1" in s.value for s in ko.success)
    assert "**초기화 있음:** `0.600 0.840 0.936 0.974 0.990 0.996`" in "\n".join(m.value for m in ko.markdown)
    assert [without_comments(c.value) for c in ko.code] == [without_comments(c.value) for c in en.code]
    assert "w.zero_grad()      # ← 흔히 빠뜨리는 줄" in ko.code[-1].value


def test_broadcasting_in_korean_shows_the_same_arrays_and_sums():
    en, ko = open_page("broadcasting", "en"), open_page("broadcasting")
    assert headings(ko)[:3] == ["브로드캐스팅의 순전파와 역전파", "순전파", "역전파"]
    assert widget_labels(ko)["bc_shape_a"] == "a의 형상" and widget_labels(ko)["bc_op"] == "연산"
    # every array, digit for digit (a summary line's words, min/mean/max, are in the reader's language)
    assert [numbers(c.value) for c in ko.code] == [numbers(c.value) for c in en.code]
    assert "최소 0.5000  평균 6.250  최대 12.00" in [c.value for c in ko.code]
    alignment_ko, alignment_en = ko.dataframe[0].value, en.dataframe[0].value
    assert alignment_ko.columns.tolist() == ["축", "a", "b", "결과", "일어나는 일"]
    sizes = alignment_ko[["a", "b", "결과"]].to_numpy().tolist()
    assert sizes == alignment_en[["a", "b", "result"]].to_numpy().tolist()
    assert alignment_ko["일어나는 일"].tolist() == ["b: 새 축이 생겨 3번 복사됨", "a: 크기가 1에서 4까지 늘어남"]
    shown = "\n".join(m.value for m in ko.markdown)
    assert "`a` (3, 1) + `b` (4,) → 결과 (3, 4)" in shown
    assert ("축 [1]에 대해 합합니다(축 [1]: a에서 크기 1이었다가 늘어난 축). "
            "합한 축은 크기 1로 남고 결과 형상은 (3, 1)입니다.") in shown
    assert [s.value for s in ko.success] == ["lucid의 역전파로 구한 grad a도 같습니다.",
                                             "lucid의 역전파로 구한 grad b도 같습니다."]
    with use_language("ko"):  # AppTest formats the options of a select box in the test's own language
        ko.text_input(key="bc_shape_a").set_value("3, 2").run()
        ko.text_input(key="bc_shape_b").set_value("4").run()
    assert ko.error[0].value == ("형상 (3, 2), (4,): 브로드캐스팅되지 않습니다. "
                                 "축 -1의 크기가 2, 4이고 어느 쪽도 1이 아닙니다")


def test_broadcasting_presets_are_shown_in_korean_and_still_set_the_shapes():
    at = open_page("broadcasting")
    picker = at.selectbox(key="bc_preset")
    assert picker.options[1] == "편향 행: (3, 4)와 (1, 4)"
    picker.select_index(1).run()
    assert at.session_state["bc_preset"] == "bias row: (3, 4) with (1, 4)"  # the session keeps the English key
    assert (at.text_input(key="bc_shape_a").value, at.text_input(key="bc_shape_b").value) == ("3, 4", "1, 4")
    assert not at.error


def test_gradient_check_in_korean_shows_the_same_gradients_and_verdict():
    en, ko = open_page("gradient_check", "en"), open_page("gradient_check")
    assert headings(ko) == ["기울기 확인", "스칼라 입력", "eps 고르기"]
    assert widget_labels(ko)["gc_eps"] == "eps (유한 차분의 간격)"
    table_ko, table_en = ko.dataframe[0].value, en.dataframe[0].value
    assert table_ko.columns.tolist() == ["변수", "자동 미분", "수치 미분", "상대 오차", "일치"]
    assert table_ko.to_numpy().tolist() == table_en.to_numpy().tolist()
    assert numbers(ko.success[0].value) == numbers(en.success[0].value)
    assert ko.success[0].value.startswith("모든 입력(3개)이 일치합니다: 가장 큰 상대 오차 ")


def test_op_reference_in_korean_counts_the_same_ops_with_korean_headings():
    en, ko = open_page("op_reference", "en"), open_page("op_reference")
    assert [v for _, v in metrics(ko)] == [v for _, v in metrics(en)] == ["49", "43", "0", "6"]
    assert [label for label, _ in metrics(ko)] == ["연산 수", "기울기 확인 통과", "기울기 확인 실패", "기울기 없음"]
    assert ko.success[0].value == "미분 가능한 연산 43개가 모두 중심 차분과 일치합니다(시드 0)."
    assert "산술" in headings(ko) and "선형대수" in headings(ko)
    assert column_headings(ko.dataframe[0])[:5] == ["연산", "기호", "순전파", "국소 미분", "기울기 확인"]
    rows_ko = {r["op"]: r for frame in ko.dataframe for r in frame.value.to_dict("records")}
    rows_en = {r["op"]: r for frame in en.dataframe for r in frame.value.to_dict("records")}
    assert rows_ko.keys() == rows_en.keys()
    assert rows_ko["mul"]["gradcheck"] == "✓ 통과" and rows_ko["eq"]["gradcheck"] == "— 기울기 없음"
    assert all(rows_ko[op]["symbol"] == rows_en[op]["symbol"] and rows_ko[op]["samples"] == rows_en[op]["samples"]
               for op in rows_en)


def test_train_in_korean_shows_the_same_losses_accuracies_and_graph_sizes():
    en, ko = open_page("train_mlp", "en"), open_page("train_mlp")
    assert headings(ko)[:2] == ["MLP 학습", "신경망이 배운 것"]
    timed = [label.startswith("time") or label == "build + backward" for label, _ in metrics(en)]

    def measured(at):  # every metric but the times, which are measured afresh on each run
        return [v for (_, v), is_time in zip(metrics(at), timed) if not is_time]

    assert measured(ko) == measured(en) and len(measured(ko)) == 13
    values = dict(metrics(ko))
    assert values["처음 손실"] == dict(metrics(en))["first loss"]
    assert values["테스트 정확도"] == dict(metrics(en))["test accuracy"]
    assert widget_labels(ko)["train_dataset"] == "데이터셋"
    assert ko.selectbox(key="train_dataset").options[0] == "두 개의 반달"
    assert ko.button(key="train_button").label == "학습"
    grads_ko, grads_en = ko.dataframe[0].value, en.dataframe[0].value
    assert grads_ko.columns.tolist() == ["파라미터", "1단계의 |grad| 평균", "학습 후 |grad| 평균"]
    assert grads_ko.to_numpy().tolist() == grads_en.to_numpy().tolist()
    caption_ko, caption_en = ko.caption[0].value, en.caption[0].value
    assert caption_ko.startswith("**두 개의 반달**: 서로 맞물린 반원 두 개 위의 점 200개, 잡음 0.1.")
    assert numbers(caption_ko) == numbers(caption_en)


def test_a_korean_page_wraps_between_words_and_an_english_page_is_left_alone():
    def styles(at: AppTest) -> str:
        return "\n".join(element.proto.body for element in at.get("html"))

    assert "word-break: keep-all" in styles(open_page("broadcasting"))
    assert "keep-all" not in styles(open_page("broadcasting", "en"))
