"""End to end through real Kafka topics: ``kjoin run --candidate C --through-kafka`` starts a single-node
broker, produces a slice of the catalogue to real topics (each scenario one partition, records with their
own timestamps), runs the candidate's job reading them with Spark's Kafka source and reads the output topic
back. The stateful port agrees with the oracle exactly, in Kafka's processing order (spec TK-2); a user's
Structured Streaming job emits through Kafka what it emits when the harness feeds it directly.

It runs in a subprocess: the Kafka connector's jars must be on the JVM's classpath from its start, so the
run has its own SparkSession. Needs Java 17 and Maven (the broker and the connector come from Maven Central
on first use, then from the cache).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from kjoin.conformance.catalogue import load_cases
from kjoin.conformance.documents.results import case_result, load_results
from kjoin.conformance.endtoend.topics import in_processing_order
from kjoin.conformance.harness.claims import as_claimed
from kjoin.conformance.harness.outcomes import HarnessRun
from kjoin.conformance.protocol import load_candidate
from kjoin.scenarios import CATALOGUE_ROOT

pytest_plugins = ["pytester"]
pytestmark = [
    pytest.mark.system,  # the system tier (tests/conftest.py)
    pytest.mark.kafka,
    pytest.mark.spark,
    pytest.mark.xdist_group("spark-kafka"),
]

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"

SLICE = [
    "stream_stream/joined-ts-trigger-then-max.toml",
    "stream_stream/left-join-one-sided-before-kip77.toml",
    "stream_stream/null-value-advances-stream-time.toml",
    "stream_stream/outer-null-key-emitted-at-once.toml",
    "stream_stream/window-bounds-inclusive.toml",
    "stream_stream/stale-min-time-delays-closed-record.toml",
    "table_table/kip914-history-as-grace.toml",
    "table_table/output-ts-max-of-inputs-from-2-3.toml",
    "table_table/unversioned-out-of-order-updates-join.toml",
    "table_table/docs-old.toml",
]
"""A few dozen cases of two join kinds, most of them reordered by TK-2 (their records are not given in the
order Kafka processes them), some with null keys and values."""


def test_spark_stateful_through_real_kafka_topics_agrees_with_the_oracle(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    command = [
        sys.executable, "-m", "kjoin.conformance", "run", "--candidate", "spark-stateful", "--through-kafka",
        "--spark-master", "local[2]", "--results", str(results),
        "--scenarios", *(str(CATALOGUE_ROOT / path) for path in SLICE),
    ]  # fmt: skip
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=900, check=False, env=dict(os.environ)
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "through Kafka 4.3.1" in done.stderr
    document = load_results(results)
    cases = document["cases"]
    # the cases as the claim runs them: a table-table case stated for 2.3 runs as 3.1 (docs/candidates.md)
    stated = load_cases([CATALOGUE_ROOT / path for path in SLICE]).cases
    original = {case.id: case for case in as_claimed(load_candidate("spark-stateful").claim, stated).cases}
    assert {case["id"] for case in cases} == set(original)
    passed = [case for case in cases if case["status"] == "pass"]
    assert all(case["status"] in ("pass", "not-claimed", "not-applicable") for case in cases)
    assert all(case["mode"] == "exact" for case in passed)
    assert len(passed) >= 20 and {case["join"] for case in passed} == {"stream-stream", "table-table"}
    # the run fed Kafka's processing order, which differs from the scenario's own order in many cases
    reordered = [
        case
        for case in passed
        if [(r.side, r.key, r.value, r.ts) for r in original[case["id"]].records]
        != [(r["side"], r["key"], r["value"], r["ts"]) for r in case["records"]]
    ]
    assert len(reordered) >= 10, len(reordered)


def test_the_pytest_plugin_runs_spark_stateful_through_real_kafka(pytester: pytest.Pytester) -> None:
    """``pytest --candidate spark-stateful --through-kafka``: one item per case, every claimed one passes
    exactly in Kafka's processing order, and the results say the run went through a broker."""
    files = [CATALOGUE_ROOT / path for path in SLICE[2:4] + SLICE[6:9:2]]
    results = pytester.path / "results.json"
    arguments = ["--candidate", "spark-stateful", "--through-kafka", "--spark-master", "local[2]"]
    arguments += ["--kjoin-results", str(results), "-p", "no:cacheprovider"]
    arguments += [item for path in files for item in ("--kjoin-scenarios", str(path))]
    run = pytester.runpytest_subprocess(*arguments, timeout=900)
    assert run.ret == pytest.ExitCode.OK, run.stdout.str()[-3000:] + run.stderr.str()[-3000:]
    document = load_results(results)
    assert document["run"]["through_kafka"]["kafka_broker"] == "4.3.1"
    assert document["run"]["through_kafka"]["feed"] == "the job's own"
    passed = [case for case in document["cases"] if case["status"] == "pass"]
    assert len(passed) >= 6 and all(case["mode"] == "exact" for case in passed)
    assert {case["join"] for case in passed} == {"stream-stream", "table-table"}
    assert all(case["status"] in ("pass", "not-claimed", "not-applicable") for case in document["cases"])


