"""Where rooms live: one small interface, an in-process store and a Redis store behind it.

The interface is a handful of primitives (a room's record, its members, the answers to a question, a
rate counter, an index of live rooms) that each store makes atomic on its own: the in-process store with
one lock, Redis with single commands and two short Lua scripts. The rules (who may do what, limits,
expiry) are in ``lucid.classroom.rooms``, written once over this interface, so both stores behave alike
and the same tests run against both.

Times are the caller's clock (``Rooms`` passes its own, so tests can move it); Redis keys also get a real
TTL a little longer than the idle limit, so a forgotten room's keys are collected even if no one asks.
"""
from __future__ import annotations

import functools
import json
import threading
from collections.abc import Callable
from typing import Any, Protocol

from lucid.i18n import L_


class StoreUnavailable(RuntimeError):
    """The room store cannot be reached (Redis down or unreachable): the page says so, never a traceback."""


class RoomStore(Protocol):
    """The primitives ``Rooms`` needs. Records and answers are JSON-able dicts."""

    def add_room(self, code: str, record: dict, now: float, live_since: float, max_rooms: int,
                 ttl: float) -> str:
        """Add a room if ``code`` is free and fewer than ``max_rooms`` rooms were active since ``live_since``.

        Returns "ok", "full" or "taken". Rooms idle since before ``live_since`` are dropped on the way.
        """

    def load(self, code: str) -> dict | None: ...

    def save(self, code: str, record: dict, ttl: float) -> None: ...

    def touch(self, code: str, now: float) -> None:
        """Mark the room active at ``now`` (a step, an answer, a join)."""

    def last_active(self, code: str) -> float | None: ...

    def delete(self, code: str) -> None: ...

    def join(self, code: str, student: str, max_students: int, ttl: float) -> bool:
        """Add ``student`` to the room's members unless it holds ``max_students`` already (a member stays)."""

    def size(self, code: str) -> int: ...

    def put_answer(self, code: str, question: str, student: str, answer: dict, ttl: float) -> None: ...

    def answers(self, code: str, question: str) -> dict[str, dict]: ...

    def hit(self, code: str, student: str, window: int) -> int:
        """Count one more action of ``student`` in time window ``window``; returns the count so far."""


class MemoryStore:
    """Rooms in this process's memory: the default, with one ``streamlit run`` and nothing else to start."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records: dict[str, str] = {}
        self._active: dict[str, float] = {}
        self._members: dict[str, set[str]] = {}
        self._answers: dict[tuple[str, str], dict[str, str]] = {}
        self._hits: dict[tuple[str, str], tuple[int, int]] = {}

    def add_room(self, code: str, record: dict, now: float, live_since: float, max_rooms: int,
                 ttl: float) -> str:
        with self._lock:
            for old in [c for c, t in self._active.items() if t < live_since]:
                self._drop(old)
            if code in self._active:
                return "taken"
            if len(self._active) >= max_rooms:
                return "full"
            self._drop(code)
            self._records[code] = json.dumps(record)
            self._active[code] = now
            return "ok"

    def _drop(self, code: str) -> None:
        self._records.pop(code, None)
        self._active.pop(code, None)
        self._members.pop(code, None)
        for key in [k for k in self._answers if k[0] == code]:
            del self._answers[key]
        for key in [k for k in self._hits if k[0] == code]:
            del self._hits[key]

    def load(self, code: str) -> dict | None:
        with self._lock:
            raw = self._records.get(code)
        return None if raw is None else json.loads(raw)

    def save(self, code: str, record: dict, ttl: float) -> None:
        with self._lock:
            if code in self._records:
                self._records[code] = json.dumps(record)

    def touch(self, code: str, now: float) -> None:
        with self._lock:
            if code in self._active:
                self._active[code] = max(now, self._active[code])

    def last_active(self, code: str) -> float | None:
        with self._lock:
            return self._active.get(code)

    def delete(self, code: str) -> None:
        with self._lock:
            self._drop(code)

    def join(self, code: str, student: str, max_students: int, ttl: float) -> bool:
        with self._lock:
            if code not in self._records:
                return False
            members = self._members.setdefault(code, set())
            if student in members:
                return True
            if len(members) >= max_students:
                return False
            members.add(student)
            return True

    def size(self, code: str) -> int:
        with self._lock:
            return len(self._members.get(code, ()))

    def put_answer(self, code: str, question: str, student: str, answer: dict, ttl: float) -> None:
        with self._lock:
            if code in self._records:
                self._answers.setdefault((code, question), {})[student] = json.dumps(answer)

    def answers(self, code: str, question: str) -> dict[str, dict]:
        with self._lock:
            raw = dict(self._answers.get((code, question), {}))
        return {k: json.loads(v) for k, v in raw.items()}

    def hit(self, code: str, student: str, window: int) -> int:
        with self._lock:
            seen_window, count = self._hits.get((code, student), (window, 0))
            count = count + 1 if seen_window == window else 1
            self._hits[(code, student)] = (window, count)
            return count


_ADD_ROOM = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then return 'taken' end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 'full' end
redis.call('DEL', KEYS[3])
redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[5])
redis.call('ZADD', KEYS[1], ARGV[6], ARGV[2])
return 'ok'
"""

