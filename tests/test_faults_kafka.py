"""Faults of the end-to-end mode's Kafka broker, told apart from the candidate's (system tier: a real broker;
Java 17 and Maven): a port another program took between kjoin choosing it and the broker binding it is not
taken for the broker, and a broker that dies under a run ends it at once with exit 3 in one line, with no
retry against the dead broker and no case blamed on the candidate."""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kjoin.conformance.cli import main
from kjoin.conformance.harness.system_failures import SystemFailure
from kjoin.conformance.kafka import broker as broker_module
from kjoin.conformance.kafka.broker import KafkaBroker
from kjoin.scenarios import CATALOGUE_ROOT
from support.broker_killer import KILLED_AT

pytestmark = [pytest.mark.system, pytest.mark.kafka, pytest.mark.xdist_group("spark-kafka")]

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples"
SCENARIOS = [
    CATALOGUE_ROOT / "stream_stream" / "window-bounds-inclusive.toml",
    CATALOGUE_ROOT / "stream_stream" / "outer-null-key-emitted-at-once.toml",
]
AT_ONCE_S = 45
"""The most a run may take from the broker's death to its end in the broker fault test: about 4 s at load
12 (2026-11-27); below the one-minute timeout a Kafka client waits out against a dead broker."""


def _squatted_port(monkeypatch: pytest.MonkeyPatch, squatter: socket.socket) -> int:
    """A port another program listens on, handed to the broker as its port (then free ones)."""
    squatter.bind(("127.0.0.1", 0))
    squatter.listen()
    port = int(squatter.getsockname()[1])
    handed = iter([port])
    free_port = broker_module.free_port
    monkeypatch.setattr(broker_module, "free_port", lambda: next(handed, None) or free_port())
    return port


def test_a_port_another_program_took_is_not_taken_for_the_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as squatter:
        port = _squatted_port(monkeypatch, squatter)
        with pytest.raises(SystemFailure) as failure, KafkaBroker("4.3.1"):
            pass
    assert (
        str(failure.value) == f"port {port}, chosen for the Kafka 4.3.1 broker, was taken by another program"
    )


def test_kjoin_run_says_so_in_one_line_with_exit_3(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLES))
    out, err = io.StringIO(), io.StringIO()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as squatter:
        port = _squatted_port(monkeypatch, squatter)
        argv = ["run", "--candidate", "orders_payments:candidate", "--through-kafka"]
        code = main([*argv, "--scenarios", *map(str, SCENARIOS)], stdout=out, stderr=err)
    assert code == 3, out.getvalue() + err.getvalue()
    assert err.getvalue().endswith(
        f"kjoin: port {port}, chosen for the Kafka 4.3.1 broker, was taken by another program\n"
    )
    assert "Traceback" not in err.getvalue() and "internal error" not in err.getvalue()


def test_a_broker_that_dies_under_a_run_ends_it_at_once_in_one_line(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    command = [
        sys.executable, "-m", "kjoin.conformance", "run", "--candidate", "support.broker_killer:candidate",
        "--through-kafka", "--spark-master", "local[2]", "--results", str(results),
        "--scenarios", *map(str, SCENARIOS),
    ]  # fmt: skip
    environment = dict(os.environ)
    paths = [str(EXAMPLES), str(ROOT / "tests"), environment.get("PYTHONPATH")]
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, paths))
    environment[KILLED_AT] = str(tmp_path / "killed-at")
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False, env=environment)
    assert done.returncode == 3, done.stdout[-3000:] + done.stderr[-3000:]
    # at once: Kafka's clients would wait out their timeouts against the dead broker, a minute per record
    after_death = time.time() - float((tmp_path / "killed-at").read_text(encoding="ascii"))
    assert after_death < AT_ONCE_S, f"the run ended {after_death:.0f} s after the broker died"
    stopped = [line for line in done.stderr.splitlines() if line.startswith("kjoin: run: the Kafka")]
    assert len(stopped) == 1, done.stderr[-3000:]
    assert "broker on 127.0.0.1:" in stopped[0] and "stopped (exit code -9) during the run" in stopped[0]
    assert "\tat " not in done.stdout + done.stderr and "Traceback" not in done.stderr
    document = json.loads(results.read_text(encoding="utf-8"))
    assert document["complete"] is False and "stopped (exit code -9)" in document["incomplete_reason"]
    assert not any(case["status"] == "error" for case in document["cases"])  # never the candidate's
    assert [call["join"] for call in document["calls"]] == ["stream-stream"]  # no retry, no bisection
