"""A candidate for the broker fault test (ONLY for it): the docs' example job, which first kills the Kafka
broker this process started (``kjoin run --through-kafka``), the way a broker dies under a run, and writes
the wall-clock time of the kill to the file ``KILLED_AT`` names (for the test to time the run's end)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import TYPE_CHECKING

from kjoin.conformance.streaming import JobShape, StreamingCandidate, streaming_candidate

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["KILLED_AT", "candidate"]

KILLED_AT = "KJOIN_TEST_BROKER_KILLED_AT"


def _broker_pids() -> list[int]:
    """This process's children that run ``kafka.Kafka`` (the broker's JVM)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text(encoding="ascii")
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid() and b"kafka.Kafka" in command:
            found.append(int(entry.name))
    return found


def _killing_job(left: DataFrame, right: DataFrame, spec: JobShape) -> DataFrame:
    from orders_payments import orders_with_payments

    for pid in _broker_pids():
        os.kill(pid, signal.SIGKILL)
    if KILLED_AT in os.environ:
        Path(os.environ[KILLED_AT]).write_text(str(time.time()), encoding="ascii")
    deadline = time.monotonic() + 30
    while _broker_pids() and time.monotonic() < deadline:  # reaped by the broker's owner, or a zombie
        time.sleep(0.2)
    return orders_with_payments(left, right, spec)


def _candidate() -> StreamingCandidate:
    from orders_payments import candidate as example

    return streaming_candidate("broker-killer", _killing_job, example.claim, example.declared_differences)


candidate = _candidate
