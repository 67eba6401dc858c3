"""``kjoin verify --production``'s account of what the settings did (``settings_effect``), and the production
section of the version matrix (``tools/verify_matrix.py --production``), which each line's run updates
without touching the other rows or the page's other sections. No Kafka: the outcomes are built by hand."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from kjoin.conformance.catalogue import Case
from kjoin.conformance.cli.verify import settings_line
from kjoin.conformance.documents.outcomes import CaseOutcome
from kjoin.conformance.kafka.verify import settings_effect, under_test_settings
from kjoin.oracle.records import JoinSpec, Record, Settings, Window

ROOT = Path(__file__).resolve().parent.parent
CACHE = Settings(cache_max_bytes=10 * 1024 * 1024)
THROTTLE = Settings(emit_interval_ms=1000)


def _case(name: str, spec: JoinSpec, records: list[Record], kafka: str = "4.4.0") -> Case:
    return Case(id=name, scenario=name, kafka=kafka, intended=False, spec=spec, records=tuple(records))


def _outcomes(*cases: Case, status: str = "pass") -> list[CaseOutcome]:
    return [CaseOutcome(case, status) for case in cases]  # type: ignore[arg-type]


# Spec PR-6: a cache drops the tombstone of a delete of a key the right table never held.
ABSENT_DELETE = [Record("left", "k", "A", 1), Record("right", "k", None, 2)]
# Spec PR-2 (3.8+): with no wall-clock advance the first record's empty pass takes the throttle's turn, so
# A, closed by the right record at ts 100, is never emitted; with no throttle it is.
HELD_THEN_CLOSED = [Record("left", "a", "A", 0), Record("right", "b", "B", 100)]
WINDOW = Window(10, 10, 0)


def test_the_effect_counts_cached_throttled_and_changed_scenarios() -> None:
    cached_changed = _case("tt", JoinSpec("table-table", "inner", settings=CACHE), ABSENT_DELETE)
    cached_unchanged = _case("st", JoinSpec("stream-table", "left", settings=CACHE), ABSENT_DELETE)
    throttled = _case("ss", JoinSpec("stream-stream", "outer", WINDOW, settings=THROTTLE), HELD_THEN_CLOSED)
    plain = _case("ss-plain", JoinSpec("stream-stream", "outer", WINDOW), HELD_THEN_CLOSED)
    effect = settings_effect(_outcomes(cached_changed, cached_unchanged, throttled, plain))
    assert (effect.settings, effect.cached, effect.throttled) == (3, 2, 1)
    assert effect.changed == {"stream-stream": 1, "table-table": 1}
    assert effect.changed_total == 2
    assert settings_line(effect).endswith("change the output of 2 (1 stream-stream, 1 table-table)")


def test_a_wall_clock_alone_counts_as_a_setting_and_refused_cases_are_not_counted() -> None:
    timed = [Record("left", "a", "A", 0, wall_clock=5), Record("right", "b", "B", 100, wall_clock=9)]
    only_wall_clock = _case("ss", JoinSpec("stream-stream", "outer", WINDOW), timed)
    refused = _case("tt", JoinSpec("table-table", "inner", settings=CACHE), ABSENT_DELETE)
    effect = settings_effect(
        _outcomes(only_wall_clock) + _outcomes(refused, status="not-applicable")  # type: ignore[arg-type]
    )
    assert (effect.settings, effect.cached, effect.throttled, effect.changed) == (1, 0, 0, {})


def test_the_test_settings_drop_settings_wall_clocks_and_commits() -> None:
    records = [Record("left", "k", "A", 1, wall_clock=3, commit=True)]
    case = _case("tt", JoinSpec("table-table", "left", settings=CACHE), records)
    plain = under_test_settings(case)
    assert plain.spec.settings == Settings()
    assert plain.records == (Record("left", "k", "A", 1),)
    assert plain.spec.join == "table-table" and plain.id == case.id


def _matrix_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tool_verify_matrix", ROOT / "tools" / "verify_matrix.py")
    assert spec is not None and spec.loader is not None
    module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PAGE = """# Matrix

| Kafka | all |
|---|---|
| 2.4.1 | 490/490 |

## Self-joins

| Kafka | all |
|---|---|
| 3.4.1 | 506/506 |

## Application mode

Cached table-table joins.
"""


def _row(release: str, all_cell: str) -> list[str]:
    return [release, "era", "--examples 1 --seed 1", "1", "2", "0", *(["n/a"] * 5), all_cell, "1 s"]


def test_the_production_section_keeps_other_rows_and_sections(tmp_path: Path) -> None:
    tool = _matrix_tool()
    page = tmp_path / "matrix.md"
    page.write_text(PAGE, encoding="utf-8")
    tool.write_production_section(page, {"4.4.0": _row("4.4.0", "9/9")})
    first = page.read_text(encoding="utf-8")
    names = ("Self-joins", "Production settings", "Application mode")
    sections = [first.index(f"## {name}") for name in names]
    assert sections == sorted(sections)
    tool.write_production_section(page, {"2.4.1": _row("2.4.1", "7/7")})
    tool.write_production_section(page, {"4.4.0": _row("4.4.0", "8/9 \u2717")})
    text = page.read_text(encoding="utf-8")
    rows = tool._production_rows(text)
    assert list(rows) == ["2.4.1", "4.4.0"]
    assert rows["4.4.0"].endswith("| 8/9 \u2717 | 1 s |") and rows["2.4.1"].endswith("| 7/7 | 1 s |")
    assert text.count("## Production settings") == 1
    before, after = PAGE.split("\n## Application mode")
    assert text.startswith(before.rstrip("\n")) and text.endswith("\n## Application mode" + after)
    assert "| 2.4.1 | 490/490 |" in text and "| 3.4.1 | 506/506 |" in text
