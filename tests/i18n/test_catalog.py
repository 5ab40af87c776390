"""The Korean catalog covers every message a person reads (issue 18): extracted with Babel here, in the test.

- every message the code marks (``_``, ``ngettext``, ``pgettext``, ``N_``, ``L_``, ``LN_``, ``T_``, ``TN_``)
  has a Korean entry that is neither empty nor fuzzy, with the same placeholders as the English;
- Babel really extracts every marked literal (it misses a message nested in a call after another call);
- the Playground's modules hand Streamlit no English text that bypasses the catalog (a literal label,
  caption or tooltip is a string nobody can translate);
- the catalog uses the glossary's words (docs/glossary-ko.md) for the terms it fixes;
- plurals: English has two forms, Korean one (the catalog's Plural-Forms), through gettext.
"""
import ast
import re
from pathlib import Path

import numpy as np
import pytest

from lucid import i18n
from lucid.autograd import backward_trace
from lucid.expr import run
from lucid.i18n import KEYWORDS, LN_, _, ngettext, use_language
from lucid.i18n_catalog import extract, untranslated
from lucid.viz.explanation.explain import explain

ROOT = Path(__file__).resolve().parents[2]

#: The Playground and what it shows: modules whose every visible word must come from the catalog.
PLAYGROUND_MODULES = [
    "app.py", "pages/playground.py", "lucid/ui/playground/controls.py", "lucid/ui/playground/editor.py",
    "lucid/ui/playground/player_view.py", "lucid/ui/playground/graph_view.py",
    "lucid/ui/playground/inspector_view.py", "lucid/ui/playground/inputs_view.py", "lucid/ui/lesson_plan/view.py",
    "lucid/ui/playground/copy_link.py", "lucid/ui/runtime/language.py", "lucid/ui/playground/clickable_graph.py",
    "lucid/ui/projector/mode.py", "lucid/ui/playground/forward_mode_view.py", "lucid/ui/live_class/room_view.py",
    "lucid/ui/live_class/room_watch.py", "pages/gradient_check.py", "lucid/ui/playground/playground_link.py",
    "pages/op_reference.py", "pages/broadcasting.py", "pages/pitfalls.py", "pages/train_mlp.py",
    "lucid/ui/lesson_pages/large_graph_view.py", "lucid/ui/playground/rule_check_view.py",
    "lucid/ui/playground/recording_view.py",
]
#: Streamlit calls that put their first argument (and ``help=``, ``placeholder=``) on the screen.
DISPLAY_CALLS = {"title", "header", "subheader", "caption", "markdown", "info", "warning", "error", "success",
                 "button", "download_button", "checkbox", "toggle", "radio", "selectbox", "select_slider", "slider",
                 "number_input", "text_area", "text_input", "file_uploader", "expander", "popover", "spinner",
                 "metric", "tabs", "Page"}
ENGLISH = re.compile(r"[A-Za-z]{2,}(?:[ '-][A-Za-z]{2,})+")  # two English words in a row


@pytest.fixture(scope="module")
def template():
    return extract(ROOT)


@pytest.fixture(scope="module")
def korean():
    """Every Korean catalog merged (lucid.po: the Playground; lessons.po: the lesson pages), as the app reads them."""
    return i18n.merged_catalog("ko")


def test_the_extraction_finds_the_interface_explanations_errors_and_gallery(template):
    ids = {m.id if isinstance(m.id, str) else m.id[0] for m in template if m.id}
    assert len(ids) > 400
    for sample in ("Playground", "Copy link", "Chain rule: {equation}  ({grad}: total derivative of {output} with "
                   "respect to {name}; {local}: local derivative of this one op)", "unmatched '{text}'",
                   "A single neuron", "Classroom mode", "{n} tensor"):
        assert sample in ids


def test_every_extracted_message_has_a_korean_entry(template, korean):
    assert untranslated(template, korean) == []


def test_korean_entries_keep_the_placeholders_of_the_english(korean):
    def fields(text: str) -> set[str]:
        return set(re.findall(r"\{(\w*)\}", text)) | set(re.findall(r"%[sd]", text))

    wrong = []
    for m in korean:
        if not m.id:
            continue
        ids = [m.id] if isinstance(m.id, str) else list(m.id)
        strings = [m.string] if isinstance(m.string, str) else list(m.string)
        english = set().union(*(fields(t) for t in ids))
        for s in strings:
            # a counted message may leave out {n} in a language where the count is said otherwise
            if fields(s) - english or (english - {"n"}) - fields(s):
                wrong.append((ids[0], s))
    assert wrong == []


def _marked_literals(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in KEYWORDS:
            args = node.args[1:] if node.func.id == "pgettext" else node.args
            if args and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str):
                found.add(args[0].value)
    return found


def test_babel_extracts_every_marked_literal(template):
    ids = {m.id if isinstance(m.id, str) else m.id[0] for m in template if m.id}
    files = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "lucid").rglob("*.py"))]
    missed = {(str(f.relative_to(ROOT)), msg) for f in files for msg in _marked_literals(f) if msg not in ids}
    assert missed == set()


