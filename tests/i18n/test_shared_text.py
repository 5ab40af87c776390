"""Text shared by every session is in each reader's language (issue 18).

Sessions run in threads and share computed work (``SharedCache``, ``process_cache``, the animation cache).
What holds finished text (an animation's explanations and legend, a page's cached caption) is keyed on the
language; what is computed once for everyone (a program's ``ExprError``, an analysis's reason for having no
backward pass, the inputs table's skip reason) keeps its message as a template that each reader renders.
"""
from __future__ import annotations

import threading

import pytest

from lucid.expr import ExprError, run
from lucid.i18n import use_language
from lucid.session.analysis import ANALYSES, analyze, animation_key, shared_analysis
from lucid.session.inputs_table import input_rows
from lucid.session.options import DrawOptions
from lucid.ui.runtime.process_cache import cache_of, process_cache


def test_a_process_cache_computes_text_once_per_language():
    calls = []

    @process_cache(max_entries=4)
    def caption(n: int) -> str:
        from lucid.i18n import ngettext

        calls.append(n)
        return ngettext("{n} tensor", "{n} tensors", n).format(n=n)

    assert caption(3) == "3 tensors"
    with use_language("ko"):
        assert caption(3) == "텐서 3개"
        assert caption(3) == "텐서 3개"
    assert caption(3) == "3 tensors"
    assert calls == [3, 3]
    assert len(cache_of(caption)) == 2


def test_the_animation_key_names_the_language():
    a = analyze("x = 2.0\ny = x * x")
    english = animation_key(a, DrawOptions())
    with use_language("ko"):
        korean = animation_key(a, DrawOptions())
    assert english != korean and english[-1] == korean[-1] == ()


def test_one_cached_program_error_reads_in_each_sessions_language():
    source = "x = 2.0\ny = x +* 3"
    ANALYSES.clear()
    before = ANALYSES.computations
    seen: dict[str, str] = {}
    korean_read = threading.Event()

    def session(language: str) -> None:
        with use_language(language):
            try:
                shared_analysis(source)
            except ExprError as err:
                seen[language] = str(err)
        if language == "ko":
            korean_read.set()

    first = threading.Thread(target=session, args=("ko",))
    first.start()
    assert korean_read.wait(30)
    first.join(30)
    second = threading.Thread(target=session, args=("en",))
    second.start()
    second.join(30)
    assert ANALYSES.computations - before == 1  # computed once, by the Korean session
    assert seen["en"].startswith("unexpected '*': expected a value (a number, a name, a call or '(') "
                                 "(line 2, column 8)")
    assert seen["ko"].startswith("예상하지 못한 '*': 값(수, 이름, 함수 호출 또는 '(')이(가) 와야 합니다 (2행, 8열)")
    assert seen["en"].splitlines()[1:] == seen["ko"].splitlines()[1:]  # the same line and caret


def test_an_error_keeps_its_template_and_its_english_for_code_that_inspects_it():
    with pytest.raises(ExprError) as caught:
        run("가중치 = 2.0\n출력 = 가중치 * 편향")
    err = caught.value
    assert err.message == "name '편향' is not defined"
    with use_language("ko"):
        assert err.message == "이름 '편향'이(가) 정의되지 않았습니다"
        assert err.kind == "name" and (err.line, err.col) == (2, 12)


def test_a_reason_computed_once_renders_in_the_readers_language():
    constants = analyze("a = const(2.0)\nb = a * 3")
    assert "every value is a constant" in str(constants.problem)
    with use_language("ko"):
        assert str(constants.problem).startswith("이 프로그램에는 기울기가 필요한 값이 없습니다")
    rows = input_rows("x = [" + ", ".join(["1.0"] * 401) + "]\ny = sum(x * x)")
    assert rows[0].skipped is not None
    assert str(rows[0].skipped).startswith("Finite differences are skipped above 400 input numbers")
    with use_language("ko"):
        assert str(rows[0].skipped).startswith("입력 원소가 모두 합쳐 400개를 넘으면 유한 차분을 건너뜁니다")
