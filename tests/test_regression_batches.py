"""A saved counterexample that needed its store-shape batch reproduces in ``kjoin run`` and the pytest
plugin (docs/testing.md, "Batch compositions"; docs/scenario-format.md, "Batch composition"), without
Spark: the real ``HarnessRun`` with its candidate calls answered in process by the fast-path mutant of
spark-reference (``versioned.py:136 | -> &``, docs/mutation-report.md; as in test_batch_compositions.py): a
call with no scenario versioned on both sides reads a versioned table like an unversioned one.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import pytest
from msgspec import structs

from kjoin.conformance.catalogue import Case, load_cases
from kjoin.conformance.catalogue.batches import call_shape
from kjoin.conformance.checker import Emitted
from kjoin.conformance.cli import main
from kjoin.conformance.differential.fuzz import FuzzReport, fuzz
from kjoin.conformance.differential.regressions import read_regressions, write_regression
from kjoin.conformance.documents.outcomes import Answer, kafka_outputs
from kjoin.conformance.harness import outcomes as outcomes_module
from kjoin.conformance.harness.calls import CallRecord
from kjoin.conformance.harness.compositions import STORE_SHAPE, store_shape
from kjoin.conformance.harness.outcomes import HarnessRun
from kjoin.conformance.protocol import Claim

CLAIM = Claim(
    joins=frozenset({"table-table"}),
    variants=frozenset({"inner", "left", "outer"}),
    kafka=("3.9",),
    versioned=True,
)


class _Candidate:
    name = "fast-path-mutant"
    claim = CLAIM
    declared_differences = ()


def _fast_path_answer(case: Case, batch: Sequence[Case]) -> Emitted:
    """The general path (Kafka's outputs) when some case of the call has both sides versioned, else the
    fast path: the case answered with its tables unversioned."""
    general = any(store_shape(other) == "both-versioned" for other in batch)
    run = case if general else structs.replace(case, spec=structs.replace(case.spec, versioned=None))
    emitted = kafka_outputs(run)
    assert not isinstance(emitted, str)
    return emitted


class _InProcessCaller:
    """Stands in for ``harness.calls.Caller`` (no Spark): answers each call with ``_fast_path_answer`` and
    records which case ids went into each call."""

    calls: ClassVar[list[list[str]]] = []

    def __init__(self, candidate: object, session: object, timeout: object, on_call: object = None) -> None:
        self.records: list[CallRecord] = []
        self.on_wait = None

    def answers(self, join: str, cases: Sequence[Case]) -> dict[str, Answer]:
        self.calls.append([case.id for case in cases])
        self.records.append(CallRecord(join, len(cases), "ok"))
        return {case.id: _fast_path_answer(case, cases) for case in cases}


def _no_spark() -> Any:
    raise AssertionError("the in-process caller never starts Spark")


@pytest.fixture
def in_process(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Candidate calls answered in process; the case ids of every call so far."""
    calls: list[list[str]] = []
    monkeypatch.setattr(_InProcessCaller, "calls", calls)
    monkeypatch.setattr(outcomes_module, "Caller", _InProcessCaller)
    return calls


@pytest.fixture
def report(in_process: list[list[str]]) -> FuzzReport:
    return fuzz(_Candidate(), _no_spark, kafka="3.9", joins=["table-table"])  # type: ignore[arg-type]


def test_a_saved_regression_carries_its_batch(report: FuzzReport, tmp_path: Path) -> None:
    counterexample = next(c for c in report.counterexamples if c.minimal.case.batch == STORE_SHAPE)
    minimal = counterexample.minimal.case
    path = write_regression(tmp_path, counterexample, candidate="fast-path-mutant")
    line = json.loads(path.read_text())
    assert line["batch"] == STORE_SHAPE
    assert f"in a batch of {store_shape(minimal)} scenarios only" in line["description"]
    [regression] = read_regressions(path)
    case = regression.case
    assert case.batch == STORE_SHAPE
    assert case.id == f"{line['id']}[{minimal.variant}-3.9]~{store_shape(minimal)}-batch"
    assert (case.spec, case.records) == (minimal.spec, minimal.records)
    # the same scenario saved as a joint counterexample is another file: the digest covers the batch
    joint = replace(counterexample.minimal, case=structs.replace(minimal, batch=None))
    twin = replace(counterexample, shrunk=replace(counterexample.shrunk, minimal=joint))
    other = write_regression(tmp_path, twin, candidate="fast-path-mutant")
    assert other != path and "batch" not in json.loads(other.read_text())


def test_kjoin_run_checks_a_saved_regression_in_its_shape_batch(
    report: FuzzReport, in_process: list[list[str]], tmp_path: Path
) -> None:
    counterexample = next(c for c in report.counterexamples if c.minimal.case.batch == STORE_SHAPE)
    [regression] = read_regressions(write_regression(tmp_path, counterexample, candidate="fast-path-mutant"))
    saved = regression.case
    drawn = [case for batch in report.generated for case in batch.cases]
    assert any(store_shape(case) == "both-versioned" for case in drawn)
    as_joint = structs.replace(saved, id=saved.id.rsplit("~", 1)[0], batch=None)
    in_process.clear()
    outcomes = HarnessRun(_Candidate(), _no_spark).outcomes([*drawn, as_joint, saved])  # type: ignore[arg-type]
    status = {outcome.case.id: outcome.status for outcome in outcomes}
    # beside the catalogue's both-versioned scenarios it passes; in its shape's own call it fails again
    assert status[as_joint.id] == "pass" and status[saved.id] == "fail"
    assert in_process == [[case.id for case in [*drawn, as_joint]], [saved.id]]


def test_the_harness_groups_store_shape_cases_by_shape(
    report: FuzzReport, in_process: list[list[str]]
) -> None:
    drawn = [case for batch in report.generated for case in batch.cases]
    marked = [
        structs.replace(case, id=f"{case.id}~{store_shape(case)}-batch", batch=STORE_SHAPE)
        for case in drawn
        if store_shape(case) != "both-versioned"
    ]
    in_process.clear()
    HarnessRun(_Candidate(), _no_spark).outcomes([*marked, *drawn])  # type: ignore[arg-type]
    # one call per shape, in the order of the cases, then the joint call with every drawn case unchanged
    wanted = [
        [case.id for case in marked if store_shape(case) == shape]
        for shape in dict.fromkeys(store_shape(case) for case in marked)
    ]
    assert len(wanted) == 3 and in_process == [*wanted, [case.id for case in drawn]]


def test_kjoin_check_accepts_a_saved_batch_and_names_a_bad_one(report: FuzzReport, tmp_path: Path) -> None:
    counterexample = next(c for c in report.counterexamples if c.minimal.case.batch == STORE_SHAPE)
    path = write_regression(tmp_path, counterexample, candidate="fast-path-mutant")
    for argv in (["check", str(path)], ["check", "--lint", str(path)]):
        out, err = io.StringIO(), io.StringIO()
        assert main(argv, stdout=out, stderr=err) == 0, out.getvalue() + err.getvalue()
    line = json.loads(path.read_text())
    line["batch"] = "joint"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(line) + "\n")
    for argv in (["check", str(bad)], ["check", "--lint", str(bad)]):
        out, err = io.StringIO(), io.StringIO()
        assert main(argv, stdout=out, stderr=err) == 2
        assert f"{bad}:1 [{line['id']}] field batch: 'joint' is not one of store-shape" in (
            out.getvalue() + err.getvalue()
        )
    loaded = load_cases([bad])
    assert not loaded.cases and "field batch" in str(loaded.errors[0])


def test_a_call_line_names_its_store_shape_batch_and_counts_in_words(report: FuzzReport) -> None:
    drawn = [case for batch in report.generated for case in batch.cases]
    one = next(case for case in drawn if store_shape(case) == "left-versioned")
    marked = structs.replace(one, id=f"{one.id}~left-versioned-batch", batch=STORE_SHAPE)
    assert call_shape([marked]) == "left-versioned" and call_shape([marked, one]) is None
    assert call_shape(drawn) is None and call_shape([]) is None
    shaped = CallRecord("table-table", 1, "ok", seconds=4.25, jobs=3, shape=call_shape([marked]))
    assert (
        shaped.line()
        == "table-table (left-versioned batch): 1 case in one candidate call (3 Spark jobs, 4.2 s)"
    )
    joint = CallRecord("table-table", 2, "timeout", seconds=1.0)
    assert joint.line() == "table-table: 2 cases in one candidate call (? Spark jobs, 1.0 s): timeout"
    assert shaped.to_json()["batch"] == "left-versioned" and joint.to_json()["batch"] is None  # as documented
