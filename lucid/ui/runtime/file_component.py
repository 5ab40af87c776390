"""Custom components whose script and stylesheet are files beside the module that draws them.

``st.components.v2.component`` declares a component by name; each is declared on its first use in this process
(its files read once, ``stylesheets.package_text``) and kept here, so a page run only mounts it.
"""
from __future__ import annotations

import threading
from typing import Any

import streamlit as st

from lucid.ui.runtime.stylesheets import package_text

_declared: dict[str, Any] = {}
_lock = threading.Lock()


def file_component(name: str, package: str, script: str, stylesheet: str, *, prelude: str = "") -> Any:
    """Component ``name`` from the files ``script`` and ``stylesheet`` of ``package`` (``prelude``: script text put
    before the file's, e.g. a module shared with the player); its styles are not isolated from the page."""
    with _lock:
        found = _declared.get(name)
        if found is None:
            found = _declared[name] = st.components.v2.component(
                name, js=prelude + package_text(package, script), css=package_text(package, stylesheet),
                isolate_styles=False)
        return found
