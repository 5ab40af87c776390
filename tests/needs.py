"""Optional test dependencies: skipped on a developer's machine that lacks them, a loud failure under ``CI=true``.

CI installs every extra (requirements-dev.txt pins torch, nbclient, ipykernel, anywidget), so a missing one
there is a broken setup, not a reason to skip: the tests that need it would silently stop running. The same
rule as the browser tests' (tests/e2e/conftest.py, when Chromium is missing).
"""
from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest


def in_ci() -> bool:
    """Whether ``CI`` is set to a true value (``true``, ``1``, ``yes``), as CI services set it."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def unavailable(reason: str) -> None:
    """Fail under CI (which installs everything), skip elsewhere; works at module level and in a fixture."""
    if in_ci():
        pytest.fail(f"CI=true but {reason}; these tests must run in CI", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def require(module: str, why: str = "") -> ModuleType:
    """``module`` imported, or the test (or the whole test module, at module level) skipped / failed."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        unavailable(f"{module} is not installed{f' ({why})' if why else ''}: {err}")
        raise  # unreachable: unavailable() always raises


def require_torch() -> ModuleType:
    """torch, for lucid.torch's tests (the CPU build pinned in requirements-dev.txt)."""
    return require("torch", "pip install -r requirements-dev.txt installs the pinned CPU build")
