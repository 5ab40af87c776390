"""Playground: type a program, see its computation graph, step through the backward pass."""
import streamlit as st

from lucid.i18n import _
from lucid.session.analysis import INPUT_ROWS, shared_analysis
from lucid.ui.lesson_plan import view as lesson_view
from lucid.ui.live_class import room_hold, room_view
from lucid.ui.playground import controls, view_link
from lucid.ui.playground.editor import editor
from lucid.ui.playground.forward_mode_view import forward_mode_panel
from lucid.ui.playground.inputs_view import inputs_table
from lucid.ui.playground.player_view import backward_stepper
from lucid.ui.playground.url_state import on_program_shown
from lucid.ui.projector import layout as classroom
from lucid.ui.runtime.entry import ensure_navigation

KEY = "pg"

ensure_navigation()

seat = room_view.seat(KEY)  # in a class (room= in the URL): the teacher, or a student following them
held = room_hold.settle(KEY, seat)  # a student while the class predicts a step: that step and later ones wait
room_view.before_enter(KEY, seat, view_link.entering(KEY))
view_link.enter(KEY)  # entering (a link, a reload, Back, a return through the menu): the URL's view and program
view = controls.view_controls(KEY)
view_link.publish_view(KEY)
classroom.apply_style(view.classroom)
class_slot = st.container()  # the class's panel sits above the program and the graph
room_view.before_editor(KEY, seat)
# In Classroom mode the folded editor shares the controls' row: one row of page above the graph.
folded = view.classroom or room_view.is_student(seat)  # a following student does not edit
with (view.lead or st.container()), st.expander(_("Program"), expanded=not folded, icon=":material/edit:"):
    # Programs are shared by every session of this server (a class opening one link computes it once);
    # the session keeps only the source text.
    analysis = editor(KEY, shared_analysis, share_url=True, height=130 if view.classroom else 150,
                      keep_result=False)

if analysis is None:
    view_link.remember(KEY)
    st.info(_("Run a program to see its graph."))
    with class_slot:
        room_view.panel(KEY, seat, None)
    st.stop()

on_program_shown(KEY, analysis)
lesson_view.after_program_shown(KEY, analysis)  # a lesson's link opens at its step
room_view.after_program(KEY, seat, analysis)
view_link.remember(KEY)
with class_slot:
    room_view.panel(KEY, seat, analysis)
room, on_step = room_view.player_room(KEY, seat)
backward_stepper(KEY, analysis, view.options, seconds=view.seconds_per_step, classroom=view.classroom,
                 share_url=True, zoom=view.zoom, resume=view_link.resumed(KEY), lesson=lesson_view.player_lesson(KEY),
                 on_lesson=lambda direction: lesson_view.move(KEY, direction), room=room, on_step=on_step,
                 held_from=held)
if room_view.can_start(seat):
    room_view.start_class(KEY)  # beside the Legend and Export expanders
if held is None:
    inputs_table(analysis, INPUT_ROWS)
    forward_mode_panel(KEY, analysis)
else:  # both print final gradients: the asked one among them
    st.caption(_("The inputs' gradients and forward mode are shown again once your teacher reveals the answer."))
lesson_view.lesson_panel(KEY)
lesson_view.prefetch_next(KEY)  # the page drew: the next link of a lesson is built meanwhile
