"""Test-fixture candidates (ONLY for the harness's own tests): the oracle run on the Spark driver.

``oracle_on_driver`` agrees with Kafka by construction; ``window_off_by_one`` joins one millisecond past
the window's upper bound (a deliberately wrong candidate); the others break the protocol on purpose.
They collect the inputs to the driver, which is fine for a fixture and wrong for a real candidate.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from kjoin.conformance.protocol import OUTPUT_SCHEMA, Claim, DeclaredDifference
from kjoin.oracle import JoinSpec, Record, Versioning, Window, behaviour_for, run

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "CLAIM_ALL_39",
    "OracleOnDriver",
    "missing_ts_column",
    "null_ts_in_one_case",
    "oracle_on_driver",
    "raises_in_run",
    "window_off_by_one",
]

CLAIM_ALL_39 = Claim(
    joins=frozenset({"stream-stream", "stream-table", "table-table", "fk"}),
    variants=frozenset({"inner", "left", "outer"}),
    kafka=("3.9",),
    versioned=True,
    stream_table_grace=True,
)


def _spec(row: Any, widen_after: int) -> JoinSpec:
    window = None
    if row.grace is not None or row.before is not None:
        before = row.before or 0
        after = (row.after or 0) + (widen_after if row.join == "stream-stream" else 0)
        window = Window(before=before, after=after, grace=row.grace, legacy=row.legacy)
    versioned = None
    if row.left_versioned or row.right_versioned:
        history = row.history_ms or 0
        versioned = Versioning(left=row.left_versioned, right=row.right_versioned, history_ms=history)
    return JoinSpec(
        join=row.join,
        variant=row.variant,
        window=window,
        stores=row.stores,
        versioned=versioned,
        fk_extractor=row.fk_extractor,
    )


@dataclass(frozen=True)
class OracleOnDriver:
    """Runs the oracle per scenario on the driver; ``widen_after`` widens stream-stream windows."""

    name: str = "oracle-on-driver"
    claim: Claim = CLAIM_ALL_39
    declared_differences: tuple[DeclaredDifference, ...] = ()
    widen_after: int = 0
    report_idx: bool = True
    breaks: frozenset[str] = field(default_factory=frozenset)

    def run(self, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
        if "raise" in self.breaks:
            raise RuntimeError("fixture candidate fails on purpose")
        records: dict[str, list[Any]] = defaultdict(list)
        for row in inputs.collect():
            records[row.scenario_id].append(row)
        rows = []
        for spec_row in specs.collect():
            ordered = sorted(records[spec_row.scenario_id], key=lambda r: r.idx)
            behaviour = behaviour_for(spec_row.kafka, intended=spec_row.intended)
            piped = [Record(side=r.side, key=r.key, value=r.value, ts=r.ts) for r in ordered]
            for output in run(_spec(spec_row, self.widen_after), piped, behaviour):
                left, right = output.value if output.value is not None else (None, None)
                ts = None if "null-ts" in self.breaks and not rows else output.ts
                rows.append(
                    (spec_row.scenario_id, output.key, left, right, output.value is None, ts, output.cause)
                )
        schema = OUTPUT_SCHEMA.replace("ts long not null", "ts long") + ", idx long"
        frame = spark.createDataFrame(rows, schema)
        if not self.report_idx:
            frame = frame.drop("idx")
        if "drop-ts" in self.breaks:
            frame = frame.drop("ts")
        return frame


def oracle_on_driver() -> OracleOnDriver:
    """Agrees with Kafka 3.8+ on everything (reports idx)."""
    return OracleOnDriver()


def window_off_by_one() -> OracleOnDriver:
    """Deliberately wrong: stream-stream windows reach one millisecond past ``after``."""
    return replace(OracleOnDriver(), name="window-off-by-one", widen_after=1)


def missing_ts_column() -> OracleOnDriver:
    return replace(OracleOnDriver(), name="missing-ts-column", breaks=frozenset({"drop-ts"}))


def null_ts_in_one_case() -> OracleOnDriver:
    return replace(OracleOnDriver(), name="null-ts", breaks=frozenset({"null-ts"}))


def raises_in_run() -> OracleOnDriver:
    return replace(OracleOnDriver(), name="raises", breaks=frozenset({"raise"}))
