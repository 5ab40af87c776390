"""``session_should_stop`` turns true exactly when Streamlit will end the current script run."""
from streamlit.runtime.scriptrunner_utils.script_requests import RerunData, ScriptRequests

from lucid.ui.runtime.cancel import requests_want_stop, session_should_stop


def test_nothing_pending_means_keep_going():
    assert not requests_want_stop(ScriptRequests())


def test_a_widget_change_rerun_means_stop():
    requests = ScriptRequests()
    requests.request_rerun(RerunData(query_string=""))
    assert requests_want_stop(requests)


def test_a_closed_session_means_stop():
    requests = ScriptRequests()
    requests.request_stop()
    assert requests_want_stop(requests)


def test_an_autoplay_fragment_tick_does_not_stop_the_script():
    requests = ScriptRequests()
    requests.request_rerun(RerunData(fragment_id="autoplay"))
    assert not requests_want_stop(requests)


def test_a_fragment_scoped_rerun_preempts_like_streamlit_does():
    requests = ScriptRequests()
    requests.request_rerun(RerunData(fragment_id="f", is_fragment_scoped_rerun=True))
    assert requests_want_stop(requests)


def test_checking_does_not_consume_the_request():
    requests = ScriptRequests()
    requests.request_rerun(RerunData(query_string=""))
    assert requests_want_stop(requests) and requests_want_stop(requests)
    assert requests.on_scriptrunner_yield() is not None  # Streamlit still sees its rerun


def test_outside_a_streamlit_run_the_callback_never_stops():
    assert session_should_stop()() is False
