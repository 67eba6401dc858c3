"""The ``kjoin`` command line: one module per subcommand, shared exit codes and stream handling.

* ``oracle``: what Kafka Streams emits (``--jsonl`` portable lines on stdin, or one scenario ``FILE`` shown
  as a table with all variants side by side);
* ``check``: the oracle against every expected output of the catalogue (or given files);
* ``run``: a candidate against the oracle over the catalogue on Spark (``--report DIR`` for HTML);
* ``report``, ``compare``, ``diff-versions``: HTML from results, run-to-run changes, version-to-version
  changes;
* ``fuzz``: generated scenarios against a candidate, shrunk counterexamples;
* ``kafka``, ``verify``: real Kafka Streams as a driver, and the oracle checked against it.

Exit codes are in ``kjoin.conformance.cli.common`` and docs/command-line.md.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from kjoin.conformance.catalogue import ScenarioError
from kjoin.conformance.cli.common import EXIT_INCOMPLETE, EXIT_OK, EXIT_USAGE, Parser, Streams, UsageError

__all__ = ["main"]

_COMMANDS = (
    "oracle",
    "check",
    "run",
    "scale",
    "report",
    "compare",
    "diff_versions",
    "fuzz",
    "kafka",
    "verify",
)
"""The subcommand modules, in the order ``kjoin --help`` lists them."""


def main(
    argv: Sequence[str] | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run ``kjoin`` with ``argv`` (default: the process arguments); returns the exit code."""
    streams = Streams(stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr)
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
        handler: Callable[[Any, Streams], int] = args.handler
        return handler(args, streams)
    except (UsageError, ScenarioError) as error:
        streams.stderr.write(f"kjoin: {error}\n")
        return EXIT_USAGE
    except SystemExit as done:  # --help
        return done.code if isinstance(done.code, int) else EXIT_OK
    except KeyboardInterrupt:
        streams.stderr.write("kjoin: interrupted\n")
        return EXIT_INCOMPLETE
    except BrokenPipeError:  # the reader went away (``kjoin check | head``): stop writing, quietly
        _silence_stdout()
        return EXIT_OK
    except Exception:  # the command line's boundary: a crash is "could not complete", with its cause
        streams.stderr.write("kjoin: internal error (please report it):\n" + traceback.format_exc())
        return EXIT_INCOMPLETE


def _silence_stdout() -> None:
    """Point stdout at the null device, so the interpreter's final flush cannot fail again."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # not a real file descriptor (a test's stream): nothing to silence
        pass


def _build_parser() -> Parser:
    from importlib import import_module

    parser = Parser(prog="kjoin", description="Kafka Streams join semantics: oracle and conformance checks.")
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND", parser_class=Parser)
    for name in _COMMANDS:
        import_module(f"kjoin.conformance.cli.{name}").add_command(commands)
    return parser


if __name__ == "__main__":
    raise SystemExit(main())
