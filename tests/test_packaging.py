"""lucid installs as a package: the wheel holds the library and nothing else, and works in a fresh venv (issue 20).

The wheel is built from a copy of the project, and the build must leave that copy as it was (issue 29: setuptools
wrote ``build/`` and ``*.egg-info`` next to the sources; ``build_backend/backend.py`` now builds in a copy of its
own). The wheel carries the MIT licence and a description with no image or link into the repository, holds no
app-only package (``lucid.ui``), and the install hint of the notebook widget names commands that install.
When the installed setuptools can build a wheel by itself the build needs no network (``--no-build-isolation``);
otherwise pip fetches the build backend in an isolated build, and the test skips only when the package index
cannot be reached and nothing is cached.
"""
import json
import os
import re
import shutil
import site
import subprocess
import sys
import venv
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
#: Generated or private files a copy of the project leaves behind: never part of a build.
SKIPPED_EVERYWHERE = ("__pycache__", "*.pyc", ".pytest_cache", ".ruff_cache", ".hypothesis", "*.egg-info")
SKIPPED_AT_TOP = {".git", ".venv", "venv", "build", "dist", "artifacts", "node_modules"}
#: What pip prints when it cannot reach an index to fetch the build backend.
OFFLINE = re.compile(r"No matching distribution found for setuptools|Could not find a version that satisfies the "
                     r"requirement setuptools|NewConnectionError|Network is unreachable|Temporary failure in name "
                     r"resolution|Name or service not known")


def _version(name: str) -> tuple[int, ...] | None:
    try:
        return tuple(int(p) for p in re.findall(r"\d+", metadata.version(name))[:2])
    except metadata.PackageNotFoundError:
        return None


def can_build_without_network() -> bool:
    """The installed setuptools can be pyproject's build backend: 77 or newer (the SPDX ``license`` string and
    ``license-files``), which builds wheels itself (no ``wheel`` package needed since 70.1)."""
    setuptools = _version("setuptools")
    return setuptools is not None and setuptools >= (77, 0)


def _copy_project(dest: Path) -> Path:
    def ignore(directory: str, names: list[str]) -> set[str]:
        skipped = shutil.ignore_patterns(*SKIPPED_EVERYWHERE)(directory, names)
        if Path(directory) == ROOT:
            skipped |= SKIPPED_AT_TOP & set(names)
        return skipped

    shutil.copytree(ROOT, dest, ignore=ignore)
    return dest


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PIP_REQUIRE_VIRTUALENV")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("packaging")
    source = _copy_project(work / "project")
    out = work / "wheels"
    offline = can_build_without_network()
    args = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", str(out)]
    args += ["--no-build-isolation", "--no-index"] if offline else ["--timeout", "20", "--retries", "1"]
    done = subprocess.run([*args, str(source)], capture_output=True, text=True, env=_clean_env(),  # noqa: S603
                          timeout=240, check=False)
    if done.returncode != 0:
        log = done.stdout + done.stderr
        if not offline and OFFLINE.search(log):
            pytest.skip("the build backend (setuptools) is neither installed nor reachable on the package index")
        pytest.fail(f"building the wheel failed:\n{log[-4000:]}")
    (built,) = out.glob("lucid_graph_lab-*.whl")
    return built


def test_building_the_wheel_leaves_no_build_folder_nor_egg_info_in_the_sources(wheel):
    source = wheel.parent.parent / "project"
    assert (source / "pyproject.toml").is_file()
    assert not (source / "build").exists()
    assert not list(source.glob("*.egg-info")), sorted(p.name for p in source.glob("*.egg-info"))
    assert not list((source / "lucid").glob("*.egg-info"))


