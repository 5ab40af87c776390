"""The build backend: setuptools' own, run on a copy of the sources, so a build leaves nothing in the tree.

setuptools writes ``build/`` and ``lucid_graph_lab.egg-info/`` next to the sources it builds from; ``pip wheel .``
and ``python -m build`` left them in a clone. Here the metadata, the wheel and the sdist are made in a temporary
copy of what goes into the package (``SOURCES``), and only the result is put where the frontend asked. An editable
install (``pip install -e .``) builds in place as before: it must point at the sources themselves.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401 - the hooks that stay setuptools' own, re-exported
    build_editable,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
)

#: Everything a wheel or an sdist is built from (the sdist carries this backend, so a wheel builds from it too).
SOURCES = ("pyproject.toml", "MANIFEST.in", "README.md", "LICENSE", "docs/package-description.md", "lucid",
           "build_backend")
_SKIPPED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")


@contextlib.contextmanager
def _in_a_copy() -> Iterator[None]:
    """Work in a temporary copy of ``SOURCES``; the current directory is the source tree on entry and on exit."""
    here = Path.cwd()
    with tempfile.TemporaryDirectory(prefix="lucid-build-") as tmp:
        for name in SOURCES:
            source, dest = here / name, Path(tmp, name)
            if source.is_dir():
                shutil.copytree(source, dest, ignore=_SKIPPED)
            elif source.is_file():
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, dest)
        os.chdir(tmp)
        try:
            yield
        finally:
            os.chdir(here)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    target = os.path.abspath(metadata_directory)
    with _in_a_copy():
        return _setuptools.prepare_metadata_for_build_wheel(target, config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    target = os.path.abspath(wheel_directory)
    metadata = os.path.abspath(metadata_directory) if metadata_directory else None
    with _in_a_copy():
        return _setuptools.build_wheel(target, config_settings, metadata)


def build_sdist(sdist_directory, config_settings=None):
    target = os.path.abspath(sdist_directory)
    with _in_a_copy():
        return _setuptools.build_sdist(target, config_settings)
