"""tools/mutation.py's ``--fuzz-alone`` mode (issue 23, item 4): each mutant meets the fuzzer only, and the
report gives the fuzzer's own kill rate, beside the catalogue's when both ran."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tool_mutation", ROOT / "tools" / "mutation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def _results(tool: ModuleType, verdicts: list[tuple[str | None, str | None, str | None]]) -> list[object]:
    """One result per (catalogue verdict, fuzzer-alone failure, recorded equivalence), on table_table."""
    points = tool.mutations(["table_table"])
    return [
        tool.Result(points[n], n + 1, killed_by=catalogue, fuzz_alone=alone, equivalent=equivalent)
        for n, (catalogue, alone, equivalent) in enumerate(verdicts)
    ]


def test_the_fuzzer_alone_report_counts_its_kills_over_the_non_equivalent_mutants() -> None:
    tool = _tool()
    results = _results(
        tool,
        [
            (None, "tt-1: values", None),
            (None, "", None),
            (None, "", "the reason"),
            (None, "tt-2: order", None),
        ],
    )
    report = tool.render(results, 31, catalogue=False)
    assert "the fuzzer alone (ci profile, no catalogue) killed 2 of 3 non-equivalent (67%)" in report
    header = next(line for line in report.splitlines() if line.startswith("| module"))
    assert [cell.strip() for cell in header.strip("|").split("|")] == [
        "module", "mutants", "equivalent", "fuzz alone", "survived", "score",
    ]  # fmt: skip
    row = next(line for line in report.splitlines() if line.startswith("| table_table"))
    assert [cell.strip() for cell in row.strip("|").split("|")] == ["table_table", "4", "1", "2", "1", "67%"]
    assert "catalogue" not in header
    survivors = report.split("Survivors:")[1]
    assert (
        "mutant-0002" in survivors and "mutant-0003" in survivors and "(equivalent: the reason)" in survivors
    )
    assert "mutant-0001" not in survivors and "mutant-0004" not in survivors


def test_with_the_catalogue_both_rates_stand_side_by_side() -> None:
    tool = _tool()
    results = _results(
        tool,
        [("catalogue", "", None), ("catalogue", "tt-1: values", None), (None, "", "the reason")],
    )
    report = tool.render(results, 31, catalogue=True)
    first = report.splitlines()[0]
    assert "killed 2 of 2 non-equivalent (100%)" in first
    assert "the fuzzer alone (ci profile, no catalogue) killed 1 of 2 non-equivalent (50%)" in first
    row = next(line for line in report.splitlines() if line.startswith("| table_table"))
    assert [cell.strip() for cell in row.strip("|").split("|")] == [
        "table_table", "3", "2", "0", "1", "0", "100%", "1", "50%",
    ]  # fmt: skip
    alone = report.split("Survivors of the fuzzer alone:")[1]
    assert "mutant-0001" in alone and "mutant-0003" in alone and "mutant-0002" not in alone


@pytest.mark.parametrize(
    "flags", [["--with-catalogue"], ["--fuzz", "--fuzz-alone"]], ids=["catalogue-alone", "fuzz-both"]
)
def test_flags_that_contradict_the_fuzz_alone_mode_are_usage_errors(flags: list[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        _tool().main([*flags, "--only", "table_table:61"])
    assert raised.value.code == 2


@pytest.mark.xdist_group("spark-fuzz")
def test_fuzz_alone_kills_a_real_mutant_and_spares_a_recorded_equivalent(tmp_path: Path) -> None:
    """Two mutants through the fuzzer alone, in the tool's own process and SparkSession: a flipped
    comparison of the table-table join (the fuzzer's ci profile finds it without any catalogue case) and
    the stream-table grace guard recorded as equivalent in tools/mutation-equivalents.toml."""
    report = tmp_path / "report.md"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tools" / "mutation.py"),
            "--fuzz-alone",
            "--only",
            "table_table:61:== -> !=",
            "--only",
            "stream_table:45:& -> |",
            "--markdown",
            str(report),
        ],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    text = report.read_text(encoding="utf-8")
    assert "2 mutants checked" in text
    assert "the fuzzer alone (ci profile, no catalogue) killed 1 of 1 non-equivalent (100%)" in text
    survivors = text.split("Survivors:")[1]
    assert "stream_table.py:45 [logic] `& -> |` (equivalent:" in survivors
    assert "table_table.py:61" not in survivors
    progress = {line.split()[1]: line for line in done.stderr.splitlines() if "] mutant-" in line}
    assert "fuzzer alone: SURVIVED" in progress["mutant-0167"]  # stream_table.py:45
    assert "fuzzer alone: " in progress["mutant-0196"] and "SURVIVED" not in progress["mutant-0196"]
