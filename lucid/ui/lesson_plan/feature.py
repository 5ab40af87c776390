"""The lesson plan as a Playground feature: a lesson's link opens at its step, and the clicker crosses links."""
from __future__ import annotations

from typing import Any

from lucid.ui.lesson_plan import view as lesson_view
from lucid.ui.playground.lifecycle import Feature, Page


class LessonPlan(Feature):
    def on_program(self, page: Page) -> None:
        lesson_view.after_program_shown(page.key, page.analysis)

    def player_options(self, page: Page) -> dict[str, Any]:
        key = page.key
        return {"lesson": lesson_view.player_lesson(key),
                "on_lesson": lambda direction: lesson_view.move(key, direction)}

    def after_page(self, page: Page) -> None:
        lesson_view.lesson_panel(page.key)  # at the foot of the page
        lesson_view.prefetch_next(page.key)  # the page drew: the next link of a lesson is built meanwhile
