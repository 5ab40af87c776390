"""lucid.viz number text: 4 significant digits, fixed widths, grids for small tensors, summaries for big ones."""
import numpy as np
import pytest

from lucid.viz import format_array, format_number
from lucid.viz.numbers import format_grid, parse_number


@pytest.mark.parametrize("value, text", [
    (3, "3.000"), (0.5, "0.5000"), (-0.012345, "−0.01235"), (123.456, "123.5"), (12345.6, "12346"),
    (9999.7, "10000"), (99999.7, "1.000 × 10⁵"), (0.0012345, "0.001234"), (0.00012345, "0.0001234"),
    (9.9e-5, "9.900 × 10⁻⁵"), (1e-12, "1.000 × 10⁻¹²"), (-2.5e100, "−2.500 × 10¹⁰⁰"), (0.0, "0"),
    (float("nan"), "nan"), (float("inf"), "inf"), (float("-inf"), "−inf"), (np.float32(1.5), "1.500"),
])
def test_numbers_have_four_significant_digits(value, text):
    assert format_number(value) == text


@pytest.mark.parametrize("value", [6.015e-3, 2.2e-3, 1.5e-4, 0.4622, 99990.0, 1234.5, -0.0078])
def test_plain_decimals_from_1e_minus_4_up_to_1e5(value):
    text = format_number(value)
    assert "×" not in text and "e" not in text
    assert parse_number(text) == pytest.approx(value, rel=5e-4)


@pytest.mark.parametrize("value, text", [(2.2e-7, "2.200 × 10⁻⁷"), (-6.015e-9, "−6.015 × 10⁻⁹"),
                                         (3.0e6, "3.000 × 10⁶")])
def test_scientific_only_outside_that_range_written_as_on_a_blackboard(value, text):
    assert format_number(value) == text
    assert parse_number(text) == pytest.approx(value, rel=1e-12)


def test_number_width_depends_on_magnitude_not_digits():
    rng = np.random.default_rng(3)
    for low, width in [(1, 5), (10, 5), (100, 5), (1000, 4), (0.1, 6), (0.01, 7), (0.001, 8)]:
        values = rng.uniform(low, low * 9.99, 200)
        assert {len(format_number(v)) for v in values} == {width}, low
        assert {len(format_number(-v)) for v in values} == {width + 1}, low


def test_one_format_per_grid():
    # all plain: each number plain, no scientific beside a decimal
    assert format_array(np.array([0.4622, 6.015e-3])) == "[  0.4622 0.006015]"
    # one number outside the plain range turns the whole grid scientific
    assert format_array(np.array([[0.4622, 2.2e-7], [0.0, -1.5]])) == \
        "[[4.622 × 10⁻¹ 2.200 × 10⁻⁷]\n [           0 −1.500 × 10⁰]]"
    assert format_grid([1.0, 3e-8]) == ["1.000 × 10⁰", "3.000 × 10⁻⁸"]
    assert format_array(np.arange(40.0).reshape(4, 10) * 1e-6, shape=False) == \
        "min 0  mean 1.950 × 10⁻⁵  max 3.900 × 10⁻⁵"


def test_scalar_is_one_number():
    assert format_array(np.array(-1.25)) == "−1.250"


def test_small_vector_is_one_row_with_aligned_columns():
    assert format_array(np.array([1.0, -2.5, 30.0])) == "[ 1.000 −2.500  30.00]"


def test_small_matrix_is_a_grid_like_numpy():
    assert format_array(np.array([[1.0, 2.0], [3.0, 4.5]])) == "[[1.000 2.000]\n [3.000 4.500]]"
    assert format_array(np.array([[1.0, 2.0, 3.0]])) == "[[1.000 2.000 3.000]]"


def test_width_pads_every_number():
    assert format_array(np.array([1.0, 2.0]), width=7) == "[  1.000   2.000]"


def test_large_tensor_is_shape_and_min_mean_max():
    assert format_array(np.arange(40.0).reshape(4, 10) - 2) == \
        "shape 4×10: min −2.000  mean 17.50  max 37.00"
    assert format_array(np.arange(20.0), shape=False) == "min 0  mean 9.500  max 19.00"
    assert format_array(np.zeros((9, 2))).startswith("shape 9×2: ")
    assert format_array(np.zeros((2, 2, 2))).startswith("shape 2×2×2: ")


def test_up_to_8x8_is_shown_in_full():
    text = format_array(np.arange(64.0).reshape(8, 8) - 30)
    assert text.count("\n") == 7 and "−30.00" in text and " 33.00]]" in text
    assert format_array(np.arange(8.0)) == "[    0 1.000 2.000 3.000 4.000 5.000 6.000 7.000]"


def test_summary_counts_nan_and_inf():
    # finite values 0..15 without 3, 5, 7: mean 105 / 13
    a = np.arange(16.0)
    a[3], a[5], a[7] = np.nan, np.inf, np.nan
    assert format_array(a) == "shape 16: min 0  mean 8.077  max 15.00  2 nan  1 inf"


def test_empty_and_boolean_arrays():
    assert format_array(np.zeros((0, 3))) == "(0×3) empty"
    assert format_array(np.array([True, False])) == "[1.000     0]"
