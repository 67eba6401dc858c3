"""Shared fixtures and options of the project's own tests.

* ``spark``: one SparkSession (``local[2]``) for the whole test session; modules with their own ``spark``
  fixture keep it (``start_session`` reuses the active session anyway).
* ``--tier default|system|all``: which tests run (``support.tiers``). The README's command runs the default
  tier, a smoke tier: a small, fast, representative set per area, every test without the ``system`` mark;
  ``--tier system`` runs the system tests (the rest of each area at full size: the whole catalogue, every
  release, whole runs on a standalone Spark cluster or through a Kafka broker, ...; ``nox -s system``),
  ``all`` both. Tests marked ``scaled`` (the oracle's property tests) run in both tiers, smaller in the
  default tier. CI runs both tiers. A system test file named on the command line runs in the default tier
  too.
* ``--kjoin-profile ci|deep`` and ``--kjoin-seed S``: the fuzzing profile and seed of the differential tests
  and the oracle property tests (also ``$KJOIN_PROFILE``, ``$KJOIN_SEED``); both are printed in the report
  header, so any run can be repeated.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import hypothesis
import pytest

if importlib.util.find_spec("kjoin.errors") is None:  # an editable install made before kjoin/ existed
    raise ImportError(
        "the installed kjoin predates the kjoin/ package (pyproject.toml lists it now): reinstall it with "
        "`.venv/bin/python -m pip install --no-deps -e .`"
    )

from kjoin.conformance.differential.profiles import (
    PROFILE_ENV,
    PROFILES,
    SEED_ENV,
    FuzzProfile,
    active_profile,
    active_seed,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_TESTS = str(Path(__file__).resolve().parent)
# The test candidates (``support.fixture_candidates:...``) are loaded by name, also in Spark's Python workers
# and in nested pytest runs: both inherit this environment.
if _TESTS not in os.environ.get("PYTHONPATH", "").split(os.pathsep):
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (_TESTS, os.environ.get("PYTHONPATH")) if p)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

from support import tiers  # noqa: E402 (found through the path set just above)

TIERS = tiers.TIERS


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kjoin-tests", "kjoin's own tests")
    group.addoption(
        "--tier",
        dest="kjoin_tier",
        default=None,
        choices=TIERS,
        help="default: the smoke tier, every test but the system tests, property tests with fewer examples "
        "(the README's command); system: the system tests (the whole catalogue, every release, a standalone "
        "cluster, a Kafka broker, step-by-step streaming, kjoin scale) and the property tests at full size; "
        "all: both, at full size",
    )
    group.addoption(
        "--kjoin-profile",
        dest="kjoin_profile",
        default=None,
        metavar="NAME",
        help=f"fuzzing profile of the differential and property tests: {', '.join(PROFILES)} "
        f"(default: ${PROFILE_ENV}, else ci)",
    )
    group.addoption(
        "--kjoin-seed",
        dest="kjoin_seed",
        default=None,
        metavar="S",
        help=f"seed of the differential and property tests (default: ${SEED_ENV}, else the "
        "profile's fixed seed)",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Pass the options on through the environment (read when test modules are imported, also on xdist
    workers) and reject bad values before anything runs."""
    tiers.configure(config.getoption("kjoin_tier"))
    if not tiers.full_size():
        _smoke_jvm_options()
    profile, seed = config.getoption("kjoin_profile"), config.getoption("kjoin_seed")
    if profile is not None:
        os.environ[PROFILE_ENV] = profile
    if seed is not None:
        os.environ[SEED_ENV] = seed
    try:
        active_seed(active_profile())
    except ValueError as error:
        raise pytest.UsageError(f"--kjoin-profile/--kjoin-seed: {error}") from error
    if config.getoption("dist", None) == "loadgroup":
        config.option.loadscopereorder = False  # the workers order the work (_quick_first)


SMOKE_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
"""JVM options of the default tier's SparkSession (through ``$SPARK_SUBMIT_OPTS``, which Spark's launcher
adds to the driver JVM): its jobs are tiny and the JVM lives minutes, so the client compiler alone and the
serial collector spend far less CPU than the server compiler's threads and G1 (spark-stateful's check with
the session's start: 54 CPU-s, 31 with these). The system tier keeps the JVM's defaults (runs at size)."""


def _smoke_jvm_options() -> None:
    current = os.environ.get("SPARK_SUBMIT_OPTS", "")
    if SMOKE_JVM_OPTIONS not in current:
        os.environ["SPARK_SUBMIT_OPTS"] = f"{current} {SMOKE_JVM_OPTIONS}".strip()


def pytest_report_header(config: pytest.Config) -> list[str]:
    profile = active_profile()
    tier = config.getoption("kjoin_tier") or "default"
    about = {
        "default": "the smoke tier; the system tests are left to --tier system (nox -s system), except in "
        "files named here",
        "system": "the system tests, and the property tests at full size",
        "all": "every test, at full size",
    }[tier]
    return [
        f"kjoin differential: profile {profile.name} ({profile.examples} scenarios per join kind, "
        f"{tiers.property_examples(profile)} examples per property), seed {active_seed(profile)}, "
        f"hypothesis {hypothesis.__version__}",
        f"kjoin tier: {tier} ({about})",
    ]


@pytest.fixture(scope="session")
def fuzz_profile() -> FuzzProfile:
    """The active fuzzing profile."""
    return active_profile()


@pytest.fixture(scope="session")
def fuzz_seed(fuzz_profile: FuzzProfile) -> int:
    """The active seed."""
    return active_seed(fuzz_profile)


