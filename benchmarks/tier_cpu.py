"""Benchmark: wall time and CPU of the README's test command, CPU summed over the whole process tree.

    python -m benchmarks.tier_cpu [--target 300] [--per-file [--top N]] [-- PYTEST ARGUMENTS]

Runs ``pytest tests -n 2 --dist loadgroup`` (the default tier; arguments after ``--`` replace
``tests -n 2 --dist loadgroup``) as a child process from the project's root and prints its wall time and
its CPU seconds (user + system) summed over every process it started: the xdist workers, the JVMs of
Spark and of the Kafka drivers, the ``kjoin`` commands the tests run, and their children. The figure is
printed against the target of issue 24 (300 CPU-seconds for the default tier on the 2-core machine), with
how long after the command the tests were collected and the first result was shown (the plugin
``benchmarks.first_output``; issue 24 asks for the first output within 30 s).

How the sum is taken: ``resource.getrusage(RUSAGE_CHILDREN)`` after the child exits counts every
descendant that was waited for, each waited-for process carrying the CPU of the descendants it waited for.
A descendant whose parent exited without waiting for it is re-parented; this process makes itself the
"child subreaper" (Linux ``prctl(PR_SET_CHILD_SUBREAPER)``), so such orphans come here, and it waits for
them after pytest exits, which adds their CPU too. Descendants still running ``--linger`` seconds after
pytest exits are named, their CPU so far (``/proc/PID/stat``) is added and they are left alone.
Not counted: work done outside the process tree (a service the tests reach over the network, a process
started through a daemon such as Docker's). CPU seconds depend less on load than wall time, not at all
(caches, hyper-threads); numbers come from one run, never a timed assertion (docs/testing.md).
Bytecode: the run is measured as on a developer's machine, where Python caches the project's bytecode and
pytest its rewritten test modules after the first run (``pip install`` compiles the installed libraries
the same way): ``$PYTHONDONTWRITEBYTECODE`` is dropped for pytest, and one unmeasured ``pytest
--collect-only`` first writes the caches. In a sandbox that sets it, every process would otherwise compile
every module from source on every run (``benchmarks/process_cpu.py`` does the same). ``--cold`` measures
with the environment as it is and nothing warmed up.
Exit status: pytest's when it fails, else 0 within the target and 1 over it.

``--per-file`` loads the plugin ``benchmarks.cpu_per_test`` into pytest and its workers and prints where the
CPU went: a table of the test files, each with its tests' CPU summed over the worker's process tree (its
SparkSession's and Kafka drivers' JVMs included), then the ``--top`` most expensive tests, then what the
workers spent outside any test (start-up, collection) and what no worker accounts for (pytest's controller,
orphans). ``--per-file-json FILE`` also writes every test's figures.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.first_output import FILE_ENV as FIRST_OUTPUT_ENV

__all__ = [
    "DEFAULT_TIER",
    "FIRST_OUTPUT_S",
    "TARGET_CPU_S",
    "Attribution",
    "TreeUsage",
    "cpu_so_far",
    "main",
    "measure",
]

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TIER = ("tests", "-n", "2", "--dist", "loadgroup")
"""The README's test command's arguments: the default tier."""
TARGET_CPU_S = 300.0
"""Issue 24: the default tier's CPU, summed over every process, on the 2-core machine."""
FIRST_OUTPUT_S = 30.0
"""Issue 24: the first test output within 30 s of the command."""
BYTECODE_ENV = "PYTHONDONTWRITEBYTECODE"
"""Set in some sandboxes: then every process compiles every project module from source, on every run."""
PR_SET_CHILD_SUBREAPER = 36
"""``prctl`` option (linux/prctl.h): orphaned descendants are re-parented to this process."""


@dataclass(frozen=True, slots=True)
class TreeUsage:
    """What one command cost: wall seconds, CPU seconds of its process tree, its exit status."""

    wall_s: float
    user_s: float
    system_s: float
    max_rss_mb: float
    returncode: int
    lingering: tuple[str, ...] = ()
    lingering_cpu_s: float = 0.0
    subreaper: bool = True
    started_at: float = 0.0
    """``time.time()`` when the command was started."""

    @property
    def cpu_s(self) -> float:
        """User plus system CPU seconds over the whole tree (descendants still running: their CPU so far)."""
        return self.user_s + self.system_s + self.lingering_cpu_s


def _become_subreaper() -> bool:
    """Make orphaned descendants come to this process (Linux only); whether it worked."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _own_children() -> list[int]:
    """The processes whose parent is this one (orphans re-parented here included)."""
    mine, found = os.getpid(), []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _stat_fields(int(entry.name))
            if stat is not None and int(stat[1]) == mine:
                found.append(int(entry.name))
    return found


def _stat_fields(pid: int) -> list[str] | None:
    """``/proc/PID/stat`` from the state on (state, ppid, ...), or ``None`` if the process is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


