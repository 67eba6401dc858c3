"""The ``kjoin`` command line: one module per subcommand, shared exit codes and stream handling.

* ``oracle``: what Kafka Streams emits (``--jsonl`` portable lines on stdin, or one scenario ``FILE`` shown
  as a table with all variants side by side);
* ``check``: the oracle against every expected output of the catalogue (or given files);
* ``run``: a candidate against the oracle over the catalogue on Spark (``--report DIR`` for HTML);
* ``report``, ``compare``, ``diff-versions``: HTML from results, run-to-run changes, version-to-version
  changes;
* ``fuzz``: generated scenarios against a candidate, shrunk counterexamples;
* ``kafka``, ``verify``: real Kafka Streams as a driver, and the oracle checked against it.

The parser is built lazily: ``COMMANDS`` names each subcommand's module, one-line help and the extras it
needs, and only the module of the command being run is imported. So ``kjoin --help`` imports nothing but
this package, and the core commands (``oracle``, ``check``, ``diff-versions``) run on a bare install; a
command whose extra is missing says which one to install (exit 2). Exit codes are in
``kjoin.conformance.cli.common`` and docs/command-line.md.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Callable, Sequence
from importlib import import_module
from typing import Any, NamedTuple, NoReturn, TextIO

from kjoin.conformance.cli.common import (
    EXIT_INCOMPLETE,
    EXIT_OK,
    EXIT_USAGE,
    OutputFailure,
    Parser,
    Streams,
    UsageError,
)
from kjoin.errors import KjoinError

__all__ = ["COMMANDS", "EXTRAS", "FAST_EXIT", "Command", "MissingExtra", "console", "main", "missing_extras"]


class Command(NamedTuple):
    """One subcommand: the module that defines it (``add_command``), its line in ``kjoin --help`` and the
    extras (pyproject.toml's optional dependencies) it needs beyond the core.

    A ``NamedTuple``: as immutable as a frozen dataclass, without importing ``dataclasses`` (and ``inspect``
    with it) on every start, nor msgspec for ``kjoin --help`` (docs/kafka.md, "The oracle's other types as
    structs")."""

    name: str
    module: str
    help: str
    extras: tuple[str, ...] = ()


COMMANDS = (
    Command("oracle", "oracle", "what Kafka Streams emits for a scenario"),
    Command("check", "check", "run the oracle over the scenario catalogue and compare with the expected "
            "outputs"),
    Command("run", "run", "check a candidate implementation against Kafka Streams semantics (runs Spark)",
            ("spark",)),
    Command("scale", "scale", "check a candidate on generated partitioned data of any size", ("spark",)),
    Command("replay", "scale", "check a candidate on a snapshot of two Kafka topics", ("spark",)),
    Command("report", "report", "write the HTML report of results files"),
    Command("compare", "compare", "compare two results files: regressed, improved, changed"),
    Command("diff-versions", "diff_versions", "what changes between two Kafka versions (oracle only)"),
    Command("fuzz", "fuzz", "generate scenarios, find where a candidate differs from Kafka, shrink them "
            "(runs Spark)", ("spark", "fuzz")),
    Command("kafka", "kafka", "what real Kafka Streams emits (a TopologyTestDriver of that release; needs "
            "Java and Maven)"),
    Command("verify", "verify", "check the oracle against real Kafka Streams on generated scenarios (needs "
            "Java and Maven)", ("fuzz",)),
)  # fmt: skip
"""The subcommands, in the order ``kjoin --help`` lists them."""

EXTRAS: dict[str, tuple[str, ...]] = {
    "spark": ("pyspark", "pandas", "pyarrow"),
    "fuzz": ("hypothesis",),
    "pytest": ("pytest",),
}
"""The top-level modules each extra of pyproject.toml brings (how a missing extra is recognised)."""


def main(
    argv: Sequence[str] | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run ``kjoin`` with ``argv`` (default: the process arguments); returns the exit code."""
    streams = Streams(stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr)
    arguments = list(sys.argv[1:] if argv is None else argv)
    command = _command_named(arguments)
    try:
        collecting = gc.isenabled()
        gc.disable()  # importing the command's modules makes no garbage worth a collection meanwhile
        try:
            parser = _build_parser(command)
        finally:
            if collecting:
                gc.enable()
        if not arguments:  # bare ``kjoin``: what it can do, not an error
            streams.stdout.write(parser.format_help())
            return EXIT_OK
        args = parser.parse_args(arguments)
        if command is not None:
            _require_extras(command)
        handler: Callable[[Any, Streams], int] | None = getattr(args, "handler", None)
        if handler is None:  # only ``kjoin``'s own options: nothing to run
            streams.stdout.write(parser.format_help())
            return EXIT_OK
        return handler(args, streams)
    except UsageError as error:
        streams.stderr.write(f"kjoin: {error}\n")
        return EXIT_USAGE
    except MissingExtra as error:
        streams.stderr.write(f"{error}\n")
        return EXIT_USAGE
    except SystemExit as done:  # --help, --version
        return done.code if isinstance(done.code, int) else EXIT_OK
    except KeyboardInterrupt:
        streams.stderr.write("kjoin: interrupted\n")
        return EXIT_INCOMPLETE
    except BrokenPipeError:  # the reader went away (``kjoin check | head``): stop writing, quietly
        _silence_stdout()
        return EXIT_OK
    except OutputFailure as error:  # the system's, in one line
        streams.stderr.write(f"kjoin: {error}\n")
        return EXIT_INCOMPLETE
    except ModuleNotFoundError as error:
        extra = _extra_of(error)
        if command is None or extra is None:
            return _crashed(streams)
        streams.stderr.write(f"{MissingExtra(command.name, (extra,))}\n")
        return EXIT_USAGE
    except Exception as error:  # the command line's boundary: a crash is "could not complete", with its cause
        if _is_scenario_error(error):
            streams.stderr.write(f"kjoin: {error}\n")
            return EXIT_USAGE
        if _is_system_failure(error):  # Spark, a broker, Maven's repository: the cause in one line
            streams.stderr.write(f"kjoin: {error}\n")
            return EXIT_INCOMPLETE
        return _crashed(streams)


FAST_EXIT = frozenset({"oracle"})
"""The commands after which the ``kjoin`` script ends the process at once (``console``)."""


def console() -> NoReturn:
    """The ``kjoin`` script (pyproject.toml): ``main`` on the process's arguments and streams.

    After a ``FAST_EXIT`` command the process ends as soon as its output is flushed, without freeing what
    the command built (``os._exit``; mypy ends its runs the same way): the system takes the memory back with
    the process, and for one big scenario, freeing its 100,000 records object by object and finalizing the
    interpreter were about 5% of ``kjoin oracle --jsonl``'s instructions (docs/kafka.md, "Around the oracle,
    and the floor under it"). Those commands
    leave nothing to an exit handler: their files are closed when written."""
    code = main()
    command = _command_named(sys.argv[1:])
    if command is None or command.name not in FAST_EXIT:
        raise SystemExit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:  # the reader went away: as ``main`` treats it
            pass
        except OSError as error:  # the output could not be written: say so, not success
            sys.stderr.write(f"kjoin: {OutputFailure(error)}\n")
            code = EXIT_INCOMPLETE
    os._exit(code)


def _crashed(streams: Streams) -> int:
    import traceback  # only on an internal error: its import costs every command's start-up

    streams.stderr.write("kjoin: internal error (please report it):\n" + traceback.format_exc())
    return EXIT_INCOMPLETE


def _is_scenario_error(error: Exception) -> bool:
    """A scenario file that cannot be used (imported here only when one was raised: its module is loaded)."""
    if "kjoin.conformance.catalogue" not in sys.modules:
        return False
    from kjoin.conformance.catalogue import ScenarioError

    return isinstance(error, ScenarioError)


def _is_system_failure(error: Exception) -> bool:
    """A failure of the system the command stands on (``harness.system_failures``), not an internal error."""
    if "kjoin.conformance.harness.system_failures" not in sys.modules:
        return False
    from kjoin.conformance.harness.system_failures import SystemFailure

    return isinstance(error, SystemFailure)


def _silence_stdout() -> None:
    """Point stdout at the null device, so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # not a real file descriptor (a test's stream): nothing to silence
        pass


def _command_named(arguments: Sequence[str]) -> Command | None:
    """The subcommand the arguments start with (``kjoin --help run`` is the help of ``kjoin``)."""
    word = arguments[0] if arguments else None
    return next((command for command in COMMANDS if command.name == word), None)


def missing_extras(extras: Sequence[str]) -> list[str]:
    """Those of ``extras`` whose modules are not installed (looked up, not imported)."""
    from importlib.util import find_spec

    return [extra for extra in extras if any(find_spec(module) is None for module in EXTRAS[extra])]


class MissingExtra(KjoinError):
    """A command whose extra is not installed; the message says which to install. Exit code 2."""

    def __init__(self, command: str, extras: Sequence[str]) -> None:
        listed = " and ".join(extras)
        noun = "extras" if len(extras) > 1 else "extra"
        wanted = ",".join(extras)
        super().__init__(
            f"kjoin {command} needs the {listed} {noun}: pip install 'kjoin-conformance[{wanted}]'"
        )


def _require_extras(command: Command) -> None:
    if not command.extras:  # a core command: nothing to look up (``importlib.util`` not imported)
        return
    missing = missing_extras(command.extras)
    if missing:
        raise MissingExtra(command.name, missing)


def _extra_of(error: ModuleNotFoundError) -> str | None:
    """The extra that brings the module ``error`` could not find, if one does."""
    top = (error.name or "").split(".")[0]
    return next((extra for extra, modules in EXTRAS.items() if top in modules), None)


class _Version(argparse.Action):
    """``--version``: the installed distribution's version (looked up only when asked for)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            installed = version("kjoin-conformance")
        except PackageNotFoundError:  # running from a source folder that was never installed
            installed = "(not installed)"
        sys.stdout.write(f"kjoin {installed}\n")  # where argparse writes --help
        parser.exit()


def _build_parser(chosen: Command | None = None) -> Parser:
    """The ``kjoin`` parser: the full subparser of ``chosen`` (its module imported), a one-line entry for
    every other command (nothing imported)."""
    parser = Parser(prog="kjoin", description="Kafka Streams join semantics: oracle and conformance checks.")
    parser.add_argument("--version", action=_Version, help="print the installed version and exit")
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND", parser_class=Parser)
    if chosen is not None:
        try:
            module = import_module(f"kjoin.conformance.cli.{chosen.module}")
        except ModuleNotFoundError as error:
            extra = _extra_of(error)
            if extra is None:
                raise
            raise MissingExtra(chosen.name, (extra,)) from error
        module.add_command(commands)
    for command in COMMANDS:
        if command.name not in commands.choices:  # else the chosen module's own (full) parser
            commands.add_parser(command.name, help=command.help)
    return parser


if __name__ == "__main__":
    raise SystemExit(main())
