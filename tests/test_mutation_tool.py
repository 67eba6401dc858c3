"""tools/mutation.py's ``--fuzz-alone`` mode (issue 23, item 4): each mutant meets the fuzzer only, and the
report gives the fuzzer's own kill rate, beside the catalogue's when both ran."""

from __future__ import annotations

import importlib.util
import math
import subprocess
import sys
from collections import Counter
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


@pytest.mark.system  # the tool's own process and JVM, fuzzing two mutants
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
    progress = {line.split()[2]: line for line in done.stderr.splitlines() if "] mutant-" in line}
    assert "fuzzer alone: SURVIVED" in progress["stream_table.py:45"]
    killed = progress["table_table.py:61"]
    assert "fuzzer alone: " in killed and "SURVIVED" not in killed


@pytest.mark.system  # the tool's own process and JVM, fuzzing one mutant's table-table and fk calls
@pytest.mark.xdist_group("spark-fuzz")
def test_fuzz_alone_kills_the_fast_path_mutant_in_a_store_shape_batch(tmp_path: Path) -> None:
    """``versioned.py:136 | -> &`` sends a batch with no two-sided versioned scenario down the fast path
    (docs/mutation-report.md): the joint batch never does, so the fuzzer kills it only through its batches
    of one store shape (docs/testing.md, "Batch compositions"), and the failure says which."""
    report = tmp_path / "report.md"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tools" / "mutation.py"),
            "--candidate",
            "spark-reference",
            "--fuzz-alone",
            "--only",
            "versioned:136:| -> &",
            "--markdown",
            str(report),
        ],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "killed 1 of 1 non-equivalent (100%)" in report.read_text(encoding="utf-8")
    progress = [line for line in done.stderr.splitlines() if "] mutant-" in line]
    assert len(progress) == 1 and "versioned.py:136" in progress[0], progress
    assert "SURVIVED" not in progress[0]
    assert "-versioned-batch:" in progress[0] and "~both-versioned" not in progress[0]


# --- spark-stateful's modules, the stratified sample and its bound (issue 23, item 4) ---


@pytest.mark.parametrize("name", ["spark-reference", "spark-stateful"])
def test_every_module_of_a_candidate_is_in_its_table(name: str) -> None:
    """A module added to a candidate's package is mutated only if its table says which kinds it serves."""
    tool = _tool()
    target = tool.TARGETS[name]
    modules = {path.stem for path in target.folder.glob("*.py")} - {"__init__"}
    assert set(target.serves) == modules
    claimed = {"stream-stream", "stream-table", "table-table", "fk", "stream-globaltable"}
    assert all(joins and set(joins) <= claimed for joins in target.serves.values())


def test_a_stateful_mutant_is_a_renamed_copy_of_the_port_run_as_spark_stateful(tmp_path: Path) -> None:
    tool = _tool()
    target = tool.TARGETS["spark-stateful"]
    points = tool.mutations(["tables"], target.folder, target.python_logic)
    assert {m.operator for m in points} >= {"compare", "logic"}  # Python's and/or: its logic is Python
    mutation = points[0]
    package = tool.write_mutant(tmp_path, 7, mutation, target)
    copy = tmp_path / package
    assert sorted(p.name for p in copy.glob("*.py")) == sorted(p.name for p in target.folder.glob("*.py"))
    for path in copy.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert target.package not in text
        original = (target.folder / path.name).read_text(encoding="utf-8").replace(target.package, package)
        assert (text == original) is (path.stem != "tables")
    mutated = (copy / "tables.py").read_text(encoding="utf-8").splitlines()
    source = (target.folder / "tables.py").read_text(encoding="utf-8").replace(target.package, package)
    source = source.splitlines()
    changed = [n for n, (a, b) in enumerate(zip(source, mutated, strict=True), 1) if a != b]
    assert changed == [mutation.line] and mutation.replacement in mutated[mutation.line - 1]
    candidate = target.candidate("mutant-0007", package)
    assert (type(candidate).__name__, candidate.name, candidate.package) == (
        "SparkStateful", "mutant-0007", package,
    )  # fmt: skip


