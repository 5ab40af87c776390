"""The five classroom pages run headless (Streamlit AppTest): they load, react, and show the key numbers."""
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from lucid.lessons.pitfalls import first_failing_chain_length

PAGES = Path(__file__).resolve().parents[2] / "pages"


def gallery_picker(at):
    """The Gallery selectbox (its key follows what it shows, so find it by its label)."""
    return next(box for box in at.selectbox if box.label == "Gallery")


def open_page(name: str) -> AppTest:
    at = AppTest.from_file(str(PAGES / f"{name}.py"), default_timeout=120)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def metrics(at: AppTest) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for m in at.metric:
        found.setdefault(m.label, []).append(m.value)
    return found


def texts(at: AppTest) -> str:
    return "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption])


# ----- Pitfalls -----------------------------------------------------------------
def test_pitfalls_page_shows_3_for_assign_and_6_for_accumulate():
    at = open_page("pitfalls")
    assert metrics(at)["dy/dx"] == ["3", "6"]
    assert "lucid's own backward gives dy/dx = 6" in texts(at)
    assert len(at.get("image")) == 1  # the graph, laid out by dot on the server


def test_pitfalls_page_follows_a_new_x():
    at = open_page("pitfalls")
    at.number_input(key="pitfall_x").set_value(2.5).run()
    assert metrics(at)["dy/dx"] == ["2.5", "5"]


def test_pitfalls_page_shows_both_zero_grad_trajectories():
    at = open_page("pitfalls")
    table = at.dataframe[0].value
    assert [f"{w:.3f}" for w in table["w with zero_grad"]] == ["0.600", "0.840", "0.936", "0.974", "0.990", "0.996"]
    assert [f"{w:.3f}" for w in table["w without zero_grad"]] == ["0.600", "1.440", "2.016", "1.982", "1.359",
                                                                  "0.521"]
    shown = texts(at)
    assert "0.600 0.840 0.936 0.974 0.990 0.996" in shown
    assert "0.600 1.440 2.016 1.982 1.359 0.521" in shown


def test_pitfalls_page_opens_on_a_recursive_sort_that_fails_and_passes_at_500():
    at = open_page("pitfalls")
    n = first_failing_chain_length()  # 2,000 under Python's default limit; more where a library raised it
    assert at.error[0].value.startswith(f"N = {n:,}: RecursionError")
    assert at.success[0].value == f"N = {n:,}: backward through {2 * n + 1:,} nodes, dx = 1"
    at.select_slider(key="pitfall_n").set_value(500).run()
    assert not at.exception and not at.error
    assert [s.value for s in at.success] == ["N = 500: sorted 1,001 nodes (depth 501)",
                                             "N = 500: backward through 1,001 nodes, dx = 1"]


# ----- Broadcasting -------------------------------------------------------------
def test_broadcasting_page_sums_column_and_row_gradients():
    at = open_page("broadcasting")
    shown = texts(at)
    assert "`a` (3, 1) + `b` (4,) → result (3, 4)" in shown
    assert "sum over axes [1]: axes [1] were size 1 in a and stretched" in shown
    assert "sum over axes [0]: axes [0] are new leading axes for b" in shown
    codes = [c.value for c in at.code]
    assert "[[5.000]\n [13.00]\n [21.00]]" in codes and "[7.500 9.000 10.50 12.00]" in codes
    assert [s.value for s in at.success] == ["lucid's backward gives the same grad a.",
                                             "lucid's backward gives the same grad b."]
    # one notation with the Playground: grad for total gradients, ∂ only for an op's local derivative
    assert "∂L" not in shown and "**grad out** · shape `(3, 4)`" in shown


def test_broadcasting_page_reports_shapes_that_do_not_broadcast():
    at = open_page("broadcasting")
    at.text_input(key="bc_shape_a").input("3, 2").run()
    assert not at.exception
    assert at.error[0].value == "shapes (3, 2) and (4,) do not broadcast: axis -1 has sizes 2 and 4, and neither is 1"
    at.text_input(key="bc_shape_a").input("3; 2").run()
    assert "is not a shape" in at.error[0].value


def test_broadcasting_page_preset_and_product():
    at = open_page("broadcasting")
    at.selectbox(key="bc_preset").select("scalar: (2, 3) with ()").run()
    at.radio(key="bc_op").set_value("×").run()
    assert not at.exception
    assert at.text_input(key="bc_shape_b").value == ""
    assert "`a` (2, 3) × `b` () → result (2, 3)" in texts(at)
    assert "45.50" in [c.value for c in at.code]  # grad b = Σ upstream · a


def test_broadcasting_page_lists_every_shape_matching_case():
    at = open_page("broadcasting")
    shown = texts(at)
    for case in ("same shape", "scalar input", "scalar gradient", "reshape", "broadcast-and-sum"):
        assert f"**{case}**" in shown
    assert "↓ sum over axes [0, 2], to the input's shape `(4, 1)`" in shown


