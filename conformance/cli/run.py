"""``kjoin run``: check a candidate against the oracle over the catalogue (the product's main job).

    kjoin run --candidate NAME [--kafka VERSION] [--scenarios PATH ...] [--results FILE]
              [--report DIR [--all-pages]] [--spark-master URL] [--equivalence MODE] [--timeout SECONDS]
              [--show N]
              [--through-kafka [--kafka-broker-version VERSION] [--kafka-feed stepped|backlog]]
              [--steps-per-batch 1,2,8,random:SEED]

The candidate runs once per join kind over every claimed case of that kind (a few Spark jobs, never one per
scenario; a saved counterexample that states a store-shape ``batch`` gets a call with its shape's cases,
docs/testing.md, "Batch compositions"); each finished case goes to the results journal at once, so an
interrupted or crashed run keeps what it finished and says it is incomplete. Exit codes (``cli.common``):
0 every claimed case agrees, 1 a case differs, 2 input or usage errors (the valid cases still run), 3 the
run could not complete.
"""

from __future__ import annotations

import argparse
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from kjoin.conformance.catalogue import Case, load_cases
from kjoin.conformance.cli.common import (
    EXIT_DIFFERS,
    EXIT_INCOMPLETE,
    EXIT_OK,
    EXIT_USAGE,
    Progress,
    Streams,
    UsageError,
    output_file,
    output_folder,
    seconds,
    version_argument,
    worst,
)
from kjoin.conformance.documents.diagnosis import diagnose, roll_up
from kjoin.conformance.documents.outcomes import EQUIVALENCES, CaseOutcome
from kjoin.conformance.documents.results import ResultsJournal, candidate_json, case_result, run_metadata
from kjoin.conformance.harness.batching import Stop
from kjoin.conformance.harness.calls import CallProgress
from kjoin.conformance.harness.claims import ClaimedCases, as_claimed
from kjoin.conformance.harness.interrupts import signal_point, signals_held, stop_on_signals
from kjoin.conformance.harness.micro_batches import (
    NOT_STREAMING,
    Split,
    is_micro_batched,
    parse_splits,
    split_cases,
    with_default_split,
)
from kjoin.conformance.harness.outcomes import HarnessRun
from kjoin.conformance.harness.spark_session import keep_traceback, resolve_master, start_session
from kjoin.conformance.harness.system_failures import SystemFailure, one_line
from kjoin.conformance.harness.text import render_diagnosis, render_outcome, render_ran_as, render_summary
from kjoin.conformance.protocol import Candidate, CandidateLoadError, load_candidate, ran_as
from kjoin.oracle.records import JOIN_KINDS

__all__ = ["add_command"]

DEFAULT_TIMEOUT = 1800.0
"""Seconds one candidate call may take before it is cancelled (sized for a busy 2-core machine)."""


