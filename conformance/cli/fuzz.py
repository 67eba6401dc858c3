"""``kjoin fuzz``: generate scenarios, find where a candidate differs from Kafka, shrink and keep them.

    kjoin fuzz --candidate NAME [--kafka V] [--examples N] [--seed S] [--save DIR] [--profile ci|deep]
               [--join KIND ...] [--shrink N] [--found DATE] [--intended] [--spark-master URL]
               [--steps-per-batch 1,2,8,random:SEED] [--no-store-shape-batches]

Prints the seed first (every run can be repeated), a summary per join kind, the batches of one store shape
each scenario was checked in again (docs/testing.md, "Batch compositions"), and each shrunk counterexample
with the batch composition it needed, its first divergence and trace. ``--save DIR`` writes each
counterexample as a regression file (``scenarios/regressions`` keeps them in the bundled catalogue). Exit
codes: 0 no difference found, 1 the candidate differs on some generated scenario, 2 usage errors.
"""

from __future__ import annotations

import argparse
import datetime
from typing import TYPE_CHECKING, Any

from kjoin.conformance.cli.common import (
    EXIT_DIFFERS,
    EXIT_INCOMPLETE,
    EXIT_OK,
    EXIT_USAGE,
    Streams,
    output_folder,
    worst,
)
from kjoin.conformance.differential.profiles import PROFILES, profile_named
from kjoin.conformance.harness.compositions import STORE_SHAPE, STORE_SHAPES, composition_words, store_shape
from kjoin.conformance.harness.micro_batches import NOT_STREAMING, is_micro_batched, parse_splits
from kjoin.oracle.behaviour import version_problem
from kjoin.oracle.records import JOIN_KINDS

if TYPE_CHECKING:
    from kjoin.conformance.catalogue import Case
    from kjoin.conformance.differential.fuzz import FuzzReport

__all__ = ["add_command", "render_report"]


def add_command(commands: Any) -> None:
    """Register ``fuzz`` on the ``kjoin`` subcommand parsers."""
    command = commands.add_parser(
        "fuzz",
        description="Draw scenarios from the hypothesis strategies (a seed makes them repeatable), check the "
        "candidate on all of them in one call per join kind, shrink what fails in batched rounds and "
        "optionally save each minimal scenario as a regression file.",
    )
    command.add_argument(
        "--candidate",
        required=True,
        metavar="NAME",
        help="module:attr or a registered name (kjoin.candidates)",
    )
    command.add_argument(
        "--kafka",
        metavar="V",
        help="run as this Kafka version only (default: the newest claimed, then the other claimed ones)",
    )
    command.add_argument(
        "--examples", type=int, metavar="N", help="scenarios per join kind (default: the profile's)"
    )
    command.add_argument("--seed", type=int, metavar="S", help="seed (default: the profile's fixed seed)")
    command.add_argument(
        "--save",
        type=output_folder,
        metavar="DIR",
        help="write each counterexample to DIR/<id>.jsonl (e.g. scenarios/regressions)",
    )
    command.add_argument("--profile", choices=sorted(PROFILES), default="ci", help="how much to generate")
    command.add_argument(
        "--join",
        action="append",
        choices=JOIN_KINDS,
        metavar="KIND",
        help=f"only this join kind (repeatable; {', '.join(JOIN_KINDS)})",
    )
    command.add_argument("--shrink", type=int, metavar="N", help="failures to shrink (default: profile)")
    command.add_argument("--found", metavar="DATE", help="date recorded in saved files (YYYY-MM-DD)")
    command.add_argument("--intended", action="store_true", help="documented semantics: Kafka bug flags off")
    command.add_argument("--spark-master", metavar="URL", help="default: $KJOIN_SPARK_MASTER, else local[*]")
    command.add_argument(
        "--steps-per-batch",
        metavar="SPLITS",
        help="a streaming candidate only: run every scenario under each micro-batch split, e.g. "
        "1,2,8,random:7 (N records per micro-batch, or a seeded random split; docs/streaming.md)",
    )
    command.add_argument(
        "--no-store-shape-batches",
        dest="store_shape_batches",
        action="store_false",
        help="check each join kind in one joint batch only, not also each store shape's scenarios "
        "(unversioned, left-, right-, both-versioned) in a batch of their own (docs/testing.md)",
    )
    command.set_defaults(handler=_fuzz)


def _usage_problem(args: argparse.Namespace) -> str | None:
    if args.examples is not None and args.examples < 1:
        return f"--examples: must be at least 1, got {args.examples}"
    if args.shrink is not None and args.shrink < 0:
        return f"--shrink: must not be negative, got {args.shrink}"
    if args.found is not None:
        try:
            datetime.date.fromisoformat(args.found)
        except ValueError:
            return f"--found: {args.found!r} is not a date (YYYY-MM-DD)"
    if args.steps_per_batch is not None:
        try:
            parse_splits(args.steps_per_batch)
        except ValueError as error:
            return f"--steps-per-batch: {error}"
    problem = None if args.kafka is None else version_problem(args.kafka)
    return None if problem is None else f"--kafka: {args.kafka!r} {problem}"


