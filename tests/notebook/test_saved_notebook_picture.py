"""A saved notebook keeps a picture of the stepper (issue 29): hosts that cannot run the widget show it.

Reopened without a kernel, on GitHub or nbviewer, a notebook shows an output's ``text/html`` (or its
``text/plain``) instead of the widget view. nbclient runs the README's snippet in a real kernel, the
notebook is written to disk and read back, and its outputs carry the widget view *and* the step's SVG
with its title and explanation, and a text/plain that names the step instead of ``<...Stepper object at 0x…>``.
"""
import shutil

import pytest

from tests.notebook_kernel import README_SNIPPET, ROOT, execute, notebook_format

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
SNIPPET = README_SNIPPET


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    nbformat = notebook_format()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(SNIPPET), nbformat.v4.new_code_cell('stepper(f, step=3, lang="ko")')]
    execute(nb, tmp_path_factory, cwd=ROOT)  # the kernel of tests.notebook_kernel, as the example notebooks'
    path = tmp_path_factory.mktemp("saved") / "saved.ipynb"
    nbformat.write(nb, path)
    return nbformat.read(path, as_version=4)


def picture_svg(page: str) -> str:
    """The SVG inside the picture's ``<img src="data:image/svg+xml;base64,...">``."""
    import base64
    import re

    (encoded,) = re.findall(r'<img src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', page)
    return base64.b64decode(encoded).decode("utf-8")


def result(nb, k: int) -> dict:
    (out,) = [o for o in nb.cells[k].outputs if o.output_type == "execute_result"]
    return out.data


def test_the_saved_output_keeps_the_widget_view_and_a_picture_beside_it(saved):
    data = result(saved, 0)
    assert WIDGET_VIEW in data  # the live widget is untouched
    page = data["text/html"]
    assert page.startswith("<style>.lgl-explain") and '<div class="lucid-static"' in page
    svg = picture_svg(page)  # an <img> of the SVG: JupyterLab's sanitizer drops inline <svg> in an untrusted notebook
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>") and "<svg" not in page
    assert "Step 1 of 4: out → t2 through ×" in page
    assert "∂out/∂t2 = t3 = −4.000" in page  # the step's explanation, in the graph's names
    assert "A still picture of step 1 of 4: run the notebook to step through the backward pass." in page


def test_the_saved_plain_text_names_the_step_not_an_object_address(saved):
    plain = result(saved, 0)["text/plain"]
    assert plain == "<lucid stepper: Step 1 of 4: out → t2 through ×>"
    assert "object at 0x" not in plain


def test_a_korean_stepper_keeps_a_korean_picture(saved):
    data = result(saved, 1)
    assert data["text/plain"] == "<lucid stepper: 단계 3 / 4: t2 → t0 (+ 연산을 거쳐)>"
    assert "단계 3 / 4의 정지 그림입니다." in data["text/html"] and picture_svg(data["text/html"]).startswith("<svg")


def test_a_picture_too_large_for_the_file_is_left_out_and_the_explanation_kept(monkeypatch):
    pytest.importorskip("anywidget")
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")
    from lucid import Tensor
    from lucid.notebook import widget
    from lucid.viz import stepper

    x = Tensor(3.0, requires_grad=True)
    out = x * x
    out.backward()
    monkeypatch.setattr(widget, "STATIC_SVG_LIMIT", 10)
    data, _metadata = stepper(out, step=1)._repr_mimebundle_()
    assert "<svg" not in data["text/html"] and "data:image/svg+xml" not in data["text/html"]
    assert "The graph is too large to keep in the saved notebook." in data["text/html"]
    assert "∂out/∂t0" in data["text/html"] and WIDGET_VIEW in data
