"""The Playground's run, as moments a feature can act at: the live class, the lesson plan and links plug in here.

One Playground run goes: the features *enter* (a class's drawing goes into the URL, then the URL's view and
program are set), the view controls are drawn and the view *published*, the editor runs the program, the
features see the *program* (each may set the step to open at: the link's, then the lesson's, then the
teacher's; the last word wins), the page is *settled* (the URL kept for the menu), the features draw their
*panels* and give the player what they need, and below the player they add their own parts.

A feature is a ``Feature`` whose hooks do nothing unless it overrides them; the page calls every feature's hook
in the features' order. ``Page`` carries what a run learns as it goes (the program, the view, a class's held
step), so no feature reads another's session keys.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lucid.session.analysis import Analysis


@dataclass
class Page:
    """One run of the Playground: its key prefix and what the run has learned so far."""

    key: str
    entering: bool = False
    """Whether this run enters the page (a link, a reload, Back, a return through the menu)."""
    view: Any = None
    """The view controls' ``View`` (Classroom mode, drawing options, speed, size), once they are drawn."""
    analysis: Analysis | None = None
    """The program on screen, once the editor ran it (None: nothing to draw yet)."""
    held_from: int | None = None
    """While a class predicts a step (or the student practises predicting alone): the first step the page holds
    back."""
    practising: bool = False
    """Whether the hold is the self-paced practice's (``lucid.ui.playground.predict_view``), not only the class's."""
    answers_hidden: bool = False
    """Whether the page hides what would give a puzzle's answer away: the inputs table and forward mode compute the
    engine's own gradients, which a gradient detective case (a broken engine's numbers) must not show."""
    folded: bool = False
    """Whether the editor starts folded (Classroom mode, a following student)."""
    player: dict[str, Any] = field(default_factory=dict)
    """What the features give the player (``backward_stepper``'s keyword arguments)."""


class Feature:
    """A part of the Playground that acts at the run's moments. Every hook does nothing unless overridden."""

    def before_enter(self, page: Page) -> None:
        """Before the URL is read: put into it what this feature decides (a class's drawing)."""

    def on_enter(self, page: Page) -> None:
        """Set the page's widgets from the URL (links)."""

    def on_view(self, page: Page) -> None:
        """The view controls are drawn (``page.view``)."""

    def before_editor(self, page: Page) -> None:
        """Before the editor runs: hand it a program to run (a following student's)."""

    def on_program(self, page: Page) -> None:
        """A program is on screen (``page.analysis``): say the step to open at, follow it elsewhere."""

    def settled(self, page: Page) -> None:
        """Every feature has seen the program (or there is none): the URL is final for this run."""

    def panel(self, page: Page) -> None:
        """Draw the feature's panel above the program (``page.analysis`` may be None)."""

    def player_options(self, page: Page) -> dict[str, Any]:
        """Keyword arguments this feature gives the player."""
        return {}

    def below_player(self, page: Page) -> None:
        """Draw the feature's parts beside the Legend and Export expanders, below the player."""

    def after_page(self, page: Page) -> None:
        """The foot of the page: the feature's last parts, then work it may do meanwhile (prepare the next link)."""


class Features:
    """The features of one page in their order, called hook by hook."""

    def __init__(self, features: Sequence[Feature]):
        self.features = tuple(features)

    def __getattr__(self, hook: str):
        if hook.startswith("_") or not callable(getattr(Feature, hook, None)):
            raise AttributeError(hook)

        def call(page: Page) -> None:
            for feature in self.features:
                getattr(feature, hook)(page)
        return call

    def player_options(self, page: Page) -> dict[str, Any]:
        options: dict[str, Any] = {}
        for feature in self.features:
            options.update(feature.player_options(page))
        return options