STREAMING_SLICE = [
    "stream_stream/outer-null-key-emitted-at-once.toml",
    "stream_stream/held-records-store-order.toml",
    "stream_stream/outer-held-record-closes-per-side.toml",
    "stream_stream/stale-min-time-delays-closed-record.toml",
    "stream_stream/window-bounds-inclusive.toml",
]
"""Inner, left and outer joins (eight claimed cases, five of them reordered by TK-2), none longer than six
records: each record is a micro-batch of every query."""


def test_a_users_streaming_job_through_real_kafka_emits_what_it_emits_when_fed_directly(
    tmp_path: Path, spark: SparkSession
) -> None:
    """The docs' example job (docs/examples/orders_payments.py, a ``streaming_candidate``), unchanged, reads
    real topics with Spark's Kafka source one processing step per micro-batch and writes its output to a
    topic; every case passes or differs only as declared, and the rows read back from the output topic are,
    case for case and key for key in order, the rows the same job emits when the harness feeds it directly
    (the job answers without ``idx``: rows of different keys leave Spark's shuffle partitions in no set
    order, to a memory sink as to a topic)."""
    results = tmp_path / "results.json"
    command = [
        sys.executable, "-m", "kjoin.conformance", "run", "--candidate", "orders_payments:candidate",
        "--through-kafka", "--spark-master", "local[2]", "--results", str(results),
        "--scenarios", *(str(CATALOGUE_ROOT / path) for path in STREAMING_SLICE),
    ]  # fmt: skip
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(EXAMPLES), environment.get("PYTHONPATH")]))
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False, env=environment)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    document = load_results(results)
    assert document["run"]["through_kafka"]["feed"] == "stepped"
    assert document["candidate"]["name"] == "orders-payments (through Kafka)"
    through_kafka = {case["id"]: case for case in document["cases"] if case["status"] != "not-claimed"}
    assert {case["status"] for case in through_kafka.values()} == {"pass", "declared"}

    sys.path.insert(0, str(EXAMPLES))
    try:
        candidate = load_candidate("orders_payments:candidate")
    finally:
        sys.path.remove(str(EXAMPLES))
    original = [
        case
        for case in load_cases([CATALOGUE_ROOT / path for path in STREAMING_SLICE]).cases
        if case.id in through_kafka
    ]
    cases = [in_processing_order(case) for case in original]
    assert len(cases) == len(through_kafka) == 8, sorted(through_kafka)
    reordered = [
        case.id for case, before in zip(cases, original, strict=True) if case.records != before.records
    ]
    assert len(reordered) == 5, reordered  # TK-2 processes their records in another order than the file's
    direct = {
        outcome.case.id: case_result(outcome)
        for outcome in HarnessRun(candidate, lambda: spark).outcomes(cases)
    }
    for case_id, case in through_kafka.items():
        assert case["records"] == direct[case_id]["records"], case_id
        assert _per_key(case["actual"]) == _per_key(direct[case_id]["actual"]), case_id
        assert case["status"] == direct[case_id]["status"], case_id
    assert sum(len(case["actual"]) for case in through_kafka.values()) >= 10


def _per_key(rows: list[dict[str, object]]) -> dict[object, list[dict[str, object]]]:
    by_key: dict[object, list[dict[str, object]]] = {}
    for row in rows:
        by_key.setdefault(row["key"], []).append(row)
    return by_key
