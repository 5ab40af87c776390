"""A page's session-state keys are named once (``lucid.ui.playground.keys``) and spelled nowhere else."""
import re
from pathlib import Path

from lucid.ui.playground.keys import PageKeys, _Key, keys

ROOT = Path(__file__).resolve().parents[2]
HOME = ROOT / "lucid" / "ui" / "playground" / "keys.py"


def test_a_key_is_the_page_prefix_and_its_name():
    assert keys("pg").step == "pg_step"
    assert keys("gc").source == "gc_source"
    assert keys("pg").choice(7) == "pg_choice_7"
    assert keys("pg").of("style") == "pg_style"


def test_every_key_says_what_it_holds():
    named = {n: v for n, v in vars(PageKeys).items() if isinstance(v, _Key)}
    assert len(named) > 80
    assert [n for n, v in named.items() if not (v.__doc__ or "").strip()] == []


def test_no_module_of_the_app_spells_a_session_key_by_hand():
    spelled = re.compile(r"f[\"']\{key\}_")
    sources = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "lucid" / "ui").rglob("*.py"))]
    found = [f"{p.relative_to(ROOT)}:{n}" for p in sources if p != HOME
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if spelled.search(line)]
    assert found == []


def test_the_run_request_has_one_spelling():
    sources = [p.read_text(encoding="utf-8") for p in (ROOT / "lucid" / "ui").rglob("*.py")]
    assert not any("run_request\"" in s or "_run_request)" in s for s in sources)
