"""A rerun storm: scripted tabs each sending ``rerun_script`` many times a second to one server (issue 24 item 3).

Each storming tab opens the Playground, then sends the rerun its browser would send (same page, same
widget values) ``rate`` times a second for ``seconds``, reading everything the server sends back and
counting the script runs it started for it (``new_session`` messages). Its very last rerun carries a new
program, which the server must still show: a held rerun is merged, never dropped. Meanwhile a classmate
(``bench.hostile_class.victim``) opens the Playground and runs a fresh program, and a poller reads the
health check and a room's feed (a static file, as every student's player does).

``tests/server/test_rerun_storm.py`` asserts the outcomes; run as a script it starts a server and prints
the victim's time to graph and the polls' p95, alone and during the storm, side by side:

    python3 bench/attack_rerun_storm.py [--tabs 8] [--rate 20] [--seconds 20]
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.hostile_class import Victim, victim, victim_program  # noqa: E402
from bench.streamlit_client import PLAYER, run_sync, server, session  # noqa: E402
from lucid.ui.live_class import room_feed  # noqa: E402

FEED_CODE = "XRTNWY"
"""The room whose feed the poller reads (written on disk before the server starts)."""


@dataclass
class Stormer:
    """What one storming tab sent and got."""

    sent: int = 0  # reruns sent during the storm
    runs: int = 0  # runs whose start reached it during the storm (``new_session``; a replaced run may send none)
    seconds: float = 0.0  # how long it stormed
    final_shown: bool = False  # its last rerun's program was drawn after the storm
    failure: str | None = None


@dataclass
class Polls:
    """Latencies of the health check and the feed, polled back to back."""

    health: list[float] = field(default_factory=list)
    feed: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def p95(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def _get(url: str, timeout: float) -> float:
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=timeout) as r:  # noqa: S310 - our own loopback server
        r.read()
    return time.perf_counter() - start


async def poll(port: int, stop: asyncio.Event, polls: Polls, *, every: float = 0.2, timeout: float = 60.0) -> Polls:
    """GET the health check and the room's feed every ``every`` seconds until ``stop``."""
    base = f"http://127.0.0.1:{port}"
    urls = {"health": f"{base}/_stcore/health", "feed": f"{base}/{room_feed.ROUTE}/{FEED_CODE}.json"}
    while not stop.is_set():
        for name, url in urls.items():
            try:
                getattr(polls, name).append(await asyncio.to_thread(_get, url, timeout))
            except OSError as err:
                polls.failures.append(f"{name}: {type(err).__name__}: {err}"[:200])
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every)
    return polls


async def storm_tab(port: int, rate: float, seconds: float, index: int, *, timeout: float = 60.0) -> Stormer:
    """One tab: open the Playground, rerun ``rate`` times a second for ``seconds``, then a new program."""
    result = Stormer()
    try:
        async with session(port, timeout=timeout) as s:
            opened = await s.run(timeout=timeout)
            first = json.loads(opened.player.json)["program_id"] if opened.player is not None else None
            program = s.widget_id("text_area", "Program")
            storming = True
            shown = asyncio.Event()

            async def read() -> None:
                player: str | None = None
                async for raw in s.ws:
                    msg = s.ForwardMsg.FromString(raw)
                    kind = msg.WhichOneof("type")
                    if kind == "new_session":
                        result.runs += storming
                        player = None
                    elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                        element = msg.delta.new_element
                        if (element.WhichOneof("type") == "bidi_component"
                                and element.bidi_component.component_name == PLAYER):
                            player = json.loads(element.bidi_component.json).get("program_id")
                    elif (kind == "script_finished" and not storming and player is not None and player != first
                          and msg.script_finished != s.ForwardMsg.FINISHED_EARLY_FOR_RERUN):
                        shown.set()

            reader = asyncio.ensure_future(read())
            start = time.perf_counter()
            n = int(rate * seconds)
            for k in range(n):
                await s.rerun()
                result.sent += 1
                await asyncio.sleep(max(0.0, start + (k + 1) / rate - time.perf_counter()))
            result.seconds = time.perf_counter() - start
            storming = False
            await s.rerun(s.set_text(program, victim_program(10_000 + index)))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(shown.wait(), timeout)
            result.final_shown = shown.is_set()
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reader
    except Exception as err:  # noqa: BLE001 - a tab's failure is a finding, reported by the caller
        result.failure = f"{type(err).__name__}: {err}"[:300]
    return result