def add_command(commands: Any) -> None:
    command = commands.add_parser(
        "run",
        description="Run a candidate over the scenario catalogue in a few Spark jobs (one candidate call per "
        "join kind) and compare every claimed scenario with the oracle.",
    )
    command.add_argument(
        "--candidate",
        required=True,
        metavar="NAME",
        help="module:attr or a registered name (kjoin.candidates), e.g. spark-reference",
    )
    command.add_argument(
        "--kafka", metavar="VERSION", type=version_argument, help="check every scenario as this Kafka version"
    )
    command.add_argument(
        "--scenarios",
        nargs="+",
        type=Path,
        metavar="PATH",
        help=".toml or .jsonl files or folders (default: the bundled catalogue)",
    )
    command.add_argument(
        "--results", type=output_file, metavar="FILE", help="write the results (kjoin-results JSON)"
    )
    command.add_argument(
        "--report",
        type=output_folder,
        metavar="DIR",
        help="write the HTML report here (and the results to DIR/results.json unless --results)",
    )
    command.add_argument(
        "--all-pages",
        action="store_true",
        help="with --report: a page for every scenario, the passing ones too (default: only scenarios that "
        "need attention)",
    )
    command.add_argument("--spark-master", metavar="URL", help="default: $KJOIN_SPARK_MASTER, else local[*]")
    command.add_argument(
        "--equivalence",
        choices=EQUIVALENCES,
        default="auto",
        help="auto: exact if the candidate reports idx, else multiset",
    )
    command.add_argument(
        "--timeout",
        type=seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"cancel a candidate call after this long (default {DEFAULT_TIMEOUT:.0f})",
    )
    command.add_argument("--show", type=int, default=5, metavar="N", help="failing cases shown in full")
    command.add_argument(
        "--through-kafka",
        action="store_true",
        help="end to end: start a local Kafka broker, produce the cases to real topics (in Kafka's "
        "processing order), run the candidate's job on Spark's Kafka source, read its output topic back "
        "(a streaming_candidate job or spark-stateful; docs/end-to-end.md)",
    )
    command.add_argument(
        "--kafka-broker-version",
        metavar="VERSION",
        default=None,
        help="the broker's Kafka release with --through-kafka (default 4.3.1)",
    )
    command.add_argument(
        "--kafka-feed",
        choices=("stepped", "backlog"),
        default=None,
        help="with --through-kafka and a streaming_candidate job: produce one processing step per "
        "micro-batch (stepped, the default) or everything before the job starts (backlog)",
    )
    command.add_argument(
        "--steps-per-batch",
        type=_splits,
        metavar="SPLITS",
        help="a streaming candidate only: run every case under each micro-batch split, e.g. 1,2,8,random:7 "
        "(N records per micro-batch, or a seeded random split; docs/streaming.md#micro-batch-splits)",
    )
    command.set_defaults(handler=_run)


