"""A scale check end to end: input records -> Kafka's task order -> the oracle per task and the candidate
on the same tasks -> a diff inside Spark -> the ``kjoin-scale`` document (docs/results-format.md).

Every step stays in Spark; the driver sees counts, per-task figures and the bounded samples. The inputs in
task order and both outputs are persisted (memory and disk) while they are compared, then released.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kjoin.conformance.catalogue import Case
from kjoin.conformance.documents.results import candidate_json
from kjoin.conformance.harness.batching import OutputSchemaError, spec_rows, validated_output
from kjoin.conformance.harness.claims import unclaimed_because
from kjoin.conformance.harness.system_failures import SystemFailure, one_line, system_cause
from kjoin.conformance.protocol import INPUT_SCHEMA, SPEC_SCHEMA, Candidate
from kjoin.conformance.scale.compare import diff
from kjoin.conformance.scale.tasks import expected_outputs, ordered_inputs
from kjoin.errors import KjoinError
from kjoin.oracle.behaviour import behaviour_for
from kjoin.oracle.engine import processor_for
from kjoin.oracle.errors import UnsupportedJoinError
from kjoin.oracle.records import JoinSpec, Versioning, Window

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["SCHEMA", "VERSION", "ScaleError", "Workload", "check_at_scale"]

SCHEMA = "kjoin-scale"
VERSION = 1
_INPUT_COLUMNS = [field.split()[0] for field in INPUT_SCHEMA.split(", ")]


class ScaleError(KjoinError, ValueError):
    """The check cannot run as asked (a join with no task model, a claim that does not cover it)."""


@dataclass(frozen=True, slots=True)
class Workload:
    """The join to check: kind, variant, Kafka version and the join's settings."""

    join: str
    variant: str
    kafka: str
    window: Window | None = None
    stores: str = "rocksdb"
    versioned: Versioning | None = None

    @property
    def spec(self) -> JoinSpec:
        return JoinSpec(
            join=self.join,  # type: ignore[arg-type]
            variant=self.variant,  # type: ignore[arg-type]
            window=self.window,
            stores=self.stores,  # type: ignore[arg-type]
            versioned=self.versioned,
        )

    def to_json(self) -> dict[str, Any]:
        window = self.window
        return {
            "join": self.join,
            "variant": self.variant,
            "kafka": self.kafka,
            "era": behaviour_for(self.kafka).era,
            "stores": self.stores,
            "window": None
            if window is None
            else {
                "before": window.before,
                "after": window.after,
                "grace": window.grace,
                "legacy": window.legacy,
            },
            "versioned": None
            if self.versioned is None
            else {
                "left": self.versioned.left,
                "right": self.versioned.right,
                "history_ms": self.versioned.history_ms,
            },
        }


def _task_case(task: str, workload: Workload) -> Case:
    return Case(id=task, scenario=task, kafka=workload.kafka, intended=False, spec=workload.spec, records=())


