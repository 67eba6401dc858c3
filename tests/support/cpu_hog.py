"""A CPU load generator for tests that must hold on a busy machine (issue 24: the worked streaming example
passes at load 15 on two cores): ``cpu_hog(n)`` runs ``n`` busy-looping processes at normal priority beside
the test and stops them after it, so they compete for the CPU as other users' jobs do."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

_BUSY_LOOP = "while True:\n    pass\n"


@contextmanager
def cpu_hog(processes: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``processes`` busy loops, each its own process at the test's priority; killed on exit."""
    hogs = [
        subprocess.Popen([sys.executable, "-c", _BUSY_LOOP], stdin=subprocess.DEVNULL, start_new_session=True)
        for _ in range(processes)
    ]
    try:
        yield hogs
    finally:
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait()


def hogs_for(load: float) -> int:
    """How many busy loops bring this machine's load average to about ``load``, counting what runs now (the
    last minute's average): an idle machine gets ``load`` of them, a machine already that busy none."""
    return max(0, round(load - os.getloadavg()[0]))
