"""pytest plugin: the CPU of each test, its process tree included, written for ``benchmarks.tier_cpu``.

    python -m benchmarks.tier_cpu --per-file [-- PYTEST ARGUMENTS]

Loaded with ``-p benchmarks.cpu_per_test`` when ``$KJOIN_TEST_CPU_DIR`` names a folder (``tier_cpu
--per-file`` sets both). Each pytest process (the xdist workers, or pytest itself without ``-n``) appends
one JSON line per test to ``<folder>/<pid>.jsonl``: its node id and the CPU seconds its process tree spent
from the start of the test's setup to the end of its teardown, read from ``/proc``. The tree is the pytest
process and every live descendant (a worker's SparkSession JVM, Spark's Python workers, a Kafka driver's
JVM, the ``kjoin`` commands a test runs), each counted with ``utime + stime + cutime + cstime``, so a
descendant that exits and is waited for moves into its parent's figure and is not lost. JVMs live across
tests: a test is charged with what the tree did while it ran (a session's start-up goes to the first test
that needed it, background threads to whichever test was running). A last line per process holds the
tree's CPU at the end of the session, so what was spent outside the tests (start-up, collection) is known.
The plugin's own sampling cost is measured and written too (``sampling_s``).
A test's figure can be negative: a descendant that was charged to earlier tests left the tree without being
waited for inside it (its parent exited first, so the benchmark, the child subreaper, reaped it); the
benchmark's total counts it, under "not in any worker's tree".
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Generator
from pathlib import Path

import pytest

from benchmarks.tier_cpu import cpu_so_far

__all__ = ["DIR_ENV", "tree_cpu"]

DIR_ENV = "KJOIN_TEST_CPU_DIR"
"""The folder the per-test figures go to (one ``<pid>.jsonl`` per pytest process)."""


def _children(pid: int) -> list[int]:
    """The live children of every thread of ``pid`` (``/proc/PID/task/TID/children``)."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            found.extend(
                int(child) for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split()
            )
        except OSError:
            continue
    return found


def tree_cpu(root: int) -> float:
    """CPU seconds of ``root`` and of all its live descendants (with the children each has waited for)."""
    total, stack, seen = 0.0, [root], set()
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += cpu_so_far(pid)  # 0 for a process already gone, whose children list is empty too
        stack.extend(_children(pid))
    return total


class _Recorder:
    """Writes one line per test to this process's file."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"{os.getpid()}.jsonl"
        self.sampling_s = 0.0

    def sample(self) -> float:
        started = time.thread_time()
        value = tree_cpu(os.getpid())
        self.sampling_s += time.thread_time() - started
        return value

    def write(self, record: dict[str, object]) -> None:
        with self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")


_recorder: _Recorder | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _recorder
    folder = os.environ.get(DIR_ENV)
    if folder and not hasattr(config, "workerinput") and config.getoption("numprocesses", None):
        return  # the xdist controller runs no tests: its workers record
    if folder:
        _recorder = _Recorder(Path(folder))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    if _recorder is None:
        yield
        return
    before, wall = _recorder.sample(), time.perf_counter()
    yield
    after = _recorder.sample()
    _recorder.write(
        {"nodeid": item.nodeid, "file": item.location[0], "cpu_s": after - before,
         "wall_s": time.perf_counter() - wall}
    )  # fmt: skip


def pytest_sessionfinish(session: pytest.Session) -> None:
    if _recorder is not None:
        _recorder.write({"session_end_cpu_s": _recorder.sample(), "sampling_s": _recorder.sampling_s})