def check_at_scale(
    spark: SparkSession,
    candidate: Candidate,
    records: DataFrame,
    workload: Workload,
    *,
    run: Mapping[str, Any],
    sample_tasks: int = 10,
    say: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Check ``candidate`` against the oracle on ``records`` (``RECORD_COLUMNS``) joined as ``workload``;
    returns the ``kjoin-scale`` document. A candidate that fails is an ``error`` document, not an exception.
    Raises ``ScaleError`` before any work when the check cannot run."""

    if workload.join == "fk":
        raise ScaleError(
            "foreign-key joins repartition by the foreign key, so they are not one task per partition "
            "(spec TK-3); check them with kjoin run"
        )
    try:
        processor_for(workload.spec, behaviour_for(workload.kafka))
    except UnsupportedJoinError as error:
        raise ScaleError(f"Kafka {workload.kafka} has no such join: {error}") from None
    unclaimed = unclaimed_because(candidate.claim, _task_case("task", workload))
    if unclaimed is not None:
        raise ScaleError(f"the candidate does not claim this join: {unclaimed}")
    tell = say or (lambda text: None)
    # a few shuffle partitions per core: the default 200 costs more in task overhead than the work here
    shuffle = spark.conf.get("spark.sql.shuffle.partitions") or "200"
    spark.conf.set("spark.sql.shuffle.partitions", str(max(8, 4 * spark.sparkContext.defaultParallelism)))
    try:
        return _check(spark, candidate, records, workload, run, sample_tasks, tell)
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", shuffle)


def _check(
    spark: SparkSession,
    candidate: Candidate,
    records: DataFrame,
    workload: Workload,
    run: Mapping[str, Any],
    sample_tasks: int,
    tell: Callable[[str], None],
) -> dict[str, Any]:
    from pyspark import StorageLevel

    timings: dict[str, float] = {}
    started = time.perf_counter()
    ordered = ordered_inputs(records, workload.join).persist(StorageLevel.MEMORY_AND_DISK)
    count = ordered.count()
    timings["order_s"] = time.perf_counter() - started
    tell(f"{count:,} records in Kafka's task order ({timings['order_s']:.0f} s)")
    started = time.perf_counter()
    expected = expected_outputs(ordered, workload.spec, workload.kafka).persist(StorageLevel.MEMORY_AND_DISK)
    expected_count = expected.count()
    timings["oracle_s"] = time.perf_counter() - started
    tell(f"the oracle: {expected_count:,} outputs ({timings['oracle_s']:.0f} s)")
    tasks = sorted(row["scenario_id"] for row in ordered.select("scenario_id").distinct().collect())
    document: dict[str, Any] = {
        "schema": SCHEMA,
        "version": VERSION,
        "complete": True,
        "incomplete_reason": None,
        "run": dict(run),
        "workload": workload.to_json(),
        "candidate": candidate_json(candidate),
        "status": "pass",
        "candidate_error": None,
        "summary": {},
        "tasks": [],
        "samples": [],
        "timings": timings,
    }
    started = time.perf_counter()
    try:
        inputs = ordered.select(*_INPUT_COLUMNS)
        specs = spark.createDataFrame(spec_rows([_task_case(task, workload) for task in tasks]), SPEC_SCHEMA)
        output, has_idx = validated_output(candidate.run(spark, inputs, specs))
        actual = output.persist(StorageLevel.MEMORY_AND_DISK)
        actual_count = actual.count()
    except (Exception, SystemExit) as error:  # the candidate boundary
        message = (
            f"{type(error).__name__}: {error}" if not isinstance(error, OutputSchemaError) else str(error)
        )
        cause = system_cause(message)
        if cause is not None:  # Spark failed, not the candidate
            raise SystemFailure(f"{cause}: {one_line(message)}") from None
        document.update(status="error", candidate_error=f"{message}\n{traceback.format_exc()}".strip())
        document["summary"] = {"records": count, "tasks": len(tasks), "expected": expected_count}
        ordered.unpersist()
        expected.unpersist()
        return document
    timings["candidate_s"] = time.perf_counter() - started
    tell(f"the candidate: {actual_count:,} outputs ({timings['candidate_s']:.0f} s)")
    started = time.perf_counter()
    found = diff(ordered, expected, actual, has_idx, sample_tasks)
    timings["compare_s"] = time.perf_counter() - started
    tell(f"compared inside Spark ({timings['compare_s']:.0f} s)")
    for item in (ordered, expected, actual):
        item.unpersist()
    divergent = found.totals["missing"] + found.totals["unexpected"] + found.totals["wrong_input"]
    document.update(
        status="fail" if divergent else "pass",
        summary={**found.totals, "compared_as": "multiset and emitting input" if has_idx else "multiset"},
        tasks=[
            {"task": t["scenario_id"], **{k: v for k, v in t.items() if k != "scenario_id"}}
            for t in found.tasks
        ],
        samples=found.samples,
    )
    return document
