"""``kjoin run --candidate spark-stateful --through-kafka``: the harness run with real Kafka topics between
the cases and the candidate's job.

``through_kafka`` starts the broker, resolves the Spark connector and hands back what the run needs: the
candidate wrapped so that each call goes through the broker (``ThroughKafka``), the cases in Kafka's
processing order (spec TK-2; the oracle computes their outputs), and the SparkSession settings (the
connector's jars must be on the JVM's classpath from its start: the session is the run's own). Foreign-key
joins span tasks (repartition topics, spec TK-3): not claimed in this mode.
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
from kjoin.conformance.endtoend.topics import in_processing_order
from kjoin.conformance.protocol import Candidate, Claim, DeclaredDifference

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["SUPPORTED", "KafkaRun", "ThroughKafka", "through_kafka"]

SUPPORTED = ("spark-stateful",)
"""Candidates with a Kafka-reading job (``job``): the bundled stateful port."""


@dataclass
class ThroughKafka:
    """``inner``'s job fed from and writing to real topics on ``broker`` (one set of topics per call)."""

    inner: Candidate
    broker: KafkaBroker
    name: str = ""
    claim: Claim = field(default_factory=lambda: Claim(frozenset(), frozenset(), ()))
    declared_differences: tuple[DeclaredDifference, ...] = ()

    @classmethod
    def wrapping(cls, inner: Candidate, broker: KafkaBroker) -> ThroughKafka:
        claim = dataclasses.replace(inner.claim, joins=inner.claim.joins - {"fk"})
        differences = tuple(inner.declared_differences)
        return cls(inner, broker, f"{inner.name} (through Kafka)", claim, differences)

    def run(self, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
        """Produce the inputs to topics, run the job, read its output topic back."""
        from kjoin.conformance.candidates.stateful.processor import OUTPUT_DDL
        from kjoin.conformance.endtoend.job import run_through_kafka
        from kjoin.conformance.streaming.feed import STEP_COLUMNS

        spec_rows = [row.asDict() for row in specs.collect()]
        joins = {str(spec["join"]) for spec in spec_rows}
        if len(joins) != 1:
            raise EndToEndError(f"one join kind per call expected, got {sorted(joins)}")
        rows = [tuple(row) for row in inputs.select(*STEP_COLUMNS).collect()]
        answer = run_through_kafka(spark, self.broker, joins.pop(), rows, spec_rows)
        return spark.createDataFrame(answer, OUTPUT_DDL)


@dataclass(frozen=True)
class KafkaRun:
    """What a run through Kafka uses: the wrapped candidate, the reordered cases, the session settings,
    and the provenance (broker release, connector version)."""

    candidate: ThroughKafka
    cases: tuple[Case, ...]
    spark_conf: dict[str, str]
    broker: str
    connector: str

    def provenance(self) -> dict[str, Any]:
        return {"kafka_broker": self.broker, "spark_sql_kafka": self.connector}


def _reordered(case: Case) -> Case:
    return case if case.join == "fk" else in_processing_order(case)


@contextmanager
def through_kafka(
    candidate: Candidate, cases: Sequence[Case], broker_version: str = DEFAULT_BROKER
) -> Iterator[KafkaRun]:
    """Start a broker for the ``with`` block and get ``candidate``'s run through it ready."""
    if candidate.name not in SUPPORTED:
        raise EndToEndError(
            f"--through-kafka runs the Kafka-reading job of {', '.join(SUPPORTED)}; "
            f"{candidate.name!r} has none"
        )
    connector, jars = connector_jars()
    conf = {"spark.jars": ",".join(str(jar) for jar in jars)}
    with KafkaBroker(broker_version) as broker:
        wrapped = ThroughKafka.wrapping(candidate, broker)
        yield KafkaRun(wrapped, tuple(_reordered(case) for case in cases), conf, broker.release, connector)
