"""Every message of the lesson pages has a Korean entry: the strings are extracted with Babel, as a
translator's tool would, and looked up in the merged catalog (lucid.po + lessons.po)."""
from pathlib import Path

from babel.messages.extract import extract_from_file

from lucid import i18n

ROOT = Path(__file__).resolve().parents[2]
LESSON_FILES = ["pages/pitfalls.py", "pages/broadcasting.py", "pages/gradient_check.py", "pages/train_mlp.py",
                "pages/op_reference.py", "lucid/lessons/pitfalls.py", "lucid/lessons/broadcasting.py",
                "lucid/lessons/gradient_check.py", "lucid/lessons/training.py", "lucid/lessons/op_reference.py",
                "lucid/ui/playground/playground_link.py", "lucid/ui/lesson_pages/large_graph_view.py",
                "lucid/data/__init__.py", "lucid/data/synthetic.py", "lucid/data/file_chunks.py"]


def extracted(path: str) -> list[tuple[int, str | tuple[str, ...]]]:
    """``(line, msgid)`` of every message Babel finds in ``path`` with the project's keywords."""
    return [(line, message) for line, message, _comments, _context
            in extract_from_file("python", str(ROOT / path), keywords=i18n.KEYWORDS)]


def missing_korean(paths: list[str]) -> list[str]:
    catalog = i18n.merged_catalog("ko")
    missing = []
    for path in paths:
        for line, message in extracted(path):
            msgid = message[0] if isinstance(message, tuple) else message
            entry = catalog.get(msgid)
            strings = entry.string if entry is not None else None
            forms = strings if isinstance(strings, tuple | list) else (strings,)
            if entry is None or entry.fuzzy or not all(forms):
                missing.append(f"{path}:{line}: {msgid!r}")
    return missing


def test_each_lesson_file_marks_its_text_for_translation():
    counts = {path: len(extracted(path)) for path in LESSON_FILES}
    assert all(n > 0 for n in counts.values()), counts


def test_every_marked_message_of_the_lesson_pages_has_a_korean_entry():
    assert missing_korean(LESSON_FILES) == []


def test_the_op_registry_text_with_words_has_a_korean_entry():
    """The Op reference shows the registry's formulas, rules and group names: text made in the engine, not in a
    lesson file, so Babel cannot find it; ``registry_texts`` is the list it would have extracted."""
    from lucid.lessons.op_reference import registry_texts

    catalog = i18n.merged_catalog("ko")
    texts = registry_texts()
    assert "no gradient" in texts and "linear algebra" in texts and "out = a · b" not in texts
    assert [t for t in texts if catalog.get(t) is None or not catalog.get(t).string] == []


def test_the_op_reference_rows_read_in_korean_with_the_same_symbols():
    from lucid.lessons.op_reference import reference_rows, translated_rows

    with i18n.use_language("ko"):
        korean = {row["op"]: row for row in translated_rows()}
    english = {row["op"]: row for row in reference_rows()}
    assert korean.keys() == english.keys()
    assert korean["mul"]["forward"] == english["mul"]["forward"] == "out = a · b"  # pure notation stays
    assert korean["eq"]["derivatives"] == "기울기 없음"
    assert korean["max"]["derivatives"] == "∂out/∂aᵢ = 최댓값이면 1(같은 값이 여럿이면 나눠 가짐), 아니면 0"
    assert all(k["symbol"] == english[op]["symbol"] and k["group"] == english[op]["group"]
               for op, k in korean.items())
