"""``kjoin run --candidate C --through-kafka``: the harness run with real Kafka topics between the cases and
the candidate's job.

Two kinds of candidate have a job that can read Kafka: a user's Structured Streaming job wrapped by
``streaming_candidate`` (``streaming_job``: the same job, its inputs from Spark's Kafka source) and the
bundled ``spark-stateful`` port (``job``). ``through_kafka`` starts the broker, resolves the Spark connector
and hands back what the run needs: the candidate wrapped so that each call goes through the broker
(``ThroughKafka``), the cases in Kafka's processing order (spec TK-2; the oracle computes their outputs),
the SparkSession settings (the connector's jars must be on the JVM's classpath from its start: the session
is the run's own) and the provenance for the results. Foreign-key joins span tasks (repartition topics,
spec TK-3): not claimed in this mode.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kjoin.conformance.catalogue import Case
from kjoin.conformance.endtoend.broker import KafkaBroker
from kjoin.conformance.endtoend.builds import DEFAULT_BROKER, EndToEndError, connector_jars
from kjoin.conformance.endtoend.streaming_job import FEEDS, Feed
from kjoin.conformance.endtoend.topics import in_processing_order
from kjoin.conformance.protocol import Candidate, Claim, DeclaredDifference
from kjoin.conformance.streaming.adapter import StreamingCandidate

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["BUNDLED", "KafkaRun", "ThroughKafka", "reads_kafka", "through_kafka"]

BUNDLED = ("spark-stateful",)
"""Bundled candidates with a Kafka-reading job (``job``): the stateful port."""


def reads_kafka(candidate: Candidate) -> bool:
    """Whether ``candidate`` has a job that reads Kafka topics: a ``streaming_candidate`` or a bundled one."""
    return isinstance(candidate, StreamingCandidate) or candidate.name in BUNDLED


@dataclass
class ThroughKafka:
    """``inner``'s job fed from and writing to real topics on ``broker`` (one set of topics per call)."""

    inner: Candidate
    broker: KafkaBroker
    feed: Feed = "stepped"
    name: str = ""
    claim: Claim = field(default_factory=lambda: Claim(frozenset(), frozenset(), ()))
    declared_differences: tuple[DeclaredDifference, ...] = ()

    @classmethod
    def wrapping(cls, inner: Candidate, broker: KafkaBroker, feed: Feed = "stepped") -> ThroughKafka:
        claim = dataclasses.replace(inner.claim, joins=inner.claim.joins - {"fk"})
        differences = tuple(inner.declared_differences)
        return cls(inner, broker, feed, f"{inner.name} (through Kafka)", claim, differences)

    def run(self, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
        """Produce the inputs to topics, run the job, read its output topic back."""
        from kjoin.conformance.streaming.feed import STEP_COLUMNS

        spec_rows = specs.collect()
        rows = [tuple(row) for row in inputs.select(*STEP_COLUMNS).collect()]
        if isinstance(self.inner, StreamingCandidate):
            from kjoin.conformance.endtoend.streaming_job import ANSWER_DDL, run_streaming_through_kafka

            answer, has_idx = run_streaming_through_kafka(
                spark, self.broker, self.inner, rows, spec_rows, self.feed
            )
            frame = spark.createDataFrame(answer, ANSWER_DDL)
            return frame if has_idx else frame.drop("idx")
        from kjoin.conformance.candidates.stateful.processor import OUTPUT_DDL
        from kjoin.conformance.endtoend.job import run_through_kafka

        joins = {str(spec["join"]) for spec in spec_rows}
        if len(joins) != 1:
            raise EndToEndError(f"one join kind per call expected, got {sorted(joins)}")
        answer = run_through_kafka(spark, self.broker, joins.pop(), rows, [row.asDict() for row in spec_rows])
        return spark.createDataFrame(answer, OUTPUT_DDL)


@dataclass(frozen=True)
class KafkaRun:
    """What a run through Kafka uses: the wrapped candidate, the reordered cases, the session settings,
    and the provenance (broker release, connector version, feed)."""

    candidate: ThroughKafka
    cases: tuple[Case, ...]
    spark_conf: dict[str, str]
    broker: str
    connector: str
    feed: Feed = "stepped"

    def provenance(self) -> dict[str, Any]:
        """The results document's ``through_kafka`` entry."""
        feed = self.feed if isinstance(self.candidate.inner, StreamingCandidate) else "the job's own"
        return {"kafka_broker": self.broker, "spark_sql_kafka": self.connector, "feed": feed}


def _reordered(case: Case) -> Case:
    return case if case.join == "fk" else in_processing_order(case)


@contextmanager
def through_kafka(
    candidate: Candidate,
    cases: Sequence[Case],
    broker_version: str = DEFAULT_BROKER,
    feed: Feed = "stepped",
) -> Iterator[KafkaRun]:
    """Start a broker for the ``with`` block and get ``candidate``'s run through it ready."""
    if not reads_kafka(candidate):
        raise EndToEndError(
            f"{candidate.name!r} has no job that reads Kafka: wrap a Structured Streaming job with "
            f"streaming_candidate (docs/streaming.md), or use {', '.join(BUNDLED)}"
        )
    if feed not in FEEDS:
        raise EndToEndError(f"the feed must be one of {', '.join(FEEDS)}, got {feed!r}")
    connector, jars = connector_jars()
    conf = {"spark.jars": ",".join(str(jar) for jar in jars)}
    with KafkaBroker(broker_version) as broker:
        wrapped = ThroughKafka.wrapping(candidate, broker, feed)
        reordered = tuple(_reordered(case) for case in cases)
        yield KafkaRun(wrapped, reordered, conf, broker.release, connector, feed)
