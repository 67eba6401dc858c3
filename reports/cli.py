"""The report subcommands of ``kjoin`` (registered by ``conformance/cli.py``).

* ``kjoin report RESULTS... [--out DIR]``: the HTML report of one or more results files of one candidate.
* ``kjoin diff-versions A B [--scenarios PATH ...] [--id GLOB ...] [--out DIR]``: what changes between two
  Kafka versions, from the oracle alone (KIP-77's "current vs suggested" tables for any scenario).
* ``kjoin compare OLD NEW [--out DIR]``: run-to-run comparison of two results files.
* ``kjoin run ... --report DIR``: also write the run's report (results go to ``DIR/results.json`` unless
  ``--results`` says otherwise).

Exit codes: 0 ok, 1 ``compare`` found regressions, 2 usage or input error (the message names the file and
field).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, Protocol, TextIO

from kjoin.reports.compare import compare_results, has_regressions, render_compare_page, render_compare_text
from kjoin.reports.document import ReportInputError, load_results, merge_results
from kjoin.reports.era_diff import EraDiffError, write_era_diff
from kjoin.reports.write import write_pages, write_report

__all__ = ["add_report_commands", "add_report_option_to_run"]

EXIT_OK = 0
EXIT_REGRESSED = 1
EXIT_USAGE = 2


class _Streams(Protocol):
    stdout: TextIO
    stderr: TextIO


Handler = Callable[[argparse.Namespace, _Streams], int]


def add_report_commands(commands: Any) -> None:
    """Register ``report``, ``diff-versions`` and ``compare`` on the ``kjoin`` subcommand parsers."""
    report = commands.add_parser(
        "report", help="write the HTML report of results files",
        description="Write a static HTML report (index page with the scenario x variant matrix and the "
        "verdict, one page per scenario) from one or more results files of one candidate.",
    )
    report.add_argument("results", nargs="+", type=Path, metavar="RESULTS", help="results files (JSON)")
    report.add_argument("--out", type=Path, default=Path("kjoin-report"), metavar="DIR",
                        help="output folder (default: kjoin-report)")
    report.set_defaults(handler=_report)

    diff = commands.add_parser(
        "diff-versions", help="what changes between two Kafka versions (oracle only)",
        description="Run every scenario as Kafka A and as Kafka B and write KIP-77-style comparison pages "
        "(outputs only A emits on red, only B emits on green).",
    )
    diff.add_argument("older", metavar="A", help="a Kafka version, e.g. 0.10.1")
    diff.add_argument("newer", metavar="B", help="a Kafka version, e.g. 0.10.2")
    diff.add_argument("--scenarios", nargs="+", type=Path, metavar="PATH",
                      help=".jsonl or .toml files or folders (default: the bundled catalogue)")
    diff.add_argument("--id", nargs="+", dest="ids", metavar="GLOB", help="only scenarios whose id matches")
    diff.add_argument("--out", type=Path, metavar="DIR", help="output folder (default: kjoin-diff-A-vs-B)")
    diff.add_argument("--show", type=int, default=20, metavar="N", help="differing scenarios listed")
    diff.set_defaults(handler=_diff_versions)

    compare = commands.add_parser(
        "compare", help="compare two results files: improved, regressed, changed",
        description="Compare two runs' results files; exit 1 when a case regressed.",
    )
    compare.add_argument("old", type=Path, metavar="OLD", help="the earlier results file")
    compare.add_argument("new", type=Path, metavar="NEW", help="the later results file")
    compare.add_argument("--out", type=Path, metavar="DIR", help="also write DIR/compare.html")
    compare.add_argument("--show", type=int, default=20, metavar="N", help="cases listed per category")
    compare.set_defaults(handler=_compare)


def add_report_option_to_run(commands: Any) -> None:
    """Give ``kjoin run`` (``conformance/run_command.py``) a ``--report DIR`` option: after the run, its
    results file (``DIR/results.json`` unless ``--results`` is given) is rendered into ``DIR``."""
    run = commands.choices["run"]
    run.add_argument("--report", type=Path, metavar="DIR",
                     help="write the HTML report here (and the results to DIR/results.json unless --results)")
    run.set_defaults(handler=partial(_run_with_report, run.get_default("handler")))


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return (stat.st_mtime_ns, stat.st_size)


def _run_with_report(run: Handler, args: argparse.Namespace, streams: _Streams) -> int:
    if args.report is None:
        return run(args, streams)
    if args.results is None:
        args.results = args.report / "results.json"
    before = _stamp(args.results)
    code = run(args, streams)
    if _stamp(args.results) in (None, before):  # the run wrote no results (e.g. a usage error)
        return code
    try:
        index = write_report(args.results, args.report)
    except ReportInputError as error:
        streams.stderr.write(f"kjoin: run: --report: {error}\n")
        return EXIT_USAGE
    streams.stdout.write(f"report written to {index}\n")
    return code


def _report(args: argparse.Namespace, streams: _Streams) -> int:
    try:
        index = write_report(args.results, args.out)
    except ReportInputError as error:
        streams.stderr.write(f"kjoin: report: {error}\n")
        return EXIT_USAGE
    streams.stdout.write(f"report written to {index}\n")
    return EXIT_OK


def _diff_versions(args: argparse.Namespace, streams: _Streams) -> int:
    out = args.out or Path(f"kjoin-diff-{args.older}-vs-{args.newer}")
    try:
        done = write_era_diff(args.older, args.newer, out, paths=args.scenarios, ids=args.ids)
    except EraDiffError as error:
        streams.stderr.write(f"kjoin: diff-versions: {error}\n")
        return EXIT_USAGE
    for message in done.errors:
        streams.stderr.write(f"kjoin: diff-versions: {message}\n")
    differing = [diff for diff in done.diffs if diff.differs]
    streams.stdout.write(f"Kafka {args.older} vs {args.newer}: {len(done.diffs)} scenarios, "
                         f"{len(differing)} with different outputs\n")
    for diff in differing[: args.show]:
        variants = ", ".join(v.label for v in diff.variants if v.status == "differs")
        streams.stdout.write(f"  {diff.scenario}: {variants}\n")
    if len(differing) > args.show:
        streams.stdout.write(f"  ... and {len(differing) - args.show} more\n")
    streams.stdout.write(f"pages written to {done.index}\n")
    return EXIT_OK


def _compare(args: argparse.Namespace, streams: _Streams) -> int:
    try:
        old = merge_results([load_results(args.old)])
        new = merge_results([load_results(args.new)])
    except ReportInputError as error:
        streams.stderr.write(f"kjoin: compare: {error}\n")
        return EXIT_USAGE
    comparison = compare_results(old, new)
    streams.stdout.write(render_compare_text(comparison, show=args.show))
    if args.out is not None:
        write_pages({"compare.html": render_compare_page(comparison)}, args.out)
        streams.stdout.write(f"comparison written to {args.out / 'compare.html'}\n")
    return EXIT_REGRESSED if has_regressions(comparison.changes) else EXIT_OK
