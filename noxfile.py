"""Developer sessions. ``nox`` runs ``lint``, ``typecheck`` and ``tests`` by default.

* ``tests``: the README's test command (the default tier: the project's own tests, Spark included, but not
  the system tests); ``system``: the system tests (a standalone cluster, a Kafka broker, step-by-step
  streaming, ``kjoin scale``; CI runs them after the README's command); ``fast``: the tier without Spark
  or Kafka (about a minute); ``heavy``: the heavy variants of a few tests (benchmark sizes, more seeds)
  that the other tiers run smaller; ``deep``: the property and differential tests under the deep profile;
* ``lint``: ``ruff check`` and ``ruff format --check``; ``typecheck``: mypy (strict) over the installed
  ``kjoin`` package;
* ``bench``, ``bench_harness``, ``bench_differential``: throughput benchmarks (arguments go to the script);
  ``bench_tests``: the default tier's wall time and CPU summed over its process tree;
  ``bench_kafka``: the oracle against Kafka Streams' TopologyTestDriver on the same workload;
* ``verify_kafka``: the oracle against real Kafka Streams for every line from 2.4 to the newest, written to
  docs/kafka-matrix.md;
* ``stateful``: the Structured Streaming candidate over the whole catalogue, then fuzzed.

Sessions run in the environment nox itself runs from (no new virtualenv per session: the dependencies
include PySpark, and a second copy would cost minutes and hundreds of megabytes). Run nox from the project's
venv (``.venv/bin/nox -s tests``); a session that finds the package missing installs it with
``pip install -e '.[dev]'`` from the package registry.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nox

nox.options.default_venv_backend = "none"
nox.options.sessions = ["lint", "typecheck", "tests"]

BIN = Path(sys.executable).parent
"""The scripts folder of the environment running nox (``pytest``, ``ruff``, ``kjoin`` live there)."""

ROOT = Path(__file__).resolve().parent
TEST_COMMAND = ("pytest", "tests", "-n", "2", "--dist", "loadgroup")
"""The README's test command (also what .ci/run runs): the default tier (tests/conftest.py)."""
PACKAGE_FOLDERS = ("oracle", "scenarios", "conformance", "reports")
"""The source folders that install as ``kjoin.<folder>`` (``kjoin/`` itself is the package's public face)."""

_NEEDED = ("kjoin.oracle", "kjoin.conformance.cli", "tabulate", "pytest", "xdist", "ruff", "mypy")


def _ensure_installed(session: nox.Session) -> None:
    """Install the project (with its dev extras) into this environment unless it is already there."""
    probe = f"import importlib.util as u; print(all(u.find_spec(m) for m in {_NEEDED!r}))"
    found = session.run(sys.executable, "-c", probe, silent=True, external=True)
    if not str(found).strip().endswith("True"):
        session.run(sys.executable, "-m", "pip", "install", "-e", ".[dev]", external=True)


@nox.session
def tests(session: nox.Session) -> None:
    """The test suite, exactly as the README runs it (extra arguments go to pytest)."""
    _ensure_installed(session)
    session.run(str(BIN / TEST_COMMAND[0]), *TEST_COMMAND[1:], *session.posargs, external=True)


@nox.session
def system(session: nox.Session) -> None:
    """The system tests the README's command leaves out (``--tier system``, tests/conftest.py): ``kjoin
    scale``/``replay`` locally and on a standalone cluster, runs through a real Kafka broker, the streaming
    adapter and spark-stateful fed step by step (extra arguments go to pytest)."""
    _ensure_installed(session)
    session.run(str(BIN / TEST_COMMAND[0]), *TEST_COMMAND[1:], "--tier", "system", *session.posargs,
                external=True)  # fmt: skip


@nox.session
def deep(session: nox.Session) -> None:
    """The oracle's property tests and spark-reference's differential test under the deep fuzzing profile
    (1,000 examples per property and era, 2,000 scenarios per join kind; ``--tier all``, since the default
    tier caps the properties' examples; extra arguments go to pytest, e.g. ``--kjoin-seed 7``)."""
    _ensure_installed(session)
    files = ("tests/test_oracle_properties.py", "tests/test_consistency_properties.py",
             "tests/test_differential_reference.py")  # fmt: skip
    session.run(str(BIN / "pytest"), *files, "-n", "2", "--dist", "loadgroup", "--tier", "all",
                "--kjoin-profile", "deep", *session.posargs, external=True)  # fmt: skip


