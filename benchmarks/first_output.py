"""pytest plugin: when a test run first showed something, written for ``benchmarks.tier_cpu``.

Loaded with ``-p benchmarks.first_output`` when ``$KJOIN_FIRST_OUTPUT_FILE`` names a file (``tier_cpu``
sets both). In the process that prints (pytest itself, or xdist's controller), it writes one JSON object
with wall-clock times (``time.time()``): ``collected``, when the run knew its tests (xdist: when the last
worker finished collecting, the moment ``N workers [M items]`` is printed), and ``first_result``, when the
first test's outcome reached the terminal (its progress character). Issue 24 asks for the first output
within 30 s of the command.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

__all__ = ["FILE_ENV"]

FILE_ENV = "KJOIN_FIRST_OUTPUT_FILE"
"""The file the times go to."""

_times: dict[str, float] = {}
_printer = False
"""Whether this process prints (pytest itself, or xdist's controller; not a worker): set at configure."""


def _note(what: str) -> None:
    _times[what] = time.time()
    Path(os.environ[FILE_ENV]).write_text(json.dumps(_times), encoding="utf-8")


def pytest_configure(config: pytest.Config) -> None:
    global _printer
    _printer = bool(os.environ.get(FILE_ENV)) and not hasattr(config, "workerinput")


def pytest_collection_finish(session: pytest.Session) -> None:
    if _printer and not session.config.getoption("numprocesses", None):
        _note("collected")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    if _printer:
        _note("collected")  # each worker's in turn: the last one is when the run starts


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """The first report the terminal shows a character for: a test's call, or a setup that did not pass
    (an error, a skip)."""
    shown = report.when == "call" or (report.when == "setup" and not report.passed)
    if _printer and shown and "first_result" not in _times:
        _note("first_result")