def test_the_fuzzer_alone_stops_at_the_first_join_kind_that_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """One fuzz call per join kind (the candidate calls ``kjoin fuzz`` makes), none after a kill."""
    from types import SimpleNamespace

    from kjoin.conformance.differential import fuzz as fuzz_module

    tool = _tool()
    asked: list[list[str]] = []

    def fake_fuzz(candidate: object, spark: object, *, joins: list[str], shrink_failures: int) -> object:
        asked.append(joins)
        status = "fail" if joins == ["table-table"] else "pass"
        verdict = SimpleNamespace(first=SimpleNamespace(kind="wrong-value"))
        outcome = SimpleNamespace(status=status, verdict=verdict, case=SimpleNamespace(id=f"{joins[0]}-1"))
        return SimpleNamespace(outcomes=[outcome])

    monkeypatch.setattr(fuzz_module, "fuzz", fake_fuzz)
    kinds = ("stream-table", "table-table", "fk")
    assert tool._fuzz_failure(None, None, kinds) == "table-table-1: wrong-value"
    assert asked == [["stream-table"], ["table-table"]]
    asked.clear()
    assert tool._fuzz_failure(None, None, ("stream-table", "fk")) == ""
    assert asked == [["stream-table"], ["fk"]]


def _binomial_tail(killed: int, checked: int, rate: float) -> float:
    return sum(
        math.comb(checked, k) * rate**k * (1 - rate) ** (checked - k) for k in range(killed, checked + 1)
    )


@pytest.mark.parametrize(("killed", "checked"), [(29, 29), (30, 30), (28, 30), (27, 30), (1, 5)])
def test_the_clopper_pearson_bound_is_the_rate_where_as_many_kills_have_five_percent(
    killed: int, checked: int
) -> None:
    bound = _tool().clopper_pearson_lower(killed, checked)
    assert _binomial_tail(killed, checked, bound) == pytest.approx(0.05, abs=1e-9)
    if killed == checked:  # the closed form: p ** n = alpha
        assert bound == pytest.approx(0.05 ** (1 / checked))
    assert _tool().clopper_pearson_lower(0, checked) == 0.0


def test_29_of_29_killed_bounds_the_rate_at_90_2_percent() -> None:
    assert f"{_tool().clopper_pearson_lower(29, 29):.1%}" == "90.2%"


@pytest.mark.parametrize("name", ["spark-reference", "spark-stateful"])
@pytest.mark.parametrize("size", [5, 30, 60])
def test_the_stratified_sample_takes_each_module_its_share(name: str, size: int) -> None:
    tool = _tool()
    target = tool.TARGETS[name]
    points = list(enumerate(tool.mutations(sorted(target.serves), target.folder, target.python_logic), 1))
    recorded = tool.equivalents(target.section)
    real = [(n, m) for n, m in points if (m.module, m.change, m.line) not in recorded]
    args = _args(stratified=size)
    chosen = tool.selected(None, args, points, recorded)
    assert len(chosen) == size and len(set(chosen)) == size
    assert set(chosen) <= set(real)  # never a recorded equivalent
    strata = Counter(m.module for _, m in real)
    taken = Counter(m.module for _, m in chosen)
    for module, count in strata.items():
        share = size * count / len(real)
        assert math.floor(share) - 1 <= taken[module] <= math.ceil(share) + 1
        if size >= len(strata):
            assert taken[module] >= 1
    if size >= len(strata):  # in rounds: a run cut short after one round has met every module
        assert {m.module for _, m in chosen[: len(strata)]} == set(strata)
    assert tool.selected(None, args, points, recorded) == chosen  # the seed decides
    other = tool.selected(None, _args(stratified=size, seed=1), points, recorded)
    assert Counter(m.module for _, m in other) == taken and (other != chosen or size >= len(real))


def _args(stratified: int, seed: int = 20241124) -> object:
    """The parsed flags ``selected`` reads, for a stratified sample."""
    from argparse import Namespace

    return Namespace(only=None, list=False, sample=None, stratified=stratified, seed=seed)


