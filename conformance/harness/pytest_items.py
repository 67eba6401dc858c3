"""pytest items for a candidate run: one per scenario x variant x era (``<scenario-id>[<variant>-<kafka>]``).

The plugin (``conformance/plugin.py``, hooks only) builds these. An item's outcome comes from the session's
``HarnessRun``, which runs the candidate once per join kind and caches the answers, so the first item of a
join kind pays for the Spark jobs and the others only compare. Declared differences are ``xfail`` markers
(``strict`` as declared, raising only on a real difference, never on a candidate error); cases outside the
claim carry their reason in ``CaseItem.unclaimed`` and are deselected (``PytestRun``), counted in one line.
Failures print the first divergence as a table (``repr_failure``).

Without a candidate, ``pytest conformance`` checks the catalogue itself: one ``StatedCaseItem`` per case
whose file states Kafka's outputs, the oracle against them (``kjoin check``'s check).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from kjoin.conformance.catalogue import Case
from kjoin.conformance.documents.outcomes import CaseOutcome
from kjoin.conformance.documents.results import case_result
from kjoin.conformance.harness.outcomes import HarnessRun
from kjoin.conformance.harness.text import describe_case, render_outcome, render_trace
from kjoin.conformance.stated import check_case
from kjoin.errors import KjoinError
from kjoin.oracle.behaviour import UnknownVersionError, behaviour_for
from kjoin.oracle.engine import run
from kjoin.oracle.errors import OracleError

__all__ = [
    "RESULT_PROPERTY",
    "CandidateErrorFailure",
    "CaseItem",
    "CatalogueErrorsItem",
    "ConformanceMismatch",
    "ScenarioSource",
    "StatedCaseItem",
    "build_items",
    "build_stated_items",
]

RESULT_PROPERTY = "kjoin_case"
"""The ``user_properties`` name under which an item reports its case result (travels through xdist)."""

HARNESS_GROUP = "kjoin-candidate"
"""The ``xdist_group`` of every candidate item: with ``--dist loadgroup`` they share one worker (one
SparkSession, one candidate call per join kind)."""


class ConformanceMismatch(KjoinError, AssertionError):
    """The candidate's outputs differ from Kafka's (the item's outcome carries the evidence)."""

    def __init__(self, outcome: CaseOutcome) -> None:
        super().__init__(f"{outcome.case.id}: differs from Kafka")
        self.outcome = outcome


class CandidateErrorFailure(KjoinError):
    """The candidate failed or returned unusable rows for this case (never covered by a declaration)."""

    def __init__(self, outcome: CaseOutcome) -> None:
        super().__init__(f"{outcome.case.id}: candidate error")
        self.outcome = outcome


class ScenarioSource(pytest.Collector):
    """The scenario file a group of items comes from (gives items a readable node id)."""

    def collect(self) -> list[pytest.Item]:
        return []


class CaseItem(pytest.Item):
    """One case checked against the oracle."""

    def __init__(self, *, case: Case, harness: HarnessRun, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.harness = harness
        self.outcome: CaseOutcome | None = None
        self.unclaimed: str | None = harness.unclaimed_because(case)
        """Why the candidate's claim leaves the case out (such items are deselected), else ``None``."""

    def runtest(self) -> None:
        self.outcome = outcome = self.harness.outcome(self.case)
        self.user_properties.append((RESULT_PROPERTY, case_result(outcome)))
        if outcome.status in ("not-claimed", "not-applicable"):
            pytest.skip(outcome.reason)
        if outcome.status == "unknown":
            pytest.skip(f"undecided: {outcome.reason}")
        verdict = outcome.verdict
        if verdict is None or verdict.status == "pass":
            return
        if outcome.status == "error":
            raise CandidateErrorFailure(outcome)
        raise ConformanceMismatch(outcome)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ConformanceMismatch | CandidateErrorFailure):
            return render_outcome(excinfo.value.outcome)
        return str(super().repr_failure(excinfo, style=style))

    def reportinfo(self) -> tuple[Path | str, int, str]:
        return self.path, 0, f"kjoin: {self.case.id}"


class CatalogueErrorsItem(pytest.Item):
    """Fails with every scenario that could not be loaded (the rest of the run goes on)."""

    def __init__(self, *, errors: Sequence[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.errors = tuple(errors)

    def runtest(self) -> None:
        raise AssertionError("\n".join(self.errors))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        return f"{len(self.errors)} scenario(s) could not be loaded:\n" + "\n".join(self.errors)

    def reportinfo(self) -> tuple[Path | str, int, str]:
        return self.path, 0, "kjoin: scenario load errors"


class StatedMismatch(KjoinError, AssertionError):
    """The oracle's outputs differ from what the scenario file states Kafka emits."""


class StatedCaseItem(pytest.Item):
    """One case whose file states Kafka's outputs, checked against the oracle (``kjoin check``'s check)."""

    def __init__(self, *, case: Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case

    def runtest(self) -> None:
        problem = check_case(self.case)
        if problem is not None:
            raise StatedMismatch(problem)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if not isinstance(excinfo.value, StatedMismatch):
            return str(super().repr_failure(excinfo, style=style))
        case = self.case
        assert case.expected is not None
        columns: dict[str, Sequence[Any]] = {}
        if case.expected.causes_known:
            columns["the file"] = case.expected.outputs
        with contextlib.suppress(OracleError, UnknownVersionError):  # else the message says why it cannot
            columns["the oracle"] = run(
                case.spec, case.records, behaviour_for(case.kafka, intended=case.intended)
            )
        trace = render_trace(case.records, columns) if columns else ""
        return f"{case.where}: {describe_case(case)}\n{excinfo.value}\n{trace}"

    def reportinfo(self) -> tuple[Path | str, int, str]:
        return self.path, 0, f"kjoin: {self.case.id} as stated"


def _source_path(case: Case, root: Path) -> Path:
    path = Path(case.source)
    return path if path.is_absolute() else root / path


def build_items(
    session: pytest.Session, harness: HarnessRun, cases: Sequence[Case], errors: Sequence[str]
) -> list[pytest.Item]:
    """Items for ``cases`` grouped under one collector per source file, plus one for load errors."""
    use_groups = session.config.pluginmanager.hasplugin("xdist")

    def item(source: ScenarioSource, case: Case) -> pytest.Item:
        made = CaseItem.from_parent(source, name=case.id, case=case, harness=harness)
        _mark(made, harness, case, use_groups)
        return made

    return _grouped(session, cases, errors, item)


def build_stated_items(
    session: pytest.Session, cases: Sequence[Case], errors: Sequence[str]
) -> list[pytest.Item]:
    """One ``StatedCaseItem`` per case of ``cases`` whose file states its outputs, grouped per source file,
    plus one item for load errors (or for a catalogue that states no outputs at all)."""
    stated = [case for case in cases if case.expected is not None]
    if not stated and not errors:
        errors = ["no scenario states what Kafka emits: there is nothing to check the oracle against"]

    def item(source: ScenarioSource, case: Case) -> pytest.Item:
        return StatedCaseItem.from_parent(source, name=case.id, case=case)

    return _grouped(session, stated, errors, item)


def _grouped(
    session: pytest.Session,
    cases: Sequence[Case],
    errors: Sequence[str],
    make: Callable[[ScenarioSource, Case], pytest.Item],
) -> list[pytest.Item]:
    config = session.config
    sources: dict[str, ScenarioSource] = {}
    items: list[pytest.Item] = []
    for case in cases:
        source = sources.get(case.source)
        if source is None:
            path = _source_path(case, config.rootpath)
            source = ScenarioSource.from_parent(session, name=case.source, path=path, nodeid=case.source)
            sources[case.source] = source
        items.append(make(source, case))
    if errors:
        anchor = ScenarioSource.from_parent(session, name="kjoin", path=config.rootpath, nodeid="kjoin")
        sources["kjoin"] = anchor
        items.append(CatalogueErrorsItem.from_parent(anchor, name="scenario-load-errors", errors=errors))
    for source in sources.values():
        # report the collectors like pytest's own, so "collected N items" and collect-only counts include them
        result: list[pytest.Item | pytest.Collector] = [item for item in items if item.parent is source]
        config.hook.pytest_collectreport(report=pytest.CollectReport(source.nodeid, "passed", None, result))
    return items


def _mark(item: CaseItem, harness: HarnessRun, case: Case, use_groups: bool) -> None:
    if item.unclaimed is not None:
        return
    declared = harness.declared_for(case)
    if declared is not None:
        reason = f"declared difference: {declared.reason}"
        item.add_marker(pytest.mark.xfail(reason=reason, strict=declared.strict, raises=ConformanceMismatch))
    if use_groups:
        item.add_marker(pytest.mark.xdist_group(HARNESS_GROUP))
