"""Scale benchmark: ``kjoin scale`` (oracle per task + spark-reference + diff, all in Spark) at growing sizes.

    python -m benchmarks.scale [--sizes 1000000 2000000 4000000 8000000 10000000] [--keys 1000 100000]
                               [--partitions 8] [--joins stream-stream table-table] [--master local[2]]
                               [--chart docs/images/scale.svg]

For each join (a stream-stream left join, window 100 ms, grace 50 ms, in-memory stores; a table-table outer
join), each key count and each size, one check runs in this process's SparkSession (default driver memory),
and the benchmark prints wall time per step, records per second, the cost per record relative to the
smallest size, and the peak resident memory of the Spark JVM and of its Python workers (sampled every half
second from /proc). ``--chart`` draws cost per record against size as an SVG line chart.
"""

from __future__ import annotations

import argparse
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from tabulate import tabulate

from kjoin.conformance.harness.spark_session import start_session
from kjoin.conformance.protocol import Candidate, Claim, DeclaredDifference, load_candidate
from kjoin.conformance.scale.check import Workload, check_at_scale
from kjoin.conformance.scale.data import Generated, generate
from kjoin.conformance.scale.tasks import task_id
from kjoin.oracle import Window

__all__ = ["main"]

WORKLOADS = {
    "stream-stream": Workload(
        "stream-stream", "left", "3.9", Window(before=100, after=100, grace=50), "memory"
    ),
    "table-table": Workload("table-table", "outer", "3.9"),
}


def _rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


class MemorySampler:
    """Peak RSS of the JVM (the Spark driver, which is also the executor in local mode), summed, of the
    Python workers it forks, and of this Python process (the PySpark driver, where anything collected would
    land)."""

    def __init__(self, jvm_pid: int) -> None:
        self.jvm_pid, self.jvm_peak, self.workers_peak, self.driver_peak = jvm_pid, 0, 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            self.jvm_peak = max(self.jvm_peak, _rss_kib(self.jvm_pid))
            self.driver_peak = max(self.driver_peak, _rss_kib(os.getpid()))
            pending, workers = _children(self.jvm_pid), 0
            while pending:
                pid = pending.pop()
                workers += _rss_kib(pid)
                pending.extend(_children(pid))
            self.workers_peak = max(self.workers_peak, workers)

    def __enter__(self) -> MemorySampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@dataclass(frozen=True)
class Row:
    join: str
    keys: int
    records: int
    seconds: float
    steps: dict[str, float]
    jvm_mib: float
    workers_mib: float
    driver_mib: float
    status: str


def _jvm_pid(spark: object) -> int:
    runtime = spark.sparkContext._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean()  # type: ignore[attr-defined]
    return int(str(runtime.getName()).split("@")[0])


def chart(rows: Sequence[Row], path: Path) -> None:
    """Cost per record (relative to each series' smallest size) against records: one line per series."""
    series: dict[str, list[Row]] = {}
    for row in rows:
        series.setdefault(f"{row.join}, {row.keys:,} keys", []).append(row)
    width, height, left, bottom = 640, 360, 70, 50
    most = max(row.records for row in rows)
    costs = {
        name: [(r.records, (r.seconds / r.records) / (items[0].seconds / items[0].records)) for r in items]
        for name, items in series.items()
    }
    top = max(2.0, max(c for points in costs.values() for _, c in points) * 1.1)

    def x(n: float) -> float:
        return left + (width - left - 20) * n / most

    def y(c: float) -> float:
        return height - bottom - (height - bottom - 20) * c / top

    colours = ["#0969da", "#cf222e", "#1a7f37", "#8250df"]
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        '<rect width="100%" height="100%" fill="#fff"/>',
        f'<line x1="{left}" y1="{height - bottom}" x2="{width - 20}" y2="{height - bottom}" '
        'stroke="#57606a"/>',
        f'<line x1="{left}" y1="20" x2="{left}" y2="{height - bottom}" stroke="#57606a"/>',
        f'<line x1="{left}" y1="{y(1.25)}" x2="{width - 20}" y2="{y(1.25)}" stroke="#bf8700" '
        'stroke-dasharray="4 3"/>',
        f'<text x="{width - 24}" y="{y(1.25) - 4}" text-anchor="end" fill="#7d4e00">1.25x target</text>',
        f'<text x="{(left + width) / 2}" y="{height - 12}" text-anchor="middle">records (millions)</text>',
        f'<text x="16" y="{(height - bottom) / 2}" transform="rotate(-90 16 {(height - bottom) / 2})" '
        'text-anchor="middle">cost per record vs smallest</text>',
    ]
    for step in range(0, int(top * 4) + 1):
        value = step / 4
        if value <= top and step % 2 == 0:
            parts.append(f'<text x="{left - 6}" y="{y(value) + 4}" text-anchor="end">{value:.1f}</text>')
    for n in sorted({r.records for r in rows}):
        parts.append(f'<text x="{x(n)}" y="{height - bottom + 16}" text-anchor="middle">{n / 1e6:g}</text>')
    for points, colour in zip(costs.values(), colours, strict=False):
        path_d = " ".join(f"{'M' if i == 0 else 'L'}{x(n):.1f},{y(c):.1f}" for i, (n, c) in enumerate(points))
        parts.append(f'<path d="{path_d}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for n, c in points:
            parts.append(f'<circle cx="{x(n):.1f}" cy="{y(c):.1f}" r="3" fill="{colour}"/>')
    for index, (name, colour) in enumerate(zip(costs, colours, strict=False)):
        parts.append(f'<text x="{left + 10}" y="{34 + 16 * index}" fill="{colour}">{name}</text>')
    parts.append("</svg>")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(parts) + "\n", encoding="utf-8")


