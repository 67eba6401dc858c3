"""The state of one pytest session that checks a candidate (the plugin's hooks delegate here).

Where work happens, and why it is safe under pytest-xdist:

* every process (controller and workers) loads the candidate and the cases, so all collect the same items;
* a process starts Spark only when it runs a claimed item (the oracle-only tests never do), and runs the
  candidate once per join kind over the selected items of that kind. Items carry an ``xdist_group`` mark:
  with ``-n 2 --dist loadgroup`` they all go to one worker, so Spark runs once; with other ``--dist``
  modes each worker that gets candidate items starts its own Spark and candidate calls (correct, slower);
* results travel to the controller in each report's ``user_properties``; only the controller (or the
  single process without xdist) writes the results file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pytest

from kjoin.conformance.catalogue import Case, load_cases
from kjoin.conformance.documents.diagnosis import roll_up
from kjoin.conformance.documents.outcomes import EQUIVALENCES, CaseOutcome, Equivalence
from kjoin.conformance.documents.results import (
    candidate_json,
    case_result,
    results_document,
    run_metadata,
    write_results_atomically,
)
from kjoin.conformance.harness.claims import as_claimed
from kjoin.conformance.harness.outcomes import HarnessRun
from kjoin.conformance.harness.pytest_items import RESULT_PROPERTY, CaseItem, build_items, build_stated_items
from kjoin.conformance.harness.spark_session import resolve_master, start_session
from kjoin.conformance.harness.text import render_diagnosis, render_ran_as
from kjoin.conformance.protocol import Candidate, CandidateLoadError, load_candidate, ran_as

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["NOT_CLAIMED_OUTPUT", "PytestRun", "Route", "collect_stated", "configure"]

NOT_CLAIMED_OUTPUT = "kjoin_not_claimed"
"""The ``workeroutput`` key under which an xdist worker hands its not-claimed results to the controller."""


class Route(Protocol):
    """A way other than a direct call for the candidate's inputs to reach it (``--through-kafka``: real
    topics, ``kjoin.conformance.endtoend.SessionKafka``), handed in by the plugin."""

    @property
    def candidate(self) -> Candidate:
        """The candidate as the route wraps it (its claim decides the items)."""
        ...

    def session(self, master: str) -> SparkSession:
        """The SparkSession for the candidate's calls, with what the route needs started."""
        ...

    def reordered(self, case: Case) -> Case:
        """``case`` as the route delivers its records (e.g. in Kafka's processing order)."""
        ...

    def provenance(self) -> dict[str, Any]:
        """The results document's ``through_kafka`` entry."""
        ...

    def close(self) -> None:
        """Stop what ``session`` started."""
        ...


