"""Mutation testing of the oracle: is every one-line mistake in its join modules caught?

    python tools/mutation_oracle.py [--modules stream_stream ...] [--sample N] [--seed S]
                                    [--only MODULE:LINE[:CHANGE] ...] [--list] [--markdown FILE]

The same mutation operators as ``tools/mutation.py`` (comparison, arithmetic, off-by-one, min/max,
sides, ...) plus Python's own logic (``and``/``or`` exchanged, a ``not`` dropped), applied to the oracle's
modules one mutant at a time. Each mutant is checked with ``kjoin check`` over the whole catalogue: the
outputs stated in the scenario files (every seed table, edge case and Kafka test, checked on real Kafka) and
the golden traces captured from real Kafka Streams 0.10.1 to 4.4. Pure Python, no Spark: a few seconds per
mutant. A mutant is *killed* when a stated output differs, the check errors or it runs past the timeout.
A survivor then meets the oracle's own unit tests (``UNIT_TESTS``: refusals, errors, fast paths, the task
model; seconds), which can see what no valid scenario shows.

Each mutant runs in its own process, with ``kjoin.oracle`` loaded from a temporary copy of ``oracle/`` that
carries the mutation (the rest of kjoin unchanged). Survivors listed under ``[[oracle_equivalent]]`` in
``tools/mutation-equivalents.toml`` (module, line, change, reason) count as equivalent.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mutation import Mutation, Result, equivalents, mutations, render, selected

ROOT = Path(__file__).resolve().parents[1]
ORACLE = ROOT / "oracle"
MODULES = (
    "engine",
    "foreign_key",
    "outer_store",
    "stream_stream",
    "stream_table",
    "table_table",
    "versioned",
    "window_store",
)
"""The oracle's join modules (records, behaviour flags and errors are data, not join logic)."""
TIMEOUT_S = 300.0
UNIT_TESTS = (
    "tests/test_stream_stream.py",
    "tests/test_table_joins.py",
    "tests/test_foreign_key.py",
    "tests/test_oracle_fast_paths.py",
    "tests/test_oracle_tasks.py",
)
"""The oracle's unit tests a survivor of the catalogue check meets (no Spark, about 6 s)."""

_LOADER = """\
import importlib.util, os, sys
import kjoin
folder = os.environ["KJOIN_ORACLE_MUTANT"]
spec = importlib.util.spec_from_file_location(
    "kjoin.oracle", folder + "/__init__.py", submodule_search_locations=[folder]
)
module = importlib.util.module_from_spec(spec)
sys.modules["kjoin.oracle"] = module
kjoin.oracle = module
spec.loader.exec_module(module)
"""
"""Imported first (``kjoin_oracle_mutant``), it loads ``kjoin.oracle`` from ``$KJOIN_ORACLE_MUTANT``."""
_CHECK = "import sys, kjoin_oracle_mutant\nfrom kjoin.conformance.cli import main\nsys.exit(main(['check']))"


def write_mutant(folder: Path, mutation: Mutation) -> Path:
    """A copy of ``oracle/`` with ``mutation`` applied."""
    target = folder / "oracle"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(ORACLE, target, ignore=shutil.ignore_patterns("__pycache__"))
    path = target / f"{mutation.module}.py"
    source = path.read_text(encoding="utf-8")
    mutated = source[: mutation.start] + mutation.replacement + source[mutation.end :]
    path.write_text(mutated, encoding="utf-8")
    return target


def _run(folder: Path, command: list[str]) -> subprocess.CompletedProcess[str] | None:
    """``command`` with ``kjoin.oracle`` from ``folder`` (None: it ran past the timeout)."""
    loader = folder.parent / "kjoin_oracle_mutant.py"
    if not loader.exists():
        loader.write_text(_LOADER, encoding="utf-8")
    environment = dict(os.environ, KJOIN_ORACLE_MUTANT=str(folder))
    environment["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(loader.parent), os.environ.get("PYTHONPATH")])
    )
    try:
        return subprocess.run(
            command, capture_output=True, text=True, timeout=TIMEOUT_S, check=False, env=environment, cwd=ROOT
        )
    except subprocess.TimeoutExpired:
        return None


def check(folder: Path) -> tuple[str | None, str]:
    """(how the mutant was killed or None, detail) for the oracle copy in ``folder``: ``kjoin check`` of the
    catalogue, then the oracle's unit tests."""
    done = _run(folder, [sys.executable, "-c", _CHECK])
    if done is None:
        return "timeout", f"kjoin check ran past {TIMEOUT_S:.0f} s"
    if done.returncode != 0:
        differing = [line for line in done.stdout.splitlines() if line.rstrip().endswith("FAIL")]
        if done.returncode == 1 and differing:
            return "catalogue", differing[0].split()[0]
        tail = (done.stderr.strip().splitlines() or done.stdout.strip().splitlines() or ["?"])[-1]
        return "crash", f"exit {done.returncode}: {tail[:160]}"
    pytest = [sys.executable, "-m", "pytest", *UNIT_TESTS, "-x", "-q", "-n", "0", "-p", "no:cacheprovider"]
    tested = _run(folder, [*pytest, "-p", "kjoin_oracle_mutant"])
    if tested is None:
        return "timeout", f"the unit tests ran past {TIMEOUT_S:.0f} s"
    if tested.returncode != 0:
        failed = [line for line in tested.stdout.splitlines() if line.startswith("FAILED")]
        return "unit-test", (failed or ["exit " + str(tested.returncode)])[0][:160]
    return None, ""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modules", nargs="+", choices=MODULES, default=list(MODULES))
    parser.add_argument("--sample", type=int, help="check a random sample of this many mutants")
    parser.add_argument("--seed", type=int, default=20261126)
    parser.add_argument("--only", action="append", metavar="MODULE:LINE[:CHANGE]")
    parser.add_argument("--list", action="store_true", help="list the mutation points and stop")
    parser.add_argument("--markdown", type=Path, help="also write the report here")
    args = parser.parse_args(argv)
    points = list(enumerate(mutations(args.modules, ORACLE, python_logic=True), start=1))
    chosen = selected(parser, args, points)
    if chosen is None:
        return 0
    recorded = equivalents("oracle_equivalent")
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="kjoin-oracle-mutants-") as scratch:
        baseline = Path(scratch) / "unmutated"
        shutil.copytree(ORACLE, baseline / "oracle", ignore=shutil.ignore_patterns("__pycache__"))
        killed, detail = check(baseline / "oracle")
        if killed is not None:
            print(f"the unmutated oracle does not pass: {killed} {detail}", file=sys.stderr)
            return 1
        for number, mutation in chosen:
            started = time.perf_counter()
            result = Result(mutation, number)
            result.killed_by, result.detail = check(write_mutant(Path(scratch), mutation))
            if result.killed_by is None:
                result.equivalent = recorded.get((mutation.module, mutation.change, mutation.line))
            result.seconds = time.perf_counter() - started
            results.append(result)
            verdict = f"killed by {result.killed_by}" if result.killed_by else "SURVIVED"
            print(f"[{len(results)}/{len(chosen)}] oracle-mutant-{number:04d} {mutation.module}.py:"
                  f"{mutation.line} {mutation.change}: {verdict} {result.detail} ({result.seconds:.0f} s)",
                  file=sys.stderr, flush=True)  # fmt: skip
    report = render(results, len(points), second="unit-test").replace("mutant-", "oracle-mutant-")
    print(report)
    if args.markdown is not None:
        args.markdown.write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
