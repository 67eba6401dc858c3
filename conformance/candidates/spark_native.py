"""The ``spark-native`` candidate: Spark's own Structured Streaming joins, as a user porting a Kafka Streams
join would write them (``native_joins``), and a table-table join as a micro-batch job (``native_tables``),
checked against Kafka Streams 3.8+.

Its declared differences are the point: they document what changes when a KStream-KStream or
KStream-KTable join moves to Spark. The table-table port emits one row per changed key and micro-batch, as
Kafka with record caches does at each commit: it claims level ``commit-points`` (``Claim.commit_points``,
docs/semantics/commit-points.md), under which its table results, production settings included, are compared
with what Kafka emits for some commit points. Foreign-key joins are not claimed (the oracle does not model
their caches over commit points: the level cannot decide them), nor are versioned tables (a stream-static
join sees the table as of the micro-batch, not as of the record's timestamp) or KIP-923 stream-table grace.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kjoin.conformance.protocol import Claim, DeclaredDifference

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["SparkNative", "candidate"]

CLAIM = Claim(
    joins=frozenset({"stream-stream", "stream-table", "stream-globaltable", "table-table"}),
    variants=frozenset({"inner", "left", "outer"}),
    kafka=("3.9",),
    self_joins=True,
    commit_points=True,
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
TWO_FLUSHES = (
    "both tables of a key change in one micro-batch: at a commit Kafka flushes the two table stores one "
    "after the other, and each flush joins its own side's change with the other table as it is then, "
    "stamped with its own change's timestamp and the other side's only if that side holds a row: where one "
    "side ends deleted the two flushes emit the same result (or tombstone) with two timestamps, or, in an "
    "inner join, none; the micro-batch port emits one row per key, stamped with both sides' changes"
)
_TABLE_TABLE = frozenset({"table-table"})

SELF_JOIN_TOO_OLD = (
    "a self-join's record too old for the window store: Kafka does not store a record that is already "
    "behind the store's retention, so it is not joined with itself or with later records (the unrewritten "
    "join emits it as 'r - null' in a left/outer join; spec SJ-2, SS-7); Spark's self-join keeps every "
    "record until the watermark passes it and joins it with itself and with its partners"
)
SELF_PAIR_BOUND = (
    "the rewritten self-join (3.4+, topology.optimization all) pairs a record with itself only while its "
    "timestamp is above stream time - retention + 1, one millisecond stricter than its store keeps it "
    "(spec SJ-5); Spark's self-join joins every record with itself"
)
SELF_JOIN_NULL_KEYS = (
    "null keys in a rewritten left/outer self-join: Kafka's single-store self-join processor skips a "
    "null-key record in every variant (no KIP-962 forwarding, spec SJ-6); Spark's left outer self-join "
    "emits it as an unmatched row, and its full outer self-join joins it with itself (its join state treats "
    "null keys as equal)"
)
_SELF_JOIN_DIFFERENCES: tuple[DeclaredDifference, ...] = (
    DeclaredDifference("ss-self-join-too-old-to-store-is-non-joined", SELF_JOIN_TOO_OLD, strict=True),
    DeclaredDifference("ss-self-join-kafka-unit-test-out-of-order", SELF_JOIN_TOO_OLD, strict=True),
    DeclaredDifference("ss-self-join-self-pair-retention-bound", SELF_PAIR_BOUND, strict=True),
    DeclaredDifference(
        "ss-self-join-null-keys-forwarded-unrewritten",
        NULL_KEY_MATCH,
        variants=frozenset({"outer"}),
        strict=True,
    ),
    DeclaredDifference(
        "ss-self-join-rewritten-drops-null-keys", SELF_JOIN_NULL_KEYS, variants=_LEFT_OUTER, strict=True
    ),
)
"""What changes when a self-join becomes Spark's stream-stream self-join (``s.join(s)``), where the
catalogue shows it; the other self-join cases agree (a record joins itself and every pair twice, as
Kafka's unrewritten join does, and the rewritten join emits the same while nothing expires)."""

TABLE_UPDATED_MID_STREAM = (
    "the global table changes after the stream started: Kafka's global store takes every table update as "
    "it is processed, so a later stream record joins the new value (spec GT-3); the static DataFrame of a "
    "stream-static join is the table as read when the query started, so every stream record joins the "
    "value it had then (here the table's records come after the first stream record, and only an empty "
    "table was read)"
)
TABLE_TOMBSTONE_MID_STREAM = (
    "a table row is deleted after the stream started: Kafka's global store drops the key at the tombstone, "
    "so a later stream record finds no match (an inner join drops it, a left join emits 'v - null'; spec "
    "GT-3); the static DataFrame still holds the row it read when the query started and joins it"
)
NULL_MAPPED_KEY_LEFT_JOIN = (
    "a left join and a record whose key is not null but maps to a null table key: Kafka 2.7 to 3.9.x and "
    "4.0.0 drop it (KAFKA-10277; KIP-962 kept only records whose own key is null, spec GT-4, GT-5); Spark's "
    "left outer join keeps every stream row and emits 'v - null', what Kafka 4.0.1+ does (KAFKA-19208)"
)
_GLOBAL_TABLE = frozenset({"stream-globaltable"})
_LEFT = frozenset({"left"})

GLOBAL_TABLE_DIFFERENCES: tuple[DeclaredDifference, ...] = (
    DeclaredDifference(
        "*-KStreamGlobalKTable*JoinTest-shouldNotJoinOnGlobalTableUpdates",
        TABLE_UPDATED_MID_STREAM,
        joins=_GLOBAL_TABLE,
        strict=True,
    ),
    DeclaredDifference(
        "*-KStreamGlobalKTable*JoinTest-shouldClearGlobalTableEntryOnNullValueUpdates",
        TABLE_TOMBSTONE_MID_STREAM,
        joins=_GLOBAL_TABLE,
        strict=True,
    ),
    *(
        DeclaredDifference(
            scenario, NULL_MAPPED_KEY_LEFT_JOIN, joins=_GLOBAL_TABLE, variants=_LEFT, strict=True
        )
        for scenario in (
            "gt-null-mapped-key-left-join",
            "gt-comma-second-field",
            "*-KStreamGlobalKTableLeftJoinTest-shouldNotJoinOnNullKeyMapperValues",
        )
    ),
)
"""What changes when a KStream-GlobalKTable join becomes a stream-static join, each where the catalogue
shows it (strict: these cases must differ; every other stream-globaltable case agrees)."""

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
    *_SELF_JOIN_DIFFERENCES,
    # everything else: the same mechanisms, in scenarios that may or may not trigger them
    DeclaredDifference("*", UNMATCHED_ROWS, joins=_STREAM_STREAM, variants=_LEFT_OUTER),
    DeclaredDifference("*", STORE_RETENTION, joins=_STREAM_STREAM, variants=frozenset({"inner"})),
    *GLOBAL_TABLE_DIFFERENCES,
    # the table-table port at level commit-points, three processing steps per micro-batch
    # (native_tables.STEPS_PER_BATCH): the catalogue's cases where a key's tables both change in one batch
    # with one side deleted (strict: they must differ)
    *(
        DeclaredDifference(scenario, TWO_FLUSHES, joins=_TABLE_TABLE, variants=_LEFT_OUTER, strict=True)
        for scenario in (
            "tt-outer-000022*",
            "tt-outer-000026*",
            "tt-outer-000031*",
            "tt-outer-000032*",
            "tt-record-cache-merges-updates-between-commits",
        )
    ),
)
"""What changes when a stream-stream join moves to Spark (stream-table joins agree: nothing declared), and
where the table-table port's one row per key and micro-batch is not what Kafka's store-by-store flush
emits."""


