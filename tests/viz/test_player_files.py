"""The player is one ES module and one stylesheet inside the package, shared by the app and the notebook (issue 20).

The module is checked by Node (Debian's ``nodejs``, installed by scripts/setup_system.sh): it must parse as an
ES module, and its default export must serve both hosts (Streamlit calls it with its component object,
anywidget with nothing, expecting ``{render}``).
"""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from lucid.viz import player
from lucid.viz.explanation.document import EXPLANATION_CSS

PLAYER_DIR = Path(player.__file__).parent


def node_or_skip() -> str:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("node is missing: scripts/setup_system.sh installs Debian's nodejs")
        pytest.skip("node is not installed (scripts/setup_system.sh installs it)")
    return node


def as_module(tmp_path: Path) -> Path:
    """The script under a ``.mjs`` name, so Node reads it as an ES module whatever package.json says."""
    target = tmp_path / "player.mjs"
    target.write_text(player.script(), encoding="utf-8")
    return target


def test_the_player_files_are_package_files_and_the_script_is_their_text():
    assert (PLAYER_DIR / "player.js").is_file()
    assert (PLAYER_DIR / "logic.mjs").is_file()
    assert (PLAYER_DIR / "player.css").is_file()
    # player.js with its one import (the pure logic, tests/viz/test_player_logic.py) replaced by logic.mjs's text
    assert player.script() == player.inline_logic((PLAYER_DIR / "player.js").read_text(encoding="utf-8"),
                                                  (PLAYER_DIR / "logic.mjs").read_text(encoding="utf-8"))
    assert "export default function" in player.script()


def test_the_stylesheet_is_the_explanation_look_then_the_player_look():
    css = player.stylesheet()
    assert css.startswith(EXPLANATION_CSS)
    assert css.endswith((PLAYER_DIR / "player.css").read_text(encoding="utf-8"))
    assert ".lucid-player .lucid-bar" in css
    assert css.count("{") == css.count("}")


def test_no_python_string_holds_the_player_any_more():
    source = (PLAYER_DIR.parents[1] / "ui" / "playground" / "clickable_graph.py").read_text(encoding="utf-8")
    assert "function build(" not in source
    assert ".lucid-player .lucid-bar" not in source
    assert "script()" in source and "stylesheet()" in source


def test_the_module_parses_as_an_es_module(tmp_path):
    node = node_or_skip()
    done = subprocess.run([node, "--check", str(as_module(tmp_path))], capture_output=True, text=True,  # noqa: S603
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr


HOSTS = """
const m = await import(process.argv[1]);
const widget = m.default();
console.log(JSON.stringify({
  widgetKeys: Object.keys(widget), render: typeof widget.render, mount: typeof m.mount,
  showStep: typeof m.showStep, syncMs: m.STEP_SYNC_MS,
}));
"""


def test_the_default_export_gives_anywidget_a_render_and_exports_mount_for_hosts(tmp_path):
    node = node_or_skip()
    url = as_module(tmp_path).as_uri()
    done = subprocess.run([node, "--input-type=module", "-e", HOSTS, url], capture_output=True,  # noqa: S603
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got == {"widgetKeys": ["render"], "render": "function", "mount": "function", "showStep": "function",
                   "syncMs": 400}


def test_sizing_is_per_mode():
    assert player.sizing(True)["whole_graph"] is True
    assert player.sizing(False) == {"min_scale": 0.7, "max_scale": 1.25, "reserve": 270, "min_text_px": 0,
                                    "whole_graph": False}
