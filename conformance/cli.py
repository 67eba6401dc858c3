"""The ``kjoin`` command line.

Subcommands (argparse; ``run`` is in ``conformance/run_command.py``; ``report``, ``diff-versions``,
``compare`` and ``run --report`` in ``reports/cli.py``; ``fuzz`` in ``conformance/differential/command.py``):

* ``kjoin oracle --jsonl [--intended]``: portable scenarios on stdin (one JSON object per line), one answer
  line per scenario on stdout: ``{"id": ..., "outputs": [...]}`` or ``{"id": ..., "error": "..."}``.
* ``kjoin oracle FILE [--id ID] [--kafka V] [--variant X] [--intended]``: one scenario's run as a table, each
  input row with the outputs it emitted. ``FILE`` is a ``.jsonl`` file or a ``.toml`` seed table.
* ``kjoin check [PATH ...]``: the oracle against every expected output of the bundled catalogue (or the given
  files and folders), a pass/fail table per file; exit 1 on any mismatch.

Exit codes: 0 ok, 1 mismatches found (``check``), 2 usage or input error (the message names the file and
field).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

from tabulate import tabulate

from kjoin.conformance import catalogue
from kjoin.oracle.behaviour import UnknownVersionError, behaviour_for
from kjoin.oracle.engine import run_traced
from kjoin.oracle.errors import OracleError
from kjoin.oracle.portable import PortableFormatError, evaluate, parse_scenario
from kjoin.oracle.records import VARIANTS, Output, Record

__all__ = ["main"]

EXIT_OK = 0
EXIT_MISMATCH = 1
EXIT_USAGE = 2


class UsageError(Exception):
    """Bad arguments or unreadable input; the message names the file and field. Exit code 2."""


@dataclass(frozen=True, slots=True)
class _Streams:
    stdin: TextIO
    stdout: TextIO
    stderr: TextIO


class _Parser(argparse.ArgumentParser):
    """An argument parser that reports usage errors as ``UsageError`` instead of exiting."""

    def error(self, message: str) -> None:  # type: ignore[override]
        command = self.prog.removeprefix("kjoin").strip()
        raise UsageError(f"{command + ': ' if command else ''}{message} (see {self.prog} --help)")


def main(
    argv: Sequence[str] | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run ``kjoin`` with ``argv`` (default: the process arguments); returns the exit code."""
    streams = _Streams(stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr)
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
        handler: Callable[[argparse.Namespace, _Streams], int] = args.handler
        return handler(args, streams)
    except (UsageError, catalogue.CatalogueError) as error:
        streams.stderr.write(f"kjoin: {error}\n")
        return EXIT_USAGE
    except SystemExit as done:  # --help and --version
        return done.code if isinstance(done.code, int) else EXIT_OK


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="kjoin", description="Kafka Streams join semantics: oracle and conformance checks.")
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND", parser_class=_Parser)
    _add_oracle_command(commands)
    _add_check_command(commands)
    from kjoin.conformance.run_command import add_run_command  # kjoin run (the Spark harness, issue 3)

    add_run_command(commands)
    from kjoin.reports.cli import (  # report, diff-versions, compare
        add_report_commands,
        add_report_option_to_run,
    )

    add_report_commands(commands)
    add_report_option_to_run(commands)
    from kjoin.conformance.differential.command import (
        add_fuzz_command,  # kjoin fuzz (generative testing, issue 5)
    )

    add_fuzz_command(commands)
    return parser


# --- kjoin oracle -------------------------------------------------------------------------------------------


