"""Class mode: a room follows the teacher's step, and every student answers before the reveal.

Nothing here imports Streamlit: rooms (``rooms``), where room state lives (``store``: an embedded
SQLite file by default, or Redis), grading and diagnosis of answers (``grading``), the exit ticket
(``ticket``), and the form in which a room keeps words for students of every language (``texts``:
message ids, never a sentence in the teacher's language). The Playground's widgets for a class are
in ``lucid.ui.live_class.room_view``.
"""
from lucid.live_class.limits import RoomLimits
from lucid.live_class.rooms import AnswerRejected, NotTeacher, RoomGone, Rooms, RoomsFull, RoomView
from lucid.live_class.store import MemoryStore, RedisStore, RoomStore, SQLiteStore, StoreUnavailable

__all__ = ["AnswerRejected", "MemoryStore", "NotTeacher", "RedisStore", "RoomGone", "RoomLimits", "RoomStore",
           "RoomView", "Rooms", "RoomsFull", "SQLiteStore", "StoreUnavailable"]
