"""The Playground as a class page in Streamlit's AppTest: open it with a link's query, read what the player got."""
from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
PAGE = str(ROOT / "pages" / "playground.py")


def page(**query) -> AppTest:
    """The Playground opened with ``query`` (a link's words), run once; it must show no exception."""
    at = AppTest.from_file(PAGE, default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def run_page(path: str) -> None:
    """The Playground as ``app.py`` runs it: the link's ``lang=`` first, then the page."""
    import runpy

    from lucid.ui.runtime import language

    language.follow_link()
    runpy.run_path(path, run_name="__main__")


def korean_page(**query) -> AppTest:
    """The Playground opened with ``query`` as ``app.py`` opens it, so the link's ``lang=`` is followed."""
    at = AppTest.from_function(run_page, args=(PAGE,), default_timeout=120)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def player(at: AppTest) -> dict:
    """The data the page's last run gave the player."""
    found = [c for c in at.get("bidi_component") if c.proto.component_name == "lucid_animation_player"]
    return json.loads(found[-1].proto.json)


def players(at: AppTest) -> list:
    """The page's player components (the page draws other, invisible components too: keys, watchers)."""
    return [c for c in at.get("bidi_component") if c.proto.component_name == "lucid_animation_player"]
