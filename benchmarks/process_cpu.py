"""Whole-process CPU of what a user runs: ``kjoin oracle --jsonl`` against ``kjoin kafka --version V``.

Both commands read the same portable file (one scenario of ``--records`` generated records, the workload of
``oracle_throughput.records_for``) and write their answer; each runs as its own process, and its CPU time
(user + system) is summed over the process tree: ``resource.getrusage(RUSAGE_CHILDREN)`` before and after
each waited-for subprocess (``kjoin kafka`` waits for its JVM, so the JVM's CPU, all its threads, counts).
Beside them, the oracle's own processing as the command does it (``oracle_cold``: the same file read the same
way, then ``run`` once in a fresh process, its CPU alone) gives the command line's overhead: ``(kjoin oracle
CPU - oracle CPU) / oracle CPU``. The oracle's API timed in this process (the least of ``repeat`` runs) is
reported too; its conditions differ from the command's both ways (warm memory and caches; the collector's pass
over the outputs as ``run`` returns), so the overhead is not computed against it. Used by ``kafka_vs_oracle``.

The cold oracle and ``kjoin oracle --jsonl`` run ``repeat`` times each, interleaved so that a change of the
machine's load falls on both, and the least CPU of each is kept (on a shared machine the least is the
steadiest figure); ``kjoin kafka`` runs once (its JVM takes tens of CPU seconds). Before measuring, one
unmeasured ``kjoin oracle --jsonl`` on an empty input lets Python cache the project's bytecode, as ``pip
install`` does (``PYTHONDONTWRITEBYTECODE`` dropped for that run only): without it, a sandbox that forbids
writing bytecode would time the compilation of every module on every run.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from msgspec.structs import replace

from benchmarks.oracle_throughput import Benchmark, records_for
from kjoin.conformance.catalogue import Case, case_id
from kjoin.conformance.catalogue.portable import case_json
from kjoin.oracle import behaviour_for, run

__all__ = ["OVERHEAD_TARGET", "ProcessCpu", "cache_bytecode", "kjoin_command", "measure_processes"]

OVERHEAD_TARGET = 1.0
"""``kjoin oracle --jsonl`` may spend at most this many times the oracle's own CPU on everything else."""


@dataclass(frozen=True, slots=True)
class ProcessCpu:
    """CPU seconds of one workload: the oracle in this process, and the two commands as whole processes."""

    oracle_s: float
    """The oracle's API timed in the benchmark's process (the figure used before ``oracle_cold_s``)."""
    oracle_cold_s: float
    """The oracle's own processing as the command does it: once, in a fresh process (``oracle_cold``)."""
    kjoin_oracle_s: float
    kjoin_kafka_s: float
    same_outputs: bool

    @property
    def overhead(self) -> float:
        """The command line's CPU beyond the oracle's own processing, in multiples of the latter."""
        cold = self.oracle_cold_s
        return (self.kjoin_oracle_s - cold) / cold if cold else float("inf")

    @property
    def kafka_ratio(self) -> float:
        """``kjoin kafka`` CPU over ``kjoin oracle --jsonl`` CPU."""
        return self.kjoin_kafka_s / self.kjoin_oracle_s if self.kjoin_oracle_s else float("inf")


def kjoin_command() -> list[str]:
    """``kjoin`` as the installed script beside this interpreter (``python -m kjoin.conformance`` if none)."""
    script = Path(sys.executable).parent / "kjoin"
    return [str(script)] if script.exists() else [sys.executable, "-m", "kjoin.conformance"]


def cache_bytecode(command: Sequence[str]) -> None:
    """Run ``command`` once on an empty input with bytecode writing allowed (module docstring)."""
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(list(command), input=b"", capture_output=True, check=False, env=environment)


def _children_cpu(command: Sequence[str], stdin: Path) -> tuple[float, bytes]:
    """CPU seconds of ``command`` and every process it waited for, and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with stdin.open("rb") as source:
        done = subprocess.run(list(command), stdin=source, capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, done.stdout


def measure_processes(
    benchmark: Benchmark, release: str, stores: str, records: int, keys: int, seed: int, repeat: int = 3
) -> ProcessCpu:
    """The CPU of one workload through the oracle (in this process) and ``kjoin oracle --jsonl``, the least
    of ``repeat`` runs each, and of ``kjoin kafka --version release`` (once); the driver of ``release`` must
    be built already."""
    generated = records_for(benchmark.spec.join, records, keys, seed)
    spec = replace(benchmark.spec, stores=stores)
    scenario = f"bench-{benchmark.name.replace(' ', '-')}"
    case = Case(
        case_id(scenario, spec.variant, release, False), scenario, release, False, spec, tuple(generated)
    )
    behaviour = behaviour_for(release)
    oracle_s = float("inf")
    for _ in range(max(1, repeat)):
        started = time.process_time()
        run(case.spec, case.records, behaviour)
        oracle_s = min(oracle_s, time.process_time() - started)
    with tempfile.TemporaryDirectory(prefix="kjoin-bench-") as folder:
        path = Path(folder) / "scenario.jsonl"
        path.write_text(json.dumps(case_json(case)) + "\n", encoding="utf-8")
        kjoin = kjoin_command()
        cache_bytecode([*kjoin, "oracle", "--jsonl"])
        cold_s = float("inf")
        runs = []
        for _ in range(max(1, repeat)):
            cold_s = min(cold_s, _oracle_cold(path))
            runs.append(_children_cpu([*kjoin, "oracle", "--jsonl"], path))
        oracle_cpu, oracle_out = min(runs, key=lambda measured: measured[0])
        kafka_cpu, kafka_out = _children_cpu([*kjoin, "kafka", "--version", release], path)
    same = json.loads(oracle_out).get("outputs") == json.loads(kafka_out).get("outputs")
    return ProcessCpu(oracle_s, cold_s, oracle_cpu, kafka_cpu, same)


def _oracle_cold(path: Path) -> float:
    """The CPU seconds of one ``run`` on the scenario of ``path`` in a fresh process (``oracle_cold``)."""
    command = [sys.executable, "-m", "benchmarks.oracle_cold", str(path)]
    done = subprocess.run(command, capture_output=True, check=False, cwd=Path(__file__).parent.parent)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    return float(done.stdout.split()[0])