def test_a_sampled_report_says_so_and_bounds_each_rate() -> None:
    tool = _tool()
    results = _results(tool, [(None, "tt-1: values", None)] * 29)
    report = tool.render(results, 31, catalogue=False, sample="spark-reference, a random sample of 29")
    first = report.splitlines()[0]
    assert first.startswith("A sample, not every mutant: spark-reference, a random sample of 29. ")
    assert (
        "killed 29 of 29 non-equivalent (100%), 95% lower bound 90.2% (exact one-sided Clopper-Pearson)"
        in first
    )
    assert "lower bound" not in tool.render(results, 31, catalogue=False)  # a full run is no estimate


@pytest.mark.parametrize(
    "flags",
    [
        ["--candidate", "spark-stateful", "--modules", "outer_store"],
        ["--candidate", "spark-reference", "--modules", "tables"],
        ["--sample", "3", "--stratified", "3"],
    ],
    ids=["reference-module-for-stateful", "stateful-module-for-reference", "two-samplings"],
)
def test_modules_of_another_candidate_and_two_samplings_are_usage_errors(flags: list[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        _tool().main([*flags, "--list"])
    assert raised.value.code == 2


def test_a_system_failure_is_tried_again_and_then_left_undecided_never_a_kill(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An overloaded machine (``SystemFailure`` after the harness's own retries) gives no verdict: the
    mutant is checked again from the start, and left out of the rates if the system fails every time."""
    from kjoin.conformance.harness.system_failures import SystemFailure

    tool = _tool()
    failing = {"mutant-0001": 1, "mutant-0002": 99}
    tries: list[str] = []

    def check(spark: object, result: object, candidate: object, *rest: object, **stages: bool) -> object:
        name = candidate.name  # type: ignore[attr-defined]
        tries.append(name)
        if failing[name] > 0:
            failing[name] -= 1
            raise SystemFailure("a Spark Python worker did not start in time (the machine is overloaded)")
        result.fuzz_alone = "st-1: wrong-value"  # type: ignore[attr-defined]
        return result

    monkeypatch.setattr(tool, "_check", check)
    monkeypatch.setattr(tool, "SYSTEM_PAUSES_S", (0.0, 0.0, None))
    chosen = list(enumerate(tool.mutations(["table_table"]), 1))[:2]
    results = list(
        tool.run_mutants(None, chosen, tmp_path, fuzz_survivors=False, catalogue=False, fuzz_alone=True)
    )
    assert tries == ["mutant-0001", "mutant-0001", "mutant-0002", "mutant-0002", "mutant-0002"]
    assert results[0].killed_alone and results[0].undecided is None
    assert not results[1].killed_alone and "overloaded" in results[1].undecided
    report = tool.render(results, 31, catalogue=False)
    assert "killed 1 of 1 non-equivalent (100%); 1 undecided (the system failed on every try)" in report
    assert "mutant-0002" in report.split("Undecided (no verdict: the system failed):")[1]


# --- named mutants and kill thickness (issue 23: thin kills made thick) ---


def _named() -> ModuleType:
    _tool()  # puts tools/ on sys.path
    import mutation_named

    return mutation_named


def test_every_named_mutant_applies_to_the_reference_and_still_compiles() -> None:
    tool = _tool()
    points = tool.named_points(None, [])
    assert len(points) == len(_named().load(tool.REFERENCE)) >= 4
    for number, mutation in points:
        source = (tool.REFERENCE / f"{mutation.module}.py").read_text(encoding="utf-8")
        mutated = source[: mutation.start] + mutation.replacement + source[mutation.end :]
        assert mutated != source and mutation.original == source[mutation.start : mutation.end]
        compile(mutated, f"{mutation.name}.py", "exec")  # a mutant that does not parse would be a crash
        assert number >= 9001 and mutation.change == mutation.name
        assert set(mutation.joins) <= set(tool.SERVES[mutation.module]) and mutation.joins


def test_a_named_mutant_with_two_hunks_is_one_replacement_spanning_both(tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_text("a = 1\nb = 2\nc = 3\n", encoding="utf-8")
    (tmp_path / "named.toml").write_text(
        '[[named]]\nname = "two"\nmodule = "mod"\nmistake = "m"\njoins = ["fk"]\n'
        '[[named.replace]]\nfind = "a = 1"\nwith = "a = 0"\n'
        '[[named.replace]]\nfind = "c = 3"\nwith = "c = 4"\n',
        encoding="utf-8",
    )
    (mutant,) = _named().load(tmp_path, tmp_path / "named.toml", {"mod": ("fk", "tt")})
    assert (mutant.line, mutant.original) == (1, "a = 1\nb = 2\nc = 3")
    assert mutant.replacement == "a = 0\nb = 2\nc = 4"
    assert mutant.joins == ("fk",)


@pytest.mark.parametrize(
    ("hunk", "message"),
    [
        ('find = "x = 9"\nwith = "x = 1"', "named mutant 'bad', hunk 1: 'find' occurs 0 times in mod.py"),
        ('find = " = "\nwith = "="', "named mutant 'bad', hunk 1: 'find' occurs 2 times in mod.py"),
        ('find = "a = 1"', "named mutant 'bad', hunk 1: field 'with' must be a string"),
    ],
    ids=["moved", "ambiguous", "no-with"],
)
def test_a_named_mutant_that_no_longer_applies_is_an_error_naming_it(
    tmp_path: Path, hunk: str, message: str
) -> None:
    (tmp_path / "mod.py").write_text("a = 1\nb = 2\n", encoding="utf-8")
    (tmp_path / "named.toml").write_text(
        f'[[named]]\nname = "bad"\nmodule = "mod"\nmistake = "m"\n[[named.replace]]\n{hunk}\n',
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match="named.toml: " + message):
        _named().load(tmp_path, tmp_path / "named.toml")


def test_unknown_names_and_contradicting_flags_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    for flags in (
        ["--named", "no-such-mutant"],
        ["--named", "--only", "table_table:61"],
        ["--thickness", "--fuzz-alone"],
        ["--named", "--scenarios", "scenarios/no-such-folder"],
        ["--named", "--candidate", "spark-stateful"],
        ["--named", "--stratified", "3"],
    ):
        with pytest.raises(SystemExit) as raised:
            _tool().main(flags)
        assert raised.value.code == 2
    err = capsys.readouterr().err
    assert "no such named mutant no-such-mutant" in err
    assert "no such file or folder scenarios/no-such-folder" in err


class _Case:
    def __init__(self, source: str, scenario: str) -> None:
        self.source, self.scenario = source, scenario


class _Outcome:
    def __init__(self, source: str, scenario: str, status: str) -> None:
        self.case, self.status = _Case(source, scenario), status


def test_killing_files_collects_every_failing_file_with_its_scenarios() -> None:
    outcomes = [
        _Outcome("scenarios/fk/a.toml", "fk-a", "fail"),
        _Outcome("scenarios/fk/a.toml", "fk-a", "fail"),  # another era of the same scenario
        _Outcome("scenarios/golden/3.9.jsonl", "g-1", "error"),
        _Outcome("scenarios/golden/3.9.jsonl", "g-2", "fail"),
        _Outcome("scenarios/fk/b.toml", "fk-b", "pass"),
        _Outcome("scenarios/fk/c.toml", "fk-c", "declared"),
    ]
    assert _named().killing_files(outcomes) == {
        "scenarios/fk/a.toml": {"fk-a"},
        "scenarios/golden/3.9.jsonl": {"g-1", "g-2"},
    }


def test_the_thickness_section_lists_named_mutants_and_the_thin_operator_kills() -> None:
    tool = _tool()
    (_, named), (_, other) = tool.named_points(None, [])[:2]
    operators = tool.mutations(["table_table"])[:3]
    results = [
        tool.Result(named, 9001, killed_by="catalogue", kill_files={"scenarios/fk/a.toml": {"fk-a"}}),
        tool.Result(
            other,
            9002,
            killed_by="catalogue",
            kill_files={"scenarios/fk/a.toml": {"fk-a"}, "scenarios/golden/3.9.jsonl": {"g-1", "g-2"}},
        ),
        tool.Result(operators[0], 1, killed_by="catalogue", kill_files={"scenarios/tt/x.toml": {"x"}}),
        tool.Result(operators[1], 2, killed_by="catalogue", kill_files={"a.toml": {"a"}, "b.toml": {"b"}}),
        tool.Result(operators[2], 3, killed_by=None, kill_files={}, equivalent="the reason"),
    ]
    section = tool.render(results, 5).split("## Kill thickness")[1]
    rows = {line.split("|")[1].strip(): line for line in section.splitlines() if line.startswith("| ")}
    assert "| 1 (thin) | 1 | `fk/a.toml` (1) |" in rows[named.name]
    assert "| 2 | 3 | `fk/a.toml` (1), `golden/3.9.jsonl` (2) |" in rows[other.name]
    assert "1 of 3 operator mutants are killed by exactly one file:" in section
    assert f"mutant-0001 table_table.py:{operators[0].line}" in section and "`tt/x.toml`" in section
    assert "mutant-0002" not in section and "mutant-0003" not in section


def test_only_the_fast_path_test_of_the_reference_needs_files_run_alone() -> None:
    """The thickness stage runs files alone only for mutants of the reference's one batch-dependent
    decision: the operator mutants of versioned.py's fast-path test, none of the named mutants."""
    tool = _tool()
    deciding = [m for m in tool.mutations(["versioned"]) if tool.changes_path_choice(m)]
    assert deciding and {m.line for m in deciding} <= {
        n + 1
        for n, text in enumerate((tool.REFERENCE / "versioned.py").read_text().splitlines())
        if "any_versioned" in text
    }
    assert not any(tool.changes_path_choice(m) for _, m in tool.named_points(None, []))
    assert not any(tool.changes_path_choice(m) for m in tool.mutations(["foreign_key"]))


# --- resuming a cut-short fuzzer-alone run from its progress log ---


def test_resume_takes_the_decided_verdicts_of_the_same_mutants_from_a_progress_log(tmp_path: Path) -> None:
    """Progress lines as the tool prints them are read back: a kill and a survival of the same mutant
    (number, place and change) are taken, an undecided one runs again, and a line whose change differs (a
    log of other code) or of a mutant outside the selection gives nothing."""
    tool = _tool()
    chosen = list(enumerate(tool.mutations(["table_table"]), 1))[:4]
    killed = tool.Result(chosen[0][1], 1, fuzz_alone="fuzz-tt-1[inner-4.0.1]: wrong-value (x)", seconds=83)
    survived = tool.Result(chosen[1][1], 2, fuzz_alone="", seconds=52)
    undecided = tool.Result(chosen[2][1], 3, undecided="a Spark Python worker did not start in time")
    moved = tool.Result(chosen[3][1], 4, fuzz_alone="fuzz-tt-2[left-4.0.1]: missing-output")
    lines = [tool.progress_line(n, 5, r, False) for n, r in enumerate([killed, survived, undecided], 1)]
    lines.append(tool.progress_line(4, 5, moved, False).replace(chosen[3][1].change, "< -> >"))
    lines.append(tool.progress_line(5, 5, tool.Result(chosen[0][1], 9, fuzz_alone="tt: x"), False))
    log = tmp_path / "run.log"
    log.write_text("a Spark warning] of some kind\n" + "\n".join(lines) + "\n", encoding="utf-8")
    reason = {(chosen[1][1].module, chosen[1][1].change, chosen[1][1].line): "the reason"}
    taken = tool.resumed([log], chosen, reason)
    assert sorted(taken) == [1, 2]
    assert taken[1].fuzz_alone == "fuzz-tt-1[inner-4.0.1]: wrong-value (x)" and taken[1].seconds == 83
    assert taken[2].fuzz_alone == "" and taken[2].equivalent == "the reason"
    assert all(result.resumed for result in taken.values())
    report = tool.render(list(taken.values()), 31, catalogue=False)
    assert "2 of the verdicts taken from an earlier run's log (--resume), not checked again" in report


@pytest.mark.parametrize("flags", [[], ["--fuzz-alone", "--with-catalogue"]], ids=["catalogue", "both"])
def test_resume_needs_the_fuzzer_alone_and_an_existing_log(flags: list[str], tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    log.write_text("", encoding="utf-8")
    with pytest.raises(SystemExit) as raised:
        _tool().main([*flags, "--resume", str(log), "--only", "table_table:61"])
    assert raised.value.code == 2
    with pytest.raises(SystemExit) as missing:
        _tool().main(["--fuzz-alone", "--resume", str(tmp_path / "absent.log"), "--only", "table_table:61"])
    assert missing.value.code == 2
