"""docs/results-schema.json against what the writer writes: results documents written by ``ResultsJournal``
(as ``kjoin run`` writes them, with the run's real metadata) over catalogue cases of every status, read back
from a killed run's journal, and merged; its closed lists against the checker's, the harness's and the
oracle's. On real Spark, tests/test_reports_run.py checks the files ``kjoin run`` and the pytest plugin write.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from kjoin.conformance.catalogue import Case, load_cases
from kjoin.conformance.catalogue.batches import STORE_SHAPES
from kjoin.conformance.checker import MODES
from kjoin.conformance.documents.outcomes import EQUIVALENCES, CaseOutcome
from kjoin.conformance.documents.results import (
    ResultsJournal,
    candidate_json,
    case_result,
    load_results,
    merge_documents,
    run_metadata,
)
from kjoin.conformance.documents.vocabulary import KIND_ORDER, OUTCOME_STATUSES
from kjoin.conformance.harness.calls import CallRecord
from kjoin.conformance.protocol import DeclaredDifference
from kjoin.oracle.records import JOIN_KINDS, VARIANTS
from kjoin.scenarios import CATALOGUE_ROOT
from support.report_documents import FakeCandidate, answered_by_version, outcome_of
from support.results_schema import schema, schema_errors

SOURCES = [
    CATALOGUE_ROOT / "stream_stream" / "kip77-current.toml",  # KIP-77's tables: held outer results
    CATALOGUE_ROOT / "foreign_key",  # errata, references, versioned tables (an error before Kafka 3.5)
    CATALOGUE_ROOT / "stream_table",
]
DECLARED = DeclaredDifference(scenario="*kip77*", reason="a planted declared difference", kafka=("3.9",))


def _outcomes(cases: tuple[Case, ...]) -> list[CaseOutcome]:
    """Every status a run gives: the oracle as Kafka 2.8 answers (pass, fail, declared, error where 2.8 has no
    such join), some without the emitting input (multiset), one not claimed, one not applicable."""
    answer, no_causes = answered_by_version("2.8"), answered_by_version("2.8", causes=False)
    outcomes = [CaseOutcome(cases[0], "not-claimed", reason="not claimed: stream-stream joins")]
    outcomes.append(CaseOutcome(cases[1], "not-applicable", reason="not applicable: no such join"))
    for index, case in enumerate(cases[2:]):
        declared = DECLARED if "kip77" in case.scenario else None
        given = no_causes(case) if index % 4 == 0 else answer(case)
        outcomes.append(outcome_of(case, given, mode="exact", declared=declared))
    return outcomes


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two results files as ``kjoin run`` writes them (each half of the cases), and a killed run's journal."""
    folder = tmp_path_factory.mktemp("results")
    cases = tuple(case for case in load_cases(SOURCES).cases if case.kafka in ("0.10.1", "2.4", "3.5", "3.9"))
    outcomes = _outcomes(cases)
    run = run_metadata(
        master="local[2]", kafka=None, equivalence="auto", scenarios=[str(s) for s in SOURCES], timeout_s=60.0
    )
    candidate = candidate_json(FakeCandidate(declared_differences=(DECLARED,)))
    for half in (0, 1):
        journal = ResultsJournal(folder / f"results-{half}.json", run, candidate)
        for outcome in outcomes[half::2]:
            journal.add(case_result(outcome))
        journal.add_call(CallRecord("fk", 3, "ok").to_json())
        journal.add_call(
            CallRecord("fk", 1, "error", "ValueError", stderr="boom", shape=STORE_SHAPES[half]).to_json()
        )
        journal.finish()
    killed = ResultsJournal(folder / "killed.json", run, candidate)
    for outcome in outcomes[:5]:
        killed.add(case_result(outcome))
    killed.add_call({"join": "fk", "cases": 5, "status": "ok", "message": "", "stdout": "", "stderr": ""})
    return folder / "results-0.json", folder / "results-1.json"


def _read(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


def test_written_results_documents_follow_the_schema(written: tuple[Path, Path]) -> None:
    for path in written:
        document = _read(path)
        assert not schema_errors(document), schema_errors(document)[:5]
    statuses = {case["status"] for path in written for case in _read(path)["cases"]}
    assert statuses == {"pass", "fail", "declared", "error", "not-claimed", "not-applicable"}
    cases = [case for path in written for case in _read(path)["cases"]]
    assert any(case["explanation"] for case in cases) and any(case["about"] for case in cases)
    assert any(case["timeline"] for case in cases) and any(case["mode"] == "multiset" for case in cases)


def test_documents_read_back_follow_the_schema(written: tuple[Path, Path]) -> None:
    """What ``kjoin report`` reads: a killed run's journal as an incomplete document (its call recorded as
    kjoin did before calls said their batch), and several files merged into one."""
    killed = load_results(written[0].with_name("killed.json.partial"))
    assert not killed["complete"] and len(killed["cases"]) == 5
    assert [call["cases"] for call in killed["calls"]] == [5] and "batch" not in killed["calls"][0]
    assert not schema_errors(killed), schema_errors(killed)[:5]
    merged = merge_documents([load_results(path) for path in written], [str(path) for path in written])
    assert merged["run"]["merged_from"] == [str(path) for path in written]
    assert not schema_errors(merged), schema_errors(merged)[:5]
    assert [call["batch"] for call in merged["calls"]] == [None, STORE_SHAPES[0], None, STORE_SHAPES[1]]


def test_schema_rejects_what_the_writer_never_writes(written: tuple[Path, Path]) -> None:
    """Broken fields of a case, read back with its pooled values in place (and a broken pool entry)."""
    document = load_results(written[0])
    failing = next(case for case in document["cases"] if case["first_divergence"])
    index = document["cases"].index(failing)
    broken: list[tuple[str, Any]] = []
    for path, value in [
        (("version",), 1),
        (("cases", index, "status"), "passed"),
        (("cases", index, "divergences", 0, "kind"), "wrong-key"),
        (("cases", index, "records", 0, "side"), "middle"),
        (("cases", index, "expected", 0, "value"), ["L1"]),
        (("cases", index, "first_divergence", "extra"), 1),
        (("summary", "by_status", "passed"), 3),
        (("run", "equivalence"), "fuzzy"),
        (("calls", 1, "batch"), "store-shape"),
    ]:
        changed = copy.deepcopy(document)
        target = changed
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value
        broken.append((str(path), changed))
    without_id = copy.deepcopy(document)
    del without_id["cases"][index]["id"]
    broken.append(("no id", without_id))
    pooled = _read(written[0])
    pooled["pools"]["records"][0][0]["side"] = "middle"
    broken.append(("a pooled record", pooled))
    pooled = _read(written[0])
    pooled["cases"][index]["records"] = -1
    broken.append(("a negative pool index", pooled))
    for name, changed in broken:
        assert schema_errors(changed), name


def test_schema_closed_lists_are_the_projects() -> None:
    definitions = schema()["$defs"]
    assert tuple(definitions["status"]["enum"]) == OUTCOME_STATUSES
    assert tuple(definitions["divergence_kind"]["enum"]) == KIND_ORDER
    assert tuple(definitions["join"]["enum"]) == JOIN_KINDS
    assert tuple(definitions["variant"]["enum"]) == VARIANTS
    assert tuple(definitions["mode"]["enum"]) == MODES
    assert tuple(definitions["store_shape"]["enum"]) == STORE_SHAPES
    assert tuple(definitions["run"]["properties"]["equivalence"]["enum"]) == EQUIVALENCES
