"""The drawing options a person picks in the sidebar, as one hashable value.

Hashable so a frame's DOT is memoized per (program, step, options): moving one
step reuses everything, changing an option redraws once.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from lucid.i18n import N_

DIRECTIONS = {N_("Top to bottom"): "TB", N_("Left to right"): "LR"}
"""Top to bottom first: expression graphs are wide, and the page scrolls vertically."""
LARGE_MODES = {N_("Automatic"): "auto", N_("Always compact"): True, N_("Never compact"): False}
PRESETS = {N_("Standard"): "default", N_("Circuit (CS231n)"): "circuit"}
"""Drawing styles: labelled boxes, or CS231n-style wires with the value above and the gradient below.
The keys of these tables are what the widgets keep and the link maps; they are shown translated."""


@dataclass(frozen=True)
class DrawOptions:
    """Keyword arguments of ``lucid.viz.to_dot`` that the page lets people change."""

    direction: str = "TB"
    show_values: bool = True
    show_grads: bool = True
    show_shapes: bool = True
    show_constants: bool = True
    large: Any = "auto"
    preset: str = "default"

    def __post_init__(self) -> None:
        if self.preset == "circuit" and self.direction != "LR":  # circuits always run left to right
            object.__setattr__(self, "direction", "LR")

    def as_kwargs(self) -> dict[str, Any]:
        return asdict(self)

ZOOMS: dict[str, str | float] = {N_("Fit screen"): "screen", N_("Fit width"): "width", "75%": 0.75, "100%": 1.0,
                                 "150%": 1.5}
"""How big the graph is drawn; not a DOT option (the browser scales the same picture)."""
