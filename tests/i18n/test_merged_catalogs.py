"""Every .po of a language folder is one catalog: lucid.po (the Playground) and lessons.po (the lesson pages)."""
from pathlib import Path

from lucid import i18n
from lucid.i18n import _, use_language

HEADER = ('msgid ""\nmsgstr ""\n"Language: ko\\n"\n"Plural-Forms: nplurals=1; plural=0;\\n"\n'
          '"Content-Type: text/plain; charset=utf-8\\n"\n\n')


def write_po(folder: Path, name: str, entries: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(HEADER + entries, encoding="utf-8")


def test_files_are_read_with_lucid_po_first_then_the_others_by_name(tmp_path):
    folder = tmp_path / "ko" / "LC_MESSAGES"
    for name in ("zeta.po", "lucid.po", "lessons.po"):
        write_po(folder, name, "")
    assert [p.name for p in i18n.catalog_files("ko", tmp_path)] == ["lucid.po", "lessons.po", "zeta.po"]
    assert i18n.catalog_files("fr", tmp_path) == []
    assert i18n.merged_catalog("fr", tmp_path) is None


def test_a_non_empty_translation_wins_over_an_empty_one_in_either_file(tmp_path):
    folder = tmp_path / "ko" / "LC_MESSAGES"
    write_po(folder, "lucid.po", 'msgid "Pitfalls"\nmsgstr ""\n\nmsgid "Language"\nmsgstr "언어"\n\n'
                                 'msgid "Only here"\nmsgstr "여기에만"\n')
    write_po(folder, "lessons.po", 'msgid "Pitfalls"\nmsgstr "흔한 실수"\n\nmsgid "Language"\nmsgstr ""\n\n'
                                   'msgid "Gradient check"\nmsgstr "기울기 확인"\n')
    merged = i18n.merged_catalog("ko", tmp_path)
    assert merged.get("Pitfalls").string == "흔한 실수"  # lucid.po's empty entry did not hide it
    assert merged.get("Language").string == "언어"  # lessons.po's empty entry did not erase it
    assert merged.get("Only here").string == "여기에만"
    assert merged.get("Gradient check").string == "기울기 확인"


def test_when_both_files_translate_a_message_lucid_po_wins_and_fuzzy_entries_do_not_count(tmp_path):
    folder = tmp_path / "ko" / "LC_MESSAGES"
    write_po(folder, "lucid.po", 'msgid "Step"\nmsgstr "단계"\n\n#, fuzzy\nmsgid "Loss"\nmsgstr "손해"\n')
    write_po(folder, "lessons.po", 'msgid "Step"\nmsgstr "스텝"\n\nmsgid "Loss"\nmsgstr "손실"\n')
    merged = i18n.merged_catalog("ko", tmp_path)
    assert merged.get("Step").string == "단계"
    assert merged.get("Loss").string == "손실" and not merged.get("Loss").fuzzy


def test_the_repository_catalog_speaks_from_both_files():
    names = [p.name for p in i18n.catalog_files("ko")]
    assert names[0] == "lucid.po" and "lessons.po" in names
    with use_language("ko"):
        assert _("Language") == "언어"  # from lucid.po
        assert _("Three classic pitfalls") == "세 가지 흔한 실수"  # from lessons.po
    assert _("Three classic pitfalls") == "Three classic pitfalls"
