"""Stylesheets (and page snippets) kept as files next to the module that uses them, filled in with ``$name`` values.

A page's CSS reads and diffs as CSS in its own file (``projector/classroom.css``); the few numbers it shares with
Python (the top bar's height, Classroom mode's type sizes) are written once in Python and set into the file's
``$name`` placeholders (``string.Template``: CSS itself never uses ``$``).
"""
from __future__ import annotations

from functools import cache
from importlib import resources
from string import Template


@cache
def package_text(package: str, name: str) -> str:
    """The file ``name`` of ``package`` as text, read once per process."""
    return resources.files(package).joinpath(name).read_text(encoding="utf-8")


def page_file(package: str, name: str, **values: object) -> str:
    """The file ``name`` of ``package`` (HTML, a script), its ``$name`` placeholders set from ``values``."""
    return Template(package_text(package, name)).substitute({k: str(v) for k, v in values.items()})


def stylesheet(package: str, name: str, **values: object) -> str:
    """The file ``name`` of ``package`` as one ``<style>`` element, its ``$name`` placeholders set from ``values``."""
    css = page_file(package, name, **values)
    return f"<style>\n{css}</style>\n"
