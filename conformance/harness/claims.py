"""Which cases a candidate claims, and which of its declared differences covers a case.

A case outside the candidate's ``Claim`` is reported "not claimed" (never a failure); a case a
``DeclaredDifference`` covers may differ without failing the run (xfail-like). A claimed Kafka version covers
every version whose semantics for the case's join kind are the same (the behaviour flags of that join kind,
``oracle.behaviour.flags_for``): claiming ``3.9`` claims 4.0's stream-stream joins, which did not change,
but not its foreign-key joins (KAFKA-16394 was fixed in 3.9.1 and is back in 4.0.0).
"""

from __future__ import annotations

import fnmatch

from kjoin.conformance.catalogue import Case
from kjoin.conformance.protocol import Candidate, Claim, DeclaredDifference
from kjoin.oracle.behaviour import UnknownVersionError, behaviour_for, flags_for

__all__ = ["declared_difference_for", "unclaimed_because"]


def _same_semantics(version: str, versions: tuple[str, ...], join: str, intended: bool) -> bool:
    """Whether Kafka ``version`` joins ``join`` as one of ``versions`` does (unknown versions never match)."""
    try:
        wanted = behaviour_for(version, intended=intended)
        claimed = [behaviour_for(v, intended=intended) for v in versions]
    except UnknownVersionError:
        return False
    names = flags_for(join)
    return any(all(getattr(b, n) == getattr(wanted, n) for n in names) for b in claimed)


def unclaimed_because(claim: Claim, case: Case) -> str | None:
    """Why ``case`` lies outside ``claim`` (a short, general sentence), or ``None`` if it is claimed.

    The sentence names the unclaimed property, not the scenario, so that reports can group by it.
    """
    spec = case.spec
    if spec.join not in claim.joins:
        return f"not claimed: {spec.join} joins"
    if spec.variant not in claim.variants:
        return f"not claimed: {spec.variant} {spec.join} joins"
    if not _same_semantics(case.kafka, claim.kafka, spec.join, case.intended):
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
        if declared.kafka is not None and not _same_semantics(
            case.kafka, declared.kafka, case.spec.join, case.intended
        ):
            continue
        return declared
    return None
