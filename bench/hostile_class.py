"""A hostile class against one server: attackers and a victim, as raw websocket clients (issue 16).

Each attacker is what a hostile or careless student can do from a browser's console or a script of
their own, and keeps doing it until told to stop:

1. opens a Playground link whose program keeps n copies of an m-vector in its backward record
   (``stack([a,a,…])``: n²·m numbers before the trace was budgeted), 3,900 × 256 and 500 × 1,000;
2. types ``stack`` of many scalars (800 and 3,900): an animation that would take a minute to build;
3. floods the player with clicks: one message of 30,000, and batches just under the JSON limit;
5. sends Streamlit's ``clear_cache`` (any client may) and reruns;
6. sends click values the player never sends (step Infinity/NaN, a 5,000-digit node id, 100,000-deep JSON).

Every round of attackers 1 and 2 is a program no one has run yet (a different constant), so no shared
cache answers for it. Meanwhile a victim opens the Playground and runs a fresh 3-line program. The test
(``tests/server/test_hostile_class.py``) asserts what must hold; the bench (``bench/bench_hostile_class.py``)
times it. Everything here is bounded by timeouts, and an attacker's own failure is recorded, not raised.
"""
from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import time
import urllib.parse
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from bench.streamlit_client import Run, session
from lucid.session import browser_events, share

MEMORY_CAP = 4 * 2**30
"""The server's address space under attack (``RLIMIT_AS``): a healthy server uses a fraction of it."""
RSS_LIMIT_MB = 1024
"""Resident memory the server may keep once the attackers have stopped."""
SETTLE_SECONDS = 10.0
"""How long after the attackers stop the server is checked."""
FLOOD = 30_000
"""Clicks in the one-message flood (over ``server.maxWidgetStateSize``: its connection is closed)."""

CRAFTED = {
    "step Infinity": '[{"event":"node","value":{"node":"t2","step":Infinity,"program":"%s"}}]',
    "step NaN": '[{"event":"node","value":{"node":"t2","step":NaN,"program":"%s"}}]',
    "node id of 5,000 digits": '[{"event":"node","value":{"node":"t' + "9" * 5000 + '","step":1,"program":"%s"}}]',
    "100,000-deep JSON": "[" * 100_000 + "]" * 100_000,
    "100,000-deep value": '[{"event":"node","value":' + '{"node":' * 100_000 + "1" + "}" * 100_000 + "}]",
}
"""Click values the player never sends (``%s``: the program the page shows)."""


def stacked(element: str, n: int, constant: int = 0) -> str:
    """``a = element``, ``y = stack([a, a, …])`` of ``n`` copies, ``y.sum()``: written without spaces (3,900
    copies fit the 10,000-character limit); ``constant`` makes each round a program no one ran yet."""
    return f"a={element}+{constant}\ny=stack([{','.join(['a'] * n)}])\ny.sum()"


def link(source: str) -> str:
    """The Playground link's query string for ``source`` (``z=``, as the page's share button makes it)."""
    return urllib.parse.urlencode({share.PACKED_KEY: share.pack(source)})


def victim_program(token: int) -> str:
    """A 3-line program no one has run yet."""
    return f"x=randn(3)\ny=tanh(x)*{token}\nout=y.sum()\n"


def click_batch(program: str, n: int) -> str:
    """``n`` clicks on assorted nodes and steps of ``program``, in one message."""
    clicks = [{"event": "node", "value": {"node": f"t{k % 3}", "step": k % 5, "program": program}} for k in range(n)]
    return json.dumps(clicks, separators=(",", ":"))


def largest_batch_under_the_json_limit(program: str) -> int:
    n = 64
    while len(click_batch(program, n * 2)) < browser_events.MAX_JSON_CHARS:
        n *= 2
    return n


