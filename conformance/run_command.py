"""``kjoin run``: check a candidate against the oracle over the catalogue (the product's main job).

    kjoin run --candidate NAME [--kafka VERSION] [--scenarios PATH ...] [--results FILE]
              [--spark-master URL] [--equivalence MODE] [--show N]

Exit codes: 0 when every claimed case agrees (declared differences included), 1 when any differs (or a
strict declared difference does not show), 2 on usage or input errors (unknown candidate, unreadable or
invalid scenario files; the other cases still run and are reported).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Protocol, TextIO

from kjoin.conformance.candidate import CandidateLoadError, load_candidate
from kjoin.conformance.harness.cases import load_cases
from kjoin.conformance.harness.outcomes import EQUIVALENCES, CaseOutcome, HarnessRun
from kjoin.conformance.harness.render import render_outcome, render_summary
from kjoin.conformance.harness.results import case_result, results_document, run_metadata, write_results
from kjoin.conformance.harness.spark_session import resolve_master, start_session

__all__ = ["add_run_command"]

EXIT_OK = 0
EXIT_DIFFERS = 1
EXIT_USAGE = 2


class _Streams(Protocol):
    stdout: TextIO
    stderr: TextIO


def add_run_command(commands: Any) -> None:
    """Register ``run`` on the ``kjoin`` subcommand parsers."""
    run = commands.add_parser(
        "run",
        help="check a candidate implementation against Kafka Streams semantics (runs Spark)",
        description="Run a candidate over the scenario catalogue in a few Spark jobs (one candidate call per "
        "join kind) and compare every claimed scenario with the oracle.",
    )
    run.add_argument("--candidate", required=True, metavar="NAME",
                     help="module:attr or a registered name (kjoin.candidates), e.g. spark-native")
    run.add_argument("--kafka", metavar="VERSION", help="check every scenario as this Kafka version")
    run.add_argument("--scenarios", nargs="+", type=Path, metavar="PATH",
                     help=".jsonl (portable, as for 'kjoin oracle --jsonl') or .toml files, or folders "
                     "(default: the bundled catalogue)")
    run.add_argument("--results", type=Path, metavar="FILE", help="write the results as JSON (kjoin-results)")
    run.add_argument("--spark-master", metavar="URL", help="default: $KJOIN_SPARK_MASTER, else local[*]")
    run.add_argument("--equivalence", choices=EQUIVALENCES, default="auto",
                     help="auto: exact if the candidate reports idx, else multiset")
    run.add_argument("--show", type=int, default=5, metavar="N", help="failing cases shown in full")
    run.set_defaults(handler=_run)


def _run(args: argparse.Namespace, streams: _Streams) -> int:
    try:
        candidate = load_candidate(args.candidate)
    except CandidateLoadError as error:
        streams.stderr.write(f"kjoin: run: --candidate: {error}\n")
        return EXIT_USAGE
    case_set = load_cases(args.scenarios, kafka=args.kafka)
    for message in case_set.errors:
        streams.stderr.write(f"kjoin: run: {message}\n")
    if not case_set.cases:
        streams.stderr.write("kjoin: run: no scenarios to run\n")
        return EXIT_USAGE
    master = resolve_master(args.spark_master)
    harness = HarnessRun(candidate, lambda: start_session(master), equivalence=args.equivalence)
    outcomes = harness.outcomes(case_set.cases)
    streams.stdout.write(_report(candidate.name, outcomes, harness, show=args.show))
    if args.results is not None:
        metadata = run_metadata(
            master=master, kafka=args.kafka, equivalence=args.equivalence,
            scenarios=[str(p) for p in args.scenarios] if args.scenarios else ["(bundled catalogue)"],
        )
        write_results(args.results, results_document(metadata, candidate, (case_result(o) for o in outcomes)))
        streams.stdout.write(f"results written to {args.results}\n")
    if case_set.errors:
        return EXIT_USAGE
    return EXIT_DIFFERS if any(outcome.failing for outcome in outcomes) else EXIT_OK


def _report(name: str, outcomes: list[CaseOutcome], harness: HarnessRun, *, show: int) -> str:
    lines = [f"candidate {name}", render_summary(outcomes), ""]
    for batch in harness.batches:
        jobs = "?" if batch.jobs is None else batch.jobs
        lines.append(f"{batch.join}: {batch.cases} cases in one candidate call ({jobs} Spark jobs)")
    declared: dict[str, int] = {}
    for outcome in outcomes:
        if outcome.status == "declared" and outcome.declared is not None:
            declared[outcome.declared.reason] = declared.get(outcome.declared.reason, 0) + 1
    if declared:
        lines += ["", "declared differences that showed up:"]
        lines += [f"  {count} x {reason}" for reason, count in declared.items()]
    failing = [outcome for outcome in outcomes if outcome.failing]
    for outcome in failing[:show]:
        lines += ["", render_outcome(outcome)]
    if len(failing) > show:
        lines += ["", f"... and {len(failing) - show} more failing cases (--show N, or --results FILE)"]
    return "\n".join(lines) + "\n"
