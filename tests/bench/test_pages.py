"""bench_pages prints each page beside the Playground: its ratios and whether it stays within 2 s."""
import re
from pathlib import Path

from bench.bench_pages import BASELINE, MAIN_CONTENT, Row, table


def test_every_page_of_the_app_has_main_content_to_wait_for_and_the_baseline_is_one_of_them():
    app_py = (Path(__file__).resolve().parents[2] / "app.py").read_text(encoding="utf-8")
    shown = set(re.findall(r'st\.Page\("pages/\w+\.py".*?url_path="(\w+)"', app_py))
    assert shown == set(MAIN_CONTENT) and BASELINE in shown
    assert all(MAIN_CONTENT[page] for page in shown)


def test_the_table_puts_each_page_beside_the_baseline_with_ratios_and_the_2_second_verdicts():
    rows = [Row(BASELINE, server=[0.1, 0.2, 0.3], browser=[1.0], shell=[0.5], cached=[0.8]),
            Row("train_mlp", server=[0.4], browser=[3.0], shell=[0.6], cached=[1.6], errors=["browser: x"])]
    lines = table(rows).splitlines()
    base, train = lines[2].split(), lines[3].split()
    assert base == ["playground", "0.20", "1.0×", "0.50", "1.00", "1.0×", "0.80", "1.0×", "yes/yes", "0"]
    assert train == ["train_mlp", "0.40", "2.0×", "0.60", "3.00", "3.0×", "1.60", "2.0×", "NO/yes", "1"]
    assert lines[-1] == "error: browser: x"


def test_the_first_visit_table_puts_render_and_shown_cold_and_warmed_beside_the_1_second_target():
    from bench.bench_pages import EXPERIMENT, TARGET, Visit, first_visit_table

    assert set(EXPERIMENT) == set(MAIN_CONTENT) and all(EXPERIMENT.values()) and TARGET == 1.0
    visits = [Visit("gradient_check", render=[0.4, 0.1], shown=[6.2, 0.15], warm_up=12.34),
              Visit("op_reference", render=[1.2, float("nan")], shown=[3.0, float("nan")], errors=["warmed: x"])]
    lines = first_visit_table(visits).splitlines()
    assert lines[2].split() == ["gradient_check", "0.40", "ok", "6.20", "NO", "0.10", "ok", "0.15", "ok", "12.3", "0"]
    assert lines[3].split() == ["op_reference", "1.20", "NO", "3.00", "NO", "nan", "NO", "nan", "NO", "nan", "1"]
    assert lines[-2:] == ["target: 1 s to render and to show", "error: warmed: x"]
