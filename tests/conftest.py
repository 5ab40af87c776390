"""Shared test setup: make the project root importable, and keep the tests' class rooms out of the real data folder.

Rooms persist in an SQLite file (``ui.live_class.room_service``); the tests (and every server they start, which inherit
the environment) keep theirs in a folder of their own, made anew for each run.
"""
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LUCID_DATA_DIR", tempfile.mkdtemp(prefix="lucid-test-data-"))
