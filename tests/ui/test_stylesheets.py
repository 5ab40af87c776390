"""Every stylesheet of the app is a file beside its module; Python only fills in the numbers it shares."""
import re
from pathlib import Path

import pytest

from lucid.ui.projector import layout
from lucid.ui.runtime.stylesheets import stylesheet

ROOT = Path(__file__).resolve().parents[2]


def test_a_stylesheet_is_its_file_with_the_values_set():
    css = stylesheet("lucid.ui.projector", "sticky.css", key="pg", top=60, explain=146)
    assert css.startswith("<style>\n") and css.endswith("</style>\n")
    assert ".st-key-pg_controls" in css and "top: 60px" in css and "calc(100vh - 146px - 1rem)" in css
    assert "$" not in css


def test_a_value_left_out_is_an_error_not_a_silent_hole():
    with pytest.raises(KeyError):
        stylesheet("lucid.ui.projector", "sticky.css", key="pg", top=60)


def test_the_phone_rule_keeps_its_numbers():
    assert "@media (max-width: 640px)" in layout.PHONE_CSS and "max(16px, 1rem)" in layout.PHONE_CSS


def test_no_module_holds_a_stylesheet_or_a_script_as_a_python_string():
    found = []
    for path in sorted((ROOT / "lucid").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"<style>\s*\n|<script>\s*\n|\n\s*[.#\[][^\n{]*\{[^\n}]*:\s[^\n}]*;\s*\}|=>\s*\{", text):
            found.append(f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}")
    assert found == []
