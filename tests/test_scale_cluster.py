"""``kjoin scale`` and ``kjoin replay`` on a real Spark standalone cluster (a master and a worker on
loopback, started from the installed PySpark for this module and stopped after it): the commands run as
separate driver processes, as a user runs them against any cluster, over 8 partitions (8 Kafka tasks); the
scale job saves its generated records (``--save-input``) and the replay reads them back.

The test suite runs it at 20,000 records: enough for every task to hold thousands of records and joined
outputs, so scale and replay are compared task by task on real data; ``nox -s heavy`` runs the same test at
200,000 records (the size of the standalone-cluster numbers in docs/scale.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.cluster import standalone_cluster
from support.tiers import HEAVY

# with test_scale; its own JVMs (master, worker, kjoin); the system tier (tests/conftest.py)
pytestmark = [pytest.mark.system, pytest.mark.xdist_group("spark-scale")]

KJOIN = [sys.executable, "-m", "kjoin.conformance"]
JOIN = [
    "--join",
    "stream-stream",
    "--variant",
    "left",
    "--before",
    "100",
    "--grace",
    "50",
    "--stores",
    "memory",
]
RECORDS = 200_000 if HEAVY else 20_000
"""How many records ``kjoin scale`` generates (and the snapshot replays): 20,000 in the test suite, 200,000
in ``nox -s heavy``."""
TIMEOUT_S = 1200
"""A generous bound for a loaded 2-core machine (the check itself takes about two minutes there)."""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with standalone_cluster(tmp_path_factory.mktemp("cluster")) as url:
        yield url


def _kjoin(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*KJOIN, *argv], capture_output=True, text=True, timeout=TIMEOUT_S)


def test_scale_and_replay_on_a_standalone_cluster(cluster: str, tmp_path: Path) -> None:
    size = ("--records", str(RECORDS), "--keys", "1000", "--partitions", "8")
    snapshot = tmp_path / "snapshot.parquet"  # the generated records, saved by the scale job on the cluster
    scaled = _kjoin(
        "scale", "--candidate", "spark-reference", *size, *JOIN, "--spark-master", cluster,
        "--results", str(tmp_path / "scale.json"), "--save-input", str(snapshot),
    )  # fmt: skip
    assert scaled.returncode == 0, scaled.stdout + scaled.stderr[-3000:]
    document = json.loads((tmp_path / "scale.json").read_text())
    assert document["run"]["spark_master"] == cluster
    assert document["status"] == "pass" and document["summary"]["records"] == RECORDS
    assert document["summary"]["tasks"] == 8
    assert document["summary"]["expected"] == document["summary"]["actual"] > RECORDS // 10  # real joins
    replayed = _kjoin(
        "replay", "--candidate", "spark-reference", "--input", str(snapshot), "--left-topic", "left",
        "--right-topic", "right", *JOIN, "--spark-master", cluster, "--report", str(tmp_path / "report"),
    )  # fmt: skip
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr[-3000:]
    replay = json.loads((tmp_path / "report" / "results.json").read_text())
    assert replay["summary"] == {**document["summary"]}  # the same records, the same tasks, the same outputs
    assert (tmp_path / "report" / "index.html").is_file()