_JOIN = """
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"""


class RedisStore:
    """Rooms in Redis (redis-py), so several Streamlit processes or machines share them.

    Keys start with ``prefix``: ``rooms`` (sorted set: code -> last active time), ``room:<code>`` (the
    record), ``room:<code>:members`` (set), ``room:<code>:a:<question>`` (hash: student -> answer),
    ``room:<code>:rate:<student>:<window>`` (counter).
    """

    def __init__(self, client: Any, prefix: str = "lucid:") -> None:
        self.r = client
        self.prefix = prefix
        self._add = client.register_script(_ADD_ROOM)
        self._join = client.register_script(_JOIN)

    @classmethod
    def from_url(cls, url: str, prefix: str = "lucid:") -> RedisStore:
        import redis

        return cls(redis.Redis.from_url(url, decode_responses=True, socket_timeout=5), prefix)

    def _k(self, *parts: str) -> str:
        return self.prefix + ":".join(parts)

    @staticmethod
    def _ms(ttl: float) -> int:
        return max(1000, int(ttl * 1000))

    def add_room(self, code: str, record: dict, now: float, live_since: float, max_rooms: int,
                 ttl: float) -> str:
        keys = [self._k("rooms"), self._k("room", code), self._k("room", code, "members")]
        args = [repr(live_since), code, max_rooms, json.dumps(record), self._ms(ttl), repr(now)]
        return str(self._add(keys=keys, args=args))

    def load(self, code: str) -> dict | None:
        raw = self.r.get(self._k("room", code))
        return None if raw is None else json.loads(raw)

    def save(self, code: str, record: dict, ttl: float) -> None:
        self.r.set(self._k("room", code), json.dumps(record), px=self._ms(ttl), xx=True)

    def touch(self, code: str, now: float) -> None:
        self.r.zadd(self._k("rooms"), {code: now}, xx=True, gt=True)

    def last_active(self, code: str) -> float | None:
        return self.r.zscore(self._k("rooms"), code)

    def delete(self, code: str) -> None:
        pipe = self.r.pipeline()
        pipe.zrem(self._k("rooms"), code)
        pipe.delete(self._k("room", code), self._k("room", code, "members"))
        pipe.execute()
        for key in self.r.scan_iter(match=self._k("room", code, "a", "*"), count=200):
            self.r.delete(key)

    def join(self, code: str, student: str, max_students: int, ttl: float) -> bool:
        keys = [self._k("room", code, "members"), self._k("room", code)]
        return bool(self._join(keys=keys, args=[student, max_students, self._ms(ttl)]))

    def size(self, code: str) -> int:
        return int(self.r.scard(self._k("room", code, "members")))

    def put_answer(self, code: str, question: str, student: str, answer: dict, ttl: float) -> None:
        key = self._k("room", code, "a", question)
        pipe = self.r.pipeline()
        pipe.hset(key, student, json.dumps(answer))
        pipe.pexpire(key, self._ms(ttl))
        pipe.execute()

    def answers(self, code: str, question: str) -> dict[str, dict]:
        raw = self.r.hgetall(self._k("room", code, "a", question))
        return {k: json.loads(v) for k, v in raw.items()}

    def hit(self, code: str, student: str, window: int) -> int:
        key = self._k("room", code, "rate", student, str(window))
        pipe = self.r.pipeline()
        pipe.incr(key)
        pipe.expire(key, 180)
        count, _ = pipe.execute()
        return int(count)


def _guarded(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(self: RedisStore, *args: Any, **kwargs: Any) -> Any:
        import redis

        try:
            return method(self, *args, **kwargs)
        except redis.RedisError as err:
            raise StoreUnavailable(L_("The class server's store (Redis) cannot be reached: {error}",
                                      error=type(err).__name__)) from err
    return call


for _name in ("add_room", "load", "save", "touch", "last_active", "delete", "join", "size", "put_answer", "answers",
              "hit"):
    setattr(RedisStore, _name, _guarded(getattr(RedisStore, _name)))