def _add_oracle_command(commands: Any) -> None:
    oracle = commands.add_parser(
        "oracle",
        help="what Kafka Streams emits for a scenario",
        description="Run the oracle on portable JSON Lines (--jsonl: stdin to stdout) or one scenario FILE.",
    )
    oracle.add_argument("file", nargs="?", type=Path, metavar="FILE", help="a .jsonl or .toml scenario file")
    oracle.add_argument("--jsonl", action="store_true", help="portable scenarios on stdin, answers on stdout")
    oracle.add_argument("--intended", action="store_true", help="documented semantics: Kafka bug flags off")
    oracle.add_argument("--id", help="FILE: the scenario to run (default: the first one)")
    oracle.add_argument("--kafka", metavar="V", help="FILE: run as this Kafka version (e.g. 3.9)")
    oracle.add_argument("--variant", choices=VARIANTS, help="FILE: run this join variant")
    oracle.set_defaults(handler=_oracle)


def _oracle(args: argparse.Namespace, streams: _Streams) -> int:
    if args.jsonl:
        extra = [name for name in ("file", "id", "kafka", "variant") if getattr(args, name) is not None]
        if extra:
            raise UsageError(f"oracle --jsonl reads stdin only; remove {', '.join(extra)}")
        return _oracle_jsonl(streams, intended=args.intended)
    if args.file is None:
        raise UsageError("oracle: give a scenario FILE, or --jsonl to read portable scenarios on stdin")
    return _oracle_table(args, streams)


def _oracle_jsonl(streams: _Streams, *, intended: bool) -> int:
    """The portable interface: one answer line per scenario line; a bad line gets an error line."""
    try:
        for number, line in enumerate(streams.stdin, start=1):
            if line.strip():
                answer = _answer(line, number, intended=intended)
                streams.stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read stdin: {error}") from error
    return EXIT_OK


def _answer(line: str, number: int, *, intended: bool) -> dict[str, Any]:
    where = f"line {number}"
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as error:
        return {"id": None, "error": f"{where}: not valid JSON ({error.msg} at column {error.colno})"}
    try:
        scenario = parse_scenario(obj, where)
    except PortableFormatError as error:
        scenario_id = obj.get("id") if isinstance(obj, dict) and isinstance(obj.get("id"), str) else None
        return {"id": scenario_id, "error": str(error)}
    if intended:
        scenario = replace(scenario, intended=True)
    try:
        behaviour_for(scenario.kafka)
    except UnknownVersionError as error:
        return {"id": scenario.id, "error": f"{where} {scenario.id!r}.kafka: {error}"}
    return evaluate(scenario)


def _oracle_table(args: argparse.Namespace, streams: _Streams) -> int:
    """One scenario, run and shown as a table of inputs and the outputs each emitted."""
    runnable = catalogue.load_one(
        args.file, args.id, kafka=args.kafka, variant=args.variant, intended=args.intended
    )
    intended = runnable.intended
    try:
        behaviour = behaviour_for(runnable.kafka, intended=intended)
        steps = run_traced(runnable.spec, runnable.records, behaviour)
    except UnknownVersionError as error:
        raise UsageError(f"{args.file}: kafka: {error}") from error
    except OracleError as error:
        where = f"{args.file}: scenario {runnable.id!r} at Kafka {runnable.kafka}"
        raise UsageError(f"{where}: {error}") from error
    spec = runnable.spec
    title = f"{runnable.id}: {spec.join} {spec.variant} join, Kafka {runnable.kafka} (era {behaviour.era})"
    details = [f"stores {spec.stores}"]
    if spec.window is not None:
        window = spec.window
        grace = "legacy (none given)" if window.grace is None else str(window.grace)
        details.append(f"window before {window.before} after {window.after} grace {grace}")
    if spec.versioned is not None:
        v = spec.versioned
        sides = [side for side in ("left", "right") if v.of(side)]
        details.append(f"versioned {'+'.join(sides) or 'none'} (history {v.history_ms} ms)")
    if intended:
        details.append("intended semantics (bug flags off)")
    streams.stdout.write(f"{title}\n{', '.join(details)}\n\n")
    streams.stdout.write(render_trace(runnable.records, [outputs for outputs, _ in steps]) + "\n")
    outputs = [output for outputs, _ in steps for output in outputs]
    matches = runnable.matches(outputs)
    if matches is not None:
        verdict = "match" if matches else "DIFFER"
        label = runnable.expected_label
        streams.stdout.write(f"\n{len(outputs)} outputs; expected outputs ({label}): {verdict}\n")
    else:
        streams.stdout.write(f"\n{len(outputs)} outputs\n")
    return EXIT_OK


