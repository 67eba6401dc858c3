"""Checks at scale on real local Spark: generated partitioned data through Kafka's task model, the oracle
per task inside Spark, the candidate on the same tasks, the diff inside Spark; a planted difference in one
partition found with its task and input context; a snapshot of two topics replayed; a job's own output
file as the candidate; refusals that are usage errors.

The generated data is 10,000 records over 4 partitions (about 2,500 per task, thousands of joined outputs);
``nox -s heavy`` runs the same tests at 20,000 (``nox -s bench_scale`` measures millions)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from kjoin.conformance.cli import main
from kjoin.conformance.protocol import load_candidate
from kjoin.conformance.scale.check import ScaleError, Workload, check_at_scale
from kjoin.conformance.scale.data import Generated, generate
from kjoin.conformance.scale.tasks import expected_outputs, ordered_inputs, task_id
from kjoin.oracle import Record, Window, behaviour_for, run
from kjoin.oracle.tasks import processing_order, run_task
from support.tiers import HEAVY

# with test_scale_cluster: kjoin scale and replay; the system tier (tests/conftest.py)
pytestmark = [pytest.mark.system, pytest.mark.xdist_group("spark-scale")]

WINDOW = Window(before=100, after=100, grace=50)
LEFT_JOIN = Workload("stream-stream", "left", "3.9", WINDOW, "memory")
DATA = Generated(records=20_000 if HEAVY else 10_000, keys=200, partitions=4, seed=7)
RUN = {"tool_version": "test"}


class ShiftOneRecord:
    """spark-reference, fed one record of one task ``shift`` ms later than Kafka saw it (a port that reads
    one timestamp wrong): a planted difference in one partition."""

    def __init__(self, task: str, index: int, shift: int) -> None:
        self.reference = load_candidate("spark-reference")
        self.name, self.claim, self.declared_differences = "shift-one-record", self.reference.claim, ()
        self.task, self.index, self.shift = task, index, shift

    def run(self, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
        planted = (F.col("scenario_id") == self.task) & (F.col("idx") == self.index)
        moved = inputs.withColumn("ts", F.when(planted, F.col("ts") + self.shift).otherwise(F.col("ts")))
        return self.reference.run(spark, moved, specs)


def test_generated_data_is_deterministic_and_partitioned_by_key(spark: SparkSession) -> None:
    first = generate(spark, DATA).orderBy("side", "partition", "offset").collect()
    again = generate(spark, DATA).orderBy("side", "partition", "offset").collect()
    assert first == again and len(first) == DATA.records
    partitions = {}
    for row in first:
        if row["key"] is not None:
            assert partitions.setdefault(row["key"], row["partition"]) == row["partition"]
    assert {row["partition"] for row in first} == set(range(DATA.partitions))


def test_each_task_is_ordered_and_joined_as_kafka_does(spark: SparkSession) -> None:
    records = generate(spark, Generated(records=2_000, keys=20, partitions=2, seed=3))
    ordered = ordered_inputs(records)
    expected = expected_outputs(ordered, LEFT_JOIN.spec, "3.9").collect()
    rows = records.collect()
    for partition in (0, 1):
        sides = [
            [Record(side, r["key"], r["value"], r["ts"]) for r in sorted(rows, key=lambda r: r["offset"])
             if r["partition"] == partition and r["side"] == side]
            for side in ("left", "right")
        ]  # fmt: skip
        in_order, outputs = run_task(LEFT_JOIN.spec, sides[0], sides[1], behaviour_for("3.9"))
        task = task_id(partition)
        got = sorted(
            (r["idx"], r["seq"], r["key"], r["left"], r["right"], r["ts"])
            for r in expected
            if r["scenario_id"] == task
        )
        seqs: dict[int, int] = {}
        want = []
        for o in outputs:
            seq = seqs[o.cause] = seqs.get(o.cause, -1) + 1
            want.append((o.cause, seq, o.key, None if o.value is None else o.value[0],
                         None if o.value is None else o.value[1], o.ts))  # fmt: skip
        assert got == sorted(want)
        ordered_task = ordered.filter(F.col("scenario_id") == task).orderBy("idx").collect()
        assert [(r["side"], r["key"], r["value"], r["ts"]) for r in ordered_task] == [
            (r.side, r.key, r.value, r.ts) for r in in_order
        ]


def test_the_reference_agrees_at_scale(spark: SparkSession) -> None:
    document = check_at_scale(
        spark, load_candidate("spark-reference"), generate(spark, DATA), LEFT_JOIN, run=RUN
    )
    assert document["status"] == "pass", document["summary"]
    summary = document["summary"]
    assert summary["records"] == DATA.records and summary["tasks"] == DATA.partitions
    assert summary["expected"] == summary["actual"] > 1_000
    assert (summary["missing"], summary["unexpected"], summary["wrong_input"]) == (0, 0, 0)
    assert [t["task"] for t in document["tasks"]] == [task_id(p) for p in range(DATA.partitions)]


GLOBAL_DATA = Generated(records=4_000, keys=40, partitions=3, seed=11)
GLOBAL_LEFT_JOIN = Workload("stream-globaltable", "left", "4.4")


def test_a_global_table_is_replicated_to_every_task_and_the_reference_agrees(spark: SparkSession) -> None:
    """Spec GT-3 at scale (docs/scale.md, "Stream-GlobalKTable joins"): a task is a stream partition plus
    every global-table record, the table's partitions read as further queues of the task's queue."""
    records = generate(spark, GLOBAL_DATA)
    rows = records.collect()
    table = [r for r in rows if r["side"] == "right"]
    expected = expected_outputs(ordered_inputs(records, "stream-globaltable"), GLOBAL_LEFT_JOIN.spec, "4.4")
    found = expected.collect()
    for partition in range(GLOBAL_DATA.partitions):
        queues = [
            sorted(
                (r for r in rows if r["side"] == "left" and r["partition"] == partition),
                key=lambda r: r["offset"],
            )
        ]
        queues += [sorted((r for r in table if r["partition"] == number), key=lambda r: r["offset"])
                   for number in range(GLOBAL_DATA.partitions)]  # fmt: skip
        order = processing_order([[r["ts"] for r in queue] for queue in queues])
        picked = [queues[queue][at] for queue, at in order]
        in_order = [Record(r["side"], r["key"], r["value"], r["ts"]) for r in picked]
        outputs = run(GLOBAL_LEFT_JOIN.spec, in_order, behaviour_for("4.4"))
        got = sorted((r["idx"], r["seq"], r["key"], r["left"], r["right"], r["ts"])
                     for r in found if r["scenario_id"] == task_id(partition))  # fmt: skip
        seqs: dict[int, int] = {}
        want = []
        for o in outputs:
            seq = seqs[o.cause] = seqs.get(o.cause, -1) + 1
            want.append((o.cause, seq, o.key, None if o.value is None else o.value[0],
                         None if o.value is None else o.value[1], o.ts))  # fmt: skip
        assert got == sorted(want) and any(o.value is not None and o.value[1] is not None for o in outputs)
    document = check_at_scale(spark, load_candidate("spark-reference"), records, GLOBAL_LEFT_JOIN, run=RUN)
    summary = document["summary"]
    assert document["status"] == "pass", summary
    stream = len(rows) - len(table)
    assert summary["records"] == stream + GLOBAL_DATA.partitions * len(table)
    assert summary["expected"] == summary["actual"] == len(found) > 500
    assert [t["partition"] for t in document["tasks"]] == list(range(GLOBAL_DATA.partitions))


def test_a_planted_difference_in_one_partition_is_found_with_its_task_and_context(
    spark: SparkSession,
) -> None:
    planted = ShiftOneRecord(task_id(2), 1_000, WINDOW.before + WINDOW.after + WINDOW.grace + 1)
    document = check_at_scale(spark, planted, generate(spark, DATA), LEFT_JOIN, run=RUN)  # type: ignore[arg-type]
    assert document["status"] == "fail"
    differing = [t["task"] for t in document["tasks"] if t["missing"] or t["unexpected"] or t["wrong_input"]]
    assert differing == [task_id(2)]
    [sample] = document["samples"]
    assert sample["task"] == task_id(2) and sample["first_at"] >= 1_000  # nothing before the planted record
    assert any(record["index"] == sample["first_at"] for record in sample["context"])
    kinds = {item["kind"] for item in sample["divergences"]}
    assert kinds & {"missing-output", "unexpected-output", "wrong-input"}


@pytest.fixture(scope="module")
def snapshot(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The generated records as Spark's Kafka source would read two topics, saved as Parquet once for the
    module (the replay tests only read it)."""
    return _snapshot(spark, tmp_path_factory.mktemp("snapshot"))


