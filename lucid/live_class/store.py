"""Where rooms live: one small interface, an embedded SQLite store (the default) and a Redis store behind it.

The interface is a handful of primitives (a room's record, the index of live rooms with the teacher's last
activity, members with the time each was last seen, the answers to a question, a rate counter, the server's
secret) that each store makes atomic on its own: SQLite with one transaction per primitive, Redis with single
commands and two short Lua scripts. The rules (who may do what, limits, expiry) are in
``lucid.live_class.rooms``, written once over this interface, so both stores behave alike and the same tests run
against both.

SQLite in a data folder is the default because a class must survive the server: a restart (or a crash) resumes
every open class, its questions and answers, and an ended class's exit ticket stays for a day. WAL mode keeps
readers and the writer out of each other's way, and a process killed mid-write leaves the file whole (the
journal is rolled back on the next open). ``MemoryStore`` is the same store in memory, for tests and for a
server that wants nothing on disk.

Times given to the primitives are the caller's clock (``Rooms`` passes its own, so tests can move it); how long
keys are kept (``ttl``) is real time in both stores, so a forgotten room's rows and keys go even if no one asks.
"""
from __future__ import annotations

import contextlib
import functools
import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

from lucid.i18n import L_


class StoreUnavailable(RuntimeError):
    """The room store cannot be reached (Redis down, hung or unreachable): the page says so, never a traceback."""


class RoomStore(Protocol):
    """The primitives ``Rooms`` needs. Records and answers are JSON-able dicts."""

    def add_room(self, code: str, record: dict, now: float, max_rooms: int, ttl: float) -> str:
        """Add a live room if ``code`` is free and fewer than ``max_rooms`` rooms are live: "ok", "full", "taken"."""

    def index(self) -> dict[str, float]:
        """Every live room: code -> the teacher's last activity."""

    def load(self, code: str) -> dict | None: ...

    def save(self, code: str, record: dict, ttl: float) -> None: ...

    def touch(self, code: str, now: float) -> None:
        """The teacher acted (or their page is open) at ``now``."""

    def last_active(self, code: str) -> float | None:
        """The teacher's last activity, or None when the room is not live (ended, expired or unknown)."""

    def retire(self, code: str, ttl: float, questions: list[str]) -> None:
        """The room is no longer live (nobody joins or answers); its record and answers stay ``ttl`` seconds."""

    def delete(self, code: str) -> None: ...

    def join(self, code: str, student: str, now: float, present_since: float, max_students: int,
             ttl: float) -> bool:
        """Mark ``student`` seen at ``now``, unless ``max_students`` others were seen since ``present_since``."""

    def leave(self, code: str, student: str) -> None:
        """``student`` is no longer in the room (the tab turned out to be the teacher's)."""

    def size(self, code: str, since: float) -> int:
        """Members seen since ``since`` (``since=0``: everyone who ever joined)."""

    def members(self, code: str, since: float, limit: int) -> list[str]:
        """The ids of at most ``limit`` members seen since ``since`` (who has not answered is asked of them)."""

    def put_answer(self, code: str, question: str, student: str, answer: dict, ttl: float) -> None: ...

    def answers(self, code: str, question: str) -> dict[str, dict]: ...

    def hit(self, scope: str, key: str, window: int, ttl: float) -> int:
        """Count one more action of ``key`` in ``scope`` during time window ``window``; returns the count so far."""

    def secret(self) -> str:
        """This server's secret (made once, shared by every process on the store): signs student ids."""


_SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (code TEXT PRIMARY KEY, record TEXT NOT NULL, active REAL, expires REAL NOT NULL);
CREATE TABLE IF NOT EXISTS members (code TEXT NOT NULL, student TEXT NOT NULL, seen REAL NOT NULL,
                                    PRIMARY KEY (code, student));
CREATE TABLE IF NOT EXISTS answers (code TEXT NOT NULL, question TEXT NOT NULL, student TEXT NOT NULL,
                                    answer TEXT NOT NULL, expires REAL NOT NULL,
                                    PRIMARY KEY (code, question, student));
CREATE TABLE IF NOT EXISTS hits (scope TEXT NOT NULL, key TEXT NOT NULL, win INTEGER NOT NULL,
                                 count INTEGER NOT NULL, expires REAL NOT NULL, PRIMARY KEY (scope, key));
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
PURGE_SECONDS = 60.0
"""How often expired rows are deleted (on the next write after this long)."""


