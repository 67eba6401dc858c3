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
from kjoin.conformance.endtoend.builds import EndToEndError, connector_jars
from kjoin.conformance.endtoend.streaming_job import FEEDS, Feed
from kjoin.conformance.endtoend.topics import in_processing_order
from kjoin.conformance.kafka.broker import DEFAULT_BROKER, KafkaBroker
from kjoin.conformance.protocol import Candidate, Claim, DeclaredDifference
from kjoin.conformance.streaming.adapter import StreamingCandidate
from kjoin.oracle.behaviour import release_of

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "BUNDLED",
    "KafkaRun",
    "SessionKafka",
    "ThroughKafka",
    "reads_kafka",
    "reordered_for_kafka",
    "through_kafka",
]

BUNDLED = ("spark-stateful",)
"""Bundled candidates with a Kafka-reading job (``job``): the stateful port."""


def reads_kafka(candidate: Candidate) -> bool:
    """Whether ``candidate`` has a job that reads Kafka topics: a ``streaming_candidate`` or a bundled one."""
    return isinstance(candidate, StreamingCandidate) or candidate.name in BUNDLED


@dataclass
class ThroughKafka:
    """``inner``'s job fed from and writing to real topics on ``broker`` (one set of topics per call)."""

    inner: Candidate
    broker: KafkaBroker | None
    """``None`` until a started broker is set (``SessionKafka`` starts it on the first call)."""
    feed: Feed = "stepped"
    name: str = ""
    claim: Claim = field(default_factory=lambda: Claim(frozenset(), frozenset(), ()))
    declared_differences: tuple[DeclaredDifference, ...] = ()

    @classmethod
    def wrapping(cls, inner: Candidate, broker: KafkaBroker | None, feed: Feed = "stepped") -> ThroughKafka:
        claim = dataclasses.replace(inner.claim, joins=inner.claim.joins - {"fk"})
        differences = tuple(inner.declared_differences)
        return cls(inner, broker, feed, f"{inner.name} (through Kafka)", claim, differences)

    def check_system(self) -> None:
        """``SystemFailure`` if the broker died (``WatchesSystem``: the harness asks while a call runs)."""
        if self.broker is not None:
            self.broker.check_alive()

    def run(self, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
        """Produce the inputs to topics, run the job, read its output topic back."""
        broker = self.broker
        if broker is None:
            raise EndToEndError("no broker started for this run through Kafka")
        broker.check_alive()
        try:
            return self._run(spark, broker, inputs, specs)
        except Exception:
            broker.check_alive()  # a broker that died meanwhile is the cause, not the candidate
            raise

    def _run(
        self, spark: SparkSession, broker: KafkaBroker, inputs: DataFrame, specs: DataFrame
    ) -> DataFrame:
        from kjoin.conformance.streaming.feed import STEP_COLUMNS

        spec_rows = specs.collect()
        rows = [tuple(row) for row in inputs.select(*STEP_COLUMNS).collect()]
        if isinstance(self.inner, StreamingCandidate):
            from kjoin.conformance.endtoend.streaming_job import ANSWER_DDL, run_streaming_through_kafka

            answer, has_idx = run_streaming_through_kafka(
                spark, broker, self.inner, rows, spec_rows, self.feed
            )
            frame = spark.createDataFrame(answer, ANSWER_DDL)
            return frame if has_idx else frame.drop("idx")
        from kjoin.conformance.candidates.stateful.processor import OUTPUT_DDL
        from kjoin.conformance.endtoend.job import run_through_kafka

        joins = {str(spec["join"]) for spec in spec_rows}
        if len(joins) != 1:
            raise EndToEndError(f"one join kind per call expected, got {sorted(joins)}")
        answer = run_through_kafka(spark, broker, joins.pop(), rows, [row.asDict() for row in spec_rows])
        return spark.createDataFrame(answer, OUTPUT_DDL)


@dataclass(frozen=True)
class KafkaRun:
    """What a run through Kafka uses: the wrapped candidate, the reordered cases, the session settings,
    and the provenance (broker release, connector version; the feed is the candidate's)."""

    candidate: ThroughKafka
    cases: tuple[Case, ...]
    spark_conf: dict[str, str]
    broker: str
    connector: str

    def provenance(self) -> dict[str, Any]:
        """The results document's ``through_kafka`` entry."""
        return _provenance(self.candidate, self.broker, self.connector)


def _provenance(candidate: ThroughKafka, broker: str, connector: str) -> dict[str, Any]:
    """A run's ``through_kafka`` entry: the broker release, the connector version and the feed (a streaming
    job's; spark-stateful's job reads its topics its own way)."""
    feed = candidate.feed if isinstance(candidate.inner, StreamingCandidate) else "the job's own"
    return {"kafka_broker": broker, "spark_sql_kafka": connector, "feed": feed}


def _connector() -> tuple[str, dict[str, str]]:
    """The Spark Kafka connector's version and the session settings that put its jars on the classpath."""
    version, jars = connector_jars()
    return version, {"spark.jars": ",".join(str(jar) for jar in jars)}


def reordered_for_kafka(case: Case) -> Case:
    """``case`` with its records in Kafka's processing order (spec TK-2); foreign-key cases as they are."""
    return case if case.join == "fk" else in_processing_order(case)


@contextmanager
def through_kafka(
    candidate: Candidate,
    cases: Sequence[Case],
    broker_version: str = DEFAULT_BROKER,
    feed: Feed = "stepped",
) -> Iterator[KafkaRun]:
    """Start a broker for the ``with`` block and get ``candidate``'s run through it ready."""
    _check(candidate, feed)
    connector, conf = _connector()
    with KafkaBroker(broker_version) as broker:
        wrapped = ThroughKafka.wrapping(candidate, broker, feed)
        reordered = tuple(reordered_for_kafka(case) for case in cases)
        yield KafkaRun(wrapped, reordered, conf, broker.release, connector)


def _check(candidate: Candidate, feed: str) -> None:
    if not reads_kafka(candidate):
        raise EndToEndError(
            f"{candidate.name!r} has no job that reads Kafka: wrap a Structured Streaming job with "
            f"streaming_candidate (docs/streaming.md), or use {', '.join(BUNDLED)}"
        )
    if feed not in FEEDS:
        raise EndToEndError(f"the feed must be one of {', '.join(FEEDS)}, got {feed!r}")


class SessionKafka:
    """A run through Kafka for a pytest session (``pytest --candidate C --through-kafka``): the candidate is
    wrapped at once (its claim decides the items), while the connector and the broker start on the first
    candidate call, so only the process that runs the candidate's items starts them; ``close`` stops the
    broker."""

    def __init__(self, candidate: Candidate, broker_version: str = DEFAULT_BROKER, feed: Feed = "stepped"):
        _check(candidate, feed)
        self.broker_version = broker_version
        self.candidate = ThroughKafka.wrapping(candidate, None, feed)
        self._broker: KafkaBroker | None = None
        self._conf: dict[str, str] = {}

    def session(self, master: str) -> SparkSession:
        """The SparkSession of the run, with the connector's jars; the broker is up once this returns."""
        from kjoin.conformance.harness.spark_session import start_session

        if self._broker is None:
            _, self._conf = _connector()
            self._broker = KafkaBroker(self.broker_version).__enter__()
            self.candidate.broker = self._broker
        return start_session(master, conf=self._conf)

    def reordered(self, case: Case) -> Case:
        """``case`` in Kafka's processing order (spec TK-2)."""
        return reordered_for_kafka(case)

    def provenance(self) -> dict[str, Any]:
        """The results document's ``through_kafka`` entry (the connector resolved if it was not yet)."""
        connector, _ = _connector()
        return _provenance(self.candidate, release_of(self.broker_version), connector)

    def close(self) -> None:
        broker, self._broker = self._broker, None
        if broker is not None:
            broker.__exit__(None, None, None)
