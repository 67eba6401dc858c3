"""Shared fixtures and options of the project's own tests.

* ``spark``: one SparkSession (``local[2]``) for the whole test session; modules with their own ``spark``
  fixture keep it (``start_session`` reuses the active session anyway).
* ``--kjoin-profile ci|deep`` and ``--kjoin-seed S``: the fuzzing profile and seed of the differential tests
  and the oracle property tests (also ``$KJOIN_PROFILE``, ``$KJOIN_SEED``); both are printed in the report
  header, so any run can be repeated.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import hypothesis
import pytest

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


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kjoin-tests", "kjoin's own tests")
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
    profile, seed = config.getoption("kjoin_profile"), config.getoption("kjoin_seed")
    if profile is not None:
        os.environ[PROFILE_ENV] = profile
    if seed is not None:
        os.environ[SEED_ENV] = seed
    try:
        active_seed(active_profile())
    except ValueError as error:
        raise pytest.UsageError(f"--kjoin-profile/--kjoin-seed: {error}") from error


def pytest_report_header(config: pytest.Config) -> str:
    profile = active_profile()
    return (
        f"kjoin differential: profile {profile.name} ({profile.examples} scenarios per join kind), "
        f"seed {active_seed(profile)}, hypothesis {hypothesis.__version__}"
    )


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


@pytest.hookimpl(trylast=True)  # after pytest-xdist's own hook (see _restore_xdist_groups)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test that needs Spark (it uses the ``spark`` fixture or runs in a Spark group: any
    ``xdist_group`` whose name starts with ``spark``), so that ``-m "not spark"`` is the fast tier.

    The Spark groups (``--dist loadgroup`` runs each group whole on one worker, the biggest first, and
    every group on a worker shares that worker's SparkSession): ``spark`` (spark-reference: golden traces,
    the whole catalogue, generated scenarios), ``spark-fuzz`` (planted bugs), ``spark-faults`` (faulty
    candidates, ``kjoin run`` under faults), ``spark-harness`` (the harness, the plugin, reports),
    ``spark-scale`` (``kjoin scale``/``replay`` locally and on a standalone cluster), ``spark-streaming``
    (the streaming adapter), ``spark-stateful`` (the Structured Streaming candidate)."""
    for item in items:
        grouped = any(
            str(mark.args[0]).startswith("spark") for mark in item.iter_markers("xdist_group") if mark.args
        )
        if grouped or "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.spark)
    if getattr(config.option, "loadgroup", False):
        _restore_xdist_groups(items)


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
