"""The two failures a person drawing a graph can act on, with messages that say how."""
from __future__ import annotations

from lucid.i18n import L_, Message, text


class GraphTooLarge(ValueError):
    """The graph has more nodes than the drawing cap: drawing it would freeze a browser.

    The message is meant to be shown as is (it names the count and the cap).
    """

    def __init__(self, message: str | Message, *, nodes: int = 0, limit: int = 0) -> None:
        super().__init__(message)
        self.template = message
        self.nodes = nodes
        self.limit = limit

    @property
    def message(self) -> str:
        """The message in the reader's language (errors are kept in caches shared by every session)."""
        return text(self.template)


class GraphvizNotInstalled(RuntimeError):
    """SVG/PNG/GIF export needs Graphviz's ``dot`` program, which is not on the PATH."""

    def __init__(self, message: str | Message | None = None) -> None:
        super().__init__(message or L_(
            "Graphviz's `dot` program was not found, so SVG/PNG/GIF export is unavailable. "
            "Install the Graphviz system package (for example `apt-get install graphviz`) and try again; "
            "the DOT source (`to_dot(...).source`) works without it."))


class RenderError(RuntimeError):
    """``dot`` ran but failed (or took too long); carries its error output."""
