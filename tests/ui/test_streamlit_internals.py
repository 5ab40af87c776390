"""Streamlit's private parts the app wraps are where the app expects them, and named in one module only.

When a Streamlit upgrade moves one of them this test names it (what it was for and what is missing), before any
page silently loses its rerun gate, browser gate, cancelling or shutdown watchdog.
"""
import ast
import tomllib
from pathlib import Path

import streamlit
from packaging.requirements import Requirement

from lucid.ui.runtime import streamlit_internals

ROOT = Path(__file__).resolve().parents[2]
HOME = ROOT / "lucid" / "ui" / "runtime" / "streamlit_internals.py"
#: Public Streamlit modules a page may import by name.
PUBLIC = {"streamlit", "streamlit.components.v1", "streamlit.testing.v1"}


def test_every_internal_the_app_uses_is_still_there():
    assert streamlit_internals.shape_problems() == []


def test_a_missing_internal_is_named_with_what_it_was_for(monkeypatch):
    monkeypatch.setitem(streamlit_internals.SHAPE, "the browser gate filters every widget value",
                        streamlit_internals._has(streamlit_internals.session_state_class, "set_widgets_from_wire"))
    assert streamlit_internals.shape_problems() == [
        "the browser gate filters every widget value: SessionState.set_widgets_from_wire"]


def test_the_installed_streamlit_is_one_the_shape_check_has_seen():
    assert streamlit.__version__ in streamlit_internals.TESTED


def test_the_package_allows_no_streamlit_the_shape_check_has_not_seen():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (spec,) = [Requirement(r) for r in project["optional-dependencies"]["app"] if r.startswith("streamlit")]
    assert all(spec.specifier.contains(v) for v in streamlit_internals.TESTED)
    newest = max(streamlit_internals.TESTED, key=lambda v: tuple(map(int, v.split("."))))
    major, minor, _ = map(int, newest.split("."))
    assert not spec.specifier.contains(f"{major}.{minor + 1}.0")
    assert not spec.specifier.contains(f"{major + 1}.0.0")


def test_no_other_module_imports_a_private_part_of_streamlit():
    sources = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "lucid").rglob("*.py"))]
    found = []
    for path in sources:
        if path == HOME:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
            found += [f"{path.relative_to(ROOT)}:{node.lineno} {n}" for n in names
                      if n.startswith("streamlit.") and n not in PUBLIC]
    assert found == []


def test_importing_the_module_imports_no_streamlit():
    import subprocess
    import sys

    code = "import sys, lucid.ui.runtime.streamlit_internals; print('streamlit' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,  # noqa: S603
                          timeout=120, check=True)
    assert done.stdout.strip() == "False"


def test_the_server_app_is_looked_for_once_and_still_found_after_the_heap_is_frozen(monkeypatch):
    """The one scan of every live object happens on the first call (app.py's, before our threads start): a later
    call, say a class's first held read after the warm-up froze the heap, neither scans again nor loses the app."""
    import gc

    class App:
        pass

    app = App()
    scans = []
    real = gc.get_objects
    monkeypatch.setattr(streamlit_internals, "starlette_class", lambda: App)
    monkeypatch.setattr(streamlit_internals, "_apps", [])
    monkeypatch.setattr(streamlit_internals, "_looked", [])
    monkeypatch.setattr(streamlit_internals.gc, "get_objects", lambda *a: scans.append(1) or real(*a))
    assert streamlit_internals.find_server_app() is app
    gc.freeze()
    try:
        assert not any(o is app for o in real())  # frozen objects are not listed: a first scan now would miss the app
        assert streamlit_internals.find_server_app() is app
    finally:
        gc.unfreeze()
    assert scans == [1]


def test_app_py_finds_the_server_app_before_the_warm_up_starts():
    source = (ROOT / "app.py").read_text(encoding="utf-8")
    assert 0 < source.index("streamlit_internals.find_server_app()") < source.index("warmup.start()")
