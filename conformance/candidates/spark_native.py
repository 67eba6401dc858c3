"""The ``spark-native`` candidate: Spark's own Structured Streaming joins, as a user porting a Kafka Streams
join would write them (``native_joins``), checked against Kafka Streams 3.8+.

Its declared differences are the point: they document what changes when a KStream-KStream or
KStream-KTable join moves to Spark. Table-table and foreign-key joins have no Structured Streaming
counterpart and are not claimed, nor are versioned tables (a stream-static join sees the table as of the
micro-batch, not as of the record's timestamp) or KIP-923 stream-table grace.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kjoin.conformance.protocol import Claim, DeclaredDifference

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["SparkNative", "candidate"]

CLAIM = Claim(
    joins=frozenset({"stream-stream", "stream-table"}),
    variants=frozenset({"inner", "left", "outer"}),
    kafka=("3.9",),
)

_STREAM_STREAM = frozenset({"stream-stream"})
_LEFT_OUTER = frozenset({"left", "outer"})

EAGER_RESULTS = (
    "eager unmatched rows: with the legacy JoinWindows.of (no grace, or the deprecated .grace()) Kafka emits "
    "'A - null' as soon as a left/outer record finds no partner, and joins it again when a partner follows; "
    "Spark emits an unmatched row only once the watermark passes its window, and only if no partner came"
)
OPEN_AT_END = (
    "rows still open at the end of the input: Kafka (3.1+, spurious-free joins) emits an unmatched row when "
    "stream time passes its window plus grace, so rows still inside it when the input ends are not (yet) "
    "emitted; Spark emits them when the watermark passes them, here at the end of the input"
)
LATE_RECORDS = (
    "late records: Kafka emits an unmatched row at once for a record that arrives after its window plus "
    "grace has closed, and still joins it if a partner follows; Spark, whose watermark accepts the record, "
    "only joins it"
)
STORE_RETENTION = (
    "store retention: Kafka's window stores drop records that fall behind their observed stream time by more "
    "than before + after + grace (in-memory stores count null-value records too), so a late partner is not "
    "joined; Spark keeps each record until the watermark passes it (the delay here outlasts the input) and "
    "joins it"
)
NULL_KEY_MATCH = (
    "null keys in full outer joins: Spark's stream-stream full outer join matches two records whose keys are "
    "both null (its join state treats the null keys as equal); Kafka 3.7+ forwards each one as a non-joined "
    "result (KIP-962)"
)
UNMATCHED_ROWS = (
    "unmatched rows of left/outer joins are emitted at other times: Kafka emits them eagerly (legacy "
    "JoinWindows.of), at once for records that arrive after their window closed, or when stream time passes "
    "window plus grace (never for rows still open at the end of the input); Spark emits one when the "
    "watermark passes its window and no partner came (here: at the end of the input). Kafka's window store "
    "retention can also keep it from joining a late partner that Spark joins"
)

DECLARED: tuple[DeclaredDifference, ...] = (
    # documentation examples and Kafka's own tests that show one mechanism each (strict: they must differ)
    DeclaredDifference("docs-ss-*-legacy@*", EAGER_RESULTS, variants=_LEFT_OUTER, strict=True),
    DeclaredDifference("trunk-*FixDisabledOldApi", EAGER_RESULTS, strict=True),
    DeclaredDifference("docs-ss-*-grace5@*", OPEN_AT_END, variants=_LEFT_OUTER, strict=True),
    DeclaredDifference("trunk-dsl-api-stream-stream-joins-*", OPEN_AT_END, variants=_LEFT_OUTER, strict=True),
    DeclaredDifference("trunk-KStreamKStreamOuterJoinTest-testOuterJoinDuplicates", OPEN_AT_END, strict=True),
    DeclaredDifference("trunk-KStreamKStreamOuterJoinTest-testGracePeriod", OPEN_AT_END, strict=True),
    DeclaredDifference(
        "trunk-KStreamKStreamOuterJoinTest-testEmitAllNonJoinedResultsForAsymmetricWindow",
        OPEN_AT_END,
        strict=True,
    ),
    DeclaredDifference(
        "trunk-KStreamKStreamLeftJoinTest-testLeftJoinedRecordsWithZeroAfterAreEmitted",
        LATE_RECORDS,
        strict=True,
    ),
    DeclaredDifference("trunk-StreamStreamJoinIntegrationTest-testOuter", NULL_KEY_MATCH, strict=True),
    # everything else: the same mechanisms, in scenarios that may or may not trigger them
    DeclaredDifference("*", UNMATCHED_ROWS, joins=_STREAM_STREAM, variants=_LEFT_OUTER),
    DeclaredDifference("*", STORE_RETENTION, joins=_STREAM_STREAM, variants=frozenset({"inner"})),
)
"""What changes when a stream-stream join moves to Spark (stream-table joins agree: nothing declared)."""


@dataclass(frozen=True)
class SparkNative:
    """Spark Structured Streaming stream-stream and stream-static joins."""

    name: str = "spark-native"
    claim: Claim = CLAIM
    declared_differences: tuple[DeclaredDifference, ...] = DECLARED

    def run(self, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
        from kjoin.conformance.candidates.native_joins import stream_stream_join, stream_table_join

        joins = {row.join for row in specs.select("join").distinct().collect()}
        if joins == {"stream-stream"}:
            return stream_stream_join(spark, inputs, specs)
        if joins == {"stream-table"}:
            return stream_table_join(spark, inputs, specs)
        raise ValueError(f"spark-native runs one claimed join kind per call, got {sorted(joins)}")


def candidate() -> SparkNative:
    """The ``spark-native`` entry point."""
    return SparkNative()
