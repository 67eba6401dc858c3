"""``kjoin compare OLD NEW [--out DIR]``: which cases improved, regressed or changed between two runs.

Exit 1 when a case regressed (so CI can gate on it), 2 when a results file cannot be read.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from kjoin.conformance.cli.common import (
    EXIT_DIFFERS,
    EXIT_OK,
    Streams,
    UsageError,
    output_folder,
    terminal_text,
)
from kjoin.conformance.documents.comparison import compare_documents, has_regressions, render_comparison
from kjoin.conformance.documents.results import ResultsError, load_results

__all__ = ["add_command"]


def add_command(commands: Any) -> None:
    command = commands.add_parser(
        "compare",
        description="Compare two runs' results files; exit 1 when a case regressed.",
    )
    command.add_argument("old", type=Path, metavar="OLD", help="the earlier results file")
    command.add_argument("new", type=Path, metavar="NEW", help="the later results file")
    command.add_argument("--out", type=output_folder, metavar="DIR", help="also write DIR/compare.html")
    command.add_argument("--show", type=int, default=20, metavar="N", help="cases listed per category")
    command.set_defaults(handler=_compare)


def _compare(args: argparse.Namespace, streams: Streams) -> int:
    try:
        old, new = load_results(args.old), load_results(args.new)
    except ResultsError as error:
        raise UsageError(f"compare: {error}") from error
    comparison = compare_documents(old, new, old_label=str(args.old), new_label=str(args.new))
    streams.stdout.write(terminal_text(render_comparison(comparison, show=args.show)))
    if args.out is not None:
        from kjoin.reports import write_comparison

        streams.stdout.write(f"comparison written to {write_comparison(comparison, args.out)}\n")
    return EXIT_DIFFERS if has_regressions(comparison) else EXIT_OK
