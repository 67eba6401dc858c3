"""The kjoin pytest plugin (``pytest11`` entry point): check a candidate against Kafka Streams' semantics.

``pytest --candidate NAME`` (or ``KJOIN_CANDIDATE=NAME``, or ``candidate = "NAME"`` in the ``[tool.kjoin]``
table of the project's own pyproject.toml) adds one item per scenario x variant x era of the catalogue, ids
``<scenario-id>[<variant>-<kafka>]``; cases outside the candidate's claim are deselected and counted in one
line. ``pytest conformance`` from the checkout (the ``kjoin.conformance`` folder named on the command line)
without a candidate checks the catalogue itself: one item per case whose file states Kafka's outputs,
against the oracle (``kjoin check``). Otherwise the plugin adds nothing and never starts Spark. Hooks only;
the work is in ``conformance.harness.pytest_run``. ``--kjoin-report DIR`` writes the run's HTML report
(``kjoin.reports.write_report``) from the results document; ``--through-kafka`` runs the candidate's job
between real Kafka topics (``kjoin.conformance.endtoend.SessionKafka``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from kjoin.conformance.harness.pytest_run import PytestRun, Route
    from kjoin.conformance.protocol import Candidate

_RUN: pytest.StashKey[PytestRun | None] = pytest.StashKey()
_STATED: pytest.StashKey[bool] = pytest.StashKey()
"""Whether this session checks the catalogue's stated outputs against the oracle (``pytest conformance``)."""


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
        help="check this candidate: module:attr or a kjoin.candidates name (env KJOIN_CANDIDATE, or "
        "candidate in pyproject.toml's [tool.kjoin] table)",
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
        help="auto (exact if the candidate reports idx, else multiset), exact, key-order, multiset, "
        "commit-points or table",
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
        "--through-kafka",
        dest="kjoin_through_kafka",
        action="store_true",
        default=False,
        help="run the candidate's job between real Kafka topics on a local broker (a streaming_candidate "
        "or spark-stateful; docs/end-to-end.md)",
    )
    group.addoption(
        "--kafka-broker-version",
        dest="kjoin_kafka_broker_version",
        metavar="VERSION",
        default=None,
        help="the broker's Kafka release with --through-kafka (default 4.3.1)",
    )
    group.addoption(
        "--kafka-feed",
        dest="kjoin_kafka_feed",
        choices=("stepped", "backlog"),
        default=None,
        help="with --through-kafka: produce one processing step at a time (stepped, the default) or "
        "everything before the job starts (backlog)",
    )
    group.addoption(
        "--kjoin-report",
        dest="kjoin_report",
        metavar="DIR",
        default=None,
        help="write the run's HTML report into DIR (results in DIR/results.json unless --kjoin-results)",
    )


def pytest_configure(config: pytest.Config) -> None:
    name = _candidate_name(config)
    run = None
    if config.getoption("kjoin_report") and not config.getoption("kjoin_results"):
        config.option.kjoin_results = os.path.join(config.getoption("kjoin_report"), "results.json")
    if name:
        from kjoin.conformance.harness.pytest_run import configure

        run = configure(config, name, _route(config))
        config.pluginmanager.register(run, "kjoin-run")  # receives the reports (pytest_runtest_logreport)
    config.stash[_RUN] = run
    config.stash[_STATED] = run is None and _names_the_suite(config)
    if config.stash[_STATED]:
        for path in config.getoption("kjoin_scenarios") or ():
            if not Path(path).exists():
                raise pytest.UsageError(f"--kjoin-scenarios: {path}: no such file or folder")


def _candidate_name(config: pytest.Config) -> str:
    """The candidate to check: ``--candidate``, else ``$KJOIN_CANDIDATE``, else ``[tool.kjoin] candidate``
    in the pyproject.toml of pytest's root folder (the user's own project); ``""`` when none is named."""
    name = config.getoption("kjoin_candidate") or os.environ.get("KJOIN_CANDIDATE", "").strip()
    if name:
        return str(name)
    pyproject = config.rootpath / "pyproject.toml"
    if not pyproject.is_file():
        return ""
    import tomllib

    try:
        settings = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise pytest.UsageError(f"{pyproject}: cannot read it for [tool.kjoin]: {error}") from error
    table = settings.get("tool", {}).get("kjoin", {})
    candidate = table.get("candidate", "") if isinstance(table, dict) else ""
    if not isinstance(candidate, str):
        raise pytest.UsageError(f"{pyproject}: [tool.kjoin] candidate must be a string, got {candidate!r}")
    return candidate.strip()


def _names_the_suite(config: pytest.Config) -> bool:
    """Whether the command line names the ``kjoin.conformance`` folder itself (``pytest conformance`` in the
    checkout): the conformance suite, which without a candidate is the catalogue against the oracle."""
    home = Path(__file__).resolve().parent  # this module lives in kjoin.conformance's folder
    here = config.invocation_params.dir
    return any((here / argument.split("::")[0]).resolve() == home for argument in config.args)


def _route(config: pytest.Config) -> Callable[[Candidate], Route] | None:
    """``--through-kafka``: the candidate's calls through real topics (the broker starts on the first)."""
    version, feed = config.getoption("kjoin_kafka_broker_version"), config.getoption("kjoin_kafka_feed")
    if not config.getoption("kjoin_through_kafka"):
        for option, value in (("--kafka-broker-version", version), ("--kafka-feed", feed)):
            if value is not None:
                raise pytest.UsageError(f"{option} needs --through-kafka")
        return None
    from kjoin.conformance.endtoend.run import SessionKafka
    from kjoin.conformance.kafka.broker import DEFAULT_BROKER, BrokerError

    def through_kafka(candidate: Candidate) -> Route:
        try:
            return SessionKafka(candidate, version or DEFAULT_BROKER, feed or "stepped")
        except BrokerError as error:
            raise pytest.UsageError(f"--through-kafka: {error}") from error

    return through_kafka


@pytest.hookimpl(tryfirst=True)  # before -k/-m deselection, so they apply to the candidate's items too
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    run = config.stash.get(_RUN, None)
    if run is not None:
        run.collect(session, items)
    elif config.stash.get(_STATED, False):
        from kjoin.conformance.harness.pytest_run import collect_stated

        collect_stated(session, items, config.getoption("kjoin_scenarios") or ())


def pytest_collection_finish(session: pytest.Session) -> None:
    run = session.config.stash.get(_RUN, None)
    if run is not None:
        run.register_selected(session.items)


def pytest_sessionfinish(session: pytest.Session) -> None:
    run = session.config.stash.get(_RUN, None)
    if run is not None:
        run.finish()
        if session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and run.not_claimed:
            session.exitstatus = pytest.ExitCode.OK  # every case is outside the claim: nothing failed


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
