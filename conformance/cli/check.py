"""``kjoin check [PATH ...]``: the oracle against every expected output of the catalogue (or given files).

Each case whose file states what Kafka emits (a seed table's block, a captured trace's ``expected``) runs
through the oracle and is compared by the project's checker at the exact level: same keys, values and
timestamps (where the file states them), same order, and where the file names the emitting input row, the
same row. Prints a table per file and the first divergence of each failing case. Exit 1 on a mismatch,
2 when a file, line or scenario cannot be used (duplicate ids included), both reported in full.

``--lint`` only lints (``catalogue.lint``): the loader's problems and a ``.toml`` scenario whose id is not its
file's name, each with its file, scenario and field; exit 2 if any, 0 when clean.
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tabulate import tabulate

from kjoin.conformance.catalogue import ScenarioError, load_cases
from kjoin.conformance.catalogue.lint import lint
from kjoin.conformance.cli.common import EXIT_DIFFERS, EXIT_OK, EXIT_USAGE, Streams, lines, worst
from kjoin.conformance.stated import check_case
from kjoin.scenarios import CATALOGUE_ROOT

__all__ = ["FileResult", "add_command", "check_case"]


def add_command(commands: Any) -> None:
    command = commands.add_parser(
        "check",
        description="Run the oracle over every scenario that states expected outputs (default: the bundled "
        "catalogue: seed tables, edge cases, golden traces, Kafka's own tests, regressions) and print a "
        "pass/fail table per file.",
    )
    command.add_argument("paths", nargs="*", type=Path, metavar="PATH", help=".jsonl/.toml files or folders")
    command.add_argument("--show", type=int, default=5, metavar="N", help="failing cases listed per file")
    command.add_argument(
        "--lint",
        action="store_true",
        help="only lint the files (format, unknown fields, duplicate ids, a .toml id that is not its file "
        "name): exit 2 listing every problem, 0 when clean; the oracle does not run",
    )
    command.set_defaults(handler=_check)


@dataclass(slots=True)
class FileResult:
    """What checking one file found."""

    label: str
    passed: int = 0
    failures: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    unstated: int = 0

    @property
    def ok(self) -> bool:
        return not self.failures and not self.errors


def _check(args: argparse.Namespace, streams: Streams) -> int:
    if args.lint:
        return _lint(args, streams)
    loaded = load_cases(args.paths or None)
    results: dict[str, FileResult] = {label: FileResult(label) for label in loaded.files}
    for error in loaded.errors:
        results.setdefault(error.path, FileResult(error.path)).errors.append(str(error))
    for case in loaded.cases:
        result = results.setdefault(case.source, FileResult(case.source))
        if case.expected is None:
            result.unstated += 1
            continue
        problem = check_case(case)
        if problem is None:
            result.passed += 1
        else:
            result.failures.append(f"{case.id} ({case.where}): {problem}")
    if not results:
        raise ScenarioError(
            ", ".join(map(str, args.paths)) or "scenarios",
            None,
            "(path)",
            None,
            "holds no .jsonl or .toml scenario files",
        )
    streams.stdout.write(render_summary(list(results.values())) + "\n")
    for result in results.values():
        if not result.ok:
            listed = lines([*result.failures, *result.errors], args.show)
            streams.stdout.write(f"\n{result.label}:\n" + "".join(f"  {line}\n" for line in listed))
    failed = any(result.failures for result in results.values())
    broken = any(result.errors for result in results.values())
    return worst(EXIT_DIFFERS if failed else EXIT_OK, EXIT_USAGE if broken else EXIT_OK)


def _lint(args: argparse.Namespace, streams: Streams) -> int:
    """``--lint``: every problem of the files, one per line (file, scenario, field), then a count."""
    found = lint(args.paths or [CATALOGUE_ROOT])
    if not found.files:
        raise ScenarioError(", ".join(map(str, args.paths)), None, "(path)", None, "holds no scenario files")
    for problem in found.problems:
        streams.stdout.write(f"{problem}\n")
    counted = f"{_count(len(found.files), 'file')}, {_count(found.scenarios, 'scenario')}"
    if found.problems:
        streams.stdout.write(f"{counted}: {_count(len(found.problems), 'problem')}\n")
        return EXIT_USAGE
    streams.stdout.write(f"{counted}: no problems\n")
    return EXIT_OK


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def render_summary(results: list[FileResult]) -> str:
    """Per-file counts (cases checked, passed, failed, input errors) and a total row."""
    rows = []
    totals: Counter[str] = Counter()
    for result in results:
        counts = {
            "checks": result.passed + len(result.failures),
            "passed": result.passed,
            "failed": len(result.failures),
            "errors": len(result.errors),
        }
        totals.update(counts)
        rows.append([result.label, *counts.values(), "pass" if result.ok else "FAIL"])
    ok = totals["failed"] == totals["errors"] == 0
    rows.append(
        [
            "total",
            totals["checks"],
            totals["passed"],
            totals["failed"],
            totals["errors"],
            "pass" if ok else "FAIL",
        ]
    )
    return tabulate(
        rows, headers=["file", "checks", "passed", "failed", "errors", "verdict"], tablefmt="simple"
    )
