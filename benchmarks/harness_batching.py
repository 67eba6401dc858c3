"""Benchmark: the catalogue through a candidate batched (one call per join kind) vs one call per scenario.

    python -m benchmarks.harness_batching [--candidate spark-reference] [--scenarios PATH ...]
        [--kafka V] [--per-scenario N] [--spark-master local[2]]

The batched leg runs every claimed, applicable case the way ``kjoin run`` does. The per-scenario leg calls
the candidate once per case (what the harness avoids) for ``N`` cases spread evenly over the catalogue
(``--per-scenario 0``: all of them) and extrapolates its time to the whole catalogue. It also checks that
both legs give the same answers for the sampled cases. Prints a table and the ratio.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from tabulate import tabulate

from kjoin.conformance.catalogue import Case, load_cases
from kjoin.conformance.harness.batching import run_batch
from kjoin.conformance.harness.outcomes import HarnessRun
from kjoin.conformance.harness.spark_session import jobs_started, start_session
from kjoin.conformance.protocol import load_candidate

__all__ = ["main"]


def _sample(cases: Sequence[Case], size: int) -> list[Case]:
    """``size`` cases spread evenly (every k-th), so each join kind is represented in proportion."""
    if size <= 0 or size >= len(cases):
        return list(cases)
    step = len(cases) / size
    return [cases[int(i * step)] for i in range(size)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.harness_batching",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--candidate", default="spark-reference")
    parser.add_argument("--scenarios", nargs="+", type=Path)
    parser.add_argument("--kafka")
    parser.add_argument("--per-scenario", type=int, default=40, metavar="N")
    parser.add_argument("--spark-master", default="local[2]")
    args = parser.parse_args(argv)

    candidate = load_candidate(args.candidate)
    loaded = load_cases(args.scenarios, kafka=args.kafka)
    if loaded.errors:
        print("\n".join(str(error) for error in loaded.errors), file=sys.stderr)
        return 2
    harness = HarnessRun(candidate, lambda: start_session(args.spark_master))
    cases = [
        c
        for c in loaded.cases
        if harness.unclaimed_because(c) is None and not isinstance(harness.expected(c), str)
    ]
    if not cases:
        print("no claimed cases to run", file=sys.stderr)
        return 2
    spark = harness.spark
    spark.range(1).count()  # start the executors before timing

    jobs, started = jobs_started(spark), time.perf_counter()
    outcomes = harness.outcomes(cases)
    batched_seconds = time.perf_counter() - started
    batched_jobs = (jobs_started(spark) or 0) - (jobs or 0)
    batched = {o.case.id: o.answer for o in outcomes}

    sample = _sample(cases, args.per_scenario)
    jobs, started = jobs_started(spark), time.perf_counter()
    differing = 0
    for case in sample:
        answer = run_batch(spark, candidate, [case])[case.id]
        differing += answer != batched[case.id]
    single_seconds = time.perf_counter() - started
    single_jobs = (jobs_started(spark) or 0) - (jobs or 0)
    scale = len(cases) / len(sample)

    rows = [
        ["batched (one call per join kind)", len(cases), len(harness.batches), batched_jobs, batched_seconds],
        [
            f"one call per scenario ({len(sample)} measured)",
            len(sample),
            len(sample),
            single_jobs,
            single_seconds,
        ],
        [
            "one call per scenario, whole catalogue (extrapolated)",
            len(cases),
            len(cases),
            round(single_jobs * scale),
            single_seconds * scale,
        ],
    ]
    print(f"candidate {candidate.name}, Spark master {args.spark_master}")
    print(
        tabulate(rows, headers=["mode", "cases", "candidate calls", "Spark jobs", "seconds"], floatfmt=".1f")
    )
    print(f"\nratio (per scenario / batched, wall time): {single_seconds * scale / batched_seconds:.1f}x")
    print(f"sampled cases whose answers differ between the two modes: {differing}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
