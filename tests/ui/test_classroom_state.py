"""Classroom mode is one setting of the session, carried in the link: every page reads and writes the same one."""
from streamlit.testing.v1 import AppTest


def page_with_a_toggle():
    import streamlit as st

    from lucid.ui.projector import mode as classroom_state

    on = classroom_state.toggle("other")
    st.write(f"classroom is {'on' if on else 'off'}")


def page_that_only_reads():
    import streamlit as st

    from lucid.ui.projector import mode as classroom_state

    st.write(f"classroom is {'on' if classroom_state.follow_link() else 'off'}")


def test_a_pages_toggle_starts_from_the_link_and_writes_the_session_and_the_link():
    at = AppTest.from_function(page_with_a_toggle)
    at.query_params["classroom"] = "1"
    at.run()
    assert at.toggle(key="other_classroom").value is True and at.session_state["lucid_classroom"] is True
    at.toggle(key="other_classroom").set_value(False).run()
    assert at.session_state["lucid_classroom"] is False and "classroom" not in at.query_params
    assert at.markdown[0].value == "classroom is off"


def test_a_link_without_classroom_keeps_the_sessions_mode_and_says_it_in_the_link():
    at = AppTest.from_function(page_that_only_reads)
    at.session_state["lucid_classroom"] = True
    at.run()
    assert at.markdown[0].value == "classroom is on" and at.query_params["classroom"] == "1"


def test_junk_in_the_link_is_ignored():
    at = AppTest.from_function(page_that_only_reads)
    at.query_params["classroom"] = "<script>"
    at.run()
    assert not at.exception and at.markdown[0].value == "classroom is off"
