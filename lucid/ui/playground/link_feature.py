"""Links as a Playground feature: the URL sets the view and program on entering, and follows what is on screen."""
from __future__ import annotations

from typing import Any

from lucid.ui.playground import url_state, view_link
from lucid.ui.playground.lifecycle import Feature, Page


class Links(Feature):
    """Any view is a link: entering sets the widgets from the URL, and the URL keeps up with the page."""

    def on_enter(self, page: Page) -> None:
        view_link.enter(page.key)

    def on_view(self, page: Page) -> None:
        view_link.publish_view(page.key)

    def on_program(self, page: Page) -> None:
        url_state.on_program_shown(page.key, page.analysis)  # a newly shown program opens at its linked step

    def settled(self, page: Page) -> None:
        view_link.remember(page.key)  # put back when the page is entered again through the menu

    def player_options(self, page: Page) -> dict[str, Any]:
        return {"resume": view_link.resumed(page.key), "share_url": True}