@nox.session
def fast(session: nox.Session) -> None:
    """The tests that need neither Spark nor a Kafka build: the oracle, the catalogue, the checker, the
    properties, the command line and the report rendering."""
    _ensure_installed(session)
    session.run(
        str(BIN / "pytest"),
        "tests",
        "-n",
        "2",
        "-m",
        "not spark and not kafka",
        *session.posargs,
        external=True,
    )


@nox.session
def lint(session: nox.Session) -> None:
    """``ruff check`` and ``ruff format --check`` with the configuration in pyproject.toml."""
    _ensure_installed(session)
    session.run(str(BIN / "ruff"), "check", ".", *session.posargs, external=True)
    session.run(str(BIN / "ruff"), "format", "--check", ".", external=True)


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy (strict) over ``kjoin``: the source folders are linked under their installed names first."""
    _ensure_installed(session)
    typecheck_tree()
    session.run(
        str(BIN / "mypy"),
        "--config-file",
        str(ROOT / "pyproject.toml"),
        "-p",
        "kjoin",
        env={"MYPYPATH": str(ROOT / ".typecheck")},
        external=True,
    )


def typecheck_tree() -> Path:
    """``.typecheck/kjoin/<folder>`` -> ``<folder>`` and ``.typecheck/kjoin/<module>`` -> ``kjoin/<module>``
    (the public face): the package layout mypy needs to follow ``kjoin.*``."""
    tree = ROOT / ".typecheck" / "kjoin"
    tree.mkdir(parents=True, exist_ok=True)
    face = [path for path in sorted((ROOT / "kjoin").iterdir()) if path.name != "__pycache__"]
    for target in [*(ROOT / folder for folder in PACKAGE_FOLDERS), *face]:
        link = tree / target.name
        if not link.is_symlink():
            link.symlink_to(target, target_is_directory=target.is_dir())
    for link in tree.iterdir():
        if link.is_symlink() and not link.exists():
            link.unlink()  # a face module that was removed or renamed
    return tree.parent


@nox.session
def bench(session: nox.Session) -> None:
    """Oracle throughput per join kind (100k records, 1,000 keys, fixed seed; arguments go to the script)."""
    _ensure_installed(session)
    session.run(sys.executable, "-m", "benchmarks.oracle_throughput", *session.posargs, external=True)


@nox.session
def bench_harness(session: nox.Session) -> None:
    """The catalogue through a candidate (default spark-reference) batched per join kind vs one candidate call
    per scenario, on local Spark; prints the ratio (arguments go to the script, e.g. --per-scenario 0)."""
    _ensure_installed(session)
    session.run(sys.executable, "-m", "benchmarks.harness_batching", *session.posargs, external=True)


@nox.session
def bench_differential(session: nox.Session) -> None:
    """Generated scenarios checked per second: oracle alone and batched Spark (arguments go to the script)."""
    _ensure_installed(session)
    session.run(sys.executable, "-m", "benchmarks.differential_throughput", *session.posargs, external=True)


@nox.session
def bench_tests(session: nox.Session) -> None:
    """The README's test command (the default tier) with its wall time and its CPU summed over every process
    it started, against issue 24's 300 CPU-seconds (arguments replace ``tests -n 2 --dist loadgroup``, e.g.
    ``-- tests/test_cli.py``; benchmarks/tier_cpu.py says how the tree is summed)."""
    _ensure_installed(session)
    session.run(sys.executable, "-m", "benchmarks.tier_cpu", "--", *session.posargs, external=True)


@nox.session
def bench_kafka(session: nox.Session) -> None:
    """The oracle against Kafka Streams' TopologyTestDriver on the same workload, in one run; prints the
    ratio per join (needs Java and Maven; arguments go to the script, e.g. --kafka 3.9 --records 50000)."""
    _ensure_installed(session)
    session.run(sys.executable, "-m", "benchmarks.kafka_vs_oracle", *session.posargs, external=True)


@nox.session
def verify_kafka(session: nox.Session) -> None:
    """``kjoin verify`` for every Kafka Streams line from 2.4 to the newest (newest patch of each); writes the
    version x join kind table to docs/kafka-matrix.md; then every output the TOML scenarios state for a
    version is checked on that real release (needs Java and Maven; arguments go to the matrix script)."""
    _ensure_installed(session)
    args = session.posargs or ["--write", str(ROOT / "docs" / "kafka-matrix.md")]
    session.run(sys.executable, str(ROOT / "tools" / "verify_matrix.py"), *args, external=True)
    session.run(sys.executable, str(ROOT / "tools" / "check_stated_on_kafka.py"), external=True)


@nox.session
def bench_scale(session: nox.Session) -> None:
    """``kjoin scale`` at 1M to 10M records, 1,000 and 100,000 keys, 8 partitions (stream-stream left with
    grace, table-table outer): time per step, records per second, cost per record, peak memory; draws
    docs/images/scale.svg (arguments go to the script, e.g. --sizes 1000000 2000000)."""
    _ensure_installed(session)
    args = session.posargs or ["--chart", str(ROOT / "docs" / "images" / "scale.svg")]
    session.run(sys.executable, "-m", "benchmarks.scale", *args, external=True)


HEAVY_TESTS = ("tests/test_scale_cluster.py", "tests/test_scale.py", "tests/test_faults_run.py")
"""The test files with a heavy variant (``$KJOIN_HEAVY_TESTS=1``, tests/support/tiers.py)."""


@nox.session
def heavy(session: nox.Session) -> None:
    """The heavy variants of the tests the README's command runs smaller (docs/testing.md, "Test tiers"):
    ``kjoin scale``/``replay`` on the standalone cluster at 200,000 records (20,000 in the suite), the local
    scale tests at 20,000 (10,000), a third interruption moment of ``kjoin run`` (extra arguments go to
    pytest)."""
    _ensure_installed(session)
    session.run(
        str(BIN / "pytest"), *HEAVY_TESTS, "-n", "2", "--dist", "loadgroup", "--tier", "all",
        *session.posargs, env={"KJOIN_HEAVY_TESTS": "1"}, external=True,
    )  # fmt: skip


@nox.session
def mutation(session: nox.Session) -> None:
    """Mutation testing of spark-reference (tools/mutation.py; --candidate spark-stateful for spark-stateful):
    every mutant of the project's operators against the catalogue, survivors fuzzed; the score per module
    and every survivor (arguments go to the script, e.g. --modules stream_stream --sample 40)."""
    _ensure_installed(session)
    args = session.posargs or ["--fuzz", "--markdown", str(ROOT / "docs" / "mutation-report.md")]
    session.run(sys.executable, str(ROOT / "tools" / "mutation.py"), *args, external=True)


@nox.session
def mutation_oracle(session: nox.Session) -> None:
    """Mutation testing of the oracle (tools/mutation_oracle.py): every mutant of its join modules against
    the catalogue's stated outputs and real Kafka's golden traces (kjoin check, no Spark, minutes); the
    score per module and every survivor (arguments go to the script)."""
    _ensure_installed(session)
    args = session.posargs or ["--markdown", str(ROOT / "docs" / "mutation-report-oracle.md")]
    session.run(sys.executable, str(ROOT / "tools" / "mutation_oracle.py"), *args, external=True)


@nox.session
def reach(session: nox.Session) -> None:
    """What the catalogue and the generators reach (tools/reach.py): behaviour flags per claimed era, and
    the oracle's branch coverage; no Spark (arguments go to the script, e.g. --profile deep --seed 7)."""
    _ensure_installed(session)
    args = session.posargs or ["--markdown", str(ROOT / "docs" / "reach-report.md")]
    session.run(sys.executable, str(ROOT / "tools" / "reach.py"), *args, external=True)


@nox.session
def stateful(session: nox.Session) -> None:
    """The ``spark-stateful`` candidate (Structured Streaming, docs/stateful.md) over the whole catalogue,
    golden traces included, with its HTML report in ``stateful-report/``; then ``kjoin fuzz`` against the
    oracle as 3.9 and 4.3 (arguments go to ``kjoin run``)."""
    _ensure_installed(session)
    kjoin = str(BIN / "kjoin")
    args = session.posargs or ["--report", str(ROOT / "stateful-report")]
    session.run(kjoin, "run", "--candidate", "spark-stateful", *args, external=True)
    for version in ("3.9", "4.3"):
        session.run(kjoin, "fuzz", "--candidate", "spark-stateful", "--kafka", version, "--examples", "300",
                    external=True)  # fmt: skip
