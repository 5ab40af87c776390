"""Train an MLP page, the scalar-step section: both graphs with counts and equal losses; boxes open and close."""
from pathlib import Path

from streamlit.testing.v1 import AppTest

PAGE = Path(__file__).resolve().parents[2] / "pages" / "train_mlp.py"


def open_page() -> AppTest:
    at = AppTest.from_file(str(PAGE), default_timeout=180)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def metric(at: AppTest, label: str) -> list[str]:
    return [m.value for m in at.metric if m.label == label]


def test_scalar_section_shows_both_graphs_sizes_and_the_same_loss():
    at = open_page()
    assert metric(at, "nodes") == ["13", "4,658"]
    tensor_loss, scalar_loss = metric(at, "loss")
    assert tensor_loss == scalar_loss
    assert any("4,658 nodes" in m.value and "13 nodes" in m.value for m in at.markdown)
    # the training-step graph, the tensor step and the collapsed scalar step are drawn as SVG images
    assert len(at.get("image")) >= 3
    captions = "\n".join(c.value for c in at.caption)
    assert "14 boxes and nodes drawn for 4,658 nodes" in captions


def test_opening_a_box_in_the_scalar_section_draws_more_and_closing_it_draws_less():
    at = open_page()
    picker = at.selectbox(key="gs_toggle")
    choice = next(o for o in picker.options if o.startswith("open ▸ sample 0 … sample 7"))
    picker.select(choice).run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.session_state["gs_expanded"] == ("sample 0 … sample 7",)
    captions = "\n".join(c.value for c in at.caption)
    assert "22 boxes and nodes drawn" in captions
    picker = at.selectbox(key="gs_toggle")
    assert "close ▾ sample 0 … sample 7" in picker.options
    picker.select("close ▾ sample 0 … sample 7").run()
    assert not at.exception
    assert at.session_state["gs_expanded"] == ()
    assert "14 boxes and nodes drawn" in "\n".join(c.value for c in at.caption)