@dataclass(eq=False)  # a plugin object: pluggy hashes it by identity
class PytestRun:
    """A candidate run inside pytest: settings, the harness, and the case results seen so far.

    Registered as a plugin object for the session so that it receives every test report."""

    config: pytest.Config
    candidate: Candidate
    harness: HarnessRun
    master: str
    kafka: str | None
    equivalence: Equivalence
    scenarios: tuple[Path, ...]
    results_path: Path | None
    route: Route | None = None
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    not_claimed: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The results of the deselected cases outside the claim, by case id."""
    document: dict[str, Any] | None = None
    folded: int = 0
    """Cases of other eras' releases that ran once as the claimed version (``claims.as_claimed``)."""

    @property
    def is_worker(self) -> bool:
        return hasattr(self.config, "workerinput")

    def collect(self, session: pytest.Session, items: list[pytest.Item]) -> None:
        """Append one item per case of the catalogue (or ``--kjoin-scenarios``) to ``items``."""
        case_set = load_cases(list(self.scenarios) or None, kafka=self.kafka)
        errors = [str(error) for error in case_set.errors]
        cases = case_set.cases
        if self.kafka is None:  # with --kjoin-kafka every case already runs as that release
            claimed = as_claimed(self.candidate.claim, cases)
            cases, self.folded = claimed.cases, claimed.folded
        if self.route is not None:
            cases = tuple(self.route.reordered(case) for case in cases)
        items.extend(build_items(session, self.harness, cases, errors))

    @pytest.hookimpl(trylast=True)  # after -k/-m: what they leave out is not counted here
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        """Deselect the cases outside the candidate's claim (one count in the summary instead of one skip
        each); their results still go to the results file (under xdist through ``workeroutput``)."""
        unclaimed: dict[CaseItem, str] = {
            item: item.unclaimed
            for item in items
            if isinstance(item, CaseItem) and item.unclaimed is not None
        }
        if not unclaimed:
            return
        items[:] = [item for item in items if item not in unclaimed]
        config.hook.pytest_deselected(items=list(unclaimed))
        results = {
            item.case.id: case_result(CaseOutcome(item.case, "not-claimed", reason=reason))
            for item, reason in unclaimed.items()
        }
        self.not_claimed.update(results)
        if self.is_worker:
            self.config.workeroutput[NOT_CLAIMED_OUTPUT] = list(results.values())  # type: ignore[attr-defined]

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """xdist's controller: a worker's not-claimed cases (every worker collects the same)."""
        for result in getattr(node, "workeroutput", {}).get(NOT_CLAIMED_OUTPUT, ()):
            self.not_claimed[str(result["id"])] = result

    def register_selected(self, items: list[pytest.Item]) -> None:
        """The selected items' cases are what the candidate will be run on."""
        self.harness.register(item.case for item in items if isinstance(item, CaseItem))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Keep the case result an item reported; under xdist the controller sees every worker's reports
        here."""
        if self.is_worker:
            return
        for name, value in report.user_properties:
            if name == RESULT_PROPERTY and isinstance(value, dict):
                self.results[str(value["id"])] = value

    def finish(self) -> None:
        """Stop the route's systems (every process), write the results file (controller only)."""
        if self.route is not None:
            self.route.close()
        if self.results_path is None or self.is_worker:
            return
        metadata = run_metadata(
            master=self.master,
            kafka=self.kafka,
            equivalence=self.equivalence,
            scenarios=[str(path) for path in self.scenarios] or ["(bundled catalogue)"],
            through_kafka=None if self.route is None else self.route.provenance(),
        )
        calls = [call.to_json() for call in self.harness.batches]
        results = {**self.not_claimed, **self.results}
        document = results_document(metadata, candidate_json(self.candidate), results.values(), calls=calls)
        self.config.hook.pytest_kjoin_results(config=self.config, document=document)
        write_results_atomically(self.results_path, document)
        self.document = document

    def summary_lines(self) -> list[str]:
        """Terminal summary: statuses, and the candidate calls this process made."""
        counts: dict[str, int] = {}
        for result in self.results.values():
            counts[str(result["status"])] = counts.get(str(result["status"]), 0) + 1
        statuses = ", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "no cases run"
        lines = [f"candidate {self.candidate.name}: {statuses}"]
        if self.not_claimed:
            listed = "" if self.results_path is None else f"; listed in {self.results_path}"
            count = len(self.not_claimed)
            lines.append(f"  {count} cases outside the candidate's claim deselected (not claimed{listed})")
        if self.results:
            releases = [str(r["kafka"]) for r in self.results.values() if r["status"] != "not-claimed"]
            lines += render_ran_as(ran_as(self.candidate.claim.kafka, releases), self.folded)
        lines += [f"  {line}" for line in render_diagnosis(roll_up(self.results.values()))]
        lines += [f"  {batch.line()}" for batch in self.harness.batches]
        if self.results_path is not None and not self.is_worker:
            lines.append(f"results written to {self.results_path}")
        return lines


def configure(
    config: pytest.Config, name: str, route: Callable[[Candidate], Route] | None = None
) -> PytestRun:
    """The ``PytestRun`` checking candidate ``name`` (from ``--candidate`` or ``$KJOIN_CANDIDATE``), directly
    or along ``route(candidate)``. Bad option values are ``pytest.UsageError``s."""
    try:
        candidate = load_candidate(name)
    except CandidateLoadError as error:
        raise pytest.UsageError(f"--candidate: {error}") from error
    equivalence = config.getoption("kjoin_equivalence")
    if equivalence not in EQUIVALENCES:
        allowed = ", ".join(EQUIVALENCES)
        raise pytest.UsageError(f"--kjoin-equivalence: one of {allowed}, got {equivalence!r}")
    master = resolve_master(config.getoption("kjoin_spark_master"))
    results = config.getoption("kjoin_results")
    scenarios = tuple(Path(p) for p in config.getoption("kjoin_scenarios") or ())
    for path in scenarios:
        if not path.exists():
            raise pytest.UsageError(f"--kjoin-scenarios: {path}: no such file or folder")
    taken = None if route is None else route(candidate)
    if taken is None:
        harness = HarnessRun(candidate, lambda: start_session(master), equivalence=equivalence)
    else:
        candidate = taken.candidate
        harness = HarnessRun(candidate, lambda: taken.session(master), equivalence=equivalence)
    return PytestRun(
        config=config,
        candidate=candidate,
        harness=harness,
        master=master,
        kafka=config.getoption("kjoin_kafka"),
        equivalence=equivalence,
        scenarios=scenarios,
        results_path=Path(results) if results else None,
        route=taken,
    )


def collect_stated(session: pytest.Session, items: list[pytest.Item], scenarios: Sequence[str]) -> None:
    """``pytest conformance`` without a candidate: one item per case of the catalogue (or of
    ``--kjoin-scenarios``) whose file states Kafka's outputs, checked against the oracle."""
    paths = [Path(p) for p in scenarios]
    case_set = load_cases(paths or None)
    items.extend(build_stated_items(session, case_set.cases, [str(error) for error in case_set.errors]))
