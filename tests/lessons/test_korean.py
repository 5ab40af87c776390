"""The lessons' own words in Korean: errors, explanations and results read in the language of whoever reads them,
while the numbers stay exactly the English ones."""
import pytest

from lucid.data import load
from lucid.expr import run
from lucid.i18n import use_language
from lucid.lessons.broadcasting import alignment, broadcast_demo, parse_shape, shape_cases, summed_axes_text
from lucid.lessons.gradient_check import check_program, input_names
from lucid.lessons.pitfalls import try_lucid_backward, try_recursive_sort


def test_a_shape_error_is_written_in_korean_with_the_same_sizes():
    with use_language("ko"), pytest.raises(ValueError) as err:
        parse_shape("0, 2")
    assert str(err.value) == "각 크기는 1 이상 6 이하여야 합니다 (입력: 0)"
    with use_language("ko"), pytest.raises(ValueError) as err:
        parse_shape("3, a")
    assert str(err.value) == "'3, a': 형상이 아닙니다. 3, 1, 4처럼 크기를 쉼표로 구분해 적으세요"


def test_the_summed_axes_are_explained_in_korean():
    demo = broadcast_demo((2, 4, 3), (4, 1))
    a, b = demo.inputs
    with use_language("ko"):
        assert summed_axes_text(b, demo.out.shape) == (
            "축 [0, 2]에 대해 합합니다(축 [0]: b에 앞쪽으로 새로 생긴 축, 축 [2]: b에서 크기 1이었다가 늘어난 축). "
            "합하면 새 축은 없어지고 결과 형상은 (4, 1)입니다.")
        assert summed_axes_text(a, demo.out.shape) == "a: 이미 출력과 형상이 같습니다. 합할 것이 없습니다."
        rows = alignment((3, 1), (4,))
    assert [r["what happens"] for r in rows] == ["b: 새 축이 생겨 3번 복사됨", "a: 크기가 1에서 4까지 늘어남"]


def test_the_shape_cases_keep_their_english_key_and_show_korean():
    with use_language("ko"):
        cases = shape_cases()
    bias = next(c for c in cases if c.example == "x + bias, x is (3, 4) and bias is (1, 4)")
    assert (bias.case, bias.shown) == ("브로드캐스팅 후 합", "x + bias, x는 (3, 4)이고 bias는 (1, 4)")
    assert bias.rule == "편향 행이 행 3개로 복사되었으므로 축 0에 대해 합합니다"
    assert bias.summed_axes == (0,)


def test_a_sort_result_computed_once_reads_in_each_readers_language():
    """A result is cached and shared: its message is rendered where it is read, never frozen."""
    with use_language("ko"):
        result = try_lucid_backward(500)  # computed by a Korean session ...
    assert str(result.message) == "backward through 1,001 nodes, dx = 1"  # ... read by an English one
    with use_language("ko"):
        assert str(result.message) == "노드 1,001개를 거쳐 역전파 완료, dx = 1"
        assert str(try_recursive_sort(500).message) == "노드 1,001개 정렬 완료"


def test_gradient_check_refusals_and_unnamed_inputs_are_korean():
    with use_language("ko"), pytest.raises(ValueError) as err:
        check_program(run("a = const(2.0)\nout = a * 3"))
    assert str(err.value) == "기울기가 필요한 입력이 프로그램에 없습니다. 확인할 것이 없습니다."
    program = run("out = tanh([1.0, 2.0] * 3.0)")  # an unnamed literal is the only input
    with use_language("ko"):
        assert input_names(program) == ["입력 #1"]
    assert input_names(program) == ["input #1"]


def test_a_shared_dataset_describes_itself_in_each_readers_language():
    moons = load("two moons")
    assert f"{moons.description}" == "200 points on two interleaving half circles, noise 0.1"
    with use_language("ko"):
        assert f"{moons.description}" == "서로 맞물린 반원 두 개 위의 점 200개, 잡음 0.1"
    assert moons.name == "two moons"  # the key the page's picker keeps
