"""Run slots: how many script runs of the whole server compute at once, handed out fairly across sessions.

Two cores and one GIL serve the class, and the same process's event loop serves every health check,
static file (the room feed) and websocket message. Twenty script threads at once (a few scripted tabs
rerunning, each rerun a new thread while the old one runs on to its next stop point) leave the loop a
twentieth of the GIL and every classmate's run a twentieth of the CPU. So a script run computes only
while it holds one of ``SLOTS`` run slots (``lucid.ui.runtime.rerun_gate`` takes one around every run), and a
slot that frees goes to the waiting session that has used the fewest slot-seconds lately
(``HALF_LIFE_SECONDS``): a session that ran a lot waits behind those that did not, so a student
opening the page goes before the tabs that have been rerunning all along. A class's teacher is ``favour``-ed: their
runs (a step, *Ask*, the answer count) go before every student's, since the whole class waits on them, and one
person's reruns are bounded by the rerun gate. A fragment's run (``quick``: a *Submit*, a class panel) goes before
whole page runs: when a question sends every student's page to run again, the answers still come through.

A run that blocks on other work (a shared computation another session owns, a compute lane of
``lucid.session.analysis``) is not computing: it sets its slot aside while it waits (``set_aside``,
``holding``), so a heavy program queued for the one expensive lane never keeps a cheap run out. It
takes a slot again ahead of the queue when its wait ends, and goes on without one if none frees within
``REACQUIRE_SECONDS``, so no chain of waits can ever stop every run. No Streamlit import: tested
without a server.
"""
from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections.abc import Callable, Hashable, Iterator

SLOTS = 3
"""Runs computing at once: one per compute lane of ``lucid.session.analysis`` (two cheap, one expensive), so a
lane never idles for want of a run slot, and the event loop still gets the GIL every few switches."""
HALF_LIFE_SECONDS = 30.0
"""How fast a session's past use is forgotten: after a minute of quiet a storming tab is a newcomer again."""
RUN_CHARGE_SECONDS = 0.05
"""Use charged per slot taken on top of the time held, so many short runs count too."""
REACQUIRE_SECONDS = 2.0
"""Longest a run that set its slot aside waits to get one back before it goes on without one."""
FAVOUR_SECONDS = 300.0
"""How long a ``favour`` lasts unless renewed (a teacher's page renews it at every run of its class panel)."""
POLL_SECONDS = 0.05
"""How often a waiting run asks whether its session still wants it (a stopped run leaves its place)."""


