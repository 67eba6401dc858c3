"""``kjoin report RESULTS... [--out DIR]``: the HTML report of one or more results files of one candidate.

Several files (e.g. one per Kafka version) are merged into one document first (the document layer computes the
merged verdicts); a journal left by a killed run (``results.json.partial``) is reported as incomplete.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from kjoin.conformance.cli.common import EXIT_OK, Progress, Streams, UsageError, output_folder
from kjoin.conformance.documents.results import ResultsError, load_results, merge_documents

__all__ = ["add_command"]


def add_command(commands: Any) -> None:
    command = commands.add_parser(
        "report",
        description="Write a static HTML report (failures by kind first, the scenario x variant matrix, "
        "verdicts, a page with its timeline per scenario that needs attention) from one or more results "
        "files of one candidate.",
    )
    command.add_argument("results", nargs="+", type=Path, metavar="RESULTS", help="results files (JSON)")
    command.add_argument(
        "--out",
        type=output_folder,
        default=Path("kjoin-report"),
        metavar="DIR",
        help="output folder (default: kjoin-report)",
    )
    command.add_argument(
        "--all-pages",
        action="store_true",
        help="a page for every scenario, the passing ones too (default: only scenarios with a case that "
        "fails, errs, is declared or undecided)",
    )
    command.set_defaults(handler=_report)


def _report(args: argparse.Namespace, streams: Streams) -> int:
    from kjoin.reports import write_report

    try:
        documents = [load_results(path) for path in args.results]
        document = merge_documents(documents, [str(path) for path in args.results])
    except ResultsError as error:
        raise UsageError(f"report: {error}") from error
    with Progress(streams.stderr, "report", len(document["cases"]), unit="pages") as progress:
        index = write_report(document, args.out, progress=progress.update, all_pages=args.all_pages)
    if not document["complete"]:
        streams.stderr.write(f"kjoin: report: the run is incomplete: {document['incomplete_reason']}\n")
    streams.stdout.write(f"report written to {index}\n")
    return EXIT_OK