@dataclass
class Seen:
    """What one attacker saw over all its rounds."""

    name: str
    rounds: int = 0
    exceptions: list[str] = field(default_factory=list)  # tracebacks on its pages: there must be none
    alerts: list[str] = field(default_factory=list)  # warnings/infos its pages showed (refusals)
    players: int = 0  # runs that drew the player
    closed: list[int] = field(default_factory=list)  # close codes of connections the server closed
    failure: str | None = None  # the attacker itself failed (a timeout: the server stopped answering it)
    armed: asyncio.Event = field(default_factory=asyncio.Event, repr=False)  # its hostile message went out

    def saw(self, run: Run) -> Run:
        self.exceptions += run.exceptions
        self.alerts += run.alerts
        self.players += run.player is not None
        return run


@dataclass
class Victim:
    open_seconds: float | None = None  # request to the player's arrival, opening the Playground
    graph_seconds: float | None = None  # request to the player's arrival, for the typed program
    program_shown: bool = False  # the player shows another program than the page opened with
    exceptions: list[str] = field(default_factory=list)
    failure: str | None = None


Round = Callable[[int, Seen, int], Awaitable[None]]
"""One round of an attack: (port, what it saw, round number)."""


def link_attack(element: str, n: int, timeout: float) -> Round:
    """Attacker 1: a fresh tab opens a link to a stacked program."""
    async def round_(port: int, seen: Seen, k: int) -> None:
        async with session(port, query=link(stacked(element, n, k)), timeout=timeout) as s:
            await s.rerun()
            seen.armed.set()
            seen.saw(await s.finish(timeout))
    return round_


def typed_attack(n: int, timeout: float) -> Round:
    """Attacker 2: types ``stack`` of ``n`` scalars into the Playground's editor."""
    async def round_(port: int, seen: Seen, k: int) -> None:
        async with session(port, timeout=timeout) as s:
            seen.saw(await s.run(timeout=timeout))
            editor = s.widget_id("text_area", "Program")
            await s.rerun(s.set_text(editor, stacked("randn()", n, k)))
            seen.armed.set()
            seen.saw(await s.finish(timeout))
    return round_


def flood_one_message(timeout: float) -> Round:
    """Attacker 3a: 30,000 clicks in one message (the server closes that connection before parsing it)."""
    import websockets

    async def round_(port: int, seen: Seen, k: int) -> None:
        async with session(port, timeout=timeout) as s:
            seen.saw(await s.run(timeout=timeout))
            await s.rerun(s.events(click_batch(s.player_data()["program_id"], FLOOD)))
            seen.armed.set()
            try:
                seen.saw(await s.finish(timeout))
            except websockets.ConnectionClosed as closed:
                seen.closed.append(closed.rcvd.code if closed.rcvd else -1)
    return round_


def flood_batches(timeout: float, per_round: int = 5) -> Round:
    """Attacker 3b: batches of thousands of clicks, each just under the JSON limit, one after the other."""
    async def round_(port: int, seen: Seen, k: int) -> None:
        async with session(port, timeout=timeout) as s:
            seen.saw(await s.run(timeout=timeout))
            program = s.player_data()["program_id"]
            batch = click_batch(program, largest_batch_under_the_json_limit(program))
            for _ in range(per_round):
                await s.rerun(s.events(batch))
                seen.armed.set()
                seen.saw(await s.finish(timeout))
    return round_


def clear_cache_attack(timeout: float, per_round: int = 5) -> Round:
    """Attacker 5: Streamlit's ``clear_cache`` message, then a rerun, again and again."""
    async def round_(port: int, seen: Seen, k: int) -> None:
        async with session(port, timeout=timeout) as s:
            for _ in range(per_round):
                await s.clear_cache()
                seen.armed.set()
                seen.saw(await s.run(timeout=timeout))
    return round_


def crafted_attack(timeout: float) -> Round:
    """Attacker 6: every crafted click value, one rerun each."""
    async def round_(port: int, seen: Seen, k: int) -> None:
        async with session(port, timeout=timeout) as s:
            seen.saw(await s.run(timeout=timeout))
            for payload in CRAFTED.values():
                await s.rerun(s.events(payload.replace("%s", s.player_data()["program_id"])))
                seen.armed.set()
                seen.saw(await s.finish(timeout))
    return round_


