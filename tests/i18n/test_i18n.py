"""The i18n layer: a per-context language, gettext catalogs compiled from the repository's .po, plurals, numbers."""
import threading

from lucid import i18n
from lucid.i18n import _, format_decimal, format_integer, use_language


def test_english_is_the_default_and_returns_the_message_itself():
    assert i18n.current_language() == "en"
    assert _("Language") == "Language"


def test_korean_comes_from_the_repository_po_with_no_compile_step():
    with use_language("ko"):
        assert _("Language") == "언어"
        assert _("Classroom mode") == "강의 모드"
    assert _("Language") == "Language"  # the block ended: back to English


def test_a_message_without_an_entry_falls_back_to_english():
    with use_language("ko"):
        assert _("A sentence nobody translated") == "A sentence nobody translated"


def test_language_codes_are_normalised_and_unknown_ones_fall_back_to_english():
    assert [i18n.normalize_language(v) for v in ("ko", "KO", "ko-KR", "ko_KR", "en", "fr", "", None, 3)] == [
        "ko", "ko", "ko", "ko", "en", "en", "en", "en", "en"]


def test_each_thread_keeps_its_own_language_as_streamlit_sessions_do():
    seen: dict[str, str] = {}
    korean_set = threading.Event()
    english_read = threading.Event()

    def korean_session():
        i18n.set_language("ko")
        korean_set.set()
        english_read.wait(5)
        seen["ko"] = _("Language")

    def english_session():
        korean_set.wait(5)
        seen["en"] = _("Language")
        english_read.set()

    threads = [threading.Thread(target=korean_session), threading.Thread(target=english_session)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == {"ko": "언어", "en": "Language"}
    assert _("Language") == "Language"  # nor did it leak into the test's own thread


def test_numbers_are_formatted_through_babel_for_the_current_language():
    assert format_integer(12345) == "12,345"
    assert format_decimal(1234.5) == "1,234.5"
    with use_language("ko"):
        assert format_integer(12345) == "12,345"
        assert format_decimal(0.25) == "0.25"
