"""Gradient detective in the Playground: a teacher breaks one rule and shares a link; a student finds it.

The page stays thin: ``lucid.practice`` has the faults, the broken pass, the per-node check and the sealed
links. This module:

- for a **teacher** (no ``detective=`` in the address): a folded panel under the player lists the faults that
  change this program's numbers, and makes the link (the program and a sealed case) with its answer key;
- for a **student** (a link with ``detective=``): opens the case against the program on screen, puts the broken
  engine's pass on the page (``Page.analysis`` becomes the same program with the broken trace, so the player,
  the inspector and the exports all show the broken numbers), hides the inputs table and forward mode (they
  compute the right engine's numbers), marks every checked node on the graph (passed / failed) and takes the
  accusation.

The server's secret (the class rooms' store: every process of the server shares it) seals the links, so a link
made on this server opens on any of its processes and on no other server.
"""
from __future__ import annotations

import dataclasses
from typing import Any

import streamlit as st

from lucid.i18n import _, text
from lucid.practice.detective import DetectiveCase, fault_choices, open_detective_case
from lucid.practice.detective_link import InvalidCase, seal_case
from lucid.practice.faults import Target, applicable_targets
from lucid.practice.node_check import NodeCheck
from lucid.session import share
from lucid.session.analysis import Analysis
from lucid.session.inspector import node_choices
from lucid.ui.playground.keys import keys
from lucid.ui.playground.lifecycle import Feature, Page
from lucid.ui.runtime import folded

LINK_KEY = "detective"
"""The query parameter that carries a sealed case."""

MAX_STEPS = 400
"""A case is offered on programs of at most this many backward steps: finding every fault that changes the
numbers runs the broken pass once per candidate, and a puzzle that large is no lesson."""


def _secret() -> str:
    from lucid.ui.live_class import room_service  # the store of the class rooms holds the server's secret

    return room_service.rooms().store.secret()


def node_label(analysis: Analysis, index: int) -> str:
    return node_choices(analysis)[index]


def current(key: str, analysis: Analysis | None, token: str | None) -> DetectiveCase | InvalidCase | None:
    """The student's case on ``analysis`` (opened once per program and link), or why the link does not open."""
    if analysis is None or analysis.trace is None or not token:
        return None
    opened_for = (analysis.source, analysis.seed, token)
    if st.session_state.get(keys(key).detective_case_of) != opened_for:
        st.session_state[keys(key).detective_case_of] = opened_for
        st.session_state[keys(key).detective_verdict] = None
        try:
            if analysis.n_steps > MAX_STEPS:
                raise InvalidCase(_("This program is too large for a detective case."))
            st.session_state[keys(key).detective] = open_detective_case(token, analysis.source, _secret(),
                                                                        analysis.trace)
        except InvalidCase as err:
            st.session_state[keys(key).detective] = err
    return st.session_state.get(keys(key).detective)


def broken_analysis(analysis: Analysis, case: DetectiveCase) -> Analysis:
    """The same program with the broken engine's pass: what the player, inspector and exports draw."""
    return dataclasses.replace(analysis, trace=case.trace,
                               variant=f"detective:{case.target.fault.slug}:{case.target.index}")


def marks(case: DetectiveCase) -> list[list[str]]:
    """The checked nodes for the graph: ``[svg id, "pass" | "fail", words]`` for each tensor and the op box
    that made it (the op's step is what the check looked at)."""
    out = []
    for index, check in case.checks.items():
        kind = "pass" if check.passed else "fail"
        words = _("check passed") if check.passed else _("check failed")
        out += [[f"t{index}", kind, words], [f"op{index}", kind, words]]
    return out


