"""What every ``kjoin`` subcommand shares: exit codes, streams, usage errors, progress, loading inputs.

Exit codes mean one thing each (docs/command-line.md):

* ``0``: the check agrees (or the command did what it was asked);
* ``1``: a difference: the candidate differs from Kafka (``run``, ``fuzz``, ``scale``, ``replay``), the
  oracle differs from a file's expected outputs (``check``), real Kafka differs from the oracle
  (``verify``), a case regressed (``compare``);
* ``2``: usage or input error: bad arguments, unreadable or invalid scenario or results files, a candidate
  that cannot be loaded; the message names the file and field;
* ``3``: the run could not complete: the harness or the candidate crashed, timed out, or the run was
  interrupted (SIGINT, SIGTERM).

When several apply, the highest code wins (an incomplete run says more than a difference).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn, TextIO, TypeVar

from kjoin.errors import KjoinError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "EXIT_DIFFERS",
    "EXIT_INCOMPLETE",
    "EXIT_OK",
    "EXIT_USAGE",
    "HelpFormatter",
    "Parser",
    "Progress",
    "Streams",
    "UsageError",
    "worst",
]

EXIT_OK = 0
EXIT_DIFFERS = 1
EXIT_USAGE = 2
EXIT_INCOMPLETE = 3


def worst(*codes: int) -> int:
    """The exit code that wins when several apply (the highest)."""
    return max(codes, default=EXIT_OK)


class UsageError(KjoinError):
    """Bad arguments or unusable input; the message names the file and field. Exit code 2."""


class OutputFailure(KjoinError):
    """The command's output could not be written (a full disk, a closed file), not a reader that went away.
    Exit code 3."""

    def __init__(self, error: OSError) -> None:
        super().__init__(f"could not write the output: {error}")


class Streams(NamedTuple):
    """Where a command reads and writes (the process's own streams, or a test's). A ``NamedTuple``, so the
    command line imports no ``dataclasses`` (docs/kafka.md, "The oracle's other types as structs")."""

    stdin: TextIO
    stdout: TextIO
    stderr: TextIO


class HelpFormatter(argparse.HelpFormatter):
    """Help that states every option's default, unless the option's text already says it.

    Its width is the terminal's, read as argparse reads it but without importing ``shutil``: argparse builds
    a formatter for every option it adds, and ``shutil`` brings ``bz2``, ``lzma`` and ``zlib`` into every
    command's start (docs/kafka.md, "The oracle's other types as structs")."""

    def __init__(
        self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None
    ) -> None:
        super().__init__(
            prog, indent_increment, max_help_position, terminal_columns() - 2 if width is None else width
        )

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if not _states_default(action) or "default" in text.lower():
            return text
        return f"{text} (default: %(default)s)" if text else "default: %(default)s"

    def _format_action(self, action: argparse.Action) -> str:
        if not action.help and _states_default(action):  # argparse shows no help text at all without one
            import copy  # only when help is printed

            action = copy.copy(action)
            action.help = self._get_help_string(action)
        return super()._format_action(action)