def _snapshot(spark: SparkSession, folder: Path) -> Path:
    """The generated records as Spark's Kafka source would read two topics, saved as Parquet."""
    records = generate(spark, DATA)
    topic = F.when(F.col("side") == "left", F.lit("orders")).otherwise(F.lit("payments"))
    snapshot = records.select(
        F.col("key").cast("binary").alias("key"),
        F.col("value").cast("binary").alias("value"),
        topic.alias("topic"),
        F.col("partition"),
        F.col("offset"),
        F.expr("timestamp_millis(ts)").alias("timestamp"),
    )
    path = folder / "snapshot.parquet"
    snapshot.write.parquet(str(path))
    return path


def _kjoin(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), stdout=out, stderr=err), out.getvalue(), err.getvalue()


WINDOW_ARGS = (
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
)


def test_replay_of_a_snapshot_passes_and_writes_its_report(snapshot: Path, tmp_path: Path) -> None:
    topics = ("--left-topic", "orders", "--right-topic", "payments")
    code, out, err = _kjoin(
        "replay", "--candidate", "spark-reference", "--input", str(snapshot), *topics, *WINDOW_ARGS,
        "--report", str(tmp_path / "r"),
    )  # fmt: skip
    assert code == 0, out + err
    assert f"{DATA.records:,} records in {DATA.partitions} tasks: pass" in out
    document = json.loads((tmp_path / "r" / "results.json").read_text())
    assert document["schema"] == "kjoin-scale" and document["run"]["data"]["mode"] == "replay"
    page = (tmp_path / "r" / "index.html").read_text()
    assert "One Kafka task per partition number" in page