def _visible_literals(node: ast.Call) -> list[ast.expr]:
    shown = list(node.args[:1])
    shown += [kw.value for kw in node.keywords if kw.arg in ("help", "placeholder", "title", "label")]
    return shown


def _english_in(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        text = re.sub(r":material/\w+:", "", expr.value)
        return expr.value if ENGLISH.search(text) else None
    if isinstance(expr, ast.JoinedStr):
        literal = "".join(v.value for v in expr.values if isinstance(v, ast.Constant))
        return literal if ENGLISH.search(literal) else None
    if isinstance(expr, ast.BinOp):
        return _english_in(expr.left) or _english_in(expr.right)
    return None


@pytest.mark.parametrize("module", PLAYGROUND_MODULES)
def test_the_playground_hands_streamlit_no_untranslated_english(module):
    tree = ast.parse((ROOT / module).read_text(encoding="utf-8"))
    bare = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in DISPLAY_CALLS:
            for expr in _visible_literals(node):
                english = _english_in(expr)
                if english and "Lucid Graph Lab" not in english:
                    bare.append((node.lineno, english))
    assert bare == []


GLOSSARY = {r"\bgradients?\b": "기울기", r"\bchain rule\b": "연쇄 법칙", r"\bbackward pass\b": "역전파",
            r"\bforward pass\b": "순전파", r"\bbroadcasting\b": "브로드캐스팅", r"\blocal derivatives?\b": "국소 미분",
            r"\bfinite differences?\b": "유한 차분", r"\bclassroom mode\b": "강의 모드", r"\bshapes?\b": "형상",
            r"\btopological order\b": "위상 정렬", r"\bweights?\b": "가중치"}


def test_the_catalog_uses_the_glossary_terms(korean):
    glossary = (ROOT / "docs" / "glossary-ko.md").read_text(encoding="utf-8")
    for word in set(GLOSSARY.values()):
        assert word in glossary  # the glossary in the repository fixes each term this test checks
    off = []
    for m in korean:
        if not m.id:
            continue
        english = m.id if isinstance(m.id, str) else m.id[0]
        strings = [m.string] if isinstance(m.string, str) else list(m.string)
        prose = re.sub(r"\{\w*\}|\S*[_(]\S*", " ", english)  # placeholders and code (broadcast_to, grad(x)) aside
        for pattern, word in GLOSSARY.items():
            if re.search(pattern, prose, re.I) and not all(word in s for s in strings):
                off.append((english, word))
    assert off == []


def test_korean_has_one_plural_form_and_english_two(korean):
    assert korean.num_plurals == 1
    assert [ngettext("{n} tensor", "{n} tensors", n).format(n=n) for n in (1, 2)] == ["1 tensor", "2 tensors"]
    with use_language("ko"):
        assert [ngettext("{n} tensor", "{n} tensors", n).format(n=n) for n in (1, 2, 5)] == [
            "텐서 1개", "텐서 2개", "텐서 5개"]
    counted = LN_("{n} group was closed again to keep the layout quick",
                  "{n} groups were closed again to keep the layout quick", 3)
    assert counted.render("en") == "3 groups were closed again to keep the layout quick"
    assert counted.render("ko") == "레이아웃을 빠르게 잡으려고 그룹 3개를 다시 닫았습니다"


def test_a_counted_sentence_of_an_explanation_takes_the_form_of_its_count():
    one = backward_trace(run("x = 2.0\ny = tanh(x)").output)  # seed, then 1 step
    many = backward_trace(run("x = 2.0\ny = tanh(x) * x").output)  # seed, then 3 steps
    assert "1 more step, in reverse" in explain(one, 0).text
    assert "3 more steps, in reverse" in explain(many, 0).text
    with use_language("ko"):
        assert "1단계가 남았고" in explain(one, 0).text
        assert "3단계가 남았고" in explain(many, 0).text


def test_numbers_in_the_interface_go_through_babel():
    with use_language("ko"):
        assert i18n.format_integer(1234567) == "1,234,567"
        assert i18n.format_decimal(np.float64(0.5)) == "0.5"
    assert _("Playground") == "Playground"


def _bindings_of_underscore(tree: ast.AST) -> list[int]:
    """Lines where ``_`` is bound as a variable outside comprehensions (which have their own scope)."""
    found = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
            return
        if isinstance(node, ast.Name) and node.id == "_" and isinstance(node.ctx, ast.Store):
            found.append(node.lineno)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def test_no_module_that_translates_with_underscore_rebinds_it():
    """``for _ in ...`` or ``a, _ = ...`` in a module that imports ``_`` turns the next ``_("...")`` into a crash."""
    files = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "lucid").rglob("*.py"))]
    rebound = []
    for f in files:
        tree = ast.parse(f.read_text(encoding="utf-8"))
        imports_it = any(isinstance(n, ast.ImportFrom) and n.module == "lucid.i18n" and
                         any(a.name == "_" for a in n.names) for n in ast.walk(tree))
        if imports_it:
            rebound += [(str(f.relative_to(ROOT)), line) for line in _bindings_of_underscore(tree)]
    assert rebound == []