@pytest.fixture(scope="module")
def spark() -> SparkSession:
    """The worker's SparkSession, looked up per module: a fault test whose candidate stops Spark leaves the
    next module a live session (started again), not the stopped one."""
    from kjoin.conformance.harness.spark_session import start_session

    return start_session("local[2]")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """A test file whose module mark is ``system`` is not collected at all where the run leaves its tests
    out (the default tier): neither imported (pandas, the broker's helpers) nor its items built to be
    deselected, so that the default tier reports its first result sooner (issue 24). A file named on the
    command line is collected (and its tests deselected as the tier says)."""
    if (
        collection_path.suffix == ".py"
        and collection_path.name.startswith("test_")
        and not tiers.runs_in(config, collection_path, system=True)
        and not tiers.named(config, collection_path)
        and tiers.system_module(collection_path)
    ):
        return True
    return None


def pytest_itemcollected(item: pytest.Item) -> None:
    """Mark every test that needs Spark (it uses the ``spark`` fixture or runs in a Spark group: any
    ``xdist_group`` whose name starts with ``spark``), so that ``-m "not spark"`` is the fast tier; marked
    as each test is collected, before pytest's own ``-m`` selection looks.

    The Spark groups (``--dist loadgroup`` runs each group whole on one worker, the biggest first, and
    every group on a worker shares that worker's SparkSession): ``spark`` (spark-reference: golden traces,
    the whole catalogue, generated scenarios), ``spark-fuzz`` (planted bugs), ``spark-faults`` (faulty
    candidates, ``kjoin run`` under faults), ``spark-harness`` (the harness, the plugin, reports),
    ``spark-scale`` (``kjoin scale``/``replay`` locally and on a standalone cluster), ``spark-streaming``
    (the streaming adapter), ``spark-stateful`` (the Structured Streaming candidate)."""
    grouped = any(
        str(mark.args[0]).startswith("spark") for mark in item.iter_markers("xdist_group") if mark.args
    )
    if grouped or "spark" in getattr(item, "fixturenames", ()):
        item.add_marker(pytest.mark.spark)


@pytest.hookimpl(trylast=True)  # after pytest-xdist's own hook (see _restore_xdist_groups)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the tests of the tier (``_select_tier``) and their xdist groups."""
    _select_tier(config, items)
    if getattr(config.option, "loadgroup", False):
        _restore_xdist_groups(items)
        _quick_first(items)


QUICK_FIRST = 8
"""Tests without Spark, Kafka or a group that ``--dist loadgroup`` hands out before the groups."""


def _quick_first(items: list[pytest.Item]) -> None:
    """Order the work of ``--dist loadgroup`` (xdist schedules in collection order, its own reordering by
    group size being turned off in ``pytest_configure``): a few quick tests first, so that each worker
    reports a result as soon as it has collected (the groups start a SparkSession or a Kafka driver and
    their first test takes minutes on a loaded machine: issue 24 saw the first result after 15 minutes);
    then the groups, the most tests first (xdist's own order), each whole on one worker; then the other
    tests, in collection order, to whichever worker is free."""
    groups: dict[str, list[pytest.Item]] = {}
    singles: list[pytest.Item] = []
    for item in items:
        names = [str(mark.args[0]) for mark in item.iter_markers("xdist_group") if mark.args]
        if names:
            groups.setdefault("_".join(sorted(set(names))), []).append(item)
        else:
            singles.append(item)
    quick = [
        item
        for item in singles
        if item.get_closest_marker("spark") is None and item.get_closest_marker("kafka") is None
    ][:QUICK_FIRST]
    chosen = set(map(id, quick))
    ordered = sorted(groups.values(), key=len, reverse=True)
    items[:] = [
        *quick,
        *(item for group in ordered for item in group),
        *(item for item in singles if id(item) not in chosen),
    ]


def _select_tier(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the tests of ``--tier`` (``support.tiers.runs_in``); without the option, a system test still
    runs when its file was named on the command line (``pytest tests/test_scale.py`` runs it: asking for
    the file is asking for it)."""
    keep, drop = [], []
    for item in items:
        system = item.get_closest_marker("system") is not None
        scaled = item.get_closest_marker("scaled") is not None
        (keep if tiers.runs_in(config, item.path, system=system, scaled=scaled) else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """Say so when system tests were left out, so that a green run is not read as the whole suite."""
    folders = any(Path(arg.split("::", 1)[0]).is_dir() for arg in config.args)
    if folders and config.getoption("kjoin_tier") in (None, "default") and not config.getoption("markexpr"):
        terminalreporter.write_line(
            "kjoin: this was the default tier; the system tests (a standalone cluster, a Kafka broker, "
            "step-by-step streaming, kjoin scale) run with --tier system (nox -s system); CI runs both"
        )


def _restore_xdist_groups(items: list[pytest.Item]) -> None:
    """Make ``--dist loadgroup`` group again under pytest 9.2: pytest-xdist (3.8) names an item's group by
    setting ``item._nodeid`` to ``<nodeid>@<group>``, but pytest 9.2 reads the node id from ``item._id``,
    so the suffix was lost and every test was scheduled alone (a group's tests ran on both workers, each
    building the group's module fixtures). Where xdist's suffix did not take, set it here the same way."""
    try:
        from _pytest.nodeid import coerce_node_id
    except ImportError:  # an older pytest, whose node id xdist sets itself
        return
    for item in items:
        names = sorted(
            {str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
             for mark in item.iter_markers("xdist_group")}
        )  # fmt: skip
        if names and "@" not in item.nodeid:
            item._id = coerce_node_id(f"{item.nodeid}@{'_'.join(names)}")
