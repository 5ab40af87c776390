"""The Playground's Style control: the circuit preset draws CS231n-style wires, always left to right."""
import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.class_pages import players

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "playground.py")


def graph_text(at: AppTest) -> str:
    """SVG of the clickable graph (``dot`` installed) or the DOT of the fallback chart; Graphviz writes the
    graph class's hyphens as ``&#45;`` in SVG, read back as ``-``."""
    clickable = players(at)
    if clickable:
        return json.loads(clickable[0].proto.json)["anim"]["svg"].replace("&#45;", "-")
    return at.get("graphviz_chart")[0].proto.spec


def test_choosing_the_circuit_style_redraws_as_a_circuit_and_disables_the_direction():
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert at.radio(key="pg_preset").value == "Standard"
    assert not at.radio(key="pg_direction").disabled
    standard = graph_text(at)
    assert "lucid-circuit" not in standard
    at.radio(key="pg_preset").set_value("Circuit (CS231n)").run()
    assert not at.exception
    circuit = graph_text(at)
    assert "lucid-circuit" in circuit and "0.4500" in circuit  # c's value, above its wire
    assert at.radio(key="pg_direction").disabled
    at.session_state["pg_step"] = 3  # a step the browser reported (stepping itself happens in the page)
    at.run()
    assert not at.exception
    assert "lucid-circuit" in graph_text(at)


def test_the_direction_picked_before_a_circuit_comes_back_with_the_standard_style():
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.radio(key="pg_direction").set_value("Left to right").run()
    at.radio(key="pg_preset").set_value("Circuit (CS231n)").run()
    assert at.radio(key="pg_direction").value == "Left to right"
    at.radio(key="pg_preset").set_value("Standard").run()
    assert not at.exception
    assert at.radio(key="pg_direction").value == "Left to right" and not at.radio(key="pg_direction").disabled
    assert "lucid-circuit" not in graph_text(at)
