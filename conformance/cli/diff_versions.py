"""``kjoin diff-versions A B``: what changes between two Kafka versions, from the oracle alone.

KIP-77's "current vs suggested" tables for any scenario: every scenario (the bundled catalogue or given
files, optionally those whose id matches ``--id`` globs) runs as Kafka A and as Kafka B; a text summary and
HTML pages show the outputs only A emits and those only B emits.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from kjoin.conformance.catalogue import load_cases
from kjoin.conformance.cli.common import (
    EXIT_OK,
    EXIT_USAGE,
    Progress,
    Streams,
    UsageError,
    lines,
    output_folder,
    version_argument,
    worst,
)
from kjoin.conformance.documents.version_diff import version_diff

__all__ = ["add_command"]


def add_command(commands: Any) -> None:
    command = commands.add_parser(
        "diff-versions",
        description="Run every scenario as Kafka A and as Kafka B and write KIP-77-style comparison pages.",
    )
    command.add_argument("older", metavar="A", type=version_argument, help="a Kafka version, e.g. 0.10.1")
    command.add_argument("newer", metavar="B", type=version_argument, help="a Kafka version, e.g. 0.10.2")
    command.add_argument(
        "--scenarios",
        nargs="+",
        type=Path,
        metavar="PATH",
        help=".toml or .jsonl files or folders (default: the bundled catalogue)",
    )
    command.add_argument(
        "--id", nargs="+", dest="ids", metavar="GLOB", help="only scenarios whose id matches"
    )
    command.add_argument(
        "--out", type=output_folder, metavar="DIR", help="output folder (default: kjoin-diff-A-vs-B)"
    )
    command.add_argument("--show", type=int, default=20, metavar="N", help="differing scenarios listed")
    command.set_defaults(handler=_diff_versions)


def _on_off(value: object) -> str:
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


def _diff_versions(args: argparse.Namespace, streams: Streams) -> int:
    loaded = load_cases(args.scenarios)
    for error in loaded.errors:
        streams.stderr.write(f"kjoin: diff-versions: {error}\n")
    with Progress(streams.stderr, f"Kafka {args.older} vs {args.newer}", 0, unit="scenarios") as progress:

        def advance(done: int, total: int) -> None:
            progress.total = total
            progress.update(done)

        diff = version_diff(loaded.cases, args.older, args.newer, ids=args.ids, progress=advance)
    counts = diff["counts"]
    if not counts["scenarios"]:
        wanted = f"matches {' '.join(args.ids)}" if args.ids else "was found"
        raise UsageError(f"diff-versions: no scenario {wanted}")
    streams.stdout.write(
        f"Kafka {args.older} (era {diff['older_era']}) vs {args.newer} (era {diff['newer_era']}): "
        f"{counts['scenarios']} scenarios, {counts['differ']} with different outputs\n"
    )
    for note in diff["flag_notes"]:
        change = f"{_on_off(note['older'])} in {args.older}, {_on_off(note['newer'])} in {args.newer}"
        streams.stdout.write(f"changed: {note['flag']} ({change}): {note['text']}\n")
    if diff["flag_notes"]:
        streams.stdout.write(f"  (every flag and its evidence: {diff['flag_notes'][0]['see']})\n")
    differing = [
        f"{s['scenario']}: " + ", ".join(v["label"] for v in s["variants"] if v["status"] == "differs")
        for s in diff["scenarios"]
        if any(v["status"] == "differs" for v in s["variants"])
    ]
    streams.stdout.write("".join(f"  {line}\n" for line in lines(differing, args.show)))
    from kjoin.reports import write_version_diff

    out = args.out or Path(f"kjoin-diff-{args.older}-vs-{args.newer}")
    streams.stdout.write(f"pages written to {write_version_diff(diff, out)}\n")
    return worst(EXIT_OK, EXIT_USAGE if loaded.errors else EXIT_OK)
