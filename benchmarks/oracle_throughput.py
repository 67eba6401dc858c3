"""Oracle throughput per join kind (the oracle alone; ``kafka_vs_oracle`` measures it against
TopologyTestDriver on this same workload).

``python -m benchmarks.oracle_throughput [--records N] [--keys K] [--seed S] [--repeat R]`` pipes
the same generated records through each join of ``BENCHMARKS`` as Kafka 3.9, ``R`` times, and prints the
best wall-clock and CPU time per join as records per second.

Wall-clock time includes whatever else the machine runs; CPU time (``time.process_time``) only counts this
process, so it is the steadier figure on a shared machine, though a busy machine slows it too (shared
caches and cores). The generated inputs and the output counts are the same on every run.

The workload (``records_for``), for ``N`` records over ``K`` keys:

* sides: each record is a left or a right record with probability 1/2 (for stream-table, stream and table
  updates; for table-table and foreign-key joins, updates of either table);
* keys: uniform over ``K`` keys per side (``k0`` ..), so with the defaults a key sees a record on each
  side about every 2 s;
* timestamps: event time moves 1 ms per record; record ``i`` has ts ``i``, except that one in ten is late
  by 1 to 200 ms (uniform, never below 0), so about 10% arrive out of order (below an earlier ts), some of
  them after their join window and grace have closed;
* nulls: 2% null values (tombstones for tables; stream joins drop them) and 0.5% null keys (tables drop
  them; 3.7+ left/outer stream joins forward them at once);
* windows: stream-stream joins use ``JoinWindows.ofTimeDifferenceAndGrace(500 ms, 100 ms)``, so left/outer
  results are deferred until the window closes (the spurious-free 3.1+ path); about a quarter of the
  records find a partner, and left/outer joins hold and later emit most of the others;
* versioned stores: the versioned table-table join keeps 60 s of history on both sides (out-of-order
  updates within it are stored as history and not joined);
* foreign keys: a left value ``f<n>:L<i>`` refers to right key ``f<n>`` (``n`` uniform over ``K``), so each
  right key has about ``N / 2K`` subscribers and a right update answers all of them.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from tabulate import tabulate

from kjoin.oracle import JoinSpec, Record, Versioning, Window, behaviour_for, run
from kjoin.oracle.records import JoinKind

__all__ = [
    "BENCHMARKS",
    "TARGET_RATIO",
    "Benchmark",
    "Measurement",
    "WorkloadShape",
    "main",
    "measure",
    "records_for",
    "workload_shape",
]

KAFKA = "3.9"

TARGET_RATIO = 10
"""The oracle should be at least this many times faster than TopologyTestDriver (``kafka_vs_oracle``)."""

SPURIOUS_FREE = Window(before=500, after=500, grace=100)
"""A ``JoinWindows.ofTimeDifferenceAndGrace(500 ms, 100 ms)`` window: left/outer results are deferred."""

HISTORY = Versioning(left=True, right=True, history_ms=60_000)
"""Both tables versioned (KIP-889/914, 3.5+) with 60 s of history."""

NULL_VALUE_SHARE = 0.02
NULL_KEY_SHARE = 0.005
LATE_SHARE = 0.1
MAX_LATENESS_MS = 200


@dataclass(frozen=True, slots=True)
class Benchmark:
    """One measured join."""

    name: str
    spec: JoinSpec


BENCHMARKS: tuple[Benchmark, ...] = (
    Benchmark("stream-stream inner", JoinSpec(join="stream-stream", variant="inner", window=SPURIOUS_FREE)),
    Benchmark("stream-stream left", JoinSpec(join="stream-stream", variant="left", window=SPURIOUS_FREE)),
    Benchmark("stream-stream outer", JoinSpec(join="stream-stream", variant="outer", window=SPURIOUS_FREE)),
    Benchmark("stream-table left", JoinSpec(join="stream-table", variant="left")),
    Benchmark("table-table outer", JoinSpec(join="table-table", variant="outer")),
    Benchmark("table-table outer versioned", JoinSpec("table-table", "outer", versioned=HISTORY)),
    Benchmark("foreign-key left", JoinSpec(join="fk", variant="left")),
)


def records_for(join: JoinKind, count: int, keys: int, seed: int) -> list[Record]:
    """``count`` input records over ``keys`` keys per side, the same for a given seed (module docstring).
    Values name their side and position (``L17``, ``R18``); FK left values are ``f<n>:L<i>``."""
    rng = random.Random(seed)
    records = []
    for index in range(count):
        side = "left" if rng.random() < 0.5 else "right"
        ts = max(0, index - rng.randint(1, MAX_LATENESS_MS)) if rng.random() < LATE_SHARE else index
        prefix = "f" if join == "fk" and side == "right" else "k"
        key = None if rng.random() < NULL_KEY_SHARE else f"{prefix}{rng.randrange(keys)}"
        if rng.random() < NULL_VALUE_SHARE:
            value = None
        elif join == "fk" and side == "left":
            value = f"f{rng.randrange(keys)}:L{index}"
        else:
            value = f"{side[0].upper()}{index}"
        records.append(Record(side=side, key=key, value=value, ts=ts))
    return records


@dataclass(frozen=True, slots=True)
class WorkloadShape:
    """What a generated workload looks like, as shares of its records."""

    left: float
    null_values: float
    null_keys: float
    out_of_order: float


def workload_shape(records: Sequence[Record]) -> WorkloadShape:
    """Shares of left records, null values, null keys and out-of-order records (ts below an earlier ts)."""
    latest = -1
    late = 0
    for record in records:
        late += record.ts < latest
        latest = max(latest, record.ts)
    count = len(records) or 1
    return WorkloadShape(
        left=sum(record.side == "left" for record in records) / count,
        null_values=sum(record.value is None for record in records) / count,
        null_keys=sum(record.key is None for record in records) / count,
        out_of_order=late / count,
    )


@dataclass(frozen=True, slots=True)
class Measurement:
    """The best of several runs of one join: its output count, wall-clock and CPU seconds."""

    outputs: int
    wall_s: float
    cpu_s: float


def measure(benchmark: Benchmark, records: Sequence[Record], repeat: int = 1) -> Measurement:
    """Run ``records`` through a fresh join ``repeat`` times; the best wall-clock and the best CPU time."""
    behaviour = behaviour_for(KAFKA)
    outputs, best_wall, best_cpu = 0, float("inf"), float("inf")
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        outputs = len(run(benchmark.spec, records, behaviour))
        best_cpu = min(best_cpu, time.process_time() - cpu)
        best_wall = min(best_wall, time.perf_counter() - wall)
    return Measurement(outputs, best_wall, best_cpu)


def _per_second(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Oracle throughput per join kind.")
    parser.add_argument("--records", type=int, default=100_000, help="input records per join (%(default)s)")
    parser.add_argument("--keys", type=int, default=1_000, help="distinct keys per side (%(default)s)")
    parser.add_argument("--seed", type=int, default=20_241_025, help="generator seed (%(default)s)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per join, best one kept (%(default)s)")
    args = parser.parse_args(argv)
    rows = []
    shape = workload_shape(records_for("stream-stream", args.records, args.keys, args.seed))
    for benchmark in BENCHMARKS:
        records = records_for(benchmark.spec.join, args.records, args.keys, args.seed)
        result = measure(benchmark, records, max(1, args.repeat))
        wall_rate = _per_second(len(records), result.wall_s)
        cpu_rate = _per_second(len(records), result.cpu_s)
        rows.append([benchmark.name, f"{result.outputs:,}", f"{wall_rate:,.0f}", f"{cpu_rate:,.0f}"])
    headers = ["join", "outputs", "records/s wall", "records/s CPU"]
    load = f"{os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else "unknown"
    sys.stdout.write(
        f"oracle as Kafka {KAFKA}: {args.records:,} records over {args.keys:,} keys per join, "
        f"seed {args.seed}, best of {max(1, args.repeat)} runs; load average {load}\n"
        f"workload: {shape.left:.1%} left, {shape.null_values:.1%} null values, "
        f"{shape.null_keys:.1%} null keys, {shape.out_of_order:.1%} out of order; "
        f"stream-stream window 500 ms, grace 100 ms\n"
        "against TopologyTestDriver on the same workload: nox -s bench_kafka\n\n"
    )
    sys.stdout.write(tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
