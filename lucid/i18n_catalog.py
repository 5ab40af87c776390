"""Extract the messages of the code with Babel and keep the catalogs in step with it.

``python3 -m lucid.i18n_catalog`` re-extracts every marked message (``babel.cfg`` says which files,
``lucid.i18n.KEYWORDS`` which calls) and merges it into each language's ``.po``: new messages appear
untranslated, translations of messages that no longer exist are dropped. The tests use ``extract`` and
``untranslated`` to fail when a message a person reads has no Korean entry.
"""
from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po, write_po

from lucid.i18n import DEFAULT_LANGUAGE, DOMAIN, KEYWORDS, LANGUAGES, LOCALE_DIR

ROOT = Path(__file__).resolve().parents[1]


def extract(root: Path = ROOT) -> Catalog:
    """Every message marked in the files ``babel.cfg`` maps, with where it is used."""
    with (root / "babel.cfg").open(encoding="utf-8") as fh:
        method_map, options_map = parse_mapping_cfg(fh)
    template = Catalog(project="lucid-graph-lab", domain=DOMAIN)
    for filename, lineno, message, comments, context in extract_from_dir(
            str(root), method_map, options_map, keywords=KEYWORDS, strip_comment_tags=True):
        template.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return template


def po_path(language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def load(language: str) -> Catalog:
    with po_path(language).open("rb") as fh:
        return read_po(fh, locale=language, domain=DOMAIN)


def untranslated(template: Catalog, catalog: Catalog) -> list[str]:
    """The messages of ``template`` with no usable entry in ``catalog`` (missing, empty or fuzzy)."""
    missing = []
    for message in template:
        if not message.id:
            continue
        entry = catalog.get(message.id, context=message.context)
        strings = entry.string if entry is not None else None
        forms = strings if isinstance(strings, tuple | list) else (strings,)
        if entry is None or entry.fuzzy or not all(forms):
            missing.append(message.id if isinstance(message.id, str) else message.id[0])
    return missing


def update(root: Path = ROOT) -> dict[str, list[str]]:
    """Merge the extracted messages into every language's ``.po``; returns what each still lacks."""
    template = extract(root)
    lacking = {}
    for language in LANGUAGES:
        if language == DEFAULT_LANGUAGE:
            continue
        catalog = load(language)
        template.creation_date = catalog.creation_date  # the header changes only when the messages do
        catalog.update(template, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        with po_path(language).open("wb") as fh:
            write_po(fh, catalog, width=120, omit_header=False, sort_output=False, include_previous=False,
                     no_location=True)
        lacking[language] = untranslated(template, catalog)
    return lacking


if __name__ == "__main__":
    for lang, ids in update().items():
        print(f"{lang}: {len(ids)} untranslated")
        for msgid in ids:
            print("  ", msgid)
    sys.exit(0)
