"""A test-only Streamlit script: a long pure-Python loop that polls ``session_should_stop`` (no ``st`` calls).

It appends lines to the file named by ``LUCID_STOP_PROBE_LOG``, each led by the session's id (a browser
may open more than one session while it connects): ``<id> start``, then ``<id> stopped <seconds>`` (the
callback turned true) or ``<id> ran to the end`` after 60 s.
"""
import os
import time

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from lucid.ui.runtime.cancel import session_should_stop

LOG = os.environ["LUCID_STOP_PROBE_LOG"]
SESSION = get_script_run_ctx().session_id


def note(line: str) -> None:
    with open(LOG, "a", encoding="utf-8") as log:
        log.write(f"{SESSION} {line}\n")


st.button("Again", key="again")
should_stop = session_should_stop()
began = time.monotonic()
note("start")
while time.monotonic() - began < 60:
    if should_stop():
        note(f"stopped {time.monotonic() - began:.2f}")
        break
    sum(range(20_000))  # stands in for finite differences: NumPy work with no st call to interrupt it
else:
    note("ran to the end")
st.write("done")
