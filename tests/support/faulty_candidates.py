"""Candidates that break on purpose, one way each (ONLY for the harness's fault tests).

Each wraps the oracle-on-driver fixture and breaks in one place a real port can: inside ``run`` (an
exception, ``sys.exit``, Ctrl-C raised by its code, stopping the SparkSession, never returning), in what it
returns (not a DataFrame, wrong rows), in a Python UDF for one scenario only (an exception, a killed
worker), or by printing. ``FAULTS`` maps each fault's name to its zero-argument factory.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kjoin.conformance.harness.system_failures import SystemFailure
from support.fixture_candidates import OracleOnDriver

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["FAULTS", "POISONED", "Faulty"]

POISONED = "small-ss-inner"
"""The scenario whose rows the per-scenario faults break (the others must keep their real verdicts)."""


@dataclass(frozen=True)
class Faulty(OracleOnDriver):
    """The oracle on the driver, broken by ``fault`` (see ``FAULTS``)."""

    fault: str = ""
    joins_broken: frozenset[str] = field(default_factory=lambda: frozenset({"stream-stream"}))

    def run(self, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
        join = specs.first()["join"]  # type: ignore[index]
        if join not in self.joins_broken:
            return super().run(spark, inputs, specs)
        return _BREAK[self.fault](self, spark, inputs, specs)


def _good(candidate: Faulty, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
    return OracleOnDriver.run(candidate, spark, inputs, specs)


def _raises(candidate: Faulty, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
    raise ValueError("this candidate is broken on purpose")


def _exits(candidate: Faulty, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
    sys.exit(0)


def _interrupts(candidate: Faulty, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
    raise KeyboardInterrupt  # raised by the candidate's own code, not by the user


def _stops_spark(candidate: Faulty, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
    spark.stop()
    raise RuntimeError("the candidate stopped the SparkSession")


def _hangs(candidate: Faulty, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
    from pyspark.sql import functions

    def slow(value: str | None) -> str | None:
        time.sleep(3600)
        return value

    return _good(candidate, spark, inputs, specs).withColumn("key", functions.udf(slow, "string")("key"))


def _not_a_frame(candidate: Faulty, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> Any:
    return [("rows", "instead", "of", "a", "DataFrame")]


def _wrong_type(candidate: Faulty, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
    from pyspark.sql import functions

    return _good(candidate, spark, inputs, specs).withColumn("ts", functions.col("ts").cast("string"))


def _stray_rows(candidate: Faulty, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
    from pyspark.sql import functions

    good = _good(candidate, spark, inputs, specs)
    return good.unionByName(good.limit(1).withColumn("scenario_id", functions.lit("no-such-scenario")))


def _bad_idx(candidate: Faulty, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
    from pyspark.sql import functions

    poisoned = functions.col("scenario_id").startswith(POISONED + "[")
    frame = _good(candidate, spark, inputs, specs)
    return frame.withColumn(
        "idx", functions.when(poisoned, functions.lit(999)).otherwise(functions.col("idx"))
    )


def _udf_fails_for_one(
    candidate: Faulty, spark: SparkSession, inputs: DataFrame, specs: DataFrame
) -> DataFrame:
    from pyspark.sql import functions

    def check(scenario: str) -> str:
        if scenario.startswith(POISONED + "["):
            raise ArithmeticError(f"the candidate's UDF fails on {scenario}")
        return scenario

    frame = _good(candidate, spark, inputs, specs)
    return frame.withColumn("scenario_id", functions.udf(check, "string")("scenario_id"))


def _kills_worker(candidate: Faulty, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
    from pyspark.sql import functions

    def die(scenario: str) -> str:
        if scenario.startswith(POISONED + "["):
            os._exit(7)  # the Python worker dies: Spark sees a lost worker, not an exception
        return scenario

    frame = _good(candidate, spark, inputs, specs)
    return frame.withColumn("scenario_id", functions.udf(die, "string")("scenario_id"))


def _prints(candidate: Faulty, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
    print("candidate says hello on stdout")
    print("candidate complains on stderr", file=sys.stderr)
    return _good(candidate, spark, inputs, specs)


_BREAK: dict[str, Callable[[Faulty, Any, Any, Any], Any]] = {
    "raises": _raises,
    "exits": _exits,
    "interrupts": _interrupts,
    "stops-spark": _stops_spark,
    "hangs": _hangs,
    "not-a-frame": _not_a_frame,
    "wrong-type": _wrong_type,
    "stray-rows": _stray_rows,
    "bad-idx": _bad_idx,
    "udf-fails-for-one": _udf_fails_for_one,
    "kills-worker": _kills_worker,
    "prints": _prints,
}

FAULTS: dict[str, Callable[[], Faulty]] = {
    name: (lambda name=name: Faulty(name=f"faulty-{name}", fault=name))
    for name in _BREAK  # type: ignore[misc]
}
"""Fault name -> zero-argument factory (``support.faulty_candidates:FAULTS`` is not a candidate name;
use ``faulty(name)`` through ``load_candidate`` via the module-level factories below)."""


def raises() -> Faulty:
    return FAULTS["raises"]()


def exits() -> Faulty:
    return FAULTS["exits"]()


def hangs() -> Faulty:
    return FAULTS["hangs"]()


def slow_stream_table() -> Faulty:
    """Agrees with Kafka, but its stream-table call takes a minute: something to interrupt."""
    return Faulty(name="slow-stream-table", fault="slow", joins_broken=frozenset({"stream-table"}))


def _slow(candidate: Faulty, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
    time.sleep(60)
    return _good(candidate, spark, inputs, specs)


_BREAK["slow"] = _slow


WORKER_TIMEOUT = (
    "An error occurred while calling o117.collectToPython.\n"
    ": org.apache.spark.SparkException: Job aborted due to stage failure: "
    "Task 0 in stage 3.0 failed 1 times, most recent failure: "
    "Lost task 0.0 in stage 3.0 (TID 3) (localhost executor driver): "
    "org.apache.spark.SparkException: Python worker failed to connect back.\n"
    "\tat org.apache.spark.api.python.PythonWorkerFactory.createSimpleWorker(PythonWorkerFactory.scala:252)\n"
    "\tat org.apache.spark.api.python.PythonWorkerFactory.create(PythonWorkerFactory.scala:144)\n"
    "Caused by: java.net.SocketTimeoutException: Accept timed out\n"
    "\tat java.base/sun.nio.ch.NioSocketImpl.timedAccept(NioSocketImpl.java:708)\n"
)
"""What Spark raises when a Python worker does not connect back in time on an overloaded machine (the
message's shape, stack trace shortened): a system failure, not the candidate's."""
_SYSTEM_FAILURES_LEFT: dict[str, int] = {}


def _worker_timeout(candidate: Faulty, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
    left = _SYSTEM_FAILURES_LEFT.get(candidate.name, 0)
    if left != 0:
        _SYSTEM_FAILURES_LEFT[candidate.name] = left - 1
        raise RuntimeError(WORKER_TIMEOUT)
    return _good(candidate, spark, inputs, specs)


_BREAK["worker-timeout"] = _worker_timeout


def worker_timeout(times: int = -1) -> Faulty:
    """Its stream-stream call fails as Spark does when a Python worker cannot connect back: ``times`` times
    in this process, then it works (``-1``: always)."""
    candidate = Faulty(name=f"worker-timeout-{times}", fault="worker-timeout")
    _SYSTEM_FAILURES_LEFT[candidate.name] = times
    return candidate


def worker_timeout_always() -> Faulty:
    return worker_timeout(-1)


SYSTEM_STOPPED = "the test candidate's own system stopped"


@dataclass(frozen=True)
class SystemDiesUnderCall(Faulty):
    """Stands on a system of its own (``WatchesSystem``: as a run through a Kafka broker does), which stops
    during its stream-stream call; the call then waits, as a Kafka client waits out its timeouts against a
    dead broker, until ``release`` is set (or ten minutes)."""

    stopped: threading.Event = field(default_factory=threading.Event, compare=False)
    release: threading.Event = field(default_factory=threading.Event, compare=False)

    def check_system(self) -> None:
        if self.stopped.is_set():
            raise SystemFailure(SYSTEM_STOPPED, retry=False)


def _system_dies(candidate: Faulty, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
    assert isinstance(candidate, SystemDiesUnderCall)
    candidate.stopped.set()
    candidate.release.wait(600)
    raise RuntimeError("the call's system is gone")


_BREAK["system-dies"] = _system_dies


def system_dies_under_call() -> SystemDiesUnderCall:
    return SystemDiesUnderCall(name="system-dies-under-call", fault="system-dies")
