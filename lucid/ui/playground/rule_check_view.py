"""The verdict on the rules of a program's own ops (``def``), shown above its graph.

The page stays thin: ``lucid.practice.rule_check`` decides and words it; this module only places it. A wrong
rule is an error box that says where it fails and why it may be, and the graph below still steps with it
(the student watches the wrong gradients flow); a right one is a short success line.
"""
from __future__ import annotations

import re

import streamlit as st

from lucid.i18n import text
from lucid.practice.rule_check import check_program, describe, hint_text, left_out_text, skipped_text, summary
from lucid.session.analysis import Analysis

_MARKDOWN = re.compile(r"([\\`*_\[\]<>#|~])")


def _plain(message: object) -> str:
    """A message as literal text in Streamlit's markdown (a name like ``my_op`` must not turn italic)."""
    return _MARKDOWN.sub(r"\\\1", text(message))


def rule_check_panel(analysis: Analysis) -> None:
    """One box per defined op: its rules' verdict. Nothing for a program that defines no op."""
    program = analysis.program
    if not program.definitions:
        return
    for verdict in check_program(program):
        if verdict.ok:
            st.success(_plain(summary(verdict)), icon=":material/check_circle:")
        elif not verdict.failures:  # not checked at all (too costly): say so, without a verdict
            st.warning(_plain(summary(verdict)), icon=":material/warning:")
        else:
            lines = [_plain(summary(verdict))]
            for failure in verdict.failures:
                lines.append(f"- {_plain(describe(failure))}")
                hint = hint_text(failure)
                if hint is not None:
                    lines.append(f"  \n  {_plain(hint)}")
            st.error("\n".join(lines), icon=":material/error:")
        for note in (skipped_text(verdict), left_out_text(verdict)):
            if note is not None:
                st.caption(_plain(note))
