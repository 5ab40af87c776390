"""Every message of the lesson pages has a Korean entry: the strings are extracted with Babel, as a
translator's tool would, and looked up in the merged catalog (lucid.po + lessons.po)."""
from pathlib import Path

from babel.messages.extract import extract_from_file

from lucid import i18n

ROOT = Path(__file__).resolve().parents[1]
LESSON_FILES = ["pages/pitfalls.py", "pages/broadcasting.py", "pages/gradient_check.py", "pages/train_mlp.py",
                "pages/op_reference.py", "lucid/lessons/pitfalls.py", "lucid/lessons/broadcasting.py",
                "lucid/lessons/gradient_check.py", "lucid/lessons/training.py", "lucid/lessons/op_reference.py",
                "lucid/ui/playground_link.py", "lucid/ui/large_graph_view.py",
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
