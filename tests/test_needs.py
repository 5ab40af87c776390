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


def test_the_torch_tests_never_skip_on_a_missing_torch_by_themselves():
    """Every torch test module asks tests.needs, so CI=true turns a missing torch into a failure."""
    folder = Path(__file__).resolve().parent
    for path in [*sorted((folder / "torch").glob("test_*.py")), folder / "e2e" / "test_torch_notebook_browser.py"]:
        text = path.read_text(encoding="utf-8")
        assert 'importorskip("torch")' not in text, path.name
        assert "require_torch()" in text or "needs=(\"torch\",)" in text, path.name
