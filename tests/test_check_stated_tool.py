"""tools/check_stated_on_kafka.py's command line: help without a run, a usage error (exit 2) for paths that
name no scenario file (it used to take ``--help`` for a path and check the whole catalogue)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parent.parent / "tools" / "check_stated_on_kafka.py"


def _tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True, timeout=60)


def test_help_prints_the_usage_and_checks_nothing() -> None:
    done = _tool("--help")
    assert done.returncode == 0
    assert done.stdout.startswith("usage: python tools/check_stated_on_kafka.py")
    assert "stated cases" not in done.stdout + done.stderr


@pytest.mark.parametrize("make", ["missing", "empty"])
def test_a_path_without_scenarios_is_a_usage_error(tmp_path: Path, make: str) -> None:
    path = tmp_path / "nope" if make == "missing" else tmp_path
    done = _tool(str(path))
    assert done.returncode == 2
    expected = "no such file or folder" if make == "missing" else "no TOML scenario files"
    assert expected in done.stderr and str(path) in done.stderr