@dataclass(frozen=True)
class SparkNative:
    """Spark Structured Streaming stream-stream and stream-static joins; table-table as a micro-batch job."""

    name: str = "spark-native"
    claim: Claim = CLAIM
    declared_differences: tuple[DeclaredDifference, ...] = DECLARED

    def run(self, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
        from kjoin.conformance.candidates import native_joins
        from kjoin.conformance.candidates.native_tables import table_table_join

        joins = {row.join for row in specs.select("join").distinct().collect()}
        if joins == {"stream-stream"}:
            return _stream_stream(spark, inputs, specs)
        if joins == {"stream-table"}:
            return native_joins.stream_table_join(spark, inputs, specs)
        if joins == {"stream-globaltable"}:
            return native_joins.stream_global_table_join(spark, inputs, specs)
        if joins == {"table-table"}:
            return table_table_join(spark, inputs, specs)
        raise ValueError(f"spark-native runs one claimed join kind per call, got {sorted(joins)}")


def _stream_stream(spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
    """Two-sided stream-stream joins in one query, self-joins in another (their right side is the left)."""
    from pyspark.sql import functions as F

    from kjoin.conformance.candidates import native_joins

    answers = []
    for self_join, join in ((False, native_joins.stream_stream_join), (True, native_joins.stream_self_join)):
        chosen = specs.where(F.col("self_join") == F.lit(self_join))
        if chosen.limit(1).count():
            answers.append(join(spark, inputs.join(chosen.select("scenario_id"), "scenario_id"), chosen))
    union = answers[0]
    for answer in answers[1:]:
        union = union.unionByName(answer)
    return union


def candidate() -> SparkNative:
    """The ``spark-native`` entry point."""
    return SparkNative()
