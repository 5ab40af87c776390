"""The per-session memo: computes once per key, forgets the least recently used."""
from lucid.session.memo import LRUMemo


def test_second_get_does_not_recompute():
    calls = []
    memo = LRUMemo(capacity=4)
    assert memo.get("a", lambda: calls.append("a") or 11) == 11
    assert memo.get("a", lambda: calls.append("a") or 99) == 11
    assert calls == ["a"]
    assert (memo.hits, memo.misses) == (1, 1)


def test_least_recently_used_is_evicted():
    memo = LRUMemo(capacity=2)
    memo.get("a", lambda: 1)
    memo.get("b", lambda: 2)
    memo.get("a", lambda: 1)
    memo.get("c", lambda: 3)
    assert "a" in memo and "c" in memo and "b" not in memo
    assert len(memo) == 2


def test_failed_computation_is_not_stored():
    memo = LRUMemo()

    def boom():
        raise ValueError("no")

    try:
        memo.get("k", boom)
    except ValueError:
        pass
    assert "k" not in memo
    assert memo.get("k", lambda: 5) == 5
