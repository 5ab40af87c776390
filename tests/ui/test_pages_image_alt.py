"""Every picture on the lesson pages has a text alternative, in the reader's language (issue 28, WCAG 1.1.1).

A graph drawn on the server reaches the browser as an ``<img>`` of an SVG, whose own labels a screen reader
never sees; ``st.image(alt=...)`` gives it a sentence saying what it shows (Streamlit AppTest, as ``app.py``
runs a page: the link's ``lang=`` first, then the page file).
"""
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

PAGES = Path(__file__).resolve().parents[2] / "pages"
HANGUL = re.compile(r"[\uac00-\ud7a3]")


def run_page(path: str) -> None:
    import runpy

    from lucid.ui.runtime import language

    language.follow_link()
    runpy.run_path(path, run_name="__main__")


def alts(name: str, lang: str) -> list[str | None]:
    at = AppTest.from_function(run_page, args=(str(PAGES / f"{name}.py"),), default_timeout=180)
    if lang != "en":
        at.query_params["lang"] = lang
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return [img.alt if img.HasField("alt") else None for image in at.get("image") for img in image.proto.imgs]


def test_every_graph_of_the_train_page_says_what_it_shows():
    found = alts("train_mlp", "en")
    assert len(found) == 5  # the training step, the tensor step, the collapsed scalar step, overview, detail
    assert all(found), found
    assert len(set(found)) == 5
    assert any("13 nodes" in a for a in found)
    assert any("14 boxes and nodes for 4,658 nodes" in a for a in found)


def test_the_pitfalls_graph_says_its_gradients():
    (alt,) = alts("pitfalls", "en")
    assert alt.startswith("Graph of y = x*x after its backward pass") and "added up at x" in alt


@pytest.mark.parametrize("name", ["train_mlp", "pitfalls"])
def test_the_text_alternatives_are_korean_on_a_korean_page(name):
    found = alts(name, "ko")
    assert found and all(a and HANGUL.search(a) for a in found), found