def terminal_columns() -> int:
    """The terminal's width in columns as ``shutil.get_terminal_size`` reads it: ``COLUMNS`` if it is a
    positive number, else the width of the terminal stdout is (if it is one, and that width is not 0), else
    80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    stdout = sys.__stdout__
    try:
        columns = 0 if stdout is None else os.get_terminal_size(stdout.fileno()).columns
    except (AttributeError, ValueError, OSError):  # closed, detached or not a terminal
        columns = 0
    return columns or 80


def _states_default(action: argparse.Action) -> bool:
    """Whether ``action`` has a default worth showing (an option's value other than none, off or empty)."""
    default = action.default
    if not action.option_strings or default is None or default is False or default == argparse.SUPPRESS:
        return False
    return not (isinstance(default, list | tuple) and not default)


class Parser(argparse.ArgumentParser):
    """An argument parser that reports usage errors as ``UsageError`` instead of exiting, and whose help
    states each option's default."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        command = self.prog.removeprefix("kjoin").strip()
        raise UsageError(f"{command + ': ' if command else ''}{message} (see {self.prog} --help)")


_Number = TypeVar("_Number", int, float)


def _number(text: str, kind: type[_Number], what: str) -> _Number:
    """``text`` read as ``kind``, or the argparse error "'text' is not ``what``"."""
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None


def _refuse(problem: str) -> NoReturn:
    raise argparse.ArgumentTypeError(problem)


def positive(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    value = _number(text, int, "a whole number")
    return value if value >= 1 else _refuse(f"must be at least 1, got {value}")


def seconds(text: str) -> float:
    """An argparse type: a positive number of seconds."""
    value = _number(text, float, "a number of seconds")
    return value if value > 0 else _refuse(f"must be more than 0 seconds, got {text}")


def above_zero(text: str) -> float:
    """An argparse type: a number above 0."""
    value = _number(text, float, "a number")
    return value if value > 0 else _refuse(f"must be above 0, got {text}")


def not_negative(text: str) -> int:
    """An argparse type: a whole number of at least 0."""
    value = _number(text, int, "a whole number")
    return value if value >= 0 else _refuse(f"must be 0 or more, got {value}")


def share(text: str) -> float:
    """An argparse type: a share between 0 and 1 (both included)."""
    value = _number(text, float, "a number")
    return value if 0.0 <= value <= 1.0 else _refuse(f"must be a share between 0 and 1, got {text}")


def output_file(text: str) -> Path:
    """An argparse type: a file kjoin may write (not a folder; its folder exists or can be made there)."""
    from pathlib import Path  # only for commands that write files (kjoin oracle --jsonl never does)

    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a folder, not a file")
    if path.exists() and not os.access(path, os.W_OK):
        raise argparse.ArgumentTypeError(f"{text} cannot be written (no permission)")
    _check_can_create_in(path.parent, text)
    return path


def output_folder(text: str) -> Path:
    """An argparse type: a folder kjoin may write into (an existing folder, or one it can make)."""
    from pathlib import Path  # only for commands that write files (kjoin oracle --jsonl never does)

    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a file, not a folder")
    _check_can_create_in(path, text)
    return path


def _check_can_create_in(folder: Path, text: str) -> None:
    """Whether files can be made in ``folder``: its nearest existing ancestor is a folder where a file can
    be created (tried: permissions, read-only file systems and root's rights all answer the same way)."""
    existing = folder.absolute()
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: {existing} is a file, not a folder")
    import tempfile  # only for commands that write files (its import costs kjoin oracle's start-up)

    try:
        with tempfile.TemporaryFile(dir=existing, prefix=".kjoin-probe-"):
            pass
    except OSError as error:
        raise argparse.ArgumentTypeError(f"{text}: cannot write in {existing} ({error.strerror})") from None


def version_argument(text: str) -> str:
    """An argparse type: a Kafka version the oracle knows (surrounding spaces removed, nothing else)."""
    from kjoin.oracle.behaviour import version_problem

    version = text.strip()
    problem = version_problem(version)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"{text!r} {problem}")
    return version


class Progress:
    """Progress of one stage of long work: counts, elapsed time and, once there is a basis for it, an
    estimate of what is left.

    On a terminal it is a live bar (tqdm, on stderr); in logs (not a terminal) a plain line every
    ``interval`` seconds and one at the end of a stage that lasted that long, so CI logs show that long work
    goes on without drowning in lines about short work.

    The estimate is the rate since the first item finished (what comes before it, a JVM's start, a
    candidate's whole call, is no rate) applied to what is left, shown once ``ETA_BASIS`` items finished
    after the first and at least ``ETA_BASIS_S`` seconds went by since: no "330 min left" after one slow
    item followed by a burst.
    """

    ETA_BASIS = 3
    ETA_BASIS_S = 2.0

    def __init__(
        self, stream: TextIO, label: str, total: int, *, unit: str = "cases", interval: float = 10.0
    ):
        self.stream = stream
        self.label = label
        self.total = total
        self.unit = unit
        self.interval = interval
        self.done = 0
        self.started = time.monotonic()
        self._first: tuple[float, int] | None = None
        self._note = ""
        self._last_line = self.started
        self._lines = 0
        self._bar: Any = None
        if _is_terminal(stream):
            from tqdm import tqdm

            self._bar = tqdm(
                total=total,
                desc=label,
                unit=f" {unit}",
                file=stream,
                leave=True,
                dynamic_ncols=True,
                mininterval=0.5,
                bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]",
            )

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def advance(self, count: int = 1) -> None:
        """``count`` more items done."""
        self.update(self.done + count)

    def update(self, done: int, total: int | None = None) -> None:
        """``done`` items done so far (of ``total``, when the total became known or changed)."""
        step, self.done = done - self.done, done
        if self._first is None and done > 0:
            self._first = (time.monotonic(), done)
        if total is not None and total != self.total:
            self.total = total
            if self._bar is not None:
                self._bar.total = total
        if self._bar is not None:
            self._bar.update(step)
            self._bar.set_postfix_str(self._postfix(), refresh=False)
            return
        now = time.monotonic()
        if now - self._last_line >= self.interval:
            self._last_line = now
            self._line()

    def note(self, text: str) -> None:
        """A status beside the counts (e.g. the Spark tasks of the candidate call under way)."""
        self._note = text
        if self._bar is not None:
            self._bar.set_postfix_str(self._postfix(), refresh=True)
            return
        now = time.monotonic()
        if now - self._last_line >= self.interval:
            self._last_line = now
            self._line()

    def left(self) -> float | None:
        """Seconds probably left, or ``None`` while there is no basis for an estimate."""
        if self._first is None or not 0 < self.done < self.total:
            return None
        since, first_done = self._first
        elapsed, finished = time.monotonic() - since, self.done - first_done
        if finished < self.ETA_BASIS or elapsed < self.ETA_BASIS_S:
            return None
        return elapsed / finished * (self.total - self.done)

    def _postfix(self) -> str:
        left = self.left()
        parts = ([] if left is None else [f"about {_duration(left)} left"]) + (
            [self._note] if self._note else []
        )
        return ", ".join(parts)

    def _line(self) -> None:
        elapsed = time.monotonic() - self.started
        left = self.left()
        shown = "" if left is None else f", about {_duration(left)} left"
        extra = f" ({self._note})" if self._note else ""
        counts = f"{self.done}/{self.total} {self.unit}"
        self.stream.write(f"{self.label}: {counts}, {_duration(elapsed)} elapsed{shown}{extra}\n")
        self.stream.flush()
        self._lines += 1

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self._lines or time.monotonic() - self.started >= self.interval:
            self._note = ""
            self._line()
        self.total = self.done = 0


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _duration(seconds_taken: float) -> str:
    if seconds_taken < 60:
        return f"{seconds_taken:.0f} s"
    minutes, rest = divmod(int(seconds_taken), 60)
    return f"{minutes} min {rest:02d} s"


_UNSAFE = "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]"
"""Characters a terminal acts on or hides: C0/C1 controls (escape codes, NUL, carriage return), zero-width,
line-separator and bidirectional-override characters, lone surrogates. Newlines and tabs are kept. A pattern
``re`` compiles (and caches) on first use, not on every command's start (about 1 ms)."""


def terminal_text(text: str) -> str:
    """``text`` safe to print on a terminal: every character in ``_UNSAFE`` written as its escape
    (``\\x1b``, ``\\x00``, ``\\u202e``), so data from a file cannot drive the terminal or hide itself."""
    return re.sub(
        _UNSAFE, lambda match: match.group().encode("unicode_escape", "backslashreplace").decode(), text
    )


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def lines(items: Sequence[str], show: int) -> list[str]:
    """``items`` cut to ``show``, with a count of the rest."""
    kept = list(items[:show])
    if len(items) > show:
        kept.append(f"... and {len(items) - show} more")
    return kept