def _splits(text: str) -> tuple[Split, ...]:
    try:
        return parse_splits(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _run(args: argparse.Namespace, streams: Streams) -> int:
    try:
        candidate = load_candidate(args.candidate)
    except CandidateLoadError as error:
        raise UsageError(f"run: --candidate: {error}") from error
    loaded = load_cases(args.scenarios, kafka=args.kafka)
    for problem in loaded.errors:
        streams.stderr.write(f"kjoin: run: {problem}\n")
    if not loaded.cases:
        streams.stderr.write("kjoin: run: no valid scenarios to run\n")
        return EXIT_USAGE
    kafka_options = {"--kafka-broker-version": args.kafka_broker_version, "--kafka-feed": args.kafka_feed}
    for option, value in kafka_options.items():
        if value is not None and not args.through_kafka:
            raise UsageError(f"run: {option} needs --through-kafka")
    if args.steps_per_batch and not is_micro_batched(candidate):
        raise UsageError(f"run: --steps-per-batch: {NOT_STREAMING.format(name=candidate.name)}")
    if args.steps_per_batch and args.through_kafka:
        raise UsageError(
            "run: --steps-per-batch: the job reads what Kafka delivers (not with --through-kafka)"
        )
    # with --kafka every case already runs as that release; else each claimed era runs as what it claims
    claimed = ClaimedCases(loaded.cases, 0) if args.kafka else as_claimed(candidate.claim, loaded.cases)
    if not args.through_kafka:
        split = (
            split_cases(claimed.cases, args.steps_per_batch)
            if args.steps_per_batch
            else with_default_split(claimed.cases, candidate)
        )
        claimed = ClaimedCases(tuple(split), claimed.folded)
    if not args.through_kafka:
        return _run_cases(args, streams, candidate, claimed, bool(loaded.errors))
    from kjoin.conformance.endtoend.run import through_kafka
    from kjoin.conformance.kafka.broker import DEFAULT_BROKER
    from kjoin.conformance.kafka.maven import MavenError

    try:
        broker = args.kafka_broker_version or DEFAULT_BROKER
        with through_kafka(candidate, claimed.cases, broker, args.kafka_feed or "stepped") as kafka:
            provenance = kafka.provenance()
            streams.stderr.write(
                f"kjoin: run: through Kafka {kafka.broker} (spark-sql-kafka {kafka.connector}, "
                f"feed: {provenance['feed']})\n"
            )
            return _run_cases(
                args,
                streams,
                kafka.candidate,
                ClaimedCases(kafka.cases, claimed.folded),
                bool(loaded.errors),
                spark_conf=kafka.spark_conf,
                through_kafka=provenance,
            )
    except MavenError as error:  # EndToEndError, or Java or Maven missing
        raise UsageError(f"run: --through-kafka: {error}") from error


def _run_cases(
    args: argparse.Namespace,
    streams: Streams,
    candidate: Candidate,
    claimed: ClaimedCases,
    input_errors: bool,
    spark_conf: dict[str, str] | None = None,
    through_kafka: dict[str, Any] | None = None,
) -> int:
    cases = claimed.cases
    results_path = args.results or (args.report / "results.json" if args.report else None)
    master = resolve_master(args.spark_master)
    scenarios = [str(p) for p in args.scenarios] if args.scenarios else ["(bundled catalogue)"]
    metadata = run_metadata(
        master=master,
        kafka=args.kafka,
        equivalence=args.equivalence,
        scenarios=scenarios,
        timeout_s=args.timeout,
        through_kafka=through_kafka,
    )
    journal = (
        None if results_path is None else ResultsJournal(results_path, metadata, candidate_json(candidate))
    )
    harness = HarnessRun(
        candidate,
        lambda: start_session(master, conf=spark_conf),
        equivalence=args.equivalence,
        timeout=args.timeout,
        on_call=None if journal is None else _journaled(journal),
    )
    outcomes: list[CaseOutcome] = []
    with stop_on_signals():
        stopped = _check_all(harness, cases, streams, journal, outcomes)
        document: dict[str, Any] | None = None
        try:
            with signals_held():  # what finished is written first; a signal meanwhile stops what follows
                streams.stdout.write(
                    _report(candidate, outcomes, harness, show=args.show, folded=claimed.folded)
                )
                if stopped is not None:
                    finished = f"{len(outcomes)} of {len(cases)} cases finished"
                    streams.stderr.write(f"kjoin: run: {stopped}; {finished}\n")
                document = None if journal is None else _write_results(journal, stopped, streams)
                if journal is not None and document is None:
                    stopped = stopped or "the results could not be written"
            if document is not None and args.report is not None:
                _write_report(document, args.report, streams, all_pages=args.all_pages)
        except (KeyboardInterrupt, Stop) as error:
            late = str(error) or "interrupted by SIGINT (Ctrl-C)"
            where = "" if results_path is None else f" (kjoin report {results_path} --out DIR writes it)"
            streams.stderr.write(f"kjoin: run: {late} before the report was written{where}\n")
            stopped = stopped or late
    failing = any(outcome.status in ("fail", "unexpected-pass") for outcome in outcomes)
    incomplete = stopped is not None or any(outcome.status == "error" for outcome in outcomes)
    return worst(
        EXIT_DIFFERS if failing else EXIT_OK,
        EXIT_USAGE if input_errors else EXIT_OK,
        EXIT_INCOMPLETE if incomplete else EXIT_OK,
    )


def _journaled(journal: ResultsJournal) -> Callable[[dict[str, Any]], None]:
    """Keep each candidate call's record in the journal (a test may signal the run right after it)."""

    def add(call: dict[str, Any]) -> None:
        journal.add_call(call)
        signal_point("call-finished")

    return add


def _check_all(
    harness: HarnessRun,
    cases: tuple[Case, ...],
    streams: Streams,
    journal: ResultsJournal | None,
    outcomes: list[CaseOutcome],
) -> str | None:
    """Check every case into ``outcomes`` (and the journal); why the run stopped early, or ``None``."""
    try:
        for outcome in _checked(harness, cases, streams):
            outcomes.append(outcome)
            if journal is not None:
                journal.add(case_result(outcome))
    except KeyboardInterrupt:
        return "interrupted by SIGINT (Ctrl-C)"
    except (Stop, SystemFailure) as error:
        return str(error)
    except Exception as error:  # the harness itself failed: keep what finished, say why, exit 3
        log = keep_traceback(traceback.format_exc())
        return f"the harness crashed: {one_line(error)} (its traceback: {log})"
    return None


def _write_results(journal: ResultsJournal, stopped: str | None, streams: Streams) -> dict[str, Any] | None:
    """The final results document, written; ``None`` (and why, naming the journal kept) if it cannot be."""
    signal_point("results-writing")
    try:
        document = journal.finish(complete=stopped is None, reason=stopped)
    except OSError as error:
        streams.stderr.write(
            f"kjoin: run: cannot write {journal.path}: {error}; what finished is in {journal.journal} "
            "(kjoin report reads it)\n"
        )
        return None
    streams.stdout.write(f"results written to {journal.path}\n")
    return document


def _write_report(document: dict[str, Any], folder: Path, streams: Streams, *, all_pages: bool) -> None:
    from kjoin.reports import write_report

    with Progress(streams.stderr, "report", len(document["cases"]), unit="pages") as progress:
        index = write_report(document, folder, progress=progress.update, all_pages=all_pages)
    streams.stdout.write(f"report written to {index}\n")


def _checked(harness: HarnessRun, cases: tuple[Case, ...], streams: Streams) -> Iterator[CaseOutcome]:
    """Every case's outcome, join kind by join kind, with progress on stderr over the cases the candidate
    runs (not-claimed and not-applicable ones are no work: they would make the estimate grow), and while
    its call runs, its Spark tasks."""
    harness.register(cases)
    for join in JOIN_KINDS:
        batch = [case for case in cases if case.join == join]
        work = [case for case in batch if _is_work(harness, case)]
        for case in batch:
            if not _is_work(harness, case):
                yield harness.outcome(case)
        if not work:
            continue
        with Progress(streams.stderr, f"{join}", len(work)) as progress:

            def waiting(call: CallProgress, progress: Progress = progress) -> None:
                tasks = f", Spark tasks {call.tasks_done}/{call.tasks_total}" if call.tasks_total else ""
                progress.note(f"candidate call on {call.cases} cases{tasks}, {call.seconds:.0f} s")

            harness.watch(waiting)
            for case in work:
                yield harness.outcome(case)
                progress.advance()


def _is_work(harness: HarnessRun, case: Case) -> bool:
    """Whether checking ``case`` runs the candidate: it is claimed, and that Kafka has such a join."""
    return harness.unclaimed_because(case) is None and not isinstance(harness.expected(case), str)


def _report(
    candidate: Candidate, outcomes: list[CaseOutcome], harness: HarnessRun, *, show: int, folded: int
) -> str:
    lines = [f"candidate {candidate.name}", render_summary(outcomes) if outcomes else "no case finished", ""]
    releases = [outcome.case.kafka for outcome in outcomes if outcome.status != "not-claimed"]
    lines += [*render_ran_as(ran_as(candidate.claim.kafka, releases), folded), ""]
    lines += [batch.line() for batch in harness.batches]
    declared = Counter(
        o.declared.reason for o in outcomes if o.status == "declared" and o.declared is not None
    )
    if declared:
        lines += ["", "declared differences that showed up:"]
        lines += [f"  {count} x {reason}" for reason, count in declared.items()]
    diagnosis = render_diagnosis(_roll_up(outcomes))
    if diagnosis:
        lines += ["", *diagnosis]
    failing = [outcome for outcome in outcomes if outcome.failing]
    for outcome in failing[:show]:
        lines += ["", render_outcome(outcome)]
    if len(failing) > show:
        lines += ["", f"... and {len(failing) - show} more failing cases (--show N, or --results FILE)"]
    return "\n".join(lines) + "\n"


def _roll_up(outcomes: list[CaseOutcome]) -> list[dict[str, Any]]:
    """The failing cases' divergences by cause shape, as the results document's summary has them."""
    diagnosed = []
    for outcome in outcomes:
        if outcome.status == "fail" and outcome.verdict is not None and outcome.expected is not None:
            found = diagnose(outcome.case, outcome.expected.outputs, outcome.verdict.divergences)
            diagnosed.append({"status": "fail", "join": outcome.case.join, "diagnosis": found})
    return roll_up(diagnosed)
