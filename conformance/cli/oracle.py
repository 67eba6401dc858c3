"""``kjoin oracle``: what Kafka Streams emits for a scenario.

* ``kjoin oracle --jsonl [--intended]``: portable scenarios on stdin (one JSON object per line), one answer
  line per scenario on stdout (``{"id", "outputs"}`` or ``{"id", "error"}``), in order; a bad line gets an
  error line naming the line and field, and the rest are still answered.
* ``kjoin oracle FILE [--id ID] [--kafka V] [--variant X] [--intended]``: one scenario of a ``.toml`` or
  ``.jsonl`` file as a table shaped like the seed tables: every input row, and for each variant the outputs
  that row emitted, side by side; then whether they match what the file states.
"""

from __future__ import annotations

import argparse
import io
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from msgspec.structs import replace

from kjoin.conformance.catalogue import Case, ScenarioError, case_id
from kjoin.conformance.catalogue.portable import case_from_line
from kjoin.conformance.cli.common import (
    EXIT_DIFFERS,
    EXIT_OK,
    OutputFailure,
    Streams,
    UsageError,
    version_argument,
)
from kjoin.conformance.codec import answer_line, error_line
from kjoin.oracle.behaviour import UnknownVersionError, behaviour_for
from kjoin.oracle.engine import cyclic_gc_paused, run
from kjoin.oracle.errors import OracleError
from kjoin.oracle.records import VARIANTS, Output

__all__ = ["add_command", "answer"]


def add_command(commands: Any) -> None:
    command = commands.add_parser(
        "oracle",
        description="Run the oracle on portable JSON Lines (--jsonl: stdin to stdout) or show one scenario "
        "FILE as a table with every variant side by side.",
    )
    command.add_argument("file", nargs="?", metavar="FILE", help="a .toml or .jsonl scenario file")
    command.add_argument(
        "--jsonl", action="store_true", help="portable scenarios on stdin, answers on stdout"
    )
    command.add_argument("--intended", action="store_true", help="documented semantics: Kafka bug flags off")
    command.add_argument("--id", help="FILE: the scenario to show (default: the first one)")
    command.add_argument(
        "--kafka",
        metavar="V",
        type=version_argument,
        help="FILE: run as this Kafka version (default: the first version the file states)",
    )
    command.add_argument(
        "--variant",
        choices=VARIANTS,
        action="append",
        help="FILE: only this variant (repeatable; default: every variant of the scenario)",
    )
    command.set_defaults(handler=_oracle)


def _oracle(args: argparse.Namespace, streams: Streams) -> int:
    if args.jsonl:
        extra = [name for name in ("file", "id", "kafka", "variant") if getattr(args, name) is not None]
        if extra:
            raise UsageError(f"oracle --jsonl reads stdin only; remove {', '.join(extra)}")
        write = _line_writer(streams)
        for line in _answers(streams, intended=args.intended):
            write(line)
        return EXIT_OK
    if args.file is None:
        raise UsageError("oracle: give a scenario FILE, or --jsonl to read portable scenarios on stdin")
    from pathlib import Path  # here, not as argparse's type: --jsonl never imports pathlib (docs/kafka.md)

    args.file = Path(args.file)
    return _show(args, streams)


def _stdin_lines(streams: Streams) -> Iterator[tuple[int, str | bytes | UnicodeDecodeError]]:
    """(line number, text) per line of stdin; a line that is not UTF-8 is passed on as its error, so the
    lines after it are still answered. An ASCII line (the usual one: JSON escapes what is not) is passed on
    as the bytes read, which the codec decodes as they are: no copy of the line as ``str``."""
    binary = getattr(streams.stdin, "buffer", None)
    if binary is None:
        yield from enumerate(streams.stdin, start=1)
        return
    for number, raw in enumerate(_binary_lines(binary), start=1):
        if raw.isascii():
            yield number, raw
            continue
        try:
            yield number, raw.decode("utf-8")
        except UnicodeDecodeError as error:
            yield number, error


_BLOCK = 1 << 20
"""How much of stdin is asked for at a time (``read1`` returns what is there, so a line typed or piped in is
answered as soon as it is complete)."""


def _binary_lines(binary: io.BufferedIOBase) -> Iterator[bytes]:
    """The lines of ``binary``, each with its newline (the last one maybe without), read a block at a time: a
    long line's end is found by one ``bytes.find`` per block, where ``readline`` looks at it byte by byte
    (a 6.5 MB line: 38M instructions, most of the time to read it)."""
    pieces: list[bytes] = []
    while block := binary.read1(_BLOCK):
        start = 0
        while (end := block.find(b"\n", start)) >= 0:
            pieces.append(block[start : end + 1])
            yield b"".join(pieces)
            pieces.clear()
            start = end + 1
        if start < len(block):
            pieces.append(block[start:])
    if pieces:
        yield b"".join(pieces)


def _line_writer(streams: Streams) -> Callable[[bytes], None]:
    """Writes one encoded answer line and flushes it (to the binary stream under stdout when there is one)."""
    text = streams.stdout
    binary = getattr(text, "buffer", None)
    if binary is None:

        def write_text(line: bytes) -> None:
            with _writing():
                text.write(line.decode("utf-8"))
                text.flush()

        return write_text
    text.flush()

    def write_binary(line: bytes) -> None:
        with _writing():
            binary.write(line)
            binary.flush()

    return write_binary


