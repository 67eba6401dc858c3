"""``kjoin verify --kafka V``: the oracle against real Kafka Streams V on generated scenarios.

    kjoin verify --kafka V [--examples N] [--seed S] [--join KIND ...] [--profile ci|deep] [--shrink N]
                 [--save DIR] [--production] [--self-joins]
    kjoin verify --kafka V --scenarios PATH [PATH ...]   # your own scenarios instead of generated ones
    kjoin verify --kafka V --application [--partitions N] [--cache on|off|both|evict] [--examples N]
                 [--seed S]

Scenarios of every join kind are drawn from the project's strategies (both store kinds, versioned tables,
stream-table grace; with ``--production`` also production-like settings and wall clocks: the record cache
on or off, the emit throttle at 1000 ms or 0, the wall clock moving by 0, less than, or more than the
interval), run through real Kafka Streams V (``kjoin kafka``) and through the oracle as V, and
compared (same outputs, same order). Disagreements are shrunk (one driver call per round) and printed;
``--save DIR`` writes each as a golden trace with its provenance (release, kafka-streams jar checksum, driver
sources digest, seed). ``--scenarios`` runs the given files (your own data, in either scenario format) as
V instead. No Spark. Exit codes: 0 the oracle agrees everywhere, 1 it disagrees somewhere,
2 usage errors (Java or Maven missing, an unknown release).
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kjoin.conformance.cli.common import (
    EXIT_DIFFERS,
    EXIT_OK,
    Progress,
    Streams,
    UsageError,
    output_folder,
    positive,
)
from kjoin.conformance.differential.profiles import PROFILES, profile_named
from kjoin.conformance.kafka.cache_sizes import CACHE_BYTES, SMALL_CACHE_BYTES
from kjoin.oracle.behaviour import era_of, release_of, version_problem
from kjoin.oracle.records import JOIN_KINDS, JoinSpec

if TYPE_CHECKING:
    from kjoin.conformance.catalogue import Case
    from kjoin.conformance.kafka.verify import SettingsEffect, VerifyReport

__all__ = ["add_command", "render_report", "scenario_cases", "settings_line"]


def add_command(commands: Any) -> None:
    command = commands.add_parser(
        "verify",
        description="Draw scenarios, run them through real Kafka Streams of one release and through the "
        "oracle, and shrink every disagreement.",
    )
    command.add_argument(
        "--kafka",
        required=True,
        metavar="V",
        help="a Kafka Streams release (3.9.1) or minor line (4.3: its newest patch release)",
    )
    command.add_argument(
        "--examples", type=positive, metavar="N", help="scenarios per join kind (default: profile)"
    )
    command.add_argument("--seed", type=int, metavar="S", help="seed (default: the profile's fixed seed)")
    command.add_argument(
        "--join",
        action="append",
        choices=JOIN_KINDS,
        metavar="KIND",
        help=f"only this join kind (repeatable; {', '.join(JOIN_KINDS)})",
    )
    command.add_argument("--profile", choices=sorted(PROFILES), default="ci", help="how much to generate")
    command.add_argument("--shrink", type=int, metavar="N", help="disagreements to shrink (default: profile)")
    command.add_argument(
        "--save", type=output_folder, metavar="DIR", help="write each shrunk disagreement as a golden trace"
    )
    command.add_argument(
        "--scenarios",
        nargs="+",
        type=Path,
        metavar="PATH",
        help="run these scenario files or folders (as V) instead of generated scenarios",
    )
    command.add_argument(
        "--production",
        action="store_true",
        help="draw production-like settings and wall clocks too (record cache, emit throttle; "
        "docs/semantics/production.md)",
    )
    command.add_argument(
        "--application",
        action="store_true",
        help="run each scenario as a real KafkaStreams application on a loopback broker, input topics of "
        "--partitions partitions, and compare per partition (docs/kafka.md, 'Application mode')",
    )
    command.add_argument(
        "--partitions",
        type=positive,
        default=None,
        metavar="N",
        help="with --application: partitions per topic (default 3; 1 with --cache evict, which needs one)",
    )
    command.add_argument(
        "--cache",
        choices=("on", "off", "both", "evict"),
        default="both",
        help=f"with --application: the record cache of drawn scenarios ({CACHE_BYTES // 2**20} MiB), on, "
        "off, or on for every other one (default); evict: table-table joins with caches of "
        f"{SMALL_CACHE_BYTES[0]} to {SMALL_CACHE_BYTES[1] - 1} bytes, which evict (one partition, no commit "
        "points)",
    )
    command.add_argument(
        "--self-joins",
        action="store_true",
        help="draw self-joins instead: one stream joined with itself, topology.optimization none and all "
        "(docs/semantics/self-join.md)",
    )
    command.set_defaults(handler=_verify)


def _verify(args: argparse.Namespace, streams: Streams) -> int:
    from kjoin.conformance.kafka.maven import MavenError
    from kjoin.conformance.kafka.verify import save_golden, verify, verify_cases

    release = release_of(args.kafka)
    problem = version_problem(release)
    if problem is not None:
        raise UsageError(f"verify: --kafka: {args.kafka!r} {problem}")
    if args.application and args.self_joins:
        raise UsageError("verify: --self-joins runs on the test driver only; leave out --application")
    if args.application:
        from kjoin.conformance.cli.verify_application import verify_application_command

        return verify_application_command(release, args, streams)

    def say(text: str) -> None:
        _say(streams, text)

    with Progress(streams.stderr, f"Kafka Streams {release}", 0, unit="scenarios") as answered:
        try:
            if args.scenarios:
                cases = scenario_cases(args, release, keep_intended=True)
                report = verify_cases(
                    release,
                    cases,
                    profile=profile_named(args.profile),
                    shrink_failures=args.shrink,
                    progress=say,
                    counted=answered.update,
                )
            else:
                report = verify(
                    release,
                    profile=profile_named(args.profile),
                    seed=args.seed,
                    examples=args.examples,
                    joins=args.join,
                    shrink_failures=args.shrink,
                    progress=say,
                    counted=answered.update,
                    production=args.production,
                    self_joins=args.self_joins,
                )
        except MavenError as error:  # DriverError, or Java or Maven missing
            raise UsageError(f"verify: {error}") from error
    streams.stdout.write(render_report(report))
    if args.save is not None:
        for path in save_golden(args.save, report):
            streams.stdout.write(f"saved {path}\n")
    return EXIT_DIFFERS if report.disagreements else EXIT_OK


def render_report(report: VerifyReport) -> str:
    """The run as text: provenance, agreement per join kind and variant, each shrunk disagreement."""
    import hypothesis
    from tabulate import tabulate

    from kjoin.conformance.harness.text import render_outcome
    from kjoin.conformance.kafka.verify import settings_effect

    info = report.info
    lines = [
        f"Kafka Streams {report.release} (kafka-streams jar sha256 {info.kafka_streams_sha256[:16]}..., "
        f"driver {info.driver_sources_sha256[:12]}) vs the oracle as {report.release} (era "
        f"{era_of(report.release)}): "
        + (
            f"profile {report.profile.name}, seed {report.seed}, hypothesis {hypothesis.__version__}"
            if report.seed is not None
            else "given scenarios"
        ),
    ]
    counts: dict[tuple[str, str], Counter[str]] = {}
    for outcome in report.outcomes:
        counts.setdefault((_join_label(outcome.case.spec), outcome.case.variant), Counter())[
            outcome.status
        ] += 1
    rows = [
        [join, variant, sum(c.values()), c["pass"], c["fail"], c["not-applicable"]]
        for (join, variant), c in counts.items()
    ]
    total = Counter(outcome.status for outcome in report.outcomes)
    rows.append(["total", "", len(report.outcomes), total["pass"], total["fail"], total["not-applicable"]])
    lines += [
        "",
        tabulate(
            rows,
            headers=["join", "variant", "scenarios", "agree", "disagree", "both refuse"],
            tablefmt="simple",
        ),
    ]
    lines.append(f"\n{report.driver_calls} driver runs, {report.seconds:.0f} s")
    effect = settings_effect(report.outcomes)
    if effect.settings:
        lines.append(settings_line(effect))
    for number, item in enumerate(report.shrunk, start=1):
        original, minimal = item.original.case, item.minimal.case
        lines += [
            "",
            f"disagreement {number} of {len(report.shrunk)}: {original.id} shrunk from "
            f"{len(original.records)} to {len(minimal.records)} records in {item.rounds} rounds",
            render_outcome(item.minimal),
        ]
    return "\n".join(lines) + "\n"


def settings_line(effect: SettingsEffect) -> str:
    """What the production settings did, as one line of the report (docs/kafka.md, "Production settings")."""
    changed = ", ".join(f"{count} {join}" for join, count in effect.changed.items())
    return (
        f"production settings in {effect.settings} compared scenarios: {effect.cached} table joins with the "
        f"record cache on, {effect.throttled} left/outer stream-stream joins with the emit throttle on; the "
        f"settings change the output of {effect.changed_total}" + (f" ({changed})" if changed else "")
    )


def _join_label(spec: JoinSpec) -> str:
    """The join kind as the report's table shows it: a self-join with its optimization."""
    return f"self-join, optimization {spec.optimization}" if spec.self_join else spec.join


def scenario_cases(args: argparse.Namespace, release: str, *, keep_intended: bool) -> list[Case]:
    """The cases of ``--scenarios`` as ``release`` states them, of the ``--join`` kinds (intended ones only
    if ``keep_intended``); a file's first error, or nothing left to run, is a usage error."""
    from kjoin.conformance.catalogue import load_cases

    loaded = load_cases(args.scenarios, kafka=release)
    if loaded.errors:
        raise UsageError(f"verify: {loaded.errors[0]}")
    cases = [
        case
        for case in loaded.cases
        if (keep_intended or not case.intended) and (args.join is None or case.join in args.join)
    ]
    if not cases:
        raise UsageError("verify: --scenarios: no scenario to run")
    return cases


def _say(streams: Streams, text: str) -> None:
    streams.stderr.write(f"kjoin: verify: {text}\n")
