"""lucid installs as a package: the wheel holds lucid and nothing else, and works in a fresh venv (issue 20).

The wheel is built from a copy of the project (a setuptools build writes ``build/`` and
``*.egg-info`` next to the sources, which must not land in the worktree). When the installed
setuptools can build a wheel by itself the build needs no network (``--no-build-isolation``);
otherwise pip fetches the build backend in an isolated build, and the test skips only when the
package index cannot be reached and nothing is cached.
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
    """setuptools >= 70.1 builds wheels itself; older ones (>= 64, for PEP 621 and 660) need ``wheel``."""
    setuptools = _version("setuptools")
    if setuptools is None or setuptools < (64, 0):
        return False
    return setuptools >= (70, 1) or _version("wheel") is not None


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
    """Every file of the lucid package in the project, as a path inside a wheel."""
    files = set()
    for path in (ROOT / "lucid").rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            files.add(path.relative_to(ROOT).as_posix())
    return files


def test_the_wheel_holds_lucid_its_subpackages_and_its_run_time_files(wheel):
    names = set(_names(wheel))
    missing = _source_files() - names
    assert not missing, f"left out of the wheel: {sorted(missing)}"
    for sub in ("autograd", "expr", "viz", "ui", "nn", "optim", "_tensor", "_backend", "_func", "lessons", "data",
                "session", "live_class", "notebook", "viz/graph", "viz/explanation", "viz/export", "ui/live_class"):
        assert f"lucid/{sub}/__init__.py" in names
    # the player's script and stylesheet, which the app and the notebook widget read at run time
    assert {"lucid/viz/player/player.js", "lucid/viz/player/logic.mjs", "lucid/viz/player/player.css"} <= names


def test_the_wheel_holds_nothing_but_lucid(wheel):
    tops = {name.split("/")[0] for name in _names(wheel)}
    assert tops == {"lucid", wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1] + ".dist-info"}
    for name in _names(wheel):
        assert not name.startswith(("tests/", "pages/", "bench/", "scripts/", "docs/")), name
        assert name != "app.py"


def test_the_metadata_declares_ranges_and_the_app_notebook_and_torch_extras(wheel):
    with zipfile.ZipFile(wheel) as z:
        (meta_name,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        meta = z.read(meta_name).decode("utf-8")
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
