"""``kjoin verify --kafka V --application``: the oracle against a real running Kafka Streams application.

Scenarios are drawn and made fit for a multi-partition run (``kafka.app_verify.for_application``), or read
from ``--scenarios`` as they are, run as ``KafkaStreams`` applications on a loopback broker with topics of
``--partitions`` partitions, and compared with the oracle per partition (docs/kafka.md, "Application
mode"). Scenarios the oracle refuses (a record cache it does not model yet) are counted apart. Exit codes:
0 every scenario the oracle answers agrees, 1 a disagreement or a scenario the application failed on, 2
usage, 3 the broker or Maven failed.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from typing import TYPE_CHECKING

from kjoin.conformance.catalogue.portable import case_json
from kjoin.conformance.cli.common import EXIT_DIFFERS, EXIT_OK, Progress, Streams, UsageError
from kjoin.conformance.cli.verify import scenario_cases
from kjoin.conformance.differential.profiles import profile_named
from kjoin.oracle.behaviour import era_of

if TYPE_CHECKING:
    from kjoin.conformance.kafka.app_verify import AppVerifyReport

__all__ = ["render_app_report", "verify_application_command"]

SHOWN = 5
"""Disagreements printed in full (the scenario line and the first difference)."""
SPREAD = "spread"
"""The column of scenarios whose input records went to 2 or more partitions (more than one task ran)."""
EVICTING = "evicting"
"""The column of scenarios in which the oracle's record caches evict an entry (spec PR-9)."""
DEFAULT_PARTITIONS = 3
"""Partitions per topic when ``--partitions`` is not given (1 with ``--cache evict``)."""


def verify_application_command(release: str, args: argparse.Namespace, streams: Streams) -> int:
    # Generation needs Hypothesis (the verify extra): imported by the command, not by the CLI's start.
    from kjoin.conformance.kafka.app_verify import verify_application

    partitions = args.partitions
    if args.cache == "evict":
        if partitions not in (None, 1):
            raise UsageError(
                f"verify: --partitions {partitions} with --cache evict: small caches need one partition "
                "(the tasks of a stream thread share its cache, docs/kafka.md)"
            )
        partitions = 1
    elif partitions is None:
        partitions = DEFAULT_PARTITIONS
    # An application runs a scenario as Kafka does, so a case that states intended outputs is left out.
    cases = scenario_cases(args, release, keep_intended=False) if args.scenarios else None

    def say(text: str) -> None:
        streams.stderr.write(f"kjoin: verify: {text}\n")

    with Progress(streams.stderr, f"Kafka Streams {release} application", 0, unit="scenarios") as answered:
        report = verify_application(
            release,
            partitions=partitions,
            profile=profile_named(args.profile),
            seed=args.seed,
            examples=args.examples,
            joins=args.join,
            cache=args.cache,
            cases=cases,
            progress=say,
            counted=answered.update,
        )
    streams.stdout.write(render_app_report(report))
    return EXIT_DIFFERS if report.disagreements else EXIT_OK


def render_app_report(report: AppVerifyReport) -> str:
    """Agreement per join kind, variant and cache setting; the first disagreements in full."""
    from tabulate import tabulate

    lines = [
        f"Kafka Streams {report.release} application ({report.partitions} partitions per topic) vs the "
        f"oracle as {report.release} (era {era_of(report.release)}), per partition; seed {report.seed}",
        "",
    ]
    counts: dict[tuple[str, str, str], Counter[str]] = {}
    for outcome in report.outcomes:
        key = (outcome.case.join, outcome.case.variant, "on" if outcome.cached else "off")
        tally = counts.setdefault(key, Counter())
        tally[outcome.status] += 1
        tally[SPREAD] += outcome.spread > 1
        tally[EVICTING] += outcome.evicted > 0
    statuses = ("agree", "disagree", "oracle refuses", "kafka error")
    rows = [
        [*key, sum(c[s] for s in statuses), c[SPREAD], c[EVICTING], *(c[s] for s in statuses)]
        for key, c in sorted(counts.items())
    ]
    total: Counter[str] = Counter(outcome.status for outcome in report.outcomes)
    spread = sum(1 for outcome in report.outcomes if outcome.spread > 1)
    evicting = [outcome for outcome in report.outcomes if outcome.evicted > 0]
    rows.append(["total", "", "", len(report.outcomes), spread, len(evicting), *(total[s] for s in statuses)])
    headers = ["join", "variant", "cache", "scenarios", SPREAD, EVICTING, *statuses]
    lines.append(tabulate(rows, headers=headers, tablefmt="simple"))
    commits = sum(1 for outcome in report.outcomes if outcome.commits)
    lines.append(
        f"\n{commits} scenarios with commit points; {SPREAD}: input records in 2 or more partitions; "
        f"{report.seconds:.0f} s"
    )
    if evicting:
        dirty = [outcome for outcome in evicting if outcome.evicted_dirty > 0]
        shown = [outcome for outcome in evicting if outcome.eviction_shows]
        lines.append(
            f"{EVICTING}: the oracle's record caches evict in {len(evicting)} scenarios "
            f"({sum(o.evicted for o in evicting)} entries; {len(dirty)} scenarios evict a dirty entry, "
            f"{sum(o.evicted_dirty for o in dirty)} in all, each flushing its store early); "
            f"{sum(o.status == 'agree' for o in evicting)} of them agree; in "
            f"{len(shown)} the outputs show it (they differ from the oracle's with a 10 MiB cache), "
            f"{sum(o.status == 'agree' for o in shown)} of them agree"
        )
    refusals = Counter(o.detail.split(":")[0] for o in report.outcomes if o.status == "oracle refuses")
    for reason, count in sorted(refusals.items()):
        lines.append(f"the oracle refuses {count}: {reason}")
    for number, outcome in enumerate(report.disagreements[:SHOWN], start=1):
        lines += [
            "",
            f"{outcome.status} {number} of {len(report.disagreements)}: {outcome.case.id}: {outcome.detail}",
            json.dumps(dict(case_json(outcome.case), id=outcome.case.id), separators=(",", ":")),
        ]
    return "\n".join(lines) + "\n"
