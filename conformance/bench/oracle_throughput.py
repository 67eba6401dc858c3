"""Oracle throughput per join kind, against TopologyTestDriver reference figures.

``python -m conformance.bench.oracle_throughput [--records N] [--keys K] [--seed S]`` generates, for each
join kind, ``N`` input records over ``K`` keys from a fixed seed (the same inputs on every run), pipes them
through the oracle as Kafka 3.9 and prints records per second with the ratio to the reference figures:
30,000 rec/s for stream-stream, stream-table and table-table joins and 7,000 rec/s for foreign-key joins on
TopologyTestDriver (REFERENCE_RECORDS_PER_S). Timings are wall-clock and vary by machine; the generated
inputs and the output counts do not.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from tabulate import tabulate

from oracle import JoinSpec, Record, Window, behaviour_for, run
from oracle.records import JoinKind

__all__ = ["BENCHMARKS", "REFERENCE_RECORDS_PER_S", "Benchmark", "main", "measure", "records_for"]

KAFKA = "3.9"

REFERENCE_RECORDS_PER_S: dict[JoinKind, int] = {
    "stream-stream": 30_000,
    "stream-table": 30_000,
    "table-table": 30_000,
    "fk": 7_000,
}
"""Records per second of the same joins on Kafka Streams' TopologyTestDriver (reference figures)."""

SPURIOUS_FREE = Window(before=500, after=500, grace=100)
"""A ``JoinWindows.ofTimeDifferenceAndGrace(500 ms, 100 ms)`` window: left/outer results are deferred."""


@dataclass(frozen=True, slots=True)
class Benchmark:
    """One measured join."""

    spec: JoinSpec

    @property
    def name(self) -> str:
        return f"{self.spec.join} {self.spec.variant}"


BENCHMARKS: tuple[Benchmark, ...] = (
    Benchmark(JoinSpec(join="stream-stream", variant="inner", window=SPURIOUS_FREE)),
    Benchmark(JoinSpec(join="stream-stream", variant="left", window=SPURIOUS_FREE)),
    Benchmark(JoinSpec(join="stream-stream", variant="outer", window=SPURIOUS_FREE)),
    Benchmark(JoinSpec(join="stream-table", variant="left")),
    Benchmark(JoinSpec(join="table-table", variant="outer")),
    Benchmark(JoinSpec(join="fk", variant="left")),
)


def records_for(join: JoinKind, count: int, keys: int, seed: int) -> list[Record]:
    """``count`` records over ``keys`` keys per side; timestamps rise by 1 ms per record with +-20 ms of
    jitter (so some arrive out of order); 2% null values (tombstones for tables). FK left values are
    ``f<n>:L<i>``, pointing at one of the right side's ``keys`` keys."""
    rng = random.Random(seed)
    records = []
    for index in range(count):
        side = "left" if rng.random() < 0.5 else "right"
        ts = max(0, index + rng.randint(-20, 20))
        prefix = "f" if join == "fk" and side == "right" else "k"
        key = f"{prefix}{rng.randrange(keys)}"
        if rng.random() < 0.02:
            value = None
        elif join == "fk" and side == "left":
            value = f"f{rng.randrange(keys)}:L{index}"
        else:
            value = f"{side[0].upper()}{index}"
        records.append(Record(side=side, key=key, value=value, ts=ts))
    return records


def measure(benchmark: Benchmark, records: Sequence[Record]) -> tuple[int, float]:
    """(outputs, seconds) for one run of ``records`` through a fresh join."""
    behaviour = behaviour_for(KAFKA)
    start = time.perf_counter()
    outputs = run(benchmark.spec, records, behaviour)
    return len(outputs), time.perf_counter() - start


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Oracle throughput per join kind.")
    parser.add_argument("--records", type=int, default=100_000, help="input records per join (%(default)s)")
    parser.add_argument("--keys", type=int, default=1_000, help="distinct keys per side (%(default)s)")
    parser.add_argument("--seed", type=int, default=20_241_025, help="generator seed (%(default)s)")
    args = parser.parse_args(argv)
    rows = []
    for benchmark in BENCHMARKS:
        records = records_for(benchmark.spec.join, args.records, args.keys, args.seed)
        outputs, seconds = measure(benchmark, records)
        rate = len(records) / seconds if seconds > 0 else float("inf")
        reference = REFERENCE_RECORDS_PER_S[benchmark.spec.join]
        measured = [f"{seconds:.2f}", f"{rate:,.0f}", f"{reference:,}", f"{rate / reference:.1f}x"]
        rows.append([benchmark.name, len(records), outputs, *measured])
    headers = ["join", "records", "outputs", "seconds", "records/s", "TTD records/s", "ratio"]
    sys.stdout.write(f"oracle as Kafka {KAFKA}, {args.keys} keys, seed {args.seed}\n")
    sys.stdout.write(tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
