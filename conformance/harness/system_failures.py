"""Failures of the system a run stands on (Spark, its Python workers, the JVM, a Kafka broker, Maven's local
repository, the machine), told apart from the candidate's.

A candidate call that fails with one of ``SIGNS`` is not the candidate's fault: the harness retries it
after ``RETRY_DELAYS_S`` (an overloaded machine recovers) and, if it keeps failing, stops the run with a
``SystemFailure``: exit 3, the cause in one line (docs/command-line.md). It never bisects such a call: a
half would fail the same way, or pass by luck and pin the failure on innocent scenarios.

A candidate that runs on a system of its own (``WatchesSystem``: a run through a Kafka broker) is asked
while each call runs whether that system still stands; one that stopped ends the call at once with its
``SystemFailure``, where the call's clients would wait out their timeouts against it.

Java stack traces never reach the terminal: ``one_line`` keeps the first line of a Java exception (a
py4j error carries the whole trace), and Spark's own log goes to a file (``harness.spark_session``).
"""

from __future__ import annotations

import re
from typing import Protocol, runtime_checkable

from kjoin.errors import KjoinError

__all__ = ["RETRY_DELAYS_S", "SIGNS", "SystemFailure", "WatchesSystem", "one_line", "system_cause"]

RETRY_DELAYS_S = (5.0, 20.0)
"""Seconds to wait before each retry of a call that failed for a system cause (then it is a failure)."""


class SystemFailure(KjoinError):
    """The system failed, not the candidate: the message is the cause in one line. Exit code 3. ``retry``
    false: trying again cannot help (a broker that stopped)."""

    def __init__(self, message: str, *, retry: bool = True) -> None:
        super().__init__(message)
        self.retry = retry


@runtime_checkable
class WatchesSystem(Protocol):
    """A candidate standing on a system of its own that can tell whether it still stands."""

    def check_system(self) -> None:
        """``SystemFailure`` if the system stopped; quick (the harness asks about once a second)."""
        ...


SIGNS: tuple[tuple[str, str], ...] = (
    (
        r"Python worker failed to connect back|waiting for the Python worker to connect back|"
        r"Python daemon failed to launch",
        "a Spark Python worker did not start in time (the machine is overloaded)",
    ),
    (
        r"java\.net\.SocketTimeoutException|Accept timed out",
        "a Spark socket timed out (the machine is overloaded)",
    ),
    (
        r"Answer from Java side is empty|Error while sending or receiving|Py4JNetworkError",
        "the Spark JVM stopped answering (it died)",
    ),
    (r"No space left on device", "the disk is full"),
    (r"Address already in use|BindException", "a port the run needs is taken by another program"),
    (
        r"Timed out waiting for a node assignment|Node may not be available|Broker may not be available|"
        r"Connection to node -?\d+ .* could not be established|"
        r"Timeout of \d+ms expired before the position for partition|the broker is not running",
        "the Kafka broker does not answer (it stopped, or its port is taken by another program)",
    ),
)
"""Text that marks a system failure (a regular expression) and the cause it names."""
_COMPILED = tuple((re.compile(pattern), cause) for pattern, cause in SIGNS)
_JAVA_EXCEPTION = re.compile(
    r"^[\s:]*(?:Caused by: )?((?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error)\b.*)$", re.MULTILINE
)
_JAVA_CLASS = re.compile(r"(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error)\b")
_JAVA_TRACE = re.compile(r"^\s+at [\w$.<>]+\(", re.MULTILINE)


def system_cause(text: str) -> str | None:
    """The system cause ``text`` (an error message or trace) shows, or ``None`` (the candidate's, then)."""
    for pattern, cause in _COMPILED:
        if pattern.search(text):
            return cause
    return None


def one_line(error: BaseException | str) -> str:
    """An error in one line: its first line, except where that wraps a Java exception (py4j's "An error
    occurred while calling", a Java stack trace): then the Java exception's class and message, the one
    naming a system cause if any, from its innermost exception on, without the trace."""
    text = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    first = lines[0] if lines else text.strip()
    if _JAVA_TRACE.search(text) or "An error occurred while calling" in first:
        java = [match.group(1) for match in _JAVA_EXCEPTION.finditer(text)]
        if java:
            line = next((line for line in java if system_cause(line)), java[0])
            innermost = list(_JAVA_CLASS.finditer(line))[-1].start()  # "Job aborted: ...: X: cause"
            return _cut(line[innermost:])
    return _cut(first)


def _cut(line: str, limit: int = 300) -> str:
    return line if len(line) <= limit else line[: limit - 3] + "..."
