"""The page cache on disk: read back by the next server, never stale, never wrong, bounded.

``process_cache(disk=True)`` keeps each value in ``<data folder>/page-cache`` (``lucid.ui.runtime.disk_cache``);
a restarted server reads it instead of computing. Every file is stamped with the code's version, the
function and the arguments; a damaged file counts as missing; the folder stays under its size bound.
"""
import os
import pickle
import threading

import pytest

from lucid.ui.runtime import disk_cache
from lucid.ui.runtime.disk_cache import DiskCache, code_version
from lucid.ui.runtime.process_cache import cache_of, process_cache


@pytest.fixture
def store(tmp_path):
    return DiskCache(tmp_path / "page-cache", version="v1")


def test_a_value_written_by_one_server_is_read_back_by_the_next_with_the_same_code(tmp_path, store):
    assert store.store("lesson.table", ("en", (0,), ()), {"add": (1, 2.5e-11)})
    restarted = DiskCache(tmp_path / "page-cache", version="v1")
    assert restarted.load("lesson.table", ("en", (0,), ())) == (True, {"add": (1, 2.5e-11)})
    assert restarted.reads == 1 and store.writes == 1


def test_a_file_written_by_other_code_or_for_other_arguments_is_never_read(tmp_path, store):
    store.store("lesson.table", ("en", (0,), ()), "old numbers")
    edited = DiskCache(tmp_path / "page-cache", version="v2")  # the code changed: a new version
    assert edited.load("lesson.table", ("en", (0,), ())) == (False, None)
    assert store.load("lesson.table", ("en", (1,), ())) == (False, None)  # another seed
    assert store.load("lesson.table", ("ko", (0,), ())) == (False, None)  # another language
    assert store.load("lesson.other", ("en", (0,), ())) == (False, None)  # another function


def test_a_file_whose_stamp_does_not_match_its_name_is_not_read(store):
    store.store("lesson.table", ("en", (0,), ()), "seed 0")
    os.replace(store.path("lesson.table", ("en", (0,), ())), store.path("lesson.table", ("en", (1,), ())))
    assert store.load("lesson.table", ("en", (1,), ())) == (False, None)


@pytest.mark.parametrize("damage", ["truncated", "flipped byte", "garbage", "empty", "valid pickle, wrong digest"])
def test_a_damaged_file_counts_as_missing_and_is_removed(store, damage):
    key = ("en", (0,), ())
    store.store("lesson.table", key, list(range(1000)))
    path = store.path("lesson.table", key)
    raw = path.read_bytes()
    header, checksum, _payload = raw[len(disk_cache.MAGIC):].split(b"\n", 2)
    damaged = {"truncated": raw[:-10], "flipped byte": raw[:-5] + bytes([raw[-5] ^ 0xFF]) + raw[-4:],
               "garbage": b"\x00\x01not a cache file", "empty": b"",
               "valid pickle, wrong digest": disk_cache.MAGIC + header + b"\n" + checksum + b"\n"
               + pickle.dumps([1, 2, 3])}[damage]
    path.write_bytes(damaged)
    assert store.load("lesson.table", key) == (False, None)
    assert not path.exists()


def test_an_unreadable_file_counts_as_missing(store):
    key = ("en", (0,), ())
    store.store("lesson.table", key, "value")
    path = store.path("lesson.table", key)
    path.unlink()
    path.mkdir()  # reading it fails with an OSError
    assert store.load("lesson.table", key) == (False, None)


def test_the_folder_stays_within_its_bound_and_the_least_recently_used_go_first(tmp_path):
    store = DiskCache(tmp_path / "page-cache", version="v1", max_bytes=3 * 1200, max_entry_bytes=2000)
    for k in range(3):
        assert store.store("svg", ("en", (k,), ()), bytes(1000))
        os.utime(store.path("svg", ("en", (k,), ())), ns=(10**18 + k, 10**18 + k))  # written in the order 0, 1, 2
    assert store.load("svg", ("en", (0,), ()))[0]  # a read is a use: 0 is now the most recent
    store.store("svg", ("en", (3,), ()), bytes(1000))
    assert store.size() <= 3 * 1200 and len(store.files()) == 3
    assert [store.load("svg", ("en", (k,), ()))[0] for k in range(4)] == [True, False, True, True]


def test_a_value_too_large_or_not_picklable_is_not_written(store):
    small = DiskCache(store.folder, version="v1", max_entry_bytes=100)
    assert not small.store("svg", ("en", (1,), ()), bytes(1000))
    assert not store.store("graph", ("en", (1,), ()), threading.Lock())
    assert store.files() == []


def test_the_code_version_changes_with_any_source_or_catalog_file(tmp_path):
    version = code_version.__wrapped__  # the digest itself, not the process's memo of it
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "ko.po").write_text('msgid "a"\nmsgstr "가"\n')
    first = version(tmp_path)
    assert version(tmp_path) == first
    (tmp_path / "a.py").write_text("x = 2\n")
    second = version(tmp_path)
    (tmp_path / "ko.po").write_text('msgid "a"\nmsgstr "나"\n')
    third = version(tmp_path)
    (tmp_path / "notes.txt").write_text("not code")
    assert len({first, second, third}) == 3 and version(tmp_path) == third


def test_process_cache_on_disk_computes_once_across_a_restart_and_again_after_the_code_changed(tmp_path, monkeypatch):
    monkeypatch.setenv("LUCID_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(disk_cache, "_DEFAULT", None)
    calls = []

    @process_cache(max_entries=4, disk=True)
    def slow_table(seed: int) -> list[float]:
        calls.append(seed)
        return [seed * 0.1, seed * 0.2]

    assert slow_table(3) == [0.30000000000000004, 0.6000000000000001] and calls == [3]
    assert len(list((tmp_path / "page-cache").glob("*.pickle"))) == 1
    cache_of(slow_table).clear()  # a new server: nothing in memory
    assert slow_table(3) == [0.30000000000000004, 0.6000000000000001] and calls == [3]  # read from disk

    cache_of(slow_table).clear()
    monkeypatch.setattr(disk_cache, "_DEFAULT", DiskCache(tmp_path / "page-cache", version="edited code"))
    assert slow_table(3) == [0.30000000000000004, 0.6000000000000001] and calls == [3, 3]  # computed again


def test_process_cache_on_disk_computes_when_the_file_is_damaged_or_the_folder_unwritable(tmp_path, monkeypatch):
    monkeypatch.setenv("LUCID_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(disk_cache, "_DEFAULT", None)
    calls = []

    @process_cache(max_entries=4, disk=True)
    def answer(seed: int) -> int:
        calls.append(seed)
        return seed + 40

    assert answer(2) == 42
    (file,) = (tmp_path / "page-cache").glob("*.pickle")
    file.write_bytes(file.read_bytes()[:-3])
    cache_of(answer).clear()
    assert answer(2) == 42 and calls == [2, 2]

    blocked = tmp_path / "not a folder"
    blocked.write_text("a file where the data folder should be")
    monkeypatch.setenv("LUCID_DATA_DIR", str(blocked))
    cache_of(answer).clear()
    assert answer(2) == 42 and calls == [2, 2, 2]  # nothing to read or write: computed, no error