def _describe(pid: int) -> str:
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        command = "?"
    return f"{pid} {command[:100]}"


def cpu_so_far(pid: int) -> float:
    """CPU seconds of a running process and of the children it waited for (``/proc/PID/stat``); 0 once it
    is gone."""
    stat = _stat_fields(pid)
    if stat is None:
        return 0.0
    utime, stime, cutime, cstime = (int(stat[i]) for i in (11, 12, 13, 14))
    return (utime + stime + cutime + cstime) / os.sysconf("SC_CLK_TCK")


def _reap_orphans(linger: float) -> tuple[tuple[str, ...], float]:
    """Wait up to ``linger`` seconds for orphans re-parented here; those still running, their CPU so far."""
    deadline = time.monotonic() + linger
    while True:
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            return (), 0.0
        if time.monotonic() >= deadline:
            left = _own_children()
            return tuple(_describe(pid) for pid in left), sum(cpu_so_far(pid) for pid in left)
        time.sleep(0.2)


def measure(
    command: Sequence[str], *, linger: float = 30.0, env: Mapping[str, str] | None = None
) -> TreeUsage:
    """Run ``command`` from the project's root and measure it with every process it started."""
    subreaper = _become_subreaper()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started_at, started = time.time(), time.perf_counter()
    returncode = subprocess.run(list(command), cwd=ROOT, check=False, env=env).returncode
    wall = time.perf_counter() - started
    lingering, lingering_cpu = _reap_orphans(linger) if subreaper else ((), 0.0)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return TreeUsage(
        wall_s=wall,
        user_s=after.ru_utime - before.ru_utime,
        system_s=after.ru_stime - before.ru_stime,
        max_rss_mb=after.ru_maxrss / 1024,
        returncode=returncode,
        lingering=lingering,
        lingering_cpu_s=lingering_cpu,
        subreaper=subreaper,
        started_at=started_at,
    )


@dataclass(frozen=True, slots=True)
class Attribution:
    """The per-test figures of ``benchmarks.cpu_per_test``, read back from its folder."""

    tests: tuple[tuple[str, str, float, float], ...]
    """(file, node id, CPU seconds of the tree, wall seconds) per test."""
    outside_tests_s: float
    """CPU the recording processes' trees spent outside any test (start-up, collection, plugin teardown)."""
    sampling_s: float
    """CPU the plugin spent reading ``/proc`` (part of the figures above)."""

    @classmethod
    def read(cls, folder: Path) -> Attribution:
        tests: list[tuple[str, str, float, float]] = []
        outside = sampling = 0.0
        for path in sorted(folder.glob("*.jsonl")):
            mine = 0.0
            for line in path.read_text(encoding="utf-8").splitlines():
                record = json.loads(line)
                if "nodeid" in record:
                    tests.append((record["file"], record["nodeid"], record["cpu_s"], record["wall_s"]))
                    mine += record["cpu_s"]
                else:
                    outside += record["session_end_cpu_s"] - mine
                    sampling += record["sampling_s"]
        return cls(tuple(tests), outside, sampling)

    def table(self, total_cpu_s: float, top: int) -> list[str]:
        """The files by CPU, the ``top`` tests by CPU, and what lies outside the tests."""
        files: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
        for file, _, cpu, wall in self.tests:
            entry = files[file]
            entry[0] += 1
            entry[1] += cpu
            entry[2] += wall
        attributed = sum(cpu for _, _, cpu, _ in self.tests)
        lines = ["", f"{'CPU-s':>8} {'share':>6} {'tests':>6} {'wall-s':>8}  file (process tree per test)"]
        for file, (count, cpu, wall) in sorted(files.items(), key=lambda kv: -kv[1][1]):
            lines.append(f"{cpu:8.1f} {cpu / total_cpu_s:6.1%} {count:6d} {wall:8.1f}  {file}")
        lines.append(
            f"{attributed:8.1f} {attributed / total_cpu_s:6.1%} {len(self.tests):6d} {'':8}  all tests"
        )
        lines += ["", f"{'CPU-s':>8} {'wall-s':>8}  the {top} most expensive tests"]
        for _, nodeid, cpu, wall in sorted(self.tests, key=lambda t: -t[2])[:top]:
            lines.append(f"{cpu:8.1f} {wall:8.1f}  {nodeid}")
        rest = total_cpu_s - attributed - self.outside_tests_s
        lines += [
            "",
            f"outside the tests, in the workers' trees (start-up, collection): "
            f"{self.outside_tests_s:.1f} CPU-s",
            f"not in any worker's tree (pytest's controller, orphans): {rest:.1f} CPU-s",
            f"the plugin's own sampling of /proc (included above): {self.sampling_s:.1f} CPU-s",
        ]
        return lines