def _fuzz(args: argparse.Namespace, streams: Streams) -> int:
    from kjoin.conformance.differential.fuzz import fuzz
    from kjoin.conformance.differential.regressions import write_regression
    from kjoin.conformance.harness.spark_session import resolve_master, start_session
    from kjoin.conformance.protocol import CandidateLoadError, load_candidate

    problem = _usage_problem(args)
    if problem is not None:
        streams.stderr.write(f"kjoin: fuzz: {problem}\n")
        return EXIT_USAGE
    try:
        candidate = load_candidate(args.candidate)
    except CandidateLoadError as error:
        streams.stderr.write(f"kjoin: fuzz: --candidate: {error}\n")
        return EXIT_USAGE
    splits = () if args.steps_per_batch is None else parse_splits(args.steps_per_batch)
    if splits and not is_micro_batched(candidate):
        streams.stderr.write(f"kjoin: fuzz: --steps-per-batch: {NOT_STREAMING.format(name=candidate.name)}\n")
        return EXIT_USAGE
    profile = profile_named(args.profile)
    master = resolve_master(args.spark_master)
    report = fuzz(
        candidate,
        lambda: start_session(master),
        kafka=args.kafka,
        seed=args.seed,
        profile=profile,
        examples=args.examples,
        joins=args.join,
        intended=args.intended,
        shrink_failures=args.shrink,
        splits=splits,
        store_shape_batches=args.store_shape_batches,
    )
    streams.stdout.write(render_report(report, _reproduce(args, report)))
    if args.save is not None:
        for counterexample in report.counterexamples:
            path = write_regression(args.save, counterexample, candidate=report.candidate, found=args.found)
            streams.stdout.write(f"saved {path}\n")
    errors = any(outcome.status == "error" for outcome in report.outcomes)
    return worst(EXIT_DIFFERS if report.failures else EXIT_OK, EXIT_INCOMPLETE if errors else EXIT_OK)


def _reproduce(args: argparse.Namespace, report: FuzzReport) -> str:
    parts = [
        "kjoin fuzz",
        f"--candidate {args.candidate}",
        *([f"--kafka {args.kafka}"] if args.kafka else []),
        f"--seed {report.seed}",
        f"--profile {report.profile.name}",
    ]
    if args.examples is not None:
        parts.append(f"--examples {args.examples}")
    parts += [f"--join {join}" for join in args.join or ()]
    if args.intended:
        parts.append("--intended")
    if args.steps_per_batch:
        parts.append(f"--steps-per-batch {args.steps_per_batch}")
    if not args.store_shape_batches:
        parts.append("--no-store-shape-batches")
    return " ".join(parts)


def _older_lines(report: FuzzReport) -> list[str]:
    """One line for the other claimed versions fuzzed, with their scenario counts."""
    if not report.older:
        return []
    counts = {version: 0 for version in report.older}
    for batch in report.generated:
        if batch.kafka in counts:
            counts[batch.kafka] += len(batch.cases)
    listed = ", ".join(f"{version} ({count})" for version, count in counts.items())
    return [f"  and as the other claimed versions (scenarios over all join kinds): {listed}"]


def _shape_batch_lines(report: FuzzReport) -> list[str]:
    """One line per join kind whose scenarios were also checked in batches of one store shape: the scenarios
    per shape and, when any differ there, how many (the summary table above counts the joint calls only)."""
    counts: dict[str, dict[str, int]] = {}
    failing: dict[str, int] = {}
    for outcome in report.outcomes:
        if outcome.case.batch == STORE_SHAPE:
            shapes = counts.setdefault(outcome.case.join, dict.fromkeys(STORE_SHAPES, 0))
            shapes[store_shape(outcome.case)] += 1
            if outcome.status != "pass":
                failing[outcome.case.join] = failing.get(outcome.case.join, 0) + 1
    return [
        f"  {join}: again in batches of one store shape, "
        + ", ".join(f"{shape} {count}" for shape, count in shapes.items() if count)
        + (f"; {failing[join]} not passing there" if join in failing else "; all pass there")
        for join, shapes in counts.items()
    ]


def _needed(case: Case) -> list[str]:
    """For a counterexample that failed only in a batch of its store shape, a line saying so."""
    if case.batch != STORE_SHAPE:
        return []
    return [f"needs its batch: fails {composition_words(case)}; the joint batch of its join kind passed"]


def _size(case: Case) -> str:
    """``12 records`` (and ``, 1 micro-batch boundary`` for a case fed in micro-batches)."""
    records = f"{len(case.records)} records"
    if case.micro_batches is None:
        return records
    boundaries = len(case.micro_batches.starts)
    return f"{records}, {boundaries} micro-batch boundar{'y' if boundaries == 1 else 'ies'}"


def render_report(report: FuzzReport, reproduce: str = "") -> str:
    """The run as text: seed and settings, a summary per join kind, then each shrunk counterexample."""
    import hypothesis

    from kjoin.conformance.harness.text import render_outcome, render_summary

    intended = ", intended semantics" if report.intended else ""
    shaped = _shape_batch_lines(report)
    joint = [outcome for outcome in report.outcomes if outcome.case.batch != STORE_SHAPE]
    lines = [
        f"fuzzing {report.candidate} as Kafka {report.kafka}{intended}: profile {report.profile.name}, "
        f"seed {report.seed}, hypothesis {hypothesis.__version__}",
        *(
            f"  {batch.join}: {len(batch.cases)} scenarios ({batch.drawn} drawn) from {batch.strategy}"
            for batch in report.generated
            if batch.kafka == report.kafka
        ),
        *_older_lines(report),
        "",
        render_summary(joint) if joint else "no scenarios to check",
        *(["", *shaped] if shaped else []),
        "",
        f"{report.candidate_calls} candidate calls",
    ]
    for number, counterexample in enumerate(report.counterexamples, start=1):
        shrunk = counterexample.shrunk
        original, minimal = shrunk.original.case, shrunk.minimal.case
        lines += [
            "",
            f"counterexample {number} of {len(report.counterexamples)}: {original.id} shrunk from "
            f"{_size(original)} to {_size(minimal)} in {shrunk.rounds} rounds",
            *_needed(minimal),
            render_outcome(shrunk.minimal),
        ]
    if reproduce:
        lines += ["", f"reproduce: {reproduce}"]
    return "\n".join(lines) + "\n"
