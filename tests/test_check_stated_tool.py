"""tools/check_stated_on_kafka.py's command line: help without a run, a usage error (exit 2) for paths that
name no scenario file (it used to take ``--help`` for a path and check the whole catalogue); and (system
tier, real Kafka) a JSON Lines file of Kafka's own tests checked on the releases of its versions."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from kjoin.conformance.catalogue import load_cases
from kjoin.scenarios import CATALOGUE_ROOT

TOOL = Path(__file__).resolve().parent.parent / "tools" / "check_stated_on_kafka.py"


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tool_check_stated_on_kafka", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
    expected = "no such file or folder" if make == "missing" else "no TOML or JSON Lines scenario files"
    assert expected in done.stderr and str(path) in done.stderr


@pytest.mark.system
@pytest.mark.kafka
@pytest.mark.xdist_group("kafka")
def test_kafkas_own_stream_table_tests_state_what_real_kafka_emits() -> None:
    """The transcribed stream-table tests (JSON Lines) on the releases of their versions: 3.0.2, 3.5.2,
    3.9.0, and 3.6.2 for the grace cases, whose integer keys went to a grace buffer serialized with the
    driver's String default serdes before KAFKA-18479, a ClassCastException
    (conformance/kafka_driver/README.md, "Keys and default serdes")."""
    release_for = _module().release_for
    path = CATALOGUE_ROOT / "kafka_tests" / "stream-table.jsonl"
    cases = [case for case in load_cases([path]).cases if case.expected is not None and not case.intended]
    checkable = [case for case in cases if release_for(case.kafka) is not None]
    assert {release_for(case.kafka) for case in checkable} == {"3.0.2", "3.5.2", "3.6.2", "3.9.0"}
    done = subprocess.run(
        [sys.executable, str(TOOL), str(path)], capture_output=True, text=True, timeout=1800
    )
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    assert done.stdout.splitlines()[-1].startswith(
        f"{len(checkable)} stated cases checked on real Kafka, 0 differ; "
        f"{len(cases) - len(checkable)} before 2.4 not checkable"
    )