def _cache_bytecode(pytest_args: Sequence[str], env: Mapping[str, str]) -> None:
    """Collect the tests once, unmeasured, with bytecode writing allowed: the project's modules and the
    test modules (rewritten by pytest) are cached as on a developer's machine after a first run."""
    arguments, skip = [], False
    for argument in pytest_args:  # xdist's options dropped: one process collects
        if skip or argument in ("-n", "--numprocesses", "--dist"):
            skip = not skip
            continue
        if not argument.startswith(("-n", "--numprocesses=", "--dist=")):
            arguments.append(argument)
    subprocess.run(
        [*_pytest(), "--collect-only", "-q", *arguments], cwd=ROOT, env=env, capture_output=True, check=False
    )


def _first_output_line(times: Mapping[str, float], started_at: float) -> str:
    """When the tests were collected and the first result shown, in seconds after the command started."""
    parts = [
        f"{label} {times[key] - started_at:.1f} s"
        for key, label in (("collected", "tests collected after"), ("first_result", "first result after"))
        if key in times
    ]
    return f"first output: {', '.join(parts) or 'none recorded'} (issue 24: within {FIRST_OUTPUT_S:.0f} s)"


def _pytest() -> list[str]:
    """``pytest`` as the installed script beside this interpreter (``python -m pytest`` if none)."""
    script = Path(sys.executable).parent / "pytest"
    return [str(script)] if script.exists() else [sys.executable, "-m", "pytest"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.tier_cpu",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--target", type=float, default=TARGET_CPU_S, metavar="CPU_S")
    parser.add_argument("--linger", type=float, default=30.0, metavar="S", help="wait for orphans (30)")
    parser.add_argument(
        "--cold",
        action="store_true",
        help=f"keep ${BYTECODE_ENV} if set and warm nothing up (every process compiles from source)",
    )
    parser.add_argument(
        "--per-file", action="store_true", help="print the CPU of each test file and of the costliest tests"
    )
    parser.add_argument("--top", type=int, default=40, metavar="N", help="tests listed by --per-file (40)")
    parser.add_argument("--per-file-json", type=Path, metavar="FILE", help="write every test's figures")
    parser.add_argument("pytest_args", nargs="*", metavar="PYTEST_ARGUMENTS", help="after --")
    args = parser.parse_args(argv)
    command = [*_pytest(), *(args.pytest_args or DEFAULT_TIER)]
    with tempfile.TemporaryDirectory(prefix="kjoin-test-cpu-") as folder:
        env = dict(os.environ)
        if not args.cold:
            env.pop(BYTECODE_ENV, None)
            _cache_bytecode(args.pytest_args or DEFAULT_TIER, env)
        per_test = bool(args.per_file or args.per_file_json)
        plugins = ["-p", "benchmarks.first_output"]
        times = Path(folder) / "first-output.json"
        env.update(
            {
                FIRST_OUTPUT_ENV: str(times),
                "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
            }
        )
        if per_test:
            from benchmarks.cpu_per_test import DIR_ENV

            plugins += ["-p", "benchmarks.cpu_per_test"]
            env[DIR_ENV] = folder
        command[len(_pytest()) : len(_pytest())] = plugins
        usage = measure(command, linger=args.linger, env=env)
        attribution = Attribution.read(Path(folder)) if per_test else None
        first = json.loads(times.read_text(encoding="utf-8")) if times.exists() else {}
    load = os.getloadavg()[0]
    shown = " ".join(("pytest", *(args.pytest_args or DEFAULT_TIER)))
    verdict = "within" if usage.cpu_s <= args.target else "OVER"
    parts = f"{usage.user_s:.1f} user, {usage.system_s:.1f} system"
    if usage.lingering:
        parts += f", {usage.lingering_cpu_s:.1f} still running"
    lines = [
        f"command: {shown} (exit {usage.returncode})",
        f"wall: {usage.wall_s:.1f} s, load average at the end {load:.1f} on {os.cpu_count()} CPUs",
        f"CPU, process tree: {usage.cpu_s:.1f} s ({parts}); biggest process {usage.max_rss_mb:.0f} MB",
        f"target: {args.target:.0f} CPU-s ({verdict}: {usage.cpu_s / args.target:.0%} of it)",
        _first_output_line(first, usage.started_at),
    ]
    if not usage.subreaper:
        lines.append("caveat: not a child subreaper here, so orphaned descendants' CPU is not counted")
    for process in usage.lingering:
        lines.append(f"still running {args.linger:.0f} s after pytest (CPU so far added): {process}")
    if attribution is not None:
        if args.per_file:
            lines += attribution.table(usage.cpu_s, args.top)
        if args.per_file_json:
            rows = [
                dict(zip(("file", "nodeid", "cpu_s", "wall_s"), t, strict=True)) for t in attribution.tests
            ]
            args.per_file_json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    sys.stdout.write("\n".join(lines) + "\n")
    if usage.returncode != 0:
        return usage.returncode
    return 0 if usage.cpu_s <= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