def render_trace(records: Sequence[Record], emitted: Sequence[Sequence[Output]]) -> str:
    """Inputs with the outputs each one emitted (extra output rows leave the input columns empty)."""
    rows: list[list[Any]] = []
    for index, (record, outputs) in enumerate(zip(records, emitted, strict=True)):
        inputs = [index, record.ts, record.side, show_key(record.key), show_operand(record.value)]
        if not outputs:
            rows.append([*inputs, "", "", ""])
        for position, output in enumerate(outputs):
            cells = inputs if position == 0 else [""] * len(inputs)
            rows.append([*cells, show_key(output.key), show_value(output.value), output.ts])
    headers = ["#input", "ts", "side", "key", "value", "out key", "out value", "out ts"]
    return tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True)


def show_key(key: object) -> str:
    """A key as tables print it (``null`` for a null key)."""
    return "null" if key is None else str(key)


def show_operand(value: str | None) -> str:
    return "null" if value is None else value


def show_value(value: tuple[str | None, str | None] | None) -> str:
    """``L - R`` like the seed tables, ``null`` for a missing side, ``(tombstone)`` for a delete."""
    if value is None:
        return "(tombstone)"
    return f"{show_operand(value[0])} - {show_operand(value[1])}"


# --- kjoin check --------------------------------------------------------------------------------------------


def _add_check_command(commands: Any) -> None:
    check = commands.add_parser(
        "check",
        help="run the oracle over the scenario catalogue and compare with the expected outputs",
        description="Run the oracle over every scenario with expected outputs (default: the bundled "
        "catalogue: golden traces, Kafka's own tests, seed tables) and print a pass/fail summary per file.",
    )
    check.add_argument("paths", nargs="*", type=Path, metavar="PATH", help=".jsonl/.toml files or folders")
    check.add_argument("--show", type=int, default=5, metavar="N", help="failing ids listed per file")
    check.set_defaults(handler=_check)


def _check(args: argparse.Namespace, streams: _Streams) -> int:
    files = catalogue.scenario_files(args.paths) if args.paths else catalogue.bundled_files()
    if not files:
        raise UsageError(f"check: no .jsonl or .toml scenario files in {', '.join(map(str, args.paths))}")
    results = [catalogue.check_file(path) for path in files]
    streams.stdout.write(render_summary(results) + "\n")
    problems = [result for result in results if result.failed or result.errors]
    for result in problems:
        listed = [*result.failures, *result.error_messages][: args.show]
        more = result.failed + result.errors - len(listed)
        streams.stdout.write(f"\n{result.label}:\n" + "".join(f"  {line}\n" for line in listed))
        if more > 0:
            streams.stdout.write(f"  ... and {more} more\n")
    return EXIT_MISMATCH if problems else EXIT_OK


def render_summary(results: Iterable[catalogue.FileResult]) -> str:
    """Per-file counts and a total row."""
    rows = []
    totals = [0, 0, 0, 0]
    for result in results:
        counts = [result.checked, result.passed, result.failed, result.errors]
        totals = [a + b for a, b in zip(totals, counts, strict=True)]
        rows.append([result.label, *counts, "pass" if result.ok else "FAIL"])
    rows.append(["total", *totals, "pass" if totals[2] == totals[3] == 0 else "FAIL"])
    headers = ["file", "checks", "passed", "failed", "errors", "verdict"]
    return tabulate(rows, headers=headers, tablefmt="simple")


if __name__ == "__main__":
    raise SystemExit(main())
