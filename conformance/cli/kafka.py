"""``kjoin kafka --version V``: what real Kafka Streams V emits, through the same portable interface as
``kjoin oracle --jsonl`` (scenarios on stdin, one answer line each on stdout).

The driver for V is built with Maven on first use (docs/kafka.md); ``V`` may name a minor line (``4.3``: its
newest patch release) or a release (``3.9.1``). ``--timing`` reports on stderr the time spent inside the
TopologyTestDrivers per join kind (JVM start excluded). ``--application [--partitions N]`` runs each scenario
as a real ``KafkaStreams`` application on a loopback broker instead (docs/kafka.md, "Application mode").
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from kjoin.conformance.cli.common import EXIT_OK, Streams, UsageError, positive
from kjoin.conformance.codec import canonical_line
from kjoin.conformance.kafka.driver import KafkaDriver, build_announcement, driver_built
from kjoin.conformance.kafka.maven import MavenError
from kjoin.oracle.behaviour import release_of, version_problem

__all__ = ["add_command"]


def add_command(commands: Any) -> None:
    command = commands.add_parser(
        "kafka",
        description="Run portable scenarios (stdin, one JSON object per line) through real Kafka Streams of "
        "one release and write one answer line per scenario (stdout), like 'kjoin oracle --jsonl'.",
    )
    command.add_argument(
        "--version",
        dest="kafka_version",
        required=True,
        metavar="V",
        help="a Kafka Streams release (3.9.1) or minor line (4.3: its newest patch release)",
    )
    command.add_argument("--timing", action="store_true", help="report the time inside the drivers on stderr")
    command.add_argument(
        "--application",
        action="store_true",
        help="run each scenario as a real KafkaStreams application on a loopback broker instead of "
        "TopologyTestDriver (docs/kafka.md, 'Application mode')",
    )
    command.add_argument(
        "--partitions",
        type=positive,
        default=1,
        metavar="N",
        help="with --application: partitions of each input and output topic (default 1)",
    )
    command.add_argument(
        "--log",
        type=Path,
        metavar="FILE",
        help="with --application: write the application's log here (default: a temporary file)",
    )
    command.set_defaults(handler=_kafka)


def _kafka(args: argparse.Namespace, streams: Streams) -> int:
    release = release_of(args.kafka_version)
    problem = version_problem(release)  # before any Maven build: an unknown release is a usage error
    if problem is not None:
        raise UsageError(f"kafka: --version: {args.kafka_version!r} {problem}")
    if not args.application and (args.partitions != 1 or args.log is not None):
        raise UsageError("kafka: --partitions and --log go with --application")
    if not driver_built(release):
        streams.stderr.write(f"kjoin: kafka: {build_announcement(release)}\n")
        streams.stderr.flush()
    if args.application:
        return _application(release, args, streams)
    try:
        with KafkaDriver(release, timing=args.timing) as driver:
            for answer in driver.answer_lines(streams.stdin):
                streams.stdout.write(canonical_line(answer))
                streams.stdout.flush()
    except MavenError as error:  # DriverError, or Java or Maven missing
        raise UsageError(f"kafka: {error}") from error
    if args.timing and driver.timing_report is not None:
        streams.stderr.write(json.dumps(driver.timing_report) + "\n")
    return EXIT_OK


def _application(release: str, args: argparse.Namespace, streams: Streams) -> int:
    """Each scenario as a real ``KafkaStreams`` application (``kafka.application``); broker and Maven
    failures are system failures (exit 3, one line)."""
    from kjoin.conformance.kafka.application import KafkaApplication

    with KafkaApplication(release, args.partitions, log=args.log) as app:
        for answer in app.answer_lines(streams.stdin):
            streams.stdout.write(canonical_line(answer))
            streams.stdout.flush()
    return EXIT_OK
