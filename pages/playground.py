"""Playground: type a program, see its computation graph, step through the backward pass.

The page is its lifecycle (``lucid.ui.playground.lifecycle``): the page's state, its features (links, the
lesson plan, the live class), the editor, the player.
"""
import streamlit as st

from lucid.i18n import _
from lucid.session.analysis import INPUT_ROWS, shared_analysis
from lucid.ui.lesson_plan.feature import LessonPlan
from lucid.ui.live_class.exercise_view import ClassExercise
from lucid.ui.live_class.feature import LiveClass
from lucid.ui.playground import controls, recording_view, view_link
from lucid.ui.playground.detective_view import Detective
from lucid.ui.playground.editor import editor
from lucid.ui.playground.forward_mode_view import forward_mode_panel
from lucid.ui.playground.inputs_view import inputs_table
from lucid.ui.playground.lifecycle import Features, Page
from lucid.ui.playground.link_feature import Links
from lucid.ui.playground.player_view import backward_stepper
from lucid.ui.playground.predict_view import Practice
from lucid.ui.playground.rule_check_view import rule_check_panel
from lucid.ui.projector import layout as classroom
from lucid.ui.runtime.entry import ensure_navigation

ensure_navigation()

# State: the run's page, and the features in the order they have their say (for the step: link, lesson, class).
page = Page("pg")
# (the class first learns who this tab is)
live_class = LiveClass(page)
features = Features([Links(), LessonPlan(), live_class, ClassExercise(live_class), Practice(),
                     Detective(live_class)])
page.entering = view_link.entering(page.key)

features.before_enter(page)
features.on_enter(page)
page.view = view = controls.view_controls(page.key)
classroom.apply_style(view.classroom)
features.on_view(page)
features.before_editor(page)

# Editor: in Classroom mode the folded editor shares the controls' row (one row of page above the graph).
with (view.lead or st.container()), st.expander(_("Program"), expanded=not (view.classroom or page.folded),
                                                icon=":material/edit:"):
    # Programs are shared by every session of this server (a class opening one link computes it once);
    # the session keeps only the source text.
    page.analysis = editor(page.key, shared_analysis, share_url=True, height=130 if view.classroom else 150,
                           keep_result=False, recordings=True)
    recording_view.import_panel(page.key)

# A recorded PyTorch pass (an imported .lucid file, the gallery's) plays instead of the program: no link or class.
recording_view.open_linked(page.key, page.entering)
recorded = recording_view.recorded_analysis(page.key)
if recorded is not None:
    page.analysis = None
    features.settled(page)
    features.panel(page)
    recording_view.play(page.key, recorded, view)
    st.stop()

if page.analysis is None:
    features.settled(page)
    st.info(_("Run a program to see its graph."))
    features.panel(page)
    st.stop()

features.on_program(page)
features.settled(page)
features.panel(page)

# The student's own ops (def): are their rules right? (The player below steps with them either way.)
rule_check_panel(page.analysis)

# Player: the backward pass, with what each feature gives it.
backward_stepper(page.key, page.analysis, view.options, seconds=view.seconds_per_step, classroom=view.classroom,
                 zoom=view.zoom, **features.player_options(page))
features.below_player(page)
if page.answers_hidden:  # a detective case: these would show the right engine's numbers
    st.caption(_("The inputs' gradients and forward mode are hidden while you solve the detective case: they "
                 "would show the right engine's numbers."))
elif page.held_from is None:
    inputs_table(page.analysis, INPUT_ROWS)
    forward_mode_panel(page.key, page.analysis)
elif page.practising:  # both print final gradients: the asked one among them
    st.caption(_("The inputs' gradients and forward mode are shown again once you finish or stop the practice."))
else:
    st.caption(_("The inputs' gradients and forward mode are shown again once your teacher reveals the answer."))
features.after_page(page)
