"""A Korean program runs on the Playground, and its share link (``code=`` or ``z=``) brings it back exactly."""
import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from lucid.session import share
from tests.class_pages import players

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "playground.py")
SHORT = "가중치 = 2.0\n편향 = 0.5\n입력 = 1.5\n출력 = tanh(가중치 * 입력 + 편향)\n"
MLP = ("입력 = const(randn(6, 3))  # 배치 6개\n가중치1 = randn(3, 4)\n편향1 = zeros(4)\n"
       "은닉 = tanh(입력 @ 가중치1 + 편향1)\n가중치2 = randn(4, 1)\n편향2 = zeros(1)\n"
       "출력 = 은닉 @ 가중치2 + 편향2\n정답 = const(randn(6, 1))\n손실 = mean((출력 − 정답) ** 2)\n")


def start(**query) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    return at.run()


def drawn(at: AppTest) -> str:
    if players(at):
        return json.loads(players(at)[0].proto.json)["anim"]["svg"]
    return at.get("graphviz_chart")[0].proto.spec


def test_short_and_long_korean_programs_take_the_plain_and_the_packed_link():
    assert set(share.encode(SHORT, step=2)) == {"code", "step"}
    assert set(share.encode(MLP, step=2)) == {"z", "step"}
    for source in (SHORT, MLP):
        assert share.decode(share.encode(source, step=2)) == share.SharedView(source, 2)


def test_a_korean_program_typed_on_the_playground_runs_draws_its_names_and_goes_into_the_link():
    at = start()
    at.text_area(key="pg_source").set_value(SHORT).run()
    assert not at.exception and not at.error
    picture = drawn(at)
    for name in ("가중치", "편향", "입력", "출력"):
        assert name in picture
    assert share.decode(at.query_params).source == SHORT


def test_a_korean_mlp_link_opens_the_same_program_at_its_step():
    at = start(**share.encode(MLP, step=3))
    assert not at.exception and not at.error
    assert at.text_area(key="pg_source").value == MLP
    assert "가중치1" in drawn(at) and "손실" in drawn(at)
    assert share.decode(at.query_params) == share.SharedView(MLP, 3)


def test_a_refused_character_shows_its_code_and_a_caret_under_it():
    at = start()
    at.text_area(key="pg_source").set_value("가중치 = 2.0\nb\u0430d = 가중치 * 2\n").run()
    assert not at.exception
    assert "U+0430 CYRILLIC SMALL LETTER A" in at.error[0].value
    assert "Line 2, column 2" in at.error[0].value


def test_the_caret_under_a_hangul_name_is_laid_out_in_fixed_columns():
    from lucid.expr import ExprError, run
    from lucid.ui.playground.editor import caret_html

    try:
        run("가중치 = 2.0\n출력 = 가중치 * 입력")
    except ExprError as err:
        page = caret_html(err)
    cell = '<span style="display:inline-block;width:2ch;text-align:center">{}</span>'
    assert "".join(cell.format(ch) for ch in "출력") + " = " in page
    # under 출력 = 가중치 * : five two-column cells and five one-column spaces, then the caret under 입력
    assert ("\n" + cell.format("") * 2 + "   " + cell.format("") * 3 + "   ^^^^</pre>") in page
