"""The live class as a Playground feature: who this tab is in the class, and what that changes on the page.

A teacher's page publishes its program, view and step to the room; a following student's page takes the
room's drawing before the URL is read, runs the room's program, opens at the teacher's step and holds back
the steps of an open question.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from lucid.ui.live_class import room_hold, room_view
from lucid.ui.playground.lifecycle import Feature, Page


class LiveClass(Feature):
    def __init__(self, page: Page):
        self.seat = room_view.seat(page.key)  # in a class (room= in the URL): the teacher, or a student following
        page.held_from = room_hold.settle(page.key, self.seat)  # while the class predicts a step, it waits
        page.folded = page.folded or room_view.is_student(self.seat)  # a following student does not edit
        self.slot: Any = None

    def before_enter(self, page: Page) -> None:
        room_view.before_enter(page.key, self.seat, page.entering)

    def on_view(self, page: Page) -> None:
        self.slot = st.container()  # the class's panel sits above the program and the graph

    def before_editor(self, page: Page) -> None:
        room_view.before_editor(page.key, self.seat)

    def on_program(self, page: Page) -> None:
        room_view.after_program(page.key, self.seat, page.analysis)

    def panel(self, page: Page) -> None:
        with self.slot:
            room_view.panel(page.key, self.seat, page.analysis)

    def player_options(self, page: Page) -> dict[str, Any]:
        room, on_step = room_view.player_room(page.key, self.seat)
        return {"room": room, "on_step": on_step, "held_from": page.held_from}

    def below_player(self, page: Page) -> None:
        if room_view.can_start(self.seat):
            room_view.start_class(page.key)  # beside the Legend and Export expanders
