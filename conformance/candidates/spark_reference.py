"""The bundled ``spark-reference`` candidate: Kafka Streams join semantics written directly on Spark.

An independent implementation (it never calls the oracle's join code; it reads only the Behaviour flags of
the scenario's Kafka version from ``oracle.behaviour``): window functions, as-of lookups by input index and
array functions over partitions keyed by ``scenario_id``, one module per join kind under
``conformance.candidates.reference``. Two parts are sequential by nature and say so: the emission passes of
spurious-free left/outer stream-stream joins (a per-scenario ``applyInPandas`` state machine) and the
versioned store's "forget" rule (a fold in Spark SQL's ``aggregate``). Everything else is set-based.

``run`` takes the scenarios of any join kinds at once and returns OUTPUT_SCHEMA columns plus ``idx`` (the
input index whose processing emitted the row) and ``seq`` (0, 1, ... within one ``(scenario_id, idx)``), so
that sorting by ``(scenario_id, idx, seq)`` gives Kafka's exact emission order.

Evidence for the claim (all exact, emission order included): every golden trace of 0.10.1, 3.0, 3.1, 3.5,
3.7 and 3.9 and the documentation traces (``scenarios/golden``, real Kafka Streams), every transcribed Kafka
test (``scenarios/kafka_tests``: 0.10.1, 0.10.2, 2.2, 3.0, 3.5, 3.6, 3.9, RocksDB stores), and differential
runs against the oracle (``kjoin fuzz``, with the emitting input index compared too) as every claimed era,
with in-memory and RocksDB stores, versioned tables and stream-table grace, and as 3.9 with ``intended``.
Stream-globaltable joins and self-joins (both topologies): every stated case of the catalogue
(``scenarios/stream_globaltable``, the self-join scenarios) and ``kjoin fuzz`` as every claimed era.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pyspark.sql import DataFrame, SparkSession

from kjoin.conformance.candidates.reference.dispatch import run_reference
from kjoin.conformance.protocol import Claim, DeclaredDifference
from kjoin.oracle.behaviour import one_release_per_era

__all__ = ["CLAIM", "SparkReference", "candidate"]

ALL_ERAS = one_release_per_era(since="0.10.1")
"""One release per era of ``oracle.behaviour`` from 0.10.1 on (the reference implements every behaviour flag;
0.10.0 is left out: its left stream-stream join fails on a null key, which a DataFrame of outputs cannot
express)."""

CLAIM = Claim(
    joins=frozenset({"stream-stream", "stream-table", "table-table", "fk", "stream-globaltable"}),
    variants=frozenset({"inner", "left", "outer"}),
    kafka=ALL_ERAS,
    stores=frozenset({"memory", "rocksdb"}),
    versioned=True,
    stream_table_grace=True,
    self_joins=True,
)


@dataclass(frozen=True)
class SparkReference:
    """Kafka Streams joins on Spark DataFrames, exact to Kafka's emission order (see module docstring)."""

    name: str = "spark-reference"
    claim: Claim = CLAIM
    declared_differences: tuple[DeclaredDifference, ...] = field(default_factory=tuple)

    def run(self, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
        """All outputs of the scenarios in ``inputs``/``specs``: OUTPUT_SCHEMA + ``idx`` + ``seq``."""
        return run_reference(spark, inputs, specs)


candidate = SparkReference()
