"""Benchmark: generated scenarios checked per second, by the oracle alone and by a candidate batched on Spark.

    python -m benchmarks.differential_throughput [--candidate spark-reference] [--examples N]
        [--seed S] [--kafka V] [--spark-master local[2]] [--no-spark]

Per join kind: drawing ``N`` scenarios from the strategies (``generate_cases``: hypothesis, de-duplication
and the oracle's applicability check), the oracle alone (Kafka's outputs plus the checker's verdict,
what a differential run costs without Spark), and the candidate over all of them in one call per join kind
(``HarnessRun``, as ``kjoin fuzz`` does; Spark started and warmed up before timing). The scenarios are the
same on every run (fixed seed); the timings are wall-clock and vary by machine and load.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import replace

from tabulate import tabulate

from kjoin.conformance.checker import Emitted, check
from kjoin.conformance.differential.generate import generate_cases
from kjoin.conformance.differential.profiles import PROFILES
from kjoin.conformance.documents.outcomes import kafka_outputs
from kjoin.conformance.harness.outcomes import HarnessRun
from kjoin.conformance.harness.spark_session import jobs_started, start_session
from kjoin.conformance.protocol import load_candidate
from kjoin.oracle.behaviour import parse_version
from kjoin.oracle.records import JOIN_KINDS

__all__ = ["main"]


def _rate(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.differential_throughput",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--candidate", default="spark-reference")
    parser.add_argument("--examples", type=int, default=500, metavar="N", help="scenarios per join kind")
    parser.add_argument("--seed", type=int, default=PROFILES["ci"].seed)
    parser.add_argument("--kafka", default=None, help="default: the newest version the candidate claims")
    parser.add_argument("--spark-master", default="local[2]")
    parser.add_argument("--no-spark", action="store_true", help="measure generation and the oracle only")
    args = parser.parse_args(argv)

    candidate = load_candidate(args.candidate)
    kafka = args.kafka or max(candidate.claim.kafka, key=parse_version)
    profile = replace(PROFILES["ci"], examples=args.examples)
    rows: list[list[object]] = []
    generated = {}
    for join in JOIN_KINDS:
        if join not in candidate.claim.joins:
            continue
        started = time.perf_counter()
        batch = generate_cases(join, kafka, profile=profile, seed=args.seed, claim=candidate.claim)
        drawn_seconds = time.perf_counter() - started
        started = time.perf_counter()
        for case in batch.cases:
            expected = kafka_outputs(case)
            if isinstance(expected, str):  # generate_cases keeps applicable cases only
                raise AssertionError(f"{case.id}: {expected}")
            check(expected, Emitted(expected.outputs, causes_known=True), "exact")
        oracle_seconds = time.perf_counter() - started
        generated[join] = batch.cases
        rows.append(
            [
                join,
                len(batch.cases),
                drawn_seconds,
                _rate(len(batch.cases), drawn_seconds),
                oracle_seconds,
                _rate(len(batch.cases), oracle_seconds),
            ]
        )
    headers = ["join", "scenarios", "generate s", "generated/s", "oracle s", "oracle checks/s"]
    if not args.no_spark:
        spark = start_session(args.spark_master)
        spark.range(1).count()  # start the executors before timing
        headers += ["Spark s", "Spark checks/s", "Spark jobs"]
        for row in rows:
            cases = generated[str(row[0])]
            harness = HarnessRun(candidate, lambda: spark)
            jobs, started = jobs_started(spark), time.perf_counter()
            harness.outcomes(cases)
            seconds = time.perf_counter() - started
            row += [seconds, _rate(len(cases), seconds), (jobs_started(spark) or 0) - (jobs or 0)]
    total = sum(int(str(row[1])) for row in rows)
    print(
        f"candidate {candidate.name} as Kafka {kafka}, seed {args.seed}, {args.examples} drawn per join kind"
    )
    print(tabulate(rows, headers=headers, floatfmt=".1f"))
    print(f"\n{total} scenarios in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
