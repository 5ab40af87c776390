"""Optional test dependencies skip on a developer's machine and fail loudly under ``CI=true`` (issue 31).

CI installs torch and the notebook extras; a test module that skipped there when one went missing would stop
testing lucid.torch without anyone noticing.
"""
from pathlib import Path

import pytest

from tests.needs import require

MISSING = "lucid_tests_no_such_module"


@pytest.mark.parametrize("value", ["true", "1", "yes", "TRUE"])
def test_a_missing_dependency_fails_under_ci(monkeypatch, value):
    monkeypatch.setenv("CI", value)
    with pytest.raises(pytest.fail.Exception, match=f"CI=true but {MISSING} is not installed"):
        require(MISSING)


@pytest.mark.parametrize("value", [None, "", "false", "0"])
def test_a_missing_dependency_skips_outside_ci(monkeypatch, value):
    if value is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", value)
    with pytest.raises(pytest.skip.Exception, match=f"{MISSING} is not installed"):
        require(MISSING)


def test_an_installed_dependency_is_the_module():
    import json

    assert require("json") is json


def test_no_test_skips_on_a_missing_torch_outside_the_ci_rule():
    """A test module that needs torch asks tests.needs (or imports torch first under CI), so CI=true turns a missing
    torch into a failure rather than a silent skip."""
    folder = Path(__file__).resolve().parent
    for path in sorted(folder.rglob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        if 'importorskip("torch")' in text:
            assert 'os.environ.get("CI")' in text, f"{path.name} skips without torch even under CI"
    asking = ["torch/test_torch_recording.py", "torch/test_torch_passes.py", "torch/test_torch_gallery.py",
              "torch/test_torch_modules.py", "torch/test_torch_functions.py", "torch/test_torch_korean.py",
              "torch/test_torch_notebook.py", "e2e/test_torch_notebook_browser.py"]
    for path in (folder / name for name in asking):
        text = path.read_text(encoding="utf-8")
        assert "require_torch()" in text or 'needs=("torch",)' in text, path.name