@contextmanager
def _writing() -> Iterator[None]:
    """A write to stdout that fails for another reason than a reader gone away is ``OutputFailure``."""
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as error:
        raise OutputFailure(error) from None


def _answers(streams: Streams, *, intended: bool) -> Iterator[bytes]:
    for number, line in _stdin_lines(streams):
        if isinstance(line, UnicodeDecodeError):
            yield error_line(None, f"stdin:{number} [?] field (line): is not UTF-8 text ({line.reason})")
        elif line.strip():
            _LAST_LINE.clear()  # the line before's data goes first: one line's worth in memory at a time
            with cyclic_gc_paused():  # a line's records, state and outputs hold no cycles (engine.run)
                reply, _LAST_LINE[:] = _answer(line, number, intended=intended, where="stdin")
            yield reply


_LAST_LINE: list[object] = []
"""The last answered line's case (its records), kept until the next line is read: the ``kjoin`` script ends
the process without freeing it (``kjoin.conformance.cli.console``). Its outputs are freed with the line:
kept too, the collector's pass after the line would scan them, which cost more than freeing them."""


def answer(line: str | bytes, number: int, *, intended: bool = False, where: str = "stdin") -> bytes:
    """The answer line (JSON, newline-terminated) for one portable scenario line: the oracle's outputs, or
    the error that stops it."""
    return _answer(line, number, intended=intended, where=where)[0]


def _answer(line: str | bytes, number: int, *, intended: bool, where: str) -> tuple[bytes, list[object]]:
    """``answer``, and what to keep of the line until the next one (its case; nothing on an error)."""
    try:
        case = case_from_line(line, where, number)
    except ScenarioError as error:
        return error_line(error.scenario_id, str(error)), []
    if intended:
        case = replace(case, intended=True)
    try:
        outputs = run(case.spec, case.records, behaviour_for(case.kafka, intended=case.intended))
    except (OracleError, UnknownVersionError) as error:
        return error_line(case.scenario, f"{where}:{number} [{case.scenario}] {error}"), []
    return answer_line(case.scenario, outputs), [case]


def _chosen(args: argparse.Namespace) -> list[Case]:
    """The cases to show: one scenario of the file, one version, the chosen variants."""
    from kjoin.conformance.catalogue import load_file  # not needed by --jsonl (the package imports it lazily)

    loaded = load_file(args.file)
    if not loaded.cases:
        raise loaded.errors[0] if loaded.errors else UsageError(f"{args.file}: no scenarios in the file")
    scenario = args.id or loaded.cases[0].scenario
    cases = [case for case in loaded.cases if case.scenario == scenario]
    if not cases:
        known = ", ".join(sorted({case.scenario for case in loaded.cases})[:10])
        raise UsageError(f"{args.file}: no scenario with id {scenario!r} (the file has: {known})")
    intended = args.intended or (cases[0].intended if args.kafka is None else False)
    kafka = args.kafka or next((case.kafka for case in cases if case.intended == intended), cases[0].kafka)
    chosen: dict[str, Case] = {}
    for case in cases:
        if args.variant and case.variant not in args.variant:
            continue
        same = case.kafka == kafka and case.intended == intended
        if same or case.variant not in chosen:
            new_id = case_id(case.scenario, case.variant, kafka, intended)
            retargeted = replace(case, id=new_id, kafka=kafka, intended=intended, expected=None)
            chosen[case.variant] = case if same else retargeted
    if not chosen:
        raise UsageError(f"{args.file}: scenario {scenario!r} has no variant {', '.join(args.variant)}")
    return [chosen[variant] for variant in VARIANTS if variant in chosen]


def _show(args: argparse.Namespace, streams: Streams) -> int:
    # Imported here: ``--jsonl`` needs neither, and it starts once per pipeline (docs/kafka.md, its CPU).
    from kjoin.conformance.harness.text import describe_case, render_trace
    from kjoin.conformance.stated import against_file

    cases = _chosen(args)
    first = cases[0]
    columns: dict[str, list[Output]] = {}
    for case in cases:
        try:
            columns[case.variant] = run(
                case.spec, case.records, behaviour_for(case.kafka, intended=case.intended)
            )
        except (OracleError, UnknownVersionError) as error:
            raise UsageError(
                f"{args.file}: scenario {first.scenario!r} as Kafka {first.kafka}: {error}"
            ) from error
    out = streams.stdout
    if first.about is not None:
        out.write(f"{first.scenario}: {first.about.description}\n")
    header = describe_case(first).replace(f" {first.variant} join", " join", 1)
    out.write(f"{header}\nvariants {', '.join(columns)}\n\n")
    out.write(render_trace(first.records, columns) + "\n\n")
    code = EXIT_OK
    for case in cases:
        outputs = columns[case.variant]
        if case.expected is None:
            out.write(
                f"{case.variant}: {len(outputs)} outputs (the file states none for Kafka {case.kafka})\n"
            )
            continue
        verdict = against_file(case, outputs)
        if verdict.first is None:
            out.write(f"{case.variant}: {len(outputs)} outputs, as the file states ({case.expected.label})\n")
        else:
            code = EXIT_DIFFERS
            out.write(
                f"{case.variant}: DIFFERS from the file ({case.expected.label}): {verdict.first.kind} at "
                f"input #{verdict.first.at}: {verdict.first.detail}\n"
            )
    return code
