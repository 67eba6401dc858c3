"""Benchmark: the HTML report of a large generated results file (page sizes and rendering time).

    python -m benchmarks.report_size [--cases 5000] [--out DIR]

The results file is made without Spark: the catalogue's scenarios run as Kafka 3.9, answered by a fake
candidate that is the oracle as Kafka 3.0 (so about half the cases fail, with real divergences), copied
under new scenario ids until there are ``--cases`` cases. Prints the results file's size, the index page's
size, the number and total size of the pages, the time to build the document, and the time to read it back
and write the report (what ``kjoin report`` does).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from msgspec.structs import replace

from kjoin.conformance.catalogue import Case, case_id, load_cases
from kjoin.conformance.checker import CandidateFailure, Emitted, check
from kjoin.conformance.documents.outcomes import CaseOutcome, kafka_outputs, status_of
from kjoin.conformance.documents.results import (
    case_result,
    load_results,
    results_document,
    run_metadata,
    write_json_atomically,
)
from kjoin.oracle import behaviour_for, run
from kjoin.oracle.errors import OracleError
from kjoin.reports import write_report

__all__ = ["ANSWERED_AS", "KAFKA", "generated_cases", "main", "results_of"]

KAFKA = "3.9"
"""The Kafka version the cases run as."""
ANSWERED_AS = "3.0"
"""The Kafka version whose outputs the fake candidate returns (older: many cases fail, for real reasons)."""
FAKE_CANDIDATE = {
    "name": f"oracle-as-kafka-{ANSWERED_AS}",
    "claim": {
        "joins": ["fk", "stream-stream", "stream-table", "table-table"],
        "variants": ["inner", "left", "outer"],
        "kafka": [KAFKA],
        "stores": ["memory", "rocksdb"],
        "versioned": True,
        "stream_table_grace": True,
    },
    "declared_differences": [],
}


def generated_cases(count: int) -> list[Case]:
    """``count`` cases: the catalogue as Kafka ``KAFKA``, copied under new scenario ids (``<id>~<n>``)."""
    base = load_cases(kafka=KAFKA).cases
    cases: list[Case] = []
    copy = 0
    while len(cases) < count:
        for case in base[: count - len(cases)]:
            scenario = case.scenario if copy == 0 else f"{case.scenario}~{copy}"
            cases.append(
                replace(
                    case, scenario=scenario, id=case_id(scenario, case.variant, case.kafka, case.intended)
                )
            )
        copy += 1
    return cases


def _answer(case: Case) -> Emitted | CandidateFailure:
    """The fake candidate: the oracle's outputs for the case's inputs as Kafka ``ANSWERED_AS``."""
    try:
        outputs = run(case.spec, case.records, behaviour_for(ANSWERED_AS, intended=case.intended))
    except OracleError as error:
        return CandidateFailure(f"no such join in Kafka {ANSWERED_AS}", f"OracleError: {error}")
    return Emitted(tuple(outputs), causes_known=True)


def _outcome(case: Case) -> CaseOutcome:
    """The case checked exactly against the oracle, as the harness would."""
    expected = kafka_outputs(case)
    if isinstance(expected, str):
        return CaseOutcome(case, "not-applicable", reason=expected)
    answer = _answer(case)
    verdict = check(expected, answer, "exact")
    return CaseOutcome(case, status_of(verdict, answer, None), "exact", verdict, expected, answer)


def results_of(cases: Sequence[Case]) -> dict[str, Any]:
    """The results document of the fake candidate over ``cases`` (the harness's schema)."""
    metadata = run_metadata(master="none", kafka=KAFKA, equivalence="exact", scenarios=["(generated)"])
    return results_document(metadata, FAKE_CANDIDATE, [case_result(_outcome(case)) for case in cases])


def _megabytes(path: Path) -> float:
    files = [p for p in path.rglob("*") if p.is_file()] if path.is_dir() else [path]
    return sum(p.stat().st_size for p in files) / 1e6


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.report_size",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--cases", type=int, default=5000, help="number of cases (default 5000)")
    parser.add_argument("--out", type=Path, help="report folder (default: a temporary folder)")
    args = parser.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="kjoin-report-"))
    started = time.perf_counter()
    document = results_of(generated_cases(args.cases))
    results = out / "results.json"
    write_json_atomically(results, document)
    built = time.perf_counter()
    index = write_report(load_results(results), out / "report")  # as ``kjoin report`` does
    written = time.perf_counter()
    pages = list((out / "report").rglob("*.html"))
    statuses = ", ".join(f"{n} {status}" for status, n in document["summary"]["by_status"].items())
    lines = [
        f"cases: {len(document['cases'])} ({statuses})",
        f"results file: {_megabytes(results):.1f} MB, built in {built - started:.1f} s "
        "(oracle, checker, verdicts)",
        f"index page: {_megabytes(index):.2f} MB",
        f"pages: {len(pages)}, {_megabytes(out / 'report'):.1f} MB in total, "
        f"read and written in {written - built:.1f} s",
        f"report: {index}",
    ]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
