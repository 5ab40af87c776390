"""Scripted tabs rerunning twenty times a second cannot stall the class (issue 24 item 3), on a real server.

Six tabs each send the Playground's ``rerun_script`` 20 times a second for 15 seconds (what stalled a
class before: a classmate's page got no message in two minutes). Meanwhile a classmate opens the
Playground and runs a fresh program, and a poller reads the health check and a room's feed. Outcomes,
not timings: the classmate gets the graph, every poll is answered, no session costs the server more script
runs than its rerun gate allows (counted in the server, ``tests/serve_runs_counted.py``), and each tab's
last rerun (a new program) is still drawn.
"""
from __future__ import annotations

import time

from bench.attack_rerun_storm import FEED_CODE, class_during
from bench.streamlit_client import healthy, run_sync, server
from lucid.ui.live_class import room_feed
from lucid.ui.runtime import rerun_gate
from tests.serve_runs_counted import launcher, runs_per_session

TABS, RATE, SECONDS = 6, 20, 15.0


def test_a_rerun_storm_leaves_a_classmate_the_graph_and_the_feed_served(tmp_path):
    log = tmp_path / "runs.log"
    feeds = room_feed.writer()
    feeds.write(FEED_CODE, {"v": 1, "step": 0, "program": "p", "q": ""})
    try:
        with server(log=tmp_path / "server.log", launcher=launcher(log)) as running:
            start = time.monotonic()
            outcome = run_sync(class_during(running.port, tabs=TABS, rate=RATE, seconds=SECONDS,
                                            victim_timeout=30.0))
            window = time.monotonic() - start
            assert healthy(running.port)
            output = running.output()
    finally:
        feeds.remove(FEED_CODE)
    hurt = outcome.victim
    assert hurt.failure is None, hurt.failure
    assert hurt.graph_seconds is not None and hurt.program_shown and not hurt.exceptions
    assert not outcome.polls.failures, outcome.polls.failures
    assert outcome.polls.health and outcome.polls.feed
    assert "Traceback" not in output
    for tab in outcome.stormers:
        assert tab.failure is None, tab.failure
        assert tab.sent == RATE * SECONDS
        assert tab.final_shown  # the last rerun was held and merged, never dropped
    runs = runs_per_session(log)
    assert len(runs) >= TABS + 1
    # what a person can cause: the burst, then the steady rate over the whole test (not 20 a second)
    assert max(runs.values()) <= rerun_gate.BURST + rerun_gate.RATE * window + 2, (runs, window)