@dataclass(frozen=True)
class ShiftOneRecord:
    """spark-reference fed one record of one task ``shift`` ms late: a planted difference in one partition."""

    task: str
    index: int
    shift: int
    name: str = "shift-one-record"

    @property
    def reference(self) -> Candidate:
        return load_candidate("spark-reference")

    @property
    def claim(self) -> Claim:
        return self.reference.claim

    declared_differences: tuple[DeclaredDifference, ...] = ()

    def run(self, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
        planted = (F.col("scenario_id") == self.task) & (F.col("idx") == self.index)
        moved = inputs.withColumn("ts", F.when(planted, F.col("ts") + self.shift).otherwise(F.col("ts")))
        return self.reference.run(spark, moved, specs)


def _planted(spark: SparkSession, size: int, keys: int, partitions: int) -> None:
    """A planted difference at ``size`` records: which tasks differ, and the sample's first divergence."""
    workload = WORKLOADS["stream-stream"]
    window = workload.window
    assert window is not None and window.grace is not None
    planted = ShiftOneRecord(task_id(partitions // 2), 5_000, window.before + window.after + window.grace + 1)
    data = generate(spark, Generated(records=size, keys=keys, partitions=partitions))
    started = time.perf_counter()
    document = check_at_scale(spark, planted, data, workload, run={})
    differing = [t["task"] for t in document["tasks"] if t["missing"] or t["unexpected"] or t["wrong_input"]]
    sample = document["samples"][0] if document["samples"] else {}
    context = [r for r in sample.get("context", []) if r["index"] == sample.get("first_at")]
    print(
        f"planted difference at {size:,} records in {planted.task} input {planted.index}: status "
        f"{document['status']}, differing tasks {differing}, first divergence in the sample at input "
        f"{sample.get('first_at')} ({', '.join(d['kind'] for d in sample.get('divergences', [])[:3])}), "
        f"record shown in context: {context[:1]} ({time.perf_counter() - started:.0f} s)",
        flush=True,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.scale",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[1_000_000, 2_000_000, 4_000_000, 8_000_000, 10_000_000]
    )
    parser.add_argument("--keys", type=int, nargs="+", default=[1_000, 100_000])
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--joins", nargs="+", choices=sorted(WORKLOADS), default=sorted(WORKLOADS))
    parser.add_argument("--master", default=os.environ.get("KJOIN_SPARK_MASTER", "local[2]"))
    parser.add_argument("--chart", type=Path, help="write the cost-per-record chart (SVG)")
    parser.add_argument(
        "--plant",
        action="store_true",
        help="also check, at the smallest size, a reference fed one record 251 ms late in one partition, "
        "and print where the report finds it",
    )
    args = parser.parse_args(argv)
    spark = start_session(args.master)
    reference = load_candidate("spark-reference")
    rows: list[Row] = []
    if args.plant:
        _planted(spark, min(args.sizes), args.keys[0], args.partitions)
    for join in args.joins:
        for keys in args.keys:
            for size in sorted(args.sizes):
                data = generate(spark, Generated(records=size, keys=keys, partitions=args.partitions))
                started = time.perf_counter()
                with MemorySampler(_jvm_pid(spark)) as memory:
                    document = check_at_scale(spark, reference, data, WORKLOADS[join], run={})
                seconds = time.perf_counter() - started
                peaks = (memory.jvm_peak / 1024, memory.workers_peak / 1024, memory.driver_peak / 1024)
                row = Row(join, keys, size, seconds, dict(document["timings"]), *peaks, document["status"])
                rows.append(row)
                print(f"{join} {keys:,} keys {size:,} records: {seconds:.0f} s ({row.status})", flush=True)
    table = []
    for row in rows:
        first = next(r for r in rows if r.join == row.join and r.keys == row.keys)
        cost = (row.seconds / row.records) / (first.seconds / first.records)
        steps = ", ".join(f"{name[:-2]} {value:.0f}" for name, value in row.steps.items())
        table.append([row.join, f"{row.keys:,}", f"{row.records:,}", f"{row.seconds:.0f}", steps,
                      f"{row.records / row.seconds:,.0f}", f"{cost:.2f}x", f"{row.jvm_mib:,.0f}",
                      f"{row.workers_mib:,.0f}", f"{row.driver_mib:,.0f}", row.status])  # fmt: skip
    headers = ["join", "keys", "records", "wall s", "steps (s)", "records/s", "cost/record vs smallest",
               "JVM peak MiB", "Python workers peak MiB", "PySpark driver peak MiB", "status"]  # fmt: skip
    print(tabulate(table, headers=headers, tablefmt="github"))
    if args.chart is not None:
        chart(rows, args.chart)
        print(f"chart written to {args.chart}")
    return 0 if all(row.status == "pass" for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