def test_replay_against_a_jobs_output_file_finds_a_dropped_row(
    spark: SparkSession, snapshot: Path, tmp_path: Path
) -> None:
    ordered = ordered_inputs(generate(spark, DATA))
    outputs = expected_outputs(ordered, LEFT_JOIN.spec, "3.9").withColumn(
        "partition", F.substring("scenario_id", 6, 5).cast("int")
    )
    dropped = outputs.filter(~((F.col("scenario_id") == task_id(1)) & (F.col("idx") == 500)))
    complete, tampered = tmp_path / "complete.parquet", tmp_path / "tampered.parquet"
    outputs.select("partition", "key", "left", "right", "tombstone", "ts").write.parquet(str(complete))
    dropped.select("partition", "key", "left", "right", "ts").write.parquet(str(tampered))
    base = (
        "replay",
        "--input",
        str(snapshot),
        "--left-topic",
        "orders",
        "--right-topic",
        "payments",
        *WINDOW_ARGS,
    )
    code, out, err = _kjoin(*base, "--output", str(complete))
    assert code == 0, out + err
    code, out, _ = _kjoin(*base, "--output", str(tampered))
    lost = outputs.filter((F.col("scenario_id") == task_id(1)) & (F.col("idx") == 500)).count()
    assert code == 1 and lost >= 1
    assert f"{lost:,} missing, 0 unexpected" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--join", "table-table", "--variant", "inner", "--candidate", "no.such:thing"), "--candidate"),
        (("--join", "stream-stream", "--variant", "left", "--candidate", "spark-native", "--kafka", "0.10.0"),
         "does not claim"),
        (("--join", "stream-globaltable", "--variant", "left", "--grace", "5",
          "--candidate", "spark-reference"), "no window and no grace"),
    ],
)  # fmt: skip
def test_scale_refusals_are_usage_errors(argv: tuple[str, ...], message: str) -> None:
    code, _, err = _kjoin("scale", "--records", "100", *argv)
    assert code == 2 and message in err


def test_foreign_key_joins_are_refused_before_any_work(spark: SparkSession) -> None:
    with pytest.raises(ScaleError, match="spec TK-3"):
        reference = load_candidate("spark-reference")
        check_at_scale(spark, reference, generate(spark, DATA), Workload("fk", "inner", "3.9"), run=RUN)


def test_scale_document_carries_only_bounded_data(spark: SparkSession) -> None:
    planted = ShiftOneRecord(task_id(0), 10, 1_000)
    document: dict[str, Any] = check_at_scale(
        spark, planted, generate(spark, DATA), LEFT_JOIN, run=RUN, sample_tasks=1
    )  # type: ignore[arg-type]
    assert len(json.dumps(document)) < 20_000
    assert all(
        len(sample["divergences"]) <= 15 and len(sample["context"]) <= 8 for sample in document["samples"]
    )
