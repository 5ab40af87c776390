"""The layers import downwards only: nothing below the app layer imports ``lucid.ui`` or Streamlit.

Every ``import``/``from ... import`` anywhere in a module counts, at module level or inside a function (a lazy
import is still a dependency). ``docs/architecture.md`` draws the same layers.
"""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LUCID = ROOT / "lucid"

#: Packages of the library, lowest first. Each may import itself and the ones before it, never ``lucid.ui``.
LIBRARY = ["_backend", "_tensor", "_func", "autograd", "nn", "optim", "data", "expr", "practice", "viz", "lessons",
           "live_class", "session", "notebook", "torch"]
APP_ONLY = ("streamlit", "lucid.ui")


def imported_names(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def library_modules():
    for package in LIBRARY:
        yield from sorted((LUCID / package).rglob("*.py"))
    yield from sorted(p for p in LUCID.glob("*.py"))


def test_every_library_package_is_listed():
    packages = {p.name for p in LUCID.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages - {"ui"} == set(LIBRARY), "a new package needs its place in the layers"


@pytest.mark.parametrize("path", list(library_modules()), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_library_never_imports_the_app_layer_or_streamlit(path):
    bad = [f"{path.name}:{line} imports {name}" for line, name in imported_names(path)
           if name == APP_ONLY[0] or name.startswith(APP_ONLY[0] + ".") or name == APP_ONLY[1]
           or name.startswith(APP_ONLY[1] + ".")]
    assert bad == []


@pytest.mark.parametrize("path", sorted((LUCID / "session").rglob("*.py")), ids=lambda p: p.name)
def test_the_session_model_stays_below_the_pages_and_the_notebook(path):
    """The notebook widget and the app both build on ``lucid.session``, so it may import neither."""
    bad = [name for _, name in imported_names(path) if name.startswith(("lucid.notebook", "anywidget", "IPython"))]
    assert bad == []


#: The one way up: a Tensor answers a notebook's ``_repr_mimebundle_``/``_repr_svg_`` by asking the notebook display,
#: lazily (the protocol is a method of the value a cell returns).
DISPLAY_HOOK = {("_tensor/tensor.py", "lucid.notebook.display")}


def test_the_engine_imports_nothing_of_the_pictures_or_the_language():
    engine = [p for pkg in ("_backend", "_tensor", "_func", "autograd") for p in (LUCID / pkg).rglob("*.py")]
    upward = ("lucid.viz", "lucid.expr", "lucid.session", "lucid.live_class", "lucid.lessons", "lucid.notebook")
    bad = [f"{p.relative_to(LUCID)}:{line} {name}" for p in engine for line, name in imported_names(p)
           if name.startswith(upward) and (str(p.relative_to(LUCID)), name) not in DISPLAY_HOOK]
    assert bad == []


def test_importing_lucid_and_its_library_imports_no_streamlit():
    import subprocess
    import sys

    code = ("import sys, lucid, lucid.viz, lucid.session.analysis, lucid.session.lesson_plan, lucid.live_class, "
            "lucid.notebook.display, lucid.lessons.training; print('streamlit' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,  # noqa: S603
                          check=True)
    assert done.stdout.strip() == "False"