class SQLiteStore:
    """Rooms in one SQLite file (``path``), or in memory (``":memory:"``). Safe across threads and processes."""

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=5.0, isolation_level=None, check_same_thread=False)
        self._lock = threading.Lock()
        self._purged = 0.0
        self._secret: str | None = None
        with self._lock:
            if self.path != ":memory:":
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One transaction that writes (taken at once, so two processes never interleave a read and a write)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
            now = time.time()
            if now - self._purged > PURGE_SECONDS:
                self._purged = now
                for table in ("rooms", "answers", "hits"):
                    self._db.execute(f"DELETE FROM {table} WHERE expires < ?", (now,))  # noqa: S608 - fixed names
                self._db.execute("DELETE FROM members WHERE code NOT IN (SELECT code FROM rooms)")

    def _read(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    @staticmethod
    def _until(ttl: float) -> float:
        return time.time() + ttl

    def add_room(self, code: str, record: dict, now: float, max_rooms: int, ttl: float) -> str:
        with self._tx() as db:
            row = db.execute("SELECT active FROM rooms WHERE code = ? AND expires >= ?", (code, time.time())).fetchone()
            if row is not None:
                return "taken"
            if db.execute("SELECT COUNT(*) FROM rooms WHERE active IS NOT NULL").fetchone()[0] >= max_rooms:
                return "full"
            db.execute("DELETE FROM members WHERE code = ?", (code,))
            db.execute("DELETE FROM answers WHERE code = ?", (code,))
            db.execute("INSERT OR REPLACE INTO rooms VALUES (?, ?, ?, ?)", (code, json.dumps(record), now,
                                                                          self._until(ttl)))
            return "ok"

    def index(self) -> dict[str, float]:
        return dict(self._read("SELECT code, active FROM rooms WHERE active IS NOT NULL"))

    def load(self, code: str) -> dict | None:
        rows = self._read("SELECT record FROM rooms WHERE code = ? AND expires >= ?", (code, time.time()))
        return json.loads(rows[0][0]) if rows else None

    def save(self, code: str, record: dict, ttl: float) -> None:
        with self._tx() as db:
            db.execute("UPDATE rooms SET record = ?, expires = MAX(expires, ?) WHERE code = ?",
                       (json.dumps(record), self._until(ttl), code))

    def touch(self, code: str, now: float) -> None:
        with self._tx() as db:
            db.execute("UPDATE rooms SET active = MAX(active, ?) WHERE code = ? AND active IS NOT NULL", (now, code))

    def last_active(self, code: str) -> float | None:
        rows = self._read("SELECT active FROM rooms WHERE code = ? AND expires >= ?", (code, time.time()))
        return rows[0][0] if rows else None

    def retire(self, code: str, ttl: float, questions: list[str]) -> None:
        with self._tx() as db:
            until = self._until(ttl)
            db.execute("UPDATE rooms SET active = NULL, expires = ? WHERE code = ?", (until, code))
            db.execute("UPDATE answers SET expires = ? WHERE code = ?", (until, code))
            db.execute("DELETE FROM members WHERE code = ?", (code,))

    def delete(self, code: str) -> None:
        with self._tx() as db:
            for table in ("rooms", "members", "answers"):
                db.execute(f"DELETE FROM {table} WHERE code = ?", (code,))  # noqa: S608 - fixed names

    def join(self, code: str, student: str, now: float, present_since: float, max_students: int,
             ttl: float) -> bool:
        with self._tx() as db:
            if db.execute("SELECT 1 FROM rooms WHERE code = ? AND active IS NOT NULL", (code,)).fetchone() is None:
                return False
            seen = db.execute("SELECT seen FROM members WHERE code = ? AND student = ?", (code, student)).fetchone()
            if seen is None or seen[0] < present_since:
                present = db.execute("SELECT COUNT(*) FROM members WHERE code = ? AND seen >= ?",
                                     (code, present_since)).fetchone()[0]
                if present >= max_students:
                    return False
            db.execute("INSERT OR REPLACE INTO members VALUES (?, ?, MAX(?, COALESCE((SELECT seen FROM members "
                       "WHERE code = ? AND student = ?), 0)))", (code, student, now, code, student))
            return True

    def leave(self, code: str, student: str) -> None:
        with self._tx() as db:
            db.execute("DELETE FROM members WHERE code = ? AND student = ?", (code, student))

    def size(self, code: str, since: float) -> int:
        return int(self._read("SELECT COUNT(*) FROM members WHERE code = ? AND seen >= ?", (code, since))[0][0])

    def members(self, code: str, since: float, limit: int) -> list[str]:
        rows = self._read("SELECT student FROM members WHERE code = ? AND seen >= ? ORDER BY student LIMIT ?",
                          (code, since, int(limit)))
        return [row[0] for row in rows]

    def put_answer(self, code: str, question: str, student: str, answer: dict, ttl: float) -> None:
        with self._tx() as db:
            if db.execute("SELECT 1 FROM rooms WHERE code = ?", (code,)).fetchone() is not None:
                db.execute("INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?)",
                           (code, question, student, json.dumps(answer), self._until(ttl)))

    def answers(self, code: str, question: str) -> dict[str, dict]:
        rows = self._read("SELECT student, answer FROM answers WHERE code = ? AND question = ?", (code, question))
        return {student: json.loads(answer) for student, answer in rows}

    def hit(self, scope: str, key: str, window: int, ttl: float) -> int:
        with self._tx() as db:
            row = db.execute("SELECT win, count FROM hits WHERE scope = ? AND key = ?", (scope, key)).fetchone()
            count = row[1] + 1 if row is not None and row[0] == window else 1
            db.execute("INSERT OR REPLACE INTO hits VALUES (?, ?, ?, ?, ?)",
                       (scope, key, window, count, self._until(ttl)))
            return count

    def secret(self) -> str:
        """Made once per file, then read from memory: every student's page run checks an id against it."""
        if self._secret is None:
            with self._tx() as db:
                db.execute("INSERT OR IGNORE INTO meta VALUES ('secret', ?)", (secrets.token_hex(32),))
                self._secret = str(db.execute("SELECT value FROM meta WHERE key = 'secret'").fetchone()[0])
        return self._secret


class MemoryStore(SQLiteStore):
    """The same store in this process's memory: nothing on disk, nothing survives the process (tests)."""

    def __init__(self) -> None:
        super().__init__(":memory:")


_ADD_ROOM = """
if redis.call('EXISTS', KEYS[2]) == 1 then return 'taken' end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 'full' end
redis.call('DEL', KEYS[3])
redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
redis.call('ZADD', KEYS[1], ARGV[5], ARGV[1])
return 'ok'
"""

_JOIN = """
if redis.call('ZSCORE', KEYS[2], ARGV[6]) == false then return 0 end
local seen = redis.call('ZSCORE', KEYS[1], ARGV[1])
if seen == false or tonumber(seen) < tonumber(ARGV[3]) then
  if redis.call('ZCOUNT', KEYS[1], ARGV[3], '+inf') >= tonumber(ARGV[4]) then return 0 end
end
redis.call('ZADD', KEYS[1], 'GT', ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
"""


class RedisStore:
    """Rooms in Redis (redis-py), so several Streamlit processes or machines share them.

    Keys start with ``prefix``: ``rooms`` (sorted set: live code -> teacher's last activity), ``room:<code>``
    (the record), ``room:<code>:members`` (sorted set: student -> last seen), ``room:<code>:a:<question>``
    (hash: student -> answer), ``rate:<scope>:<key>:<window>`` (counter), ``secret``.

    Every call has a short timeout and no retries, and after a failure the store says "unavailable" at once for
    ``BREAK_SECONDS`` before it tries Redis again: a hung Redis (stopped, not killed: connections open but
    nothing answers) costs a page one timeout, not one per store call.
    """

    TIMEOUT_SECONDS = 0.5
    BREAK_SECONDS = 5.0

    def __init__(self, client: Any, prefix: str = "lucid:") -> None:
        self.r = client
        self.prefix = prefix
        self._add = client.register_script(_ADD_ROOM)
        self._join = client.register_script(_JOIN)
        self._broken_until = 0.0
        self._secret: str | None = None

    @classmethod
    def from_url(cls, url: str, prefix: str = "lucid:") -> RedisStore:
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        client = redis.Redis.from_url(url, decode_responses=True, socket_timeout=cls.TIMEOUT_SECONDS,
                                      socket_connect_timeout=cls.TIMEOUT_SECONDS, retry=Retry(NoBackoff(), 0))
        return cls(client, prefix)

    def _k(self, *parts: str) -> str:
        return self.prefix + ":".join(parts)

    @staticmethod
    def _ms(ttl: float) -> int:
        return max(1000, int(ttl * 1000))

    def add_room(self, code: str, record: dict, now: float, max_rooms: int, ttl: float) -> str:
        keys = [self._k("rooms"), self._k("room", code), self._k("room", code, "members")]
        args = [code, max_rooms, json.dumps(record), self._ms(ttl), repr(now)]
        return str(self._add(keys=keys, args=args))

    def index(self) -> dict[str, float]:
        return {code: float(score) for code, score in self.r.zrange(self._k("rooms"), 0, -1, withscores=True)}

    def load(self, code: str) -> dict | None:
        raw = self.r.get(self._k("room", code))
        return None if raw is None else json.loads(raw)

    def save(self, code: str, record: dict, ttl: float) -> None:
        key = self._k("room", code)
        pipe = self.r.pipeline()
        pipe.set(key, json.dumps(record), xx=True, keepttl=True)
        pipe.pexpire(key, self._ms(ttl), gt=True)
        pipe.execute()

    def touch(self, code: str, now: float) -> None:
        self.r.zadd(self._k("rooms"), {code: now}, xx=True, gt=True)

    def last_active(self, code: str) -> float | None:
        return self.r.zscore(self._k("rooms"), code)

    def retire(self, code: str, ttl: float, questions: list[str]) -> None:
        pipe = self.r.pipeline()
        pipe.zrem(self._k("rooms"), code)
        pipe.delete(self._k("room", code, "members"))
        pipe.pexpire(self._k("room", code), self._ms(ttl))
        for question in questions:
            pipe.pexpire(self._k("room", code, "a", question), self._ms(ttl))
        pipe.execute()

    def delete(self, code: str) -> None:
        pipe = self.r.pipeline()
        pipe.zrem(self._k("rooms"), code)
        pipe.delete(self._k("room", code), self._k("room", code, "members"))
        pipe.execute()
        for key in self.r.scan_iter(match=self._k("room", code, "a", "*"), count=200):
            self.r.delete(key)

    def join(self, code: str, student: str, now: float, present_since: float, max_students: int,
             ttl: float) -> bool:
        keys = [self._k("room", code, "members"), self._k("rooms")]
        args = [student, repr(now), repr(present_since), max_students, self._ms(ttl), code]
        return bool(self._join(keys=keys, args=args))

    def leave(self, code: str, student: str) -> None:
        self.r.zrem(self._k("room", code, "members"), student)

    def size(self, code: str, since: float) -> int:
        return int(self.r.zcount(self._k("room", code, "members"), since, "+inf"))

    def members(self, code: str, since: float, limit: int) -> list[str]:
        return list(self.r.zrangebyscore(self._k("room", code, "members"), since, "+inf", start=0, num=int(limit)))

    def put_answer(self, code: str, question: str, student: str, answer: dict, ttl: float) -> None:
        key = self._k("room", code, "a", question)
        pipe = self.r.pipeline()
        pipe.hset(key, student, json.dumps(answer))
        pipe.pexpire(key, self._ms(ttl))
        pipe.execute()

    def answers(self, code: str, question: str) -> dict[str, dict]:
        raw = self.r.hgetall(self._k("room", code, "a", question))
        return {k: json.loads(v) for k, v in raw.items()}

    def hit(self, scope: str, key: str, window: int, ttl: float) -> int:
        name = self._k("rate", scope, key, str(window))
        pipe = self.r.pipeline()
        pipe.incr(name)
        pipe.pexpire(name, self._ms(ttl))
        count, _ = pipe.execute()
        return int(count)

    def secret(self) -> str:
        if self._secret is None:
            key = self._k("secret")
            self.r.set(key, secrets.token_hex(32), nx=True)
            self._secret = str(self.r.get(key))
        return self._secret


def _guarded(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(self: RedisStore, *args: Any, **kwargs: Any) -> Any:
        import redis

        if time.monotonic() < self._broken_until:
            raise StoreUnavailable(L_("The class server's store (Redis) cannot be reached: {error}",
                                      error="recently failed"))
        try:
            return method(self, *args, **kwargs)
        except redis.RedisError as err:
            self._broken_until = time.monotonic() + self.BREAK_SECONDS
            raise StoreUnavailable(L_("The class server's store (Redis) cannot be reached: {error}",
                                      error=type(err).__name__)) from err
    return call


for _name in ("add_room", "index", "load", "save", "touch", "last_active", "retire", "delete", "join", "leave", "size",
              "members", "put_answer", "answers", "hit", "secret"):
    setattr(RedisStore, _name, _guarded(getattr(RedisStore, _name)))
