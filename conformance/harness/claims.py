"""Which cases a candidate claims, as which Kafka release each claimed case runs, and which declared
difference covers a case (docs/candidates.md, "Claims").

A case outside the candidate's ``Claim`` is reported "not claimed" (never a failure); a case a
``DeclaredDifference`` covers may differ without failing the run (xfail-like).

A claimed Kafka version claims its era (``oracle.behaviour.era_of``: ``3.9`` is the 3.8 era, 3.8.0 to 3.9.0).
The catalogue states most scenarios for many releases, and a scenario stated for a release of another era
whose semantics for the scenario's join kind are the same (the flags of ``oracle.behaviour.flags_for``: 3.5
to 4.4 for table-table joins) is the same check: ``as_claimed`` runs it once, as the claimed version, so a
candidate claiming ``3.9`` sees ``3.9`` in its specs and in its failures, never 3.5.2 or 4.4.0.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from msgspec.structs import replace

from kjoin.conformance.catalogue import Case, case_id
from kjoin.conformance.kafka_segments import TABLE_JOINS
from kjoin.conformance.protocol import Candidate, Claim, DeclaredDifference
from kjoin.oracle.behaviour import behaviour_for, era_of, flags_for, parse_version
from kjoin.oracle.records import Settings

__all__ = [
    "ClaimedCases",
    "as_claimed",
    "at_commit_points",
    "claimed_version",
    "declared_difference_for",
    "unclaimed_because",
]


@cache
def _semantics(version: str, join: str, intended: bool) -> tuple[object, ...] | None:
    """The values of ``join``'s behaviour flags in Kafka ``version`` (``None`` for a version the registry
    does not know)."""
    if era_of(version) is None:
        return None
    behaviour = behaviour_for(version, intended=intended)
    return tuple(getattr(behaviour, name) for name in flags_for(join))


def claimed_version(versions: Sequence[str], case: Case) -> str | None:
    """The version of ``versions`` that claims ``case``: the first in ``case``'s era, else the one nearest
    to ``case``'s release (the newest before it, else the oldest after it) among those that join
    ``case``'s join kind the same; ``None`` when none does."""
    era = era_of(case.kafka)
    if era is None:
        return None
    same_era = [version for version in versions if era_of(version) == era]
    if same_era:
        return same_era[0]
    wanted = _semantics(case.kafka, case.join, case.intended)
    alike = sorted(
        (v for v in dict.fromkeys(versions) if _semantics(v, case.join, case.intended) == wanted),
        key=parse_version,
    )
    release = parse_version(case.kafka)
    before = [version for version in alike if parse_version(version) <= release]
    after = [version for version in alike if parse_version(version) > release]
    return before[-1] if before else after[0] if after else None


def unclaimed_because(claim: Claim, case: Case) -> str | None:
    """Why ``case`` lies outside ``claim`` (a short, general sentence), or ``None`` if it is claimed.

    The sentence names the unclaimed property, not the scenario, so that reports can group by it.
    """
    spec = case.spec
    if spec.join not in claim.joins:
        return f"not claimed: {spec.join} joins"
    if spec.variant not in claim.variants:
        return f"not claimed: {spec.variant} {spec.join} joins"
    if claimed_version(claim.kafka, case) is None:
        era = era_of(case.kafka) or "unknown"
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
    if not claim.production_settings and has_production_settings(case) and not at_commit_points(claim, case):
        return "not claimed: production settings (record cache, commit points, emit throttle)"
    if spec.self_join and not claim.self_joins:
        return "not claimed: self-joins (a stream joined with itself)"
    return None


def at_commit_points(claim: Claim, case: Case) -> bool:
    """Whether ``--equivalence auto`` compares ``case`` at level ``commit-points`` for ``claim``, which then
    claims the case's production settings too: the table joins of a micro-batch port (``commit_points``),
    and table-table scenarios under a record cache for a candidate that claims ``record_caches``. The level
    sets the scenario's own cache size, commit interval, commit points and wall clock aside (spec CP-1)."""
    if claim.commit_points and case.spec.join in TABLE_JOINS:
        return True
    return claim.record_caches and case.spec.join == "table-table" and case.spec.settings.cache_max_bytes > 0


def has_production_settings(case: Case) -> bool:
    """Whether ``case`` states production settings or a wall clock or commit point for any record."""
    return case.spec.settings != Settings() or any(r.wall_clock is not None or r.commit for r in case.records)


@dataclass(frozen=True, slots=True)
class ClaimedCases:
    """The cases of a run as the claim runs them (``as_claimed``)."""

    cases: tuple[Case, ...]
    """Every case, in the given order; a claimed case of another era runs as the version that claims it."""
    folded: int
    """Cases left out because a kept case runs the same scenario, inputs and version (one check, once)."""


def as_claimed(claim: Claim, cases: Iterable[Case]) -> ClaimedCases:
    """``cases`` as ``claim`` runs them: a claimed case whose release lies in no claimed era runs as the
    claimed version of the same semantics (``claimed_version``; id and ``kafka`` changed, the stated outputs
    of the other release dropped), once per scenario x variant x intended; unclaimed cases stay as they are.

    A case retargeted onto an id that another case already has is folded into it when both have the same
    inputs; with other inputs it keeps its own release (the run's ``ran_as`` then lists that release)."""
    given = list(cases)
    moved: dict[int, Case] = {}
    for index, case in enumerate(given):
        version = None if unclaimed_because(claim, case) else claimed_version(claim.kafka, case)
        if version is not None and era_of(version) != era_of(case.kafka):
            new_id = case_id(case.scenario, case.variant, version, case.intended)
            moved[index] = replace(case, id=new_id, kafka=version, expected=None)
    taken = {case.id: case for index, case in enumerate(given) if index not in moved}
    kept: list[Case] = []
    folded = 0
    for index, case in enumerate(given):
        target = moved.get(index)
        if target is None:
            kept.append(case)
            continue
        holder = taken.get(target.id)
        if holder is None:
            taken[target.id] = target
            kept.append(target)
        elif (holder.spec, holder.records) == (case.spec, case.records):
            folded += 1
        else:
            kept.append(case)
    return ClaimedCases(tuple(kept), folded)


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
        if declared.kafka is not None and claimed_version(declared.kafka, case) is None:
            continue
        return declared
    return None
