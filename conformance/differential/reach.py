"""What a set of scenarios reaches: the behaviour flags it makes decisive, era by era.

A scenario *reaches* a flag when the oracle with only that flag flipped says something else for it (other
outputs, or a refusal where the era answers): so a candidate that got that one rule of its era wrong (a port
that keeps three RocksDB segments, or applies 3.0's legacy grace on 2.8) fails on it. A set of scenarios
reaches an era when it reaches every flag in force there (``oracle.behaviour.flags_in_force``: not a
capability the era lacks, not a flag its other flags leave unread, not a flag only production settings make
decisive unless a scenario has them). ``kjoin fuzz``'s profiles are sized
so that the ``ci`` profile reaches every claimed era (``tests/test_flag_reach.py``); ``nox -s reach``
prints the whole table, catalogue beside generation.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from msgspec.structs import replace

from kjoin.conformance.catalogue import Case
from kjoin.oracle.behaviour import (
    Behaviour,
    behaviour_for,
    era_of,
    flags_for,
    flags_in_force,
    version_problem,
)
from kjoin.oracle.engine import run
from kjoin.oracle.errors import OracleError
from kjoin.oracle.records import Output, Settings

__all__ = ["FlagReach", "decisive_flags", "flag_reach", "flipped"]

Answer = tuple[Output, ...] | str
"""The oracle's outputs for a case, or why the era refuses it."""


@dataclass(frozen=True, slots=True)
class FlagReach:
    """Which flags in force in one era the scenarios reach, with the first scenario that reaches each."""

    version: str
    era: str
    in_force: tuple[str, ...]
    witnesses: dict[str, str] = field(default_factory=dict)
    """Flag -> id of the first scenario that reaches it."""
    scenarios: int = 0

    @property
    def missed(self) -> tuple[str, ...]:
        """The flags in force that no scenario reaches."""
        return tuple(name for name in self.in_force if name not in self.witnesses)


def flipped(behaviour: Behaviour, flag: str) -> Behaviour:
    """``behaviour`` with only ``flag`` set the other way."""
    changed: dict[str, Any] = {flag: not getattr(behaviour, flag)}
    return replace(behaviour, **changed)


def _answer(case: Case, behaviour: Behaviour) -> Answer:
    try:
        return tuple(run(case.spec, case.records, behaviour))
    except OracleError as error:
        return f"refused: {type(error).__name__}"


def decisive_flags(case: Case, flags: Iterable[str] | None = None) -> list[str]:
    """The flags (default: all that apply to the case's join) whose flip changes what the oracle says."""
    behaviour = behaviour_for(case.kafka, intended=case.intended)
    answer = _answer(case, behaviour)
    names = flags_for(case.join) if flags is None else flags
    return [name for name in names if _answer(case, flipped(behaviour, name)) != answer]


def flag_reach(version: str, cases: Sequence[Case], *, intended: bool = False) -> FlagReach:
    """What ``cases`` (those run as any version of ``version``'s era) reach of that era. Each flag is tried
    on each case until one reaches it."""
    problem = version_problem(version)
    if problem is not None:
        raise ValueError(f"kafka: {version!r} {problem}")
    behaviour = behaviour_for(version, intended=intended)
    mine = [case for case in cases if case.intended == intended and era_of(case.kafka) == behaviour.era]
    joins = sorted({case.join for case in mine})
    production = any(_has_production_settings(case) for case in mine)
    self_join = any(case.spec.self_join for case in mine)
    in_force = tuple(
        dict.fromkeys(
            name
            for join in joins
            for name in flags_in_force(join, behaviour, production=production, self_join=self_join)
        )
    )
    witnesses: dict[str, str] = {}
    for case in mine:
        case_in_force = flags_in_force(
            case.join, behaviour, production=_has_production_settings(case), self_join=case.spec.self_join
        )
        wanted = [name for name in case_in_force if name not in witnesses]
        if wanted:
            for name in decisive_flags(case, wanted):
                witnesses[name] = case.id
    return FlagReach(version, behaviour.era, in_force, witnesses, len(mine))


def _has_production_settings(case: Case) -> bool:
    """Whether ``case`` runs under production settings (flags only they make decisive are then in force)."""
    return case.spec.settings != Settings()