def _check_text(analysis: Analysis, check: NodeCheck) -> str:
    label = node_label(analysis, check.index)
    if not check.checkable:
        return _("**{node}**: this op cannot be checked on its own.").format(node=label)
    if check.passed:
        return _("✓ **{node}** passes (largest relative error {error:.1e}).").format(node=label,
                                                                                  error=check.worst_error)
    lines = [_("✗ **{node}** fails (largest relative error {error:.1e}).").format(node=label,
                                                                                error=check.worst_error)]
    if check.total_error is not None and check.total_error > 1e-5:
        lines.append(_("Its gradient is not the sum of what its users sent it."))
    for c in check.inputs:
        if not c.passed:
            lines.append(_("Into input {slot}: central differences give {expected:.6g} along a random direction, "
                           "the step shows {shown:.6g}.").format(slot=c.slot + 1, expected=c.expected,
                                                                 shown=c.shown))
    return "  \n".join(lines)


def _check(key: str, analysis: Analysis) -> None:
    case = st.session_state.get(keys(key).detective)
    choice = st.session_state.get(keys(key).detective_node)
    if isinstance(case, DetectiveCase) and isinstance(choice, int) and 0 <= choice < len(case.trace.order):
        case.check(choice)


def _accuse(key: str) -> None:
    case = st.session_state.get(keys(key).detective)
    node, mistake = (st.session_state.get(keys(key).detective_culprit),
                     st.session_state.get(keys(key).detective_mistake))
    if isinstance(case, DetectiveCase) and isinstance(node, int) and isinstance(mistake, str):
        st.session_state[keys(key).detective_verdict] = case.accuse(node, mistake)


def _follow_the_inspector(key: str, labels: list[str]) -> None:
    """A node clicked in the graph (the inspector's pick) becomes the node to check."""
    picked = st.session_state.get(keys(key).inspect)
    if picked in labels and picked != st.session_state.get(keys(key).detective_synced):
        st.session_state[keys(key).detective_synced] = picked
        st.session_state[keys(key).detective_node] = labels.index(picked)


def student_panel(key: str, analysis: Analysis, case: DetectiveCase | InvalidCase) -> None:
    with st.container(border=True, key=keys(key).of("detective_box")):
        st.markdown("#### " + _("Gradient detective"))
        if isinstance(case, InvalidCase):
            st.error(text(case.args[0]) if case.args else _("This detective link does not open."),
                     icon=":material/error:")
            return
        st.caption(_("One backward rule of this program is broken: the graph shows the numbers of an engine with "
                     "that mistake. Check nodes to find where, then name the node and the mistake. Each node you "
                     "check counts once."))
        st.caption(_("Click a node in the graph to choose it."))
        labels = node_choices(analysis)
        indices = list(range(len(labels)))
        _follow_the_inspector(key, labels)
        left, right = st.columns([3, 1], vertical_alignment="bottom")
        left.selectbox(_("Node to check"), indices, format_func=lambda i: labels[i], key=keys(key).detective_node)
        right.button(_("Check this node"), key=keys(key).detective_check, on_click=_check, args=(key, analysis),
                     width="stretch", disabled=case.solved)
        st.caption(_("Checks used: {n}").format(n=case.checks_used))
        for check in case.checks.values():
            st.markdown(_check_text(analysis, check))
        choices = dict(fault_choices())
        with st.form(key=keys(key).detective_form, border=False):
            st.selectbox(_("The culprit node"), indices, format_func=lambda i: labels[i],
                         key=keys(key).detective_culprit)
            st.selectbox(_("The mistake"), list(choices), format_func=lambda s: text(choices[s]),
                         key=keys(key).detective_mistake)
            st.form_submit_button(_("Name the culprit"), key=keys(key).detective_accuse, type="primary",
                                  on_click=_accuse, args=(key,), disabled=case.solved or case.gave_up)
        verdict = st.session_state.get(keys(key).detective_verdict)
        if verdict is not None:
            (st.success if verdict.solved else st.warning)(text(verdict.message()))
        if case.solved:
            st.markdown("**" + text(case.score()) + "**")
        elif case.gave_up:
            st.info(_("No more guesses for this case."))


