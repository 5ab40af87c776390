"""Korean text has no English words left and no role word doubled by a Korean name (issue 25).

- a template that put a role word before a name (``출력 {name}``, ``입력 {parent} 쪽으로``) read ``출력 출력``
  and ``입력 입력 쪽으로`` for the gallery's own Korean names: the templates now say the role differently
  (``맨 끝 노드인 {name}``, ``그 연산에 들어간 {parent}``), checked over every step of programs whose names
  are the role words themselves;
- every ``msgstr`` of the Korean catalogs is scanned for English words: what is left is code (backticks,
  ``name(`` calls, ``key=`` options, op names), a placeholder, an acronym, a key on the keyboard, or an
  English term glossed after its Korean word (``기울기(gradient)``, as the glossary asks), all listed here;
- the labels on the graph say 평균 for a tensor's mean.
"""
from __future__ import annotations

import re

import pytest

from lucid import gallery, i18n
from lucid.autograd import backward_trace
from lucid.expr import run
from lucid.i18n import use_language
from lucid.viz.explanation.explain import explain, step_title
from lucid.viz.graph.dot import to_dot

ROLE_NAMED = "입력 = [1.5, -2.0]\n가중치 = [0.5, 0.25]\n편향 = 0.1\n출력 = sum(입력 * 가중치) + 편향\n"
"""A program whose names are the templates' role words: the worst case for a collision."""
NAMES = ("입력", "출력", "가중치", "편향", "은닉", "손실")
DOUBLED = re.compile(r"(?<![가-힣])(" + "|".join(NAMES) + r")\d* +\1")
"""A name right after its own role word on one line: ``출력 출력``, ``입력 입력``, ``가중치 가중치1``."""


def korean_texts(source: str) -> list[str]:
    trace = backward_trace(run(source).output)
    with use_language("ko"):
        return [step_title(trace, s) + "\n" + explain(trace, s).text for s in range(len(trace.steps))]


@pytest.mark.parametrize("source", [ROLE_NAMED, gallery.by_slug("korean-mlp").source], ids=["role-names", "korean-mlp"])
def test_no_explanation_doubles_a_korean_name_with_its_role_word(source):
    doubled = [(step, m.group(0)) for step, text in enumerate(korean_texts(source))
               for m in DOUBLED.finditer(text)]
    assert doubled == []


def test_the_seed_and_an_edge_say_the_role_around_the_name():
    texts = korean_texts(ROLE_NAMED)
    assert "프로그램의 맨 끝 노드인 출력(형상 스칼라)에서 시작합니다" in texts[0]
    assert any("연산을 거쳐, 그 연산에 들어간 입력 쪽으로 거꾸로 흐릅니다" in t for t in texts)


#: English words a Korean entry may keep: code (ops, options, link keys, Python words), names of things,
#: math symbols, keys on the keyboard. Anything else is a word someone forgot to translate.
ALLOWED = {
    # ops and functions of the language, their parameters and Python's words
    "arange", "linspace", "num", "reshape", "transpose", "squeeze", "broadcast_to", "concatenate", "stack",
    "where", "cond", "const", "tanh", "neg", "cross_entropy", "softmax", "logits", "log_softmax", "clip", "sign",
    "max", "imum", "index", "low", "high", "slope", "keepdims", "axis", "None", "True", "False", "float",
    "import", "lambda", "and", "or", "not", "in", "is", "name", "step", "mse_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "zero_grad", "backward", "grad", "loss", "bias", "out", "ln", "log",
    "dx", "dy", "eps", "exp", "RecursionError", "def", "sigmoid", "swish", "matmul", "sub", "div",
    "match_grad_shape",
    # lesson-link keys ([[link]] tables, url=, example=)
    "code", "url", "title", "link", "example",
    # names of programs, libraries, formats and standards
    "lucid", "micrograd", "NumPy", "Graphviz", "zlib", "CS", "MLP", "SGD", "ReLU", "BCE", "NaN", "inf", "TOML",
    "CSV", "SVG", "PNG", "GIF", "DOT", "QR", "README", "ASCII", "NFKC", "vgsc", "Debian",
    "HTML", "MB", "LMS", "iframe", "JavaScript", "Lucid", "Graph", "Lab",
    # keys on the keyboard
    "Page", "Up", "Down", "Home", "End", "Space", "Ctrl", "Enter",
}


def english_words(text: str) -> list[str]:
    """The English words of a Korean entry that are not code, a placeholder, or a gloss of a Korean word."""
    t = re.sub(r"`[^`]*`", " ", text)
    t = re.sub(r"\{[^}]*\}", " ", t)
    t = re.sub(r":material/\w+:", " ", t)
    t = re.sub(r"[A-Za-z_]+(?:/[A-Za-z_.]+)+", " ", t)  # a file path or a column of a bench (scalar/micro)
    t = re.sub(r"(?<=[가-힣])\(([A-Za-z][A-Za-z '-]*)[,)]", " ", t)  # 기울기(gradient), 국소 미분(local derivative, …)
    return [w for w in re.findall(r"[A-Za-z][A-Za-z_]+", t) if w not in ALLOWED]


def test_the_gloss_and_code_rules_of_the_scan():
    assert english_words("기울기(gradient)는 `grad x`, {name}의 tanh(x)") == []
    assert english_words("축 0에 대한 mean") == ["mean"]
    assert english_words("upstream @ Bᵀ") == ["upstream"]
    assert english_words("(bench/bench_mlp.py, scalar/micro)") == []


def test_no_korean_catalog_entry_keeps_an_english_word():
    left = []
    for m in i18n.merged_catalog("ko"):
        if not m.id:
            continue
        for s in [m.string] if isinstance(m.string, str) else list(m.string):
            if words := english_words(s):
                left.append((words, s))
    assert left == []


def test_the_graphs_labels_say_mean_in_korean():
    program = run("W = randn(2, 3)\nout = sum(W * W)")
    trace = backward_trace(program.output)
    with use_language("ko"):
        korean = to_dot(program.output, trace, len(trace.steps) - 1).source
        circuit = to_dot(program.output, trace, len(trace.steps) - 1, preset="circuit", direction="LR").source
    english = to_dot(program.output, trace, len(trace.steps) - 1).source
    assert "mean" in english and "mean" not in korean and "평균" in korean
    assert "평균" in circuit and "mean " not in circuit
