"""The oracle against Kafka Streams' own TopologyTestDriver, on the same workload in one run.

    python -m benchmarks.kafka_vs_oracle [--kafka 4.3] [--records 20000] [--keys 200] [--repeat 3]
                                         [--warmup 1] [--stores memory|rocksdb] [--seed S]

Every join of ``oracle_throughput.BENCHMARKS`` gets the same generated records (``records_for``: late,
null and out-of-order records included). Each join goes ``--warmup`` + ``--repeat`` times through a fresh
TopologyTestDriver of the real Kafka Streams release (the project's driver, ``kjoin kafka``) and through the
oracle as that release; the warm-up runs (the JVM's just-in-time compiler, Python's caches) are not counted
on either side. The driver times itself: the time inside ``TopologyTestDriver`` (piping the records and
reading the outputs) is what is compared; the JVM's start, the topology's build and the drivers' setup and
teardown are reported apart. Both sides use the same store kind (in-memory by default: Kafka's fastest).

Prints per join: records per second of each, the ratio (the oracle's target is ``TARGET_RATIO`` times
TopologyTestDriver) and whether both emitted exactly the same outputs. Timings are means over the repeats;
the machine is shared, so read ratios, not absolute figures. Needs Java 17 and Maven (the first run builds
the driver of that release into the cache).

Then, as a user runs them (``process_cpu``): the whole-process CPU of ``kjoin oracle --jsonl`` and of
``kjoin kafka --version V`` on the same file of ``--process-records`` records over ``--process-keys`` keys,
for in-memory and RocksDB stores, beside the oracle's own CPU; it prints the command line's overhead over
the oracle (target at most ``OVERHEAD_TARGET``x; the least CPU of ``--process-repeat`` runs of each) and the
kafka / oracle CPU ratio (target at least ``TARGET_RATIO``x). ``--process-records 0`` skips it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence

from msgspec.structs import replace
from tabulate import tabulate

from benchmarks.oracle_throughput import BENCHMARKS, TARGET_RATIO, Benchmark, records_for
from benchmarks.process_cpu import OVERHEAD_TARGET, measure_processes
from kjoin.conformance.catalogue import Case, case_id
from kjoin.conformance.catalogue.portable import case_json, output_to_json
from kjoin.conformance.kafka.driver import KafkaDriver
from kjoin.oracle import behaviour_for, run
from kjoin.oracle.behaviour import release_of

__all__ = ["main"]


def _case(benchmark: Benchmark, kafka: str, stores: str, records: Sequence[object], copy: int) -> Case:
    scenario = f"bench-{benchmark.name.replace(' ', '-')}-{copy}"
    spec = replace(benchmark.spec, stores=stores)
    return Case(
        id=case_id(scenario, spec.variant, kafka, False),
        scenario=scenario,
        kafka=kafka,
        intended=False,
        spec=spec,
        records=tuple(records),  # type: ignore[arg-type]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.kafka_vs_oracle",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--kafka", default="4.3", help="Kafka version or release (default 4.3)")
    parser.add_argument(
        "--records", type=int, default=20_000, help="records per join (default 20000; 0: none)"
    )
    parser.add_argument("--keys", type=int, default=200, help="distinct keys per side (default 200)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per join (default 3)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed runs first (default 1)")
    parser.add_argument("--stores", choices=("memory", "rocksdb"), default="memory")
    parser.add_argument("--seed", type=int, default=20_241_025)
    parser.add_argument(
        "--process-records",
        type=int,
        default=100_000,
        help="whole-process runs' records (0: skip)",
    )
    parser.add_argument("--process-keys", type=int, default=1_000, help="keys of the whole-process runs")
    parser.add_argument(
        "--process-stores", choices=("memory", "rocksdb"), action="append", help="default: both, in turn"
    )
    parser.add_argument(
        "--process-repeat",
        type=int,
        default=3,
        help="runs of the oracle and of kjoin oracle --jsonl per workload, least CPU kept (default 3)",
    )
    args = parser.parse_args(argv)
    release = release_of(args.kafka)
    behaviour = behaviour_for(release)
    rows = []
    setup_ms = jvm_ms = 0.0
    for benchmark in BENCHMARKS if args.records > 0 else ():
        records = records_for(benchmark.spec.join, args.records, args.keys, args.seed)
        runs = args.warmup + args.repeat
        cases = [_case(benchmark, release, args.stores, records, copy) for copy in range(runs)]
        lines = [json.dumps(case_json(case)) for case in cases]
        with KafkaDriver(release, timing=True) as driver:
            answers = list(driver.answers(lines))
        timing = driver.timing_report or {}
        kafka_ns = sum(int(answer.get("driver_ns", 0)) for answer in answers[args.warmup :])
        setup_ms += (int(timing.get("setup_ns", 0)) + int(timing.get("teardown_ns", 0))) / 1e6
        jvm_ms = max(jvm_ms, float(timing.get("jvm_start_to_main_ms", 0)))
        oracle_s = 0.0
        oracle_outputs: list[object] = []
        for number, case in enumerate(cases):
            started = time.perf_counter()
            oracle_outputs = list(run(case.spec, case.records, behaviour))
            if number >= args.warmup:
                oracle_s += time.perf_counter() - started
        kafka_s = kafka_ns / 1e9
        errors = [answer["error"] for answer in answers if "error" in answer]
        if errors:
            raise SystemExit(f"{benchmark.name}: Kafka {release} failed: {errors[0]}")
        same = all(
            answer["outputs"] == [output_to_json(o) for o in oracle_outputs]  # type: ignore[arg-type]
            for answer in answers
        )
        total = len(records) * args.repeat
        kafka_rate = total / kafka_s if kafka_s else float("inf")
        oracle_rate = total / oracle_s if oracle_s else float("inf")
        rows.append(
            [
                benchmark.name,
                f"{len(oracle_outputs):,}",
                f"{kafka_rate:,.0f}",
                f"{oracle_rate:,.0f}",
                f"{oracle_rate / kafka_rate:.1f}x",
                "yes" if oracle_rate / kafka_rate >= TARGET_RATIO else "no",
                "yes" if same else "NO",
            ]
        )
    headers = [
        "join",
        "outputs",
        f"Kafka {release} TTD rec/s",
        "oracle rec/s",
        "oracle / TTD",
        f">= {TARGET_RATIO}x",
        "same outputs",
    ]
    print(
        f"{args.records:,} records per join, {args.keys} keys per side, {args.stores} stores, "
        f"mean of {args.repeat} runs after {args.warmup} warm-up, seed {args.seed}"
    )
    print(
        tabulate(
            rows, headers=headers, colalign=("left", "right", "right", "right", "right", "center", "center")
        )
    )
    print(
        f"apart from the timed work: JVM start to main {jvm_ms:.0f} ms (per driver process), topology build, "
        f"driver setup and teardown {setup_ms:.0f} ms in all"
    )
    met = all(row[-1] == "yes" for row in rows)
    if args.process_records > 0:
        stores = tuple(args.process_stores or ("memory", "rocksdb"))
        met = (
            _whole_processes(
                release, stores, args.process_records, args.process_keys, args.seed, args.process_repeat
            )
            and met
        )
    return 0 if met else 1


def _whole_processes(
    release: str, stores_kinds: Sequence[str], records: int, keys: int, seed: int, repeat: int
) -> bool:
    """The whole-process table (module docstring); whether every workload meets both targets."""
    rows = []
    met = True
    for stores in stores_kinds:
        for benchmark in BENCHMARKS:
            cpu = measure_processes(benchmark, release, stores, records, keys, seed, repeat)
            ok = cpu.overhead <= OVERHEAD_TARGET and cpu.kafka_ratio >= TARGET_RATIO and cpu.same_outputs
            print(f"measured {benchmark.name}, {stores} stores: {cpu}", file=sys.stderr, flush=True)
            met = met and ok
            rows.append(
                [
                    benchmark.name,
                    stores,
                    f"{cpu.oracle_s:.2f}",
                    f"{cpu.oracle_cold_s:.2f}",
                    f"{cpu.kjoin_oracle_s:.2f}",
                    f"{cpu.overhead:.1f}x",
                    f"{cpu.kjoin_kafka_s:.2f}",
                    f"{cpu.kafka_ratio:.1f}x",
                    "yes" if cpu.same_outputs else "NO",
                ]
            )
    headers = [
        "join",
        "stores",
        "oracle API, warm CPU s",
        "oracle as the command runs it CPU s",
        "kjoin oracle --jsonl CPU s",
        f"overhead (<= {OVERHEAD_TARGET:g}x)",
        f"kjoin kafka --version {release} CPU s",
        f"kafka / oracle (>= {TARGET_RATIO}x)",
        "same outputs",
    ]
    print(
        f"\nwhole processes as a user runs them: one scenario of {records:,} records over {keys:,} keys, "
        f"CPU (user + system) summed over each process tree; the oracle (warm: in this process; as the "
        f"command runs it: once in a fresh process, benchmarks/oracle_cold.py) and kjoin oracle: least of "
        f"{repeat} runs; overhead = (kjoin oracle - oracle as the command runs it) / the latter"
    )
    print(tabulate(rows, headers=headers, disable_numparse=True))
    return met


if __name__ == "__main__":
    raise SystemExit(main())