def _see_this_environment(python: Path) -> None:
    """When the tests themselves run in a venv (scripts/test.sh uses the project's .venv), the new venv's
    "system site packages" are the base interpreter's, not the ones the tests run with: a ``.pth`` file puts
    this environment's site-packages (numpy, graphviz, pip) after the new venv's own."""
    if sys.prefix == sys.base_prefix:
        return
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],  # noqa: S603
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "test_environment.pth").write_text("\n".join(site.getsitepackages()) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def venv_python(wheel, tmp_path_factory) -> Path:
    """A fresh venv that sees the system's packages (numpy, graphviz) and has only the wheel installed."""
    home = tmp_path_factory.mktemp("venv") / "env"
    venv.create(home, system_site_packages=True, with_pip=False)  # the system's pip is visible and installs here
    python = home / "bin" / "python"
    _see_this_environment(python)
    done = subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", str(wheel)],  # noqa: S603
                          capture_output=True, text=True, env=_clean_env(), timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return python


def _names(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as z:
        return z.namelist()


def _source_files() -> set[str]:
    """Every file of the lucid library in the project (not the app's ``lucid/ui``), as a path inside a wheel."""
    files = set()
    for path in (ROOT / "lucid").rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            name = path.relative_to(ROOT).as_posix()
            if not name.startswith("lucid/ui/"):
                files.add(name)
    return files


def test_the_wheel_holds_lucid_its_subpackages_and_its_run_time_files(wheel):
    names = set(_names(wheel))
    missing = _source_files() - names
    assert not missing, f"left out of the wheel: {sorted(missing)}"
    for sub in ("autograd", "expr", "viz", "nn", "optim", "_tensor", "_backend", "_func", "lessons", "data",
                "session", "live_class", "notebook", "viz/graph", "viz/explanation", "viz/export"):
        assert f"lucid/{sub}/__init__.py" in names
    # the player's script and stylesheet, which the app and the notebook widget read at run time
    assert {"lucid/viz/player/player.js", "lucid/viz/player/logic.mjs", "lucid/viz/player/player.css"} <= names


def test_the_wheel_holds_nothing_but_lucid(wheel):
    tops = {name.split("/")[0] for name in _names(wheel)}
    assert tops == {"lucid", wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1] + ".dist-info"}
    for name in _names(wheel):
        assert not name.startswith(("tests/", "pages/", "bench/", "scripts/", "docs/", "build_backend/")), name
        assert name != "app.py"
    # the library alone: the Streamlit app's package (tests/test_layering.py's APP_ONLY) runs from a clone
    assert [name for name in _names(wheel) if name.startswith("lucid/ui/")] == []


def _metadata(wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as z:
        (meta_name,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        return z.read(meta_name).decode("utf-8")


def test_the_wheel_carries_the_mit_licence_in_its_files_and_its_metadata(wheel):
    meta = _metadata(wheel)
    assert re.findall(r"^License-Expression: (.+)$", meta, re.M) == ["MIT"]
    assert re.findall(r"^License-File: (.+)$", meta, re.M) == ["LICENSE"]
    (licence,) = [n for n in _names(wheel) if n.endswith(".dist-info/licenses/LICENSE")]
    with zipfile.ZipFile(wheel) as z:
        text = z.read(licence).decode("utf-8")
    assert text == (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n\nCopyright (c) 2026 Lucid Graph Lab contributors\n")
    assert "THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND" in text


def test_the_long_description_has_no_image_and_no_link_into_the_repository(wheel):
    meta = _metadata(wheel)
    head, _, description = meta.partition("\n\n")
    assert "Description-Content-Type: text/markdown" in head
    assert description.startswith("# Lucid Graph Lab: the `lucid` library")
    assert "![" not in description and "<img" not in description  # an index shows it without the repository
    links = re.findall(r"\]\(([^)]*)\)", description)
    assert all(link.startswith("https://") for link in links), links
    assert 'pip install -e ".[notebook]"' in description  # how it really installs: from a clone


def test_the_metadata_declares_ranges_and_the_app_notebook_and_torch_extras(wheel):
    meta = _metadata(wheel)
    requires = re.findall(r"^Requires-Dist: (.+)$", meta, re.M)
    core = [r for r in requires if "extra ==" not in r]
    assert sorted(re.match(r"[A-Za-z0-9_.-]+", r).group(0).lower() for r in core) == ["graphviz", "numpy"]
    specs = [r.split(";")[0] for r in requires]  # the version part, without the ``extra == "app"`` marker
    assert not any("==" in spec for spec in specs), f"dependencies are ranges, not pins: {specs}"
    assert all(">=" in spec for spec in specs), f"every dependency names the oldest version it needs: {specs}"
    assert set(re.findall(r"^Provides-Extra: (.+)$", meta, re.M)) == {"app", "notebook", "torch"}

    def extra(name: str) -> set[str]:
        return {re.match(r"[A-Za-z0-9_.-]+", r).group(0).lower() for r in requires if f'extra == "{name}"' in r}

    assert {"streamlit", "pillow", "segno", "redis"} <= extra("app")
    assert {"anywidget", "ipython"} <= extra("notebook")
    assert extra("torch") == {"torch"}  # lucid.torch only; nothing else of lucid needs it


WORKED_EXAMPLE = """
import json, sys
import lucid
streamlit_after_import = "streamlit" in sys.modules
from lucid import Tensor
a = Tensor([1, 2], requires_grad=True)
b = Tensor([3, 4], requires_grad=True)
c = a * b
c.backward()
import lucid.viz
display = sorted(c._repr_mimebundle_())  # the notebook picture, drawn by the installed lucid.viz
from lucid.viz import stepper  # the notebook player: its module imports without anywidget
from lucid.viz.player import script, stylesheet  # and its script and stylesheet are in the wheel
print(json.dumps({
    "file": lucid.__file__,
    "a.grad": a.grad.tolist(), "b.grad": b.grad.tolist(), "c.data": c.data.tolist(), "c.grad": c.grad,
    "streamlit_after_import": streamlit_after_import, "streamlit_after_viz": "streamlit" in sys.modules,
    "display": display, "stepper": callable(stepper),
    "player": [script().startswith("// The backward-pass player"), ".lucid-player .lucid-bar" in stylesheet()],
}))
"""


def test_the_installed_wheel_runs_the_worked_example_without_streamlit(venv_python, tmp_path):
    # -I: neither the working directory nor PYTHONPATH is on sys.path, so only the installed lucid can be imported
    done = subprocess.run([str(venv_python), "-I", "-c", WORKED_EXAMPLE], capture_output=True, text=True,  # noqa: S603
                          cwd=tmp_path, env=_clean_env(), timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    venv_home = venv_python.parent.parent.resolve()
    assert Path(got["file"]).resolve().is_relative_to(venv_home), got["file"]
    assert got["a.grad"] == [3.0, 4.0]
    assert got["b.grad"] == [1.0, 2.0]
    assert got["c.data"] == [3.0, 8.0]
    assert got["c.grad"] is None
    assert got["streamlit_after_import"] is False
    assert got["streamlit_after_viz"] is False
    expected_display = ["image/svg+xml", "text/plain"] if shutil.which("dot") else ["text/plain"]
    assert got["display"] == expected_display
    assert got["stepper"] is True
    assert got["player"] == [True, True]


def test_the_wheel_carries_the_korean_catalog_and_the_installed_lucid_speaks_it(wheel, venv_python, tmp_path):
    assert "lucid/locale/ko/LC_MESSAGES/lucid.po" in _names(wheel)  # the catalog, compiled in memory at first use
    script = ("from lucid.i18n import _, use_language\n"
              "with use_language('ko'):\n"
              "    print(_('Chain rule: {equation}  ({grad}: total derivative of {output} with respect to {name})'))\n")
    done = subprocess.run([str(venv_python), "-I", "-c", script], capture_output=True, text=True,  # noqa: S603
                          cwd=tmp_path, env=_clean_env(), timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("연쇄 법칙(chain rule): {equation}")


def test_the_widgets_install_hint_names_commands_that_install(monkeypatch):
    # The project is on no package index: the hint names anywidget itself, or the editable install from a clone.
    from lucid.i18n import use_language
    from lucid.notebook import widget

    monkeypatch.setitem(sys.modules, "anywidget", None)  # import anywidget fails as when it is not installed
    widget.widget_class.cache_clear()
    try:
        with pytest.raises(widget.StepperError) as caught:
            widget.widget_class()
        with use_language("ko"), pytest.raises(widget.StepperError) as korean:
            widget.widget_class()
    finally:
        widget.widget_class.cache_clear()
    message = str(caught.value)
    assert message == ("the notebook player needs anywidget: `pip install anywidget` (or, in the folder of a clone of "
                       "the Lucid Graph Lab repository, `pip install -e \".[notebook]\"`), then restart the kernel")
    assert "lucid-graph-lab[notebook]" not in message
    assert str(korean.value).startswith("노트북 플레이어에는 `anywidget`이 필요합니다: `pip install anywidget`")
    assert '`pip install -e ".[notebook]"`' in str(korean.value)


def test_the_hints_editable_install_from_a_clone_works_as_written(tmp_path):
    # `pip install -e ".[notebook]"` run in a clone's folder (offline here: --no-deps, the build backend installed)
    if not can_build_without_network():
        pytest.skip("setuptools cannot build offline here")
    clone = _copy_project(tmp_path / "clone")
    home = tmp_path / "env"
    venv.create(home, system_site_packages=True, with_pip=False)
    python = home / "bin" / "python"
    _see_this_environment(python)
    done = subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",  # noqa: S603
                           "-e", ".[notebook]"], cwd=clone, capture_output=True, text=True, env=_clean_env(),
                          timeout=240, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = subprocess.run([str(python), "-I", "-c", "import lucid, lucid.ui; print(lucid.__file__)"],  # noqa: S603
                          cwd=elsewhere, capture_output=True, text=True, env=_clean_env(), timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()).resolve() == (clone / "lucid" / "__init__.py").resolve()  # the clone, linked