# ----- Op reference -------------------------------------------------------------
def test_op_reference_page_counts_ops_and_every_check_passes():
    at = open_page("op_reference")
    found = metrics(at)
    assert found["ops"] == ["49"] and found["gradcheck fails"] == ["0"] and found["no gradient"] == ["6"]
    assert found["gradcheck passes"] == ["43"]
    tables = [df.value for df in at.dataframe]
    assert sum(len(t) for t in tables) == 49
    arithmetic = next(t for t in tables if "mul" in set(t["op"]))
    row = arithmetic[arithmetic["op"] == "mul"].iloc[0]
    assert (row["symbol"], row["forward"], row["gradcheck"]) == ("×", "out = a · b", "✓ passes")
    assert row["max rel error"] < 1e-6


def test_op_reference_page_filters_and_redraws_with_a_new_seed():
    at = open_page("op_reference")
    at.text_input(key="ops_filter").input("tanh").run()
    assert [list(df.value["op"]) for df in at.dataframe] == [["tanh"]]
    at.number_input(key="ops_seed").set_value(3).run()
    assert not at.exception
    assert at.success[0].value == "All 43 differentiable ops agree with central differences (seed 3)."


# ----- Gradient check -----------------------------------------------------------
def test_gradient_check_page_scalar_example_agrees_to_about_1e_10():
    at = open_page("gradient_check")
    table = at.dataframe[0].value
    assert list(table["variable"]) == ["a", "b", "c"]
    assert list(table["autodiff"]) == ["-0.436228342", "-0.366753616", "0.524358142"]
    assert list(table["numerical"]) == ["-0.436228342", "-0.366753616", "0.524358142"]
    errors = [float(e) for e in table["relative error"]]
    assert all(1e-12 < e < 1e-9 for e in errors)
    assert at.success[0].value.startswith("All 3 inputs agree")


def test_gradient_check_page_tensor_program_gets_error_maps():
    at = open_page("gradient_check")
    gallery_picker(at).select("A bias broadcast over a batch").run()
    assert not at.exception
    assert at.success[0].value.startswith("All 2 inputs agree")
    shown = texts(at)
    assert "**X** · shape `(4, 3)`" in shown and "**b** · shape `(3,)`" in shown
    assert len(at.get("vega_lite_chart")) == 3  # two error maps and the eps sweep


def test_gradient_check_page_large_eps_shows_truncation_error():
    at = open_page("gradient_check")
    at.select_slider(key="gc_eps").set_value(1e-2).run()
    errors = [float(e) for e in at.dataframe[0].value["relative error"]]
    assert max(errors) > 1e-6  # a chord, not a tangent: error grows like eps²


def test_gradient_check_page_shows_a_program_error_without_a_traceback():
    at = open_page("gradient_check")
    at.text_area(key="gc_source").input("a = 1.3\nout = tanh(a *)\n").run()
    assert not at.exception
    assert at.error and "Line 2" in at.error[0].value


# ----- Train an MLP -------------------------------------------------------------
def test_train_page_trains_on_two_moons_and_the_loss_falls():
    at = open_page("train_mlp")
    found = metrics(at)
    assert float(found["final loss"][0]) < 0.2 * float(found["first loss"][0])
    assert float(found["test accuracy"][0].rstrip("%")) > 90
    assert "13 nodes" in texts(at)
    assert len(at.get("image")) >= 1  # drawn by dot on the server at its own size (readable)


def test_train_page_scalar_and_tensor_versions_end_at_the_same_loss():
    at = open_page("train_mlp")
    found = metrics(at)
    tensor_loss, scalar_loss = found["final loss"][1:3]
    assert tensor_loss == scalar_loss
    assert found["nodes per step"][0] == "13"
    assert int(found["nodes per step"][1].replace(",", "")) > 1000


@pytest.mark.parametrize("dataset,optimizer", [("file chunks", "SGD"), ("spirals", "Adam")])
def test_train_page_other_datasets_and_optimizers(dataset, optimizer):
    at = open_page("train_mlp")
    at.selectbox(key="train_dataset").select(dataset).run()
    at.radio(key="train_optimizer").set_value(optimizer).run()
    assert not at.exception
    found = metrics(at)
    assert float(found["final loss"][0]) < float(found["first loss"][0])
    assert dataset in at.caption[0].value


def test_pitfalls_page_writes_the_accumulation_of_x_times_x_as_a_sum():
    at = open_page("pitfalls")
    at.number_input(key="pitfall_x").set_value(-1.5).run()
    assert "grad y · ∂y/∂x = 1.000 · (−1.500) = −1.500  ⇒  grad x = −1.500 + (−1.500) = −3.000" in \
        [c.value for c in at.code]
