"""The Forward mode panel with an input the output does not use (issue 29): a 0 tangent, never a crash.

``a = 1.5``, ``b = 2.0``, ``out = a * a``: choosing ``b`` once raised "a seed is not an input of this
graph"; it says the tangent is 0. "Every input at once" pushes only ``a``'s tangent: ȯut = 2a = 3.
"""
from pathlib import Path

from streamlit.testing.v1 import AppTest

from lucid.ui.playground.forward_mode_view import ALL_INPUTS

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "playground.py")
CODE = "a = 1.5\nb = 2.0\nout = a * a\n"


def run_page(path: str) -> None:
    import runpy

    from lucid.ui.runtime import language

    language.follow_link()
    runpy.run_path(path, run_name="__main__")


def _open() -> AppTest:
    at = AppTest.from_function(run_page, args=(PAGE,), default_timeout=120)
    at.query_params["code"] = CODE
    at.session_state["pg_forward_open"] = True  # the reader opens the folded Forward mode panel
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _forward_input(at: AppTest):
    return next(w for w in at.selectbox if w.key and w.key.endswith("_forward_input"))


def test_choosing_an_unused_input_says_its_tangent_is_zero():
    at = _open()
    box = _forward_input(at)
    assert "b" in box.options
    box.set_value("b").run()
    assert not at.exception, [e.message for e in at.exception]
    assert "The output does not depend on this input: its tangent is 0." in [i.value for i in at.info]


def test_every_input_at_once_pushes_only_the_used_inputs_tangent():
    at = _open()
    _forward_input(at).set_value(ALL_INPUTS).run()
    assert not at.exception, [e.message for e in at.exception]
    code = " ".join(c.value for c in at.code)
    assert "3.000" in code, code  # ȯut = 2a · ȧ = 2 · 1.5 · 1
    assert not [i.value for i in at.info if "does not depend" in i.value]