class FairSlots:
    """``n`` slots; a freed slot goes to the waiter whose owner has the least recent use (ties: who came first).

    ``owner``: the session a run belongs to. Use is the slot-seconds the owner held, halved every
    ``half_life`` seconds, plus ``run_charge`` per slot taken. A thread holds at most one slot at a time.
    """

    def __init__(self, n: int = SLOTS, *, half_life: float = HALF_LIFE_SECONDS,
                 run_charge: float = RUN_CHARGE_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        self.n = n
        self.half_life = half_life
        self.run_charge = run_charge
        self._clock = clock
        self._cond = threading.Condition()
        self._free = n
        self._tickets = itertools.count()
        self._waiting: dict[int, tuple[int, float, int]] = {}
        self._use: dict[Hashable, tuple[float, float]] = {}
        self._favoured: dict[Hashable, float] = {}  # owner -> until (monotonic clock)
        self._mine = threading.local()
        self.taken = 0
        """Slots handed out so far."""
        self.borrowed = 0
        """Times a run went on without a slot after ``REACQUIRE_SECONDS`` (should stay 0)."""
        self._inside = 0  # runs between their slot's first acquire and its last release (set-aside waits included)
        self._crowded_at = float("-inf")  # when more runs than slots were last inside (this clock)

    def favour(self, owner: Hashable, seconds: float = FAVOUR_SECONDS) -> None:
        """For ``seconds`` from now, ``owner``'s runs wait only behind urgent ones (a class's teacher)."""
        with self._cond:
            now = self._clock()
            self._favoured = {o: until for o, until in self._favoured.items() if until > now}
            self._favoured[owner] = now + seconds

    def favoured(self, owner: Hashable) -> bool:
        with self._cond:
            return self._favoured.get(owner, float("-inf")) > self._clock()

    def use(self, owner: Hashable) -> float:
        """The owner's recent use in slot-seconds (decayed)."""
        with self._cond:
            return self._use_now(owner, self._clock())

    @property
    def free(self) -> int:
        with self._cond:
            return self._free

    def waiting(self) -> int:
        with self._cond:
            return len(self._waiting)

    def crowded_within(self, seconds: float) -> bool:
        """Whether more runs than slots were under way in the last ``seconds`` (or are now): computing, queued for a
        slot, or waiting for work another run does (``set_aside``). A crowd is here, or just was."""
        with self._cond:
            return self._inside > self.n or self._clock() - self._crowded_at <= seconds

    def _enter(self, delta: int) -> None:
        """A run comes in (1) or leaves (-1); called with ``_cond`` held."""
        if self._inside > self.n:
            self._crowded_at = self._clock()
        self._inside += delta
        if self._inside > self.n:
            self._crowded_at = self._clock()

    def holds(self) -> bool:
        """Whether the calling thread holds a slot."""
        return getattr(self._mine, "held", None) is not None

    def acquire(self, owner: Hashable, *, should_stop: Callable[[], bool] | None = None,
                timeout: float | None = None, urgent: bool = False, quick: bool = False,
                poll: float = POLL_SECONDS) -> bool:
        """Wait for a slot for ``owner``; False if ``should_stop()`` turned true or ``timeout`` passed first.

        ``urgent``: ahead of every non-urgent waiter (a run coming back from a wait, holding other work). Then a
        favoured owner's runs (``favour``), then ``quick`` ones (a fragment's run: a student's *Submit*, the class
        panel showing a question), then the rest (whole pages), each tier by least recent use.
        """
        aside = getattr(self._mine, "aside", False)  # a run taking back the slot it set aside is already inside
        with self._cond:
            if not aside:
                self._enter(1)
            now = self._clock()
            ticket = next(self._tickets)
            tier = 0 if urgent else 1 if self._favoured.get(owner, float("-inf")) > now else 2 if quick else 3
            self._waiting[ticket] = rank = (tier, self._use_now(owner, now), ticket)
            deadline = None if timeout is None else time.monotonic() + timeout
            got = False
            try:
                while not (self._free > 0 and min(self._waiting.values()) == rank):
                    if should_stop is not None and should_stop():
                        return False
                    left = poll if deadline is None else min(poll, deadline - time.monotonic())
                    if left <= 0:
                        return False
                    self._cond.wait(left)
                self._free -= 1
                self.taken += 1
                self._charge(owner, self.run_charge, now)
                got = True
            finally:
                del self._waiting[ticket]
                if not got and not aside:
                    self._enter(-1)
                self._cond.notify_all()
        self._mine.held = (owner, self._clock())
        return True

    def release(self) -> None:
        """Give back the calling thread's slot (nothing if it holds none), charging the time it was held."""
        held = getattr(self._mine, "held", None)
        if held is None:
            return
        self._mine.held = None
        owner, since = held
        with self._cond:
            now = self._clock()
            self._charge(owner, max(0.0, now - since), now)
            self._free += 1
            if not getattr(self._mine, "aside", False):
                self._enter(-1)
            self._forget_idle(now)
            self._cond.notify_all()

    @contextlib.contextmanager
    def set_aside(self) -> Iterator[None]:
        """Around a wait for other work: the calling thread's slot is free meanwhile, taken back (urgently) after.

        Does nothing for a thread that holds no slot (a test, a fragment's worker thread).
        """
        held = getattr(self._mine, "held", None)
        if held is None:
            yield
            return
        self._mine.aside = True  # the run stays inside while it waits
        try:
            self.release()
            try:
                yield
            finally:
                if not self.acquire(held[0], timeout=REACQUIRE_SECONDS, urgent=True):
                    with self._cond:
                        self.borrowed += 1
                        self._enter(-1)  # it goes on without a slot: it no longer counts
        finally:
            self._mine.aside = False

    def _use_now(self, owner: Hashable, now: float) -> float:
        value, at = self._use.get(owner, (0.0, now))
        return value * 0.5 ** (max(0.0, now - at) / self.half_life)

    def _charge(self, owner: Hashable, seconds: float, now: float) -> None:
        self._use[owner] = (self._use_now(owner, now) + seconds, now)

    def _forget_idle(self, now: float) -> None:
        if len(self._use) > 512:
            for owner in [o for o in self._use if self._use_now(o, now) < 1e-3]:
                del self._use[owner]


RUNS = FairSlots()
"""The server's run slots (taken around every script run once ``lucid.ui.runtime.rerun_gate`` is installed)."""


@contextlib.contextmanager
def holding(lane: threading.Semaphore) -> Iterator[None]:
    """``with lane:``, with the caller's run slot set aside if it has to wait for ``lane``."""
    if not lane.acquire(blocking=False):
        with RUNS.set_aside():
            lane.acquire()
    try:
        yield
    finally:
        lane.release()