def attackers(timeout: float, copies: int = 1) -> dict[str, Round]:
    """The class's attackers by name (the issue's numbering); ``copies`` tabs of each, never the same program."""
    kinds = {
        "1 trace link 3,900 × 256": link_attack("randn(256)", 3_900, timeout),
        "1 trace link 500 × 1,000": link_attack("randn(1000)", 500, timeout),
        "2 stack of 800 scalars": typed_attack(800, timeout),
        "2 stack of 3,900 scalars": typed_attack(3_900, timeout),
        "3 one message of 30,000 clicks": flood_one_message(timeout),
        "3 batches under 64 KB": flood_batches(timeout),
        "5 clear_cache": clear_cache_attack(timeout),
        "6 crafted click values": crafted_attack(timeout),
    }
    if copies == 1:
        return kinds

    def copy(round_: Round, index: int) -> Round:
        return lambda port, seen, k: round_(port, seen, k + 100_000 * index)
    return {f"{name} #{i + 1}": copy(round_, i) for name, round_ in kinds.items() for i in range(copies)}


async def keep_attacking(port: int, round_: Round, seen: Seen, stop: asyncio.Event) -> Seen:
    """Rounds of one attack until ``stop`` (at least one)."""
    for k in itertools.count(1):
        try:
            await round_(port, seen, k)
        except Exception as err:  # noqa: BLE001 - an attacker's failure is a finding, reported by the caller
            seen.failure = f"round {k}: {type(err).__name__}: {err}"[:300]
            return seen
        seen.rounds = k
        if stop.is_set():
            return seen
    return seen


async def victim(port: int, timeout: float, token: int | None = None) -> Victim:
    """A student opens the Playground and runs a 3-line program no one has run yet."""
    result = Victim()
    token = token if token is not None else random.randint(10**6, 10**7)  # noqa: S311 - not a secret
    try:
        async with session(port, timeout=timeout) as s:
            opened = await s.run(timeout=timeout)
            result.open_seconds = opened.graph_at
            result.exceptions += opened.exceptions
            typed = await s.run(s.set_text(s.widget_id("text_area", "Program"), victim_program(token)),
                                timeout=timeout)
            result.graph_seconds = typed.graph_at
            result.exceptions += typed.exceptions
            result.program_shown = (typed.player is not None and opened.player is not None
                                    and json.loads(typed.player.json)["program_id"]
                                    != json.loads(opened.player.json)["program_id"])
    except Exception as err:  # noqa: BLE001 - reported by the caller
        result.failure = f"{type(err).__name__}: {err}"[:300]
    return result


@dataclass
class Attack:
    """One hostile-class run: the victim's times with attackers, and what each attacker saw."""

    victim: Victim
    seen: list[Seen]
    seconds: float


async def under_attack(port: int, timeout: float, token: int | None = None, head_start: float = 1.0,
                       copies: int = 1) -> Attack:
    """Start every attacker; ``head_start`` seconds after each has sent its hostile message the victim goes
    (the server is then inside every attack at once); then stop them all (each finishes its round)."""
    stop = asyncio.Event()
    rounds = attackers(timeout, copies)
    seen = [Seen(name) for name in rounds]
    t0 = time.perf_counter()
    tasks = [asyncio.ensure_future(keep_attacking(port, round_, one, stop))
             for one, round_ in zip(seen, rounds.values(), strict=True)]
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*(one.armed.wait() for one in seen)), timeout)
    await asyncio.sleep(head_start)
    hurt = await victim(port, timeout, token)
    stop.set()
    done, pending = await asyncio.wait(tasks, timeout=timeout)
    for task, one in zip(tasks, seen, strict=True):
        if task in pending:
            task.cancel()
            one.failure = one.failure or "still in its round a timeout after the victim was done"
    return Attack(hurt, seen, time.perf_counter() - t0)


async def fresh_graph(port: int, timeout: float) -> Run:
    """A new tab opening the Playground."""
    async with session(port, timeout=timeout) as s:
        return await s.run(timeout=timeout)

