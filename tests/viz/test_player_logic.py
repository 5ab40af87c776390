"""The player's pure logic (``lucid/viz/player/logic.mjs``) passes its Node tests, and the hosts get it inlined.

``tests/js/player_logic.test.mjs`` runs under ``node --test``: step clamping, collapsed steps, the per-step
patches, the keys, fitting the graph, the lens's view and keeping the current node in view. Node is Debian's
``nodejs`` (scripts/setup_system.sh): without it the test is skipped on a developer's machine and fails in CI.
"""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from lucid.viz import player

ROOT = Path(__file__).resolve().parents[2]
NODE_TESTS = ROOT / "tests" / "js" / "player_logic.test.mjs"
GRAPH_TEXT_TESTS = ROOT / "tests" / "js" / "player_graph_text.test.mjs"
PLAYER_DIR = Path(player.__file__).parent


def node_or_skip() -> str:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail("CI=true but node is missing: scripts/setup_system.sh installs Debian's nodejs")
        pytest.skip("node is not installed (scripts/setup_system.sh installs it)")
    return node


def test_the_logic_module_passes_its_node_tests():
    node = node_or_skip()
    done = subprocess.run([node, "--test", "--test-reporter=tap", str(NODE_TESTS)],  # noqa: S603
                          capture_output=True, text=True, timeout=120, check=False, cwd=ROOT)
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-4000:]
    counts = {k: int(v) for k, v in re.findall(r"^# (tests|pass|fail) (\d+)$", report, re.MULTILINE)}
    assert counts["fail"] == 0 and counts["pass"] == counts["tests"] >= 16, counts


def test_the_graph_as_text_passes_its_node_tests():
    node = node_or_skip()
    done = subprocess.run([node, "--test", "--test-reporter=tap", str(GRAPH_TEXT_TESTS)],  # noqa: S603
                          capture_output=True, text=True, timeout=120, check=False, cwd=ROOT)
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-4000:]
    counts = {k: int(v) for k, v in re.findall(r"^# (tests|pass|fail) (\d+)$", report, re.MULTILINE)}
    assert counts["fail"] == 0 and counts["pass"] == counts["tests"] >= 6, counts


def test_the_hosts_get_player_js_with_the_logic_inlined_and_no_import_left():
    js = (PLAYER_DIR / "player.js").read_text(encoding="utf-8")
    logic = (PLAYER_DIR / "logic.mjs").read_text(encoding="utf-8")
    text = player.script()
    assert "from './logic.mjs'" in js
    assert not re.search(r"^import ", text, re.MULTILINE)
    assert "export function clampStep" in logic and "function clampStep(k, n)" in text
    assert "export function clampStep" not in text  # the module's exports stay player.js's own
    head = js[:js.index("import {")]
    tail = js[js.index("from './logic.mjs';\n") + len("from './logic.mjs';\n"):]
    assert text.startswith(head) and text.endswith(tail)


def test_inlining_refuses_a_script_without_its_import_or_with_renamed_names():
    with pytest.raises(ValueError, match="exactly once, not 0 times"):
        player.inline_logic("const x = 1;\n", "export const y = 2;\n")
    with pytest.raises(ValueError, match="under other names"):
        player.inline_logic("import { a as b } from './logic.mjs';\n", "export const a = 1;\n")
    assert player.inline_logic("// head\nimport { a, f } from './logic.mjs';\nf(a);\n",
                               "export const a = 1;\nexport function f(x) { return x; }\n") == \
        "// head\nconst a = 1;\nfunction f(x) { return x; }\nf(a);\n"
