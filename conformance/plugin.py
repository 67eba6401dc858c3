"""The kjoin pytest plugin (``pytest11`` entry point): check a candidate against Kafka Streams' semantics.

``pytest conformance --candidate NAME`` (or ``KJOIN_CANDIDATE=NAME``) adds one item per scenario x variant x
era of the catalogue, ids ``<scenario-id>[<variant>-<kafka>]``. Without a candidate the plugin adds nothing
and never starts Spark. Hooks only; the work is in ``conformance.harness.pytest_run``. ``--kjoin-report DIR``
writes the run's HTML report (``kjoin.reports.write_report``) from the results document.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from kjoin.conformance.harness.pytest_run import PytestRun

_RUN: pytest.StashKey[PytestRun | None] = pytest.StashKey()


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    import kjoin.conformance.hooks as hooks

    pluginmanager.add_hookspecs(hooks)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kjoin", "Kafka Streams join conformance")
    group.addoption(
        "--candidate",
        dest="kjoin_candidate",
        metavar="NAME",
        default=None,
        help="check this candidate: module:attr or a kjoin.candidates name (env KJOIN_CANDIDATE)",
    )
    group.addoption(
        "--spark-master",
        dest="kjoin_spark_master",
        metavar="URL",
        default=None,
        help="Spark master for the candidate (default: env KJOIN_SPARK_MASTER, else local[*])",
    )
    group.addoption(
        "--kafka",
        dest="kjoin_kafka",
        metavar="VERSION",
        default=None,
        help="check every scenario as this Kafka version (default: each scenario's own versions)",
    )
    group.addoption(
        "--kjoin-equivalence",
        dest="kjoin_equivalence",
        default="auto",
        help="auto (exact if the candidate reports idx, else multiset), exact, key-order, multiset or table",
    )
    group.addoption(
        "--kjoin-results",
        dest="kjoin_results",
        metavar="FILE",
        default=None,
        help="write the run's results as JSON (schema kjoin-results)",
    )
    group.addoption(
        "--kjoin-scenarios",
        dest="kjoin_scenarios",
        metavar="PATH",
        action="append",
        default=None,
        help="scenario files or folders to use instead of the bundled catalogue",
    )
    group.addoption(
        "--kjoin-report",
        dest="kjoin_report",
        metavar="DIR",
        default=None,
        help="write the run's HTML report into DIR (results in DIR/results.json unless --kjoin-results)",
    )


def pytest_configure(config: pytest.Config) -> None:
    name = config.getoption("kjoin_candidate") or os.environ.get("KJOIN_CANDIDATE", "").strip()
    run = None
    if config.getoption("kjoin_report") and not config.getoption("kjoin_results"):
        config.option.kjoin_results = os.path.join(config.getoption("kjoin_report"), "results.json")
    if name:
        from kjoin.conformance.harness.pytest_run import configure

        run = configure(config, name)
        config.pluginmanager.register(run, "kjoin-run")  # receives the reports (pytest_runtest_logreport)
    config.stash[_RUN] = run


@pytest.hookimpl(tryfirst=True)  # before -k/-m deselection, so they apply to the candidate's items too
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    run = config.stash.get(_RUN, None)
    if run is not None:
        run.collect(session, items)


def pytest_collection_finish(session: pytest.Session) -> None:
    run = session.config.stash.get(_RUN, None)
    if run is not None:
        run.register_selected(session.items)


def pytest_sessionfinish(session: pytest.Session) -> None:
    run = session.config.stash.get(_RUN, None)
    if run is not None:
        run.finish()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    run = config.stash.get(_RUN, None)
    if run is not None:
        terminalreporter.write_sep("-", "kjoin")
        for line in run.summary_lines():
            terminalreporter.write_line(line)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """``--kjoin-report DIR``: render the results file the session wrote (controller only)."""
    run = config.stash.get(_RUN, None)
    report = config.getoption("kjoin_report", None)
    if run is None or not report or run.is_worker:
        return
    if run.document is not None:
        from pathlib import Path

        from kjoin.reports import write_report

        write_report(run.document, Path(report))