async def rerun_storm(port: int, tabs: int = 8, rate: float = 20, seconds: float = 15.0,
                      timeout: float = 60.0) -> list[Stormer]:
    """``tabs`` tabs storming at once (``storm_tab``); what each saw."""
    return list(await asyncio.gather(*(storm_tab(port, rate, seconds, i, timeout=timeout) for i in range(tabs))))


@dataclass
class Outcome:
    """A classmate and the polls, with or without a storm going on."""

    victim: Victim
    polls: Polls
    stormers: list[Stormer] = field(default_factory=list)


async def class_during(port: int, *, tabs: int = 0, rate: float = 20, seconds: float = 15.0,
                       head_start: float = 3.0, timeout: float = 60.0, victim_timeout: float = 30.0) -> Outcome:
    """The victim's run and the polls, while ``tabs`` tabs storm (none: the baseline); the victim goes
    ``head_start`` seconds into the storm."""
    stop = asyncio.Event()
    polls = Polls()
    poller = asyncio.ensure_future(poll(port, stop, polls))
    storm = asyncio.ensure_future(rerun_storm(port, tabs, rate, seconds, timeout)) if tabs else None
    if storm is not None:
        await asyncio.sleep(head_start)
    hurt = await victim(port, victim_timeout)
    if storm is None:
        await asyncio.sleep(head_start)  # the baseline polls a few seconds too, for a p95 of more than one
    stormers = await storm if storm is not None else []
    stop.set()
    await poller
    return Outcome(hurt, polls, stormers)


def _row(name: str, alone: float | None, storm: float | None) -> str:
    def fmt(v: float | None) -> str:
        return "-" if v is None else f"{v:8.3f}"
    ratio = f"{storm / alone:7.1f}x" if alone and storm is not None else "      -"
    return f"{name:<28}{fmt(alone)}  {fmt(storm)}  {ratio}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tabs", type=int, default=8)
    parser.add_argument("--rate", type=float, default=20)
    parser.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args(argv)
    feeds = room_feed.writer()
    feeds.write(FEED_CODE, {"v": 1, "step": 0, "program": "p", "q": ""})
    try:
        with server() as running:
            run_sync(class_during(running.port))  # warm: the pages and the victim's first programs are built
            alone = run_sync(class_during(running.port))
            storm = run_sync(class_during(running.port, tabs=args.tabs, rate=args.rate, seconds=args.seconds))
    finally:
        feeds.remove(FEED_CODE)
    print(f"rerun storm: {args.tabs} tabs x {args.rate:g} reruns/s for {args.seconds:g} s\n")
    print(f"{'':<28}{'alone':>8}  {'storm':>8}  {'ratio':>8}")
    print(_row("victim open -> graph (s)", alone.victim.open_seconds, storm.victim.open_seconds))
    print(_row("victim typed -> graph (s)", alone.victim.graph_seconds, storm.victim.graph_seconds))
    print(_row("health p95 (s)", p95(alone.polls.health), p95(storm.polls.health)))
    print(_row("feed p95 (s)", p95(alone.polls.feed), p95(storm.polls.feed)))
    print(_row("health max (s)", max(alone.polls.health, default=None), max(storm.polls.health, default=None)))
    print(_row("feed max (s)", max(alone.polls.feed, default=None), max(storm.polls.feed, default=None)))
    sent = sum(t.sent for t in storm.stormers)
    runs = [t.runs for t in storm.stormers]
    print(f"\nreruns sent {sent}, runs reported per tab {runs}, final program shown "
          f"{sum(t.final_shown for t in storm.stormers)}/{len(storm.stormers)}")
    failures = [t.failure for t in storm.stormers if t.failure] + storm.polls.failures
    for problem in [storm.victim.failure, alone.victim.failure, *failures]:
        if problem:
            print("failure:", problem)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
