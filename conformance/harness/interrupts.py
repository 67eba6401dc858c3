"""SIGINT and SIGTERM during a run: always acted on, held only where acting at once would lose something.

* ``stop_on_signals``: for a whole run, SIGINT raises ``KeyboardInterrupt`` and SIGTERM raises ``Stop``,
  whatever the process inherited (a shell starts background jobs with SIGINT ignored; a run must still
  end on it, exit 3, with what finished kept);
* ``signals_held``: for a short stretch that must not be cut (the JVM's start: cut between launching it
  and connecting to it, PySpark leaves an orphan JVM holding this process's stdout; the results file being
  written), the signals are recorded and acted on as soon as the stretch ends;
* ``signal_point``: a named point of a run where a test can have a signal sent (``$KJOIN_SIGNAL_AT``,
  ``POINT:SIGNAL``, e.g. ``spark-starting:SIGINT``), so that interruption tests hit the moment they mean
  instead of a random one.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kjoin.conformance.harness.batching import Stop

__all__ = ["SIGNAL_AT_ENV", "SIGNAL_POINTS", "signal_point", "signals_held", "stop_on_signals"]

SIGNAL_AT_ENV = "KJOIN_SIGNAL_AT"
SIGNAL_POINTS = ("spark-starting", "call-finished", "results-writing")
"""The named points: the JVM starting, a candidate call just finished, the final results being written."""
_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _on_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _interrupt(signum: int, frame: Any) -> None:
    if signum == signal.SIGTERM:
        raise Stop("terminated by SIGTERM")
    raise KeyboardInterrupt


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """SIGINT raises ``KeyboardInterrupt``, SIGTERM raises ``Stop`` inside the block (main thread only)."""
    if not _on_main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, _interrupt) for signum in _SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextmanager
def signals_held() -> Iterator[None]:
    """Record SIGINT and SIGTERM inside the block; at its end, deliver them to the handlers in force before
    (first one wins: it raises). Outside the main thread, nothing changes."""
    if not _on_main_thread():
        yield
        return
    received: list[int] = []

    def hold(signum: int, frame: Any) -> None:
        received.append(signum)

    previous = {signum: signal.signal(signum, hold) for signum in _SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for number in dict.fromkeys(received):
            handler = previous[signal.Signals(number)]
            if callable(handler):
                handler(number, None)  # raises (KeyboardInterrupt, Stop) at once, here
            elif handler == signal.SIG_DFL:
                signal.raise_signal(number)


def signal_point(point: str) -> None:
    """A named point of a run: sends this process the signal ``$KJOIN_SIGNAL_AT`` asks for at ``point``."""
    wanted = os.environ.get(SIGNAL_AT_ENV, "")
    name, _, signal_name = wanted.partition(":")
    if name == point:
        os.kill(os.getpid(), getattr(signal, signal_name or "SIGINT"))
