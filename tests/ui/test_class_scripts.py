"""The class panel's and the Playground's small components keep their scripts and styles in files next to their
modules (issue 26), shipped as package data, and the player and the class panel's watcher speak through one
documented module of DOM events, never through window globals."""
from __future__ import annotations

import ast
import tomllib
from fnmatch import fnmatch
from pathlib import Path

from lucid.ui.live_class import room_watch, teacher_key
from lucid.ui.playground import copy_link, forward_keys
from lucid.ui.runtime import a11y
from lucid.viz import player

ROOT = Path(__file__).resolve().parents[2]
MODULES = {room_watch: ("room_watch.js", "room_watch.css", "answer_watch.js", "answer_watch.css"),
           teacher_key: ("teacher_key.js", "teacher_key.css"),
           forward_keys: ("forward_keys.js", "forward_keys.css"),
           copy_link: ("copy_link.js", "copy_link.css"),
           a11y: ("a11y.js", "a11y.css")}


def _long_strings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and len(n.value) > 200 and ("=>" in n.value or "{ display" in n.value or "function" in n.value)]


def test_every_script_and_stylesheet_is_a_file_next_to_its_module_and_no_python_string_holds_one():
    for module, files in MODULES.items():
        here = Path(module.__file__).parent
        for name in files:
            assert (here / name).is_file(), name
        assert _long_strings(Path(module.__file__)) == [], module.__name__


def test_the_package_data_globs_ship_them():
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["lucid"]
    for files in MODULES.values():
        for name in files:
            assert any(fnmatch(name, g.removeprefix("**/")) for g in globs), name
    assert any(fnmatch(player.ROOM_EVENTS_FILE, g.removeprefix("**/")) for g in globs)


def test_the_watcher_and_the_player_share_the_class_events_module_and_no_globals():
    events = player.room_events()
    assert "const ROOM_QUESTION = 'lucid:room-question';" in events
    assert "const ROOM_QUESTION_ASK = 'lucid:room-question-ask';" in events
    assert room_watch.script().startswith(events)
    source = (ROOT / "lucid" / "ui" / "playground" / "clickable_graph.py").read_text(encoding="utf-8")
    assert 'room_events() + "\\n" + script()' in source  # the Streamlit host's player starts with it too
    for text in (player.script(), room_watch.script()):
        assert "__lucidRoom" not in text
        assert "window.__" not in text
    assert "roomAnnounce(f)" in player.script() and "ROOM_QUESTION_ASK" in player.script()
    assert "ROOM_QUESTION" in room_watch.script() and "roomLastQuestion()" in room_watch.script()
