"""``process_cache``: one cache per function for the whole server, found again when a page reruns."""
from lucid.ui.runtime.process_cache import cache_of, process_cache


def test_a_function_defined_again_by_a_rerun_of_its_page_finds_its_values():
    calls = []
    caches = []
    for _run in range(3):  # each run of a page script defines its functions anew
        @process_cache(max_entries=4)
        def square(x: int) -> int:
            calls.append(x)
            return x * x

        assert square(7) == 49 and square(x=3) == 9
        caches.append(cache_of(square))
    assert calls == [7, 3]
    assert caches[0] is caches[1] is caches[2] and caches[0].hits == 4


def test_a_function_whose_code_changed_never_reads_the_old_values():
    def answer() -> int:
        return 1
    first = process_cache()(answer)

    def answer() -> int:  # noqa: F811 - the same function, edited (as during development)
        return 2
    second = process_cache()(answer)
    assert (first(), second()) == (1, 2) and cache_of(first) is not cache_of(second)


def test_values_are_shared_by_reference_and_bounded_by_entries():
    @process_cache(max_entries=2)
    def table(seed: int) -> list[int]:
        return [seed] * 3

    assert table(1) is table(1)
    table(2)
    table(3)
    assert len(cache_of(table)) == 2 and (1,) not in {k[0] for k in cache_of(table)._store}
