"""Which cases a candidate claims, and which of its declared differences covers a case.

A case outside the candidate's ``Claim`` is reported "not claimed" (never a failure); a case a
``DeclaredDifference`` covers may differ without failing the run (xfail-like). Both compare Kafka versions by
era (``oracle.behaviour``): claiming ``3.9`` claims every version with 3.9's semantics.
"""

from __future__ import annotations

import fnmatch

from kjoin.conformance.catalogue import Case
from kjoin.conformance.protocol import Candidate, Claim, DeclaredDifference
from kjoin.oracle.behaviour import UnknownVersionError, behaviour_for

__all__ = ["declared_difference_for", "unclaimed_because"]


def _same_era(version: str, versions: tuple[str, ...], intended: bool) -> bool:
    """Whether ``version`` has the era of one of ``versions`` (unknown versions never match)."""
    try:
        era = behaviour_for(version, intended=intended).era
        return any(behaviour_for(v, intended=intended).era == era for v in versions)
    except UnknownVersionError:
        return False


def unclaimed_because(claim: Claim, case: Case) -> str | None:
    """Why ``case`` lies outside ``claim`` (a short, general sentence), or ``None`` if it is claimed.

    The sentence names the unclaimed property, not the scenario, so that reports can group by it.
    """
    spec = case.spec
    if spec.join not in claim.joins:
        return f"not claimed: {spec.join} joins"
    if spec.variant not in claim.variants:
        return f"not claimed: {spec.variant} {spec.join} joins"
    if not _same_era(case.kafka, claim.kafka, case.intended):
        era = _era_label(case.kafka)
        return f"not claimed: Kafka {case.kafka} (era {era}); claimed: {', '.join(claim.kafka)}"
    if spec.stores not in claim.stores:
        return f"not claimed: {spec.stores} stores"
    if spec.versioned is not None and (spec.versioned.left or spec.versioned.right) and not claim.versioned:
        return "not claimed: versioned tables"
    if (
        spec.join == "stream-table"
        and spec.window is not None
        and spec.window.grace is not None
        and not claim.stream_table_grace
    ):
        return "not claimed: stream-table grace (KIP-923)"
    return None


def _era_label(version: str) -> str:
    try:
        return behaviour_for(version).era
    except UnknownVersionError:
        return "unknown"


def declared_difference_for(candidate: Candidate, case: Case) -> DeclaredDifference | None:
    """The first declared difference of ``candidate`` that covers ``case``, if any."""
    for declared in candidate.declared_differences:
        pattern = declared.scenario
        if not (fnmatch.fnmatchcase(case.scenario, pattern) or fnmatch.fnmatchcase(case.id, pattern)):
            continue
        if declared.joins is not None and case.spec.join not in declared.joins:
            continue
        if declared.variants is not None and case.spec.variant not in declared.variants:
            continue
        if declared.kafka is not None and not _same_era(case.kafka, declared.kafka, case.intended):
            continue
        return declared
    return None