def _make_link(key: str, analysis: Analysis, targets: list[Target]) -> None:
    choice = st.session_state.get(keys(key).detective_fault)
    if not isinstance(choice, int) or not 0 <= choice < len(targets):
        return
    target = targets[choice]
    token = seal_case(target, analysis.source, _secret())
    query = {**share.encode(analysis.source, 0), LINK_KEY: token}
    st.session_state[keys(key).detective_link] = (analysis.source, analysis.seed, query, choice)


def teacher_panel(key: str, analysis: Analysis) -> None:
    """The folded "Gradient detective: break one rule" expander."""
    with st.expander(_("Gradient detective: break one rule"), icon=":material/search:",
                     key=keys(key).detective_open, on_change="rerun") as box:
        if not box.open:
            folded.keep(keys(key).detective_fault)
            return
        if analysis.trace is None or analysis.n_steps < 2:
            st.caption(_("This program has no backward pass to break."))
            return
        if analysis.n_steps > MAX_STEPS:
            st.caption(_("This program is too large for a detective case."))
            return
        targets = applicable_targets(analysis.trace)
        if not targets:
            st.caption(_("No mistake of the catalogue changes this program's numbers: try a program with a tensor "
                         "used twice, a broadcast, or tanh, sigmoid, mean, sub, div or matmul."))
            return
        st.caption(_("Choose a mistake; the link shows the program with that broken rule and does not say which. "
                     "Students check nodes until they find it."))
        labels = [f"{text(t.fault.title)} · {node_label(analysis, t.index)}" for t in targets]
        st.selectbox(_("Rule to break"), list(range(len(targets))), format_func=lambda i: labels[i],
                     key=keys(key).detective_fault)
        st.button(_("Make the detective link"), key=keys(key).detective_make, type="primary",
                  on_click=_make_link, args=(key, analysis, targets))
        made = st.session_state.get(keys(key).detective_link)
        if made and made[:2] == (analysis.source, analysis.seed):
            query, choice = made[2], made[3]
            import urllib.parse

            st.markdown(_("Give your students this link (add it to this server's address):"))
            st.code("?" + urllib.parse.urlencode(query), language=None, wrap_lines=True)
            st.markdown(_("**Answer key** (not in the link): {answer}").format(answer=labels[choice]))


class Detective(Feature):
    """The detective as a Playground feature: a student's case swaps in the broken pass; a teacher makes links."""

    def __init__(self, live_class: Any = None) -> None:
        self.live = live_class  # a student of a live class gets cases from the teacher, never makes one
        token = st.query_params.get(LINK_KEY)
        self.token = token if isinstance(token, str) and token else None
        self.case: DetectiveCase | InvalidCase | None = None

    def on_program(self, page: Page) -> None:
        # a link's case, or the one the class exercise this student started carries (``exercise_view``)
        token = self.token or st.session_state.get(keys(page.key).detective_class_case)
        self.case = current(page.key, page.analysis, token)
        if isinstance(self.case, DetectiveCase):
            page.analysis = broken_analysis(page.analysis, self.case)
            page.answers_hidden = True

    def before_editor(self, page: Page) -> None:
        if self.token:  # the case is bound to the program: the editor stays folded, the graph in view
            page.folded = True

    def settled(self, page: Page) -> None:
        if self.token and LINK_KEY not in st.query_params:  # the page rewrote its address: the case stays in it
            st.query_params[LINK_KEY] = self.token

    def player_options(self, page: Page) -> dict[str, Any]:
        return {"marks": marks(self.case)} if isinstance(self.case, DetectiveCase) else {}

    def panel(self, page: Page) -> None:
        if isinstance(self.case, DetectiveCase) and not self.case.solved:
            st.info(_("**Gradient detective**: one backward rule of this program is broken. Check nodes and name "
                      "the culprit below the graph."), icon=":material/search:")

    def below_player(self, page: Page) -> None:
        if page.analysis is None:
            return
        if self.case is not None:
            student_panel(page.key, page.analysis, self.case)
        elif self.token is None and not (self.live is not None and self.live.seat is not None
                                         and self.live.seat.role == "student"):
            teacher_panel(page.key, page.analysis)
