"""Benchmark: the HTML report of a large generated results file (page sizes and rendering time).

    python -m benchmarks.report_size [--cases 5000] [--out DIR]

The results file is made without Spark: the catalogue's scenarios run as Kafka 3.9, answered by a fake
candidate that is the oracle as Kafka 3.0 (so about half the cases fail, with real divergences), copied
under new scenario ids until there are ``--cases`` cases. Prints the results file's size, the index page's
size, the number and total size of the pages, and the time to build the document and to write the report.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from kjoin.conformance.documents.results import write_results
from kjoin.conformance.harness.cases import Case, case_id, load_cases
from kjoin.reports import write_report
from support.report_documents import answered_by_version, document_of, outcome_of

__all__ = ["generated_cases", "main"]


def generated_cases(count: int) -> list[Case]:
    """``count`` cases: the catalogue as Kafka 3.9, copied under new scenario ids (``<id>~<n>``)."""
    base = load_cases(kafka="3.9").cases
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
    answer = answered_by_version("3.0")
    document = document_of(outcome_of(case, answer(case)) for case in generated_cases(args.cases))
    results = out / "results.json"
    write_results(results, document)
    built = time.perf_counter()
    index = write_report(results, out / "report")
    written = time.perf_counter()
    pages = list((out / "report").rglob("*.html"))
    statuses = ", ".join(f"{n} {status}" for status, n in document["summary"].items())
    lines = [
        f"cases: {len(document['cases'])} ({statuses})",
        f"results file: {_megabytes(results):.1f} MB, built in {built - started:.1f} s "
        "(oracle, checker, verdicts)",
        f"index page: {_megabytes(index):.2f} MB",
        f"pages: {len(pages)}, {_megabytes(out / 'report'):.1f} MB in total, "
        f"written in {written - built:.1f} s",
        f"report: {index}",
    ]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
