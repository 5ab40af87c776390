"""A hostile class cannot take the server down (issue 16, "Done means").

A real ``streamlit run app.py`` under a memory cap; attackers 1, 2, 3, 5 and 6 of the issue at once, as
raw websocket clients speaking the browser's protocol (``bench/hostile_class.py``), each round a program
no one ran yet; meanwhile a victim opens the Playground and runs a fresh 3-line program. The victim's
graph must arrive (speed is the bench's: ``bench/bench_hostile_class.py``), no attacker may see a
traceback (a refusal naming its limit is the right answer), and 10 s after the attackers stop the
server is alive, serves a graph to a new tab and keeps under 1 GB resident.
"""
from __future__ import annotations

import asyncio
import shutil
import time
from pathlib import Path

import pytest

from bench import hostile_class as hostile
from bench.streamlit_client import healthy, rss_mb, run_sync, server
from lucid.viz.player.animation_cost import MAX_ANIMATION_WORK

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="the player needs Graphviz's dot")

LIVENESS = 60.0
"""How long the victim's graph may take here before the server counts as starved (the bench times it)."""
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"


@pytest.fixture(scope="module")
def attacked():
    """One attack on one server; the tests below read what it left."""
    ARTIFACTS.mkdir(exist_ok=True)
    log = ARTIFACTS / "hostile-class-server.log"
    with server(log=log, memory_limit=hostile.MEMORY_CAP) as running:
        cap = address_space_cap(running.pid)
        warm = run_sync(hostile.fresh_graph(running.port, LIVENESS))  # the default page, as a class finds it
        attack = run_sync(asyncio.wait_for(hostile.under_attack(running.port, LIVENESS), LIVENESS * 6))
        time.sleep(hostile.SETTLE_SECONDS)
        alive = running.process.poll() is None and healthy(running.port)
        rss = rss_mb(running.pid)[0] if alive else float("inf")
        after = run_sync(hostile.fresh_graph(running.port, LIVENESS)) if alive else None
        yield warm, attack, alive, rss, after, running.output(), cap


def address_space_cap(pid: int) -> int | None:
    """The soft ``RLIMIT_AS`` of ``pid`` in bytes (None: unlimited)."""
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max address space"):
            soft = line.split()[3]
            return None if soft == "unlimited" else int(soft)
    return None


def test_the_server_ran_under_the_memory_cap(attacked):
    assert attacked[-1] == hostile.MEMORY_CAP


def by_name(attack: hostile.Attack) -> dict[str, hostile.Seen]:
    return {seen.name: seen for seen in attack.seen}


def test_the_victims_fresh_program_is_drawn_while_the_class_attacks(attacked):
    warm, attack, *_ = attacked
    assert warm.player is not None and warm.exceptions == []
    victim = attack.victim
    assert victim.failure is None
    assert victim.exceptions == []
    assert victim.open_seconds is not None and victim.graph_seconds is not None
    assert victim.program_shown  # the player shows the typed program, not the one before


def test_every_attacker_got_through_its_rounds_without_a_traceback(attacked):
    _, attack, *_ = attacked
    assert {s.name: s.failure for s in attack.seen if s.failure} == {}
    assert {s.name: s.exceptions for s in attack.seen if s.exceptions} == {}
    assert all(s.rounds >= 1 for s in attack.seen)


@pytest.mark.parametrize("name", ["1 trace link 3,900 × 256", "2 stack of 800 scalars", "2 stack of 3,900 scalars"])
def test_a_program_too_costly_to_animate_is_refused_with_the_limit_named(attacked, name):
    seen = by_name(attacked[1])[name]
    refusals = [a for a in seen.alerts if "animation limit" in a]
    assert len(refusals) >= seen.rounds  # every round's program was refused ...
    assert f"{MAX_ANIMATION_WORK:,} work units" in refusals[0]  # ... naming the limit


def test_the_500_by_1000_trace_link_is_drawn_or_refused_by_name(attacked):
    seen = by_name(attacked[1])["1 trace link 500 × 1,000"]
    refused = [a for a in seen.alerts if "limit" in a]
    assert seen.players + len(refused) >= seen.rounds


def test_a_30000_click_message_closes_only_its_own_connection(attacked):
    seen = by_name(attacked[1])["3 one message of 30,000 clicks"]
    assert seen.closed and set(seen.closed) == {1009}  # Message Too Big, every round


def test_batches_of_clicks_and_clear_cache_messages_leave_the_attackers_page_drawn(attacked):
    seen = by_name(attacked[1])
    for name in ("3 batches under 64 KB", "5 clear_cache", "6 crafted click values"):
        assert seen[name].players >= seen[name].rounds * 5, name


def test_ten_seconds_after_the_attack_the_server_is_alive_under_1_gb_and_draws_a_new_tab(attacked):
    _, _, alive, rss, after, output, _ = attacked
    assert alive, output
    assert rss < hostile.RSS_LIMIT_MB
    assert after is not None and after.player is not None and after.exceptions == []
