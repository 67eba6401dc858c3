"""Which Kafka version's semantics a candidate's outputs match best, per join kind and variant.

For every checked case with the candidate's outputs, the oracle runs the same inputs as one
representative version of each era of ``oracle.behaviour.ERAS``, and the checker scores the candidate's
outputs against each (at the case's equivalence level). Eras that match the most cases (ties broken by
the fewest divergences) are the verdict, e.g. "left stream-stream join matches 0.10.2-3.0, not 3.1+
(has_spurious_free_outer_joins)"; the verdict is ``exact`` only when a best era matches every case, else
those eras are merely the closest. The flags named are those that change where a matching range of eras
ends, among the flags that apply to the join kind (``oracle/behaviour.py`` documents each). Each case is
scored against every era once, when its result is written (``era_scores``, kept in the case); a verdict is
then a sum over its cases (``verdicts_of_scores``), so reading a journal back or merging results files runs
no oracle. Reports only show them.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from kjoin.conformance.catalogue import Case
from kjoin.conformance.checker import Emitted, Mode, check
from kjoin.conformance.documents.flag_notes import flag_note
from kjoin.conformance.kafka_segments import kafka_segments
from kjoin.oracle.behaviour import (
    Behaviour,
    behaviour_for,
    era_of,
    flag_names,
    flags_for,
    one_release_per_era,
)
from kjoin.oracle.engine import run
from kjoin.oracle.errors import OracleError
from kjoin.oracle.records import JOIN_KINDS, VARIANTS, Output

__all__ = [
    "ERA_VERSIONS",
    "CaseScores",
    "EraRange",
    "EraScore",
    "JoinVerdict",
    "Score",
    "Scored",
    "behaviour_words",
    "changed_flags",
    "era_range_label",
    "era_scores",
    "verdicts",
    "verdicts_of_scores",
]

ERA_VERSIONS: tuple[tuple[str, Behaviour], ...] = tuple(
    (version, behaviour_for(version)) for version in one_release_per_era()
)
"""One representative version per era (its first version), oldest first, with its behaviour."""


@dataclass(frozen=True, slots=True)
class Scored:
    """A checked case with the candidate's outputs and the equivalence level it was compared at."""

    case: Case
    actual: Emitted
    mode: Mode


@dataclass(frozen=True, slots=True)
class EraScore:
    """How the candidate's outputs compare with one era's: cases matched, divergences, cases that era
    can run at all (the others have no such join there)."""

    era: str
    matched: int
    divergences: int
    applicable: int


@dataclass(frozen=True, slots=True)
class EraRange:
    """Consecutive eras that all are, or all are not, best matches. ``matched``: the most cases one of
    them matches; ``flags``: for a range that is not best, the behaviour flags that change at its borders
    with best-matching eras (why it differs)."""

    label: str
    best: bool
    matched: int
    flags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class JoinVerdict:
    """The verdict for one join kind x variant x requested era (``asked``: the versions the cases were run
    as; ``intended``: documented semantics were asked for)."""

    join: str
    variant: str
    asked: tuple[str, ...]
    intended: bool
    cases: int
    scores: tuple[EraScore, ...]
    best: tuple[str, ...]
    exact: bool
    ranges: tuple[EraRange, ...]
    summary: str
    said: str = ""
    helps: bool = False

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data (the results file's ``verdicts`` entries)."""
        return {
            "join": self.join,
            "variant": self.variant,
            "kafka": list(self.asked),
            "intended": self.intended,
            "cases": self.cases,
            "eras": [
                {"era": s.era, "matched": s.matched, "divergences": s.divergences, "applicable": s.applicable}
                for s in self.scores
            ],
            "best": list(self.best),
            "exact": self.exact,
            "flags": list(flags_for(self.join)),
            "ranges": [
                {"eras": r.label, "best": r.best, "matched": r.matched, "flags": list(r.flags)}
                for r in self.ranges
            ],
            "summary": self.summary,
            "said": self.said,
            "helps": self.helps,
        }


Score = tuple[bool, int] | None
"""A case against one era: (matched, number of divergences), or ``None`` when that era has no such join."""


def _expected(scored: Scored, behaviour: Behaviour) -> tuple[Output, ...] | None:
    """What ``behaviour`` emits for the case (its intended semantics if the case asks for them); ``None``
    when that era has no such join."""
    case = scored.case
    if case.intended:
        behaviour = behaviour_for(behaviour.era, intended=True)
    try:
        return tuple(run(case.spec, case.records, behaviour))
    except OracleError:
        return None


def _mode(scored: Scored) -> Mode:
    return scored.mode if scored.actual.causes_known or scored.mode != "exact" else "multiset"


def _score(scored: Scored, behaviour: Behaviour) -> Score:
    """(matched, number of divergences) of the candidate's outputs against ``behaviour``; ``None`` when that
    era has no such join."""
    expected = _expected(scored, behaviour)
    if expected is None:
        return None
    return _checked(scored, expected, behaviour)


def _checked(scored: Scored, expected: tuple[Output, ...], behaviour: Behaviour) -> Score:
    case, mode = scored.case, _mode(scored)
    if case.intended:
        behaviour = behaviour_for(behaviour.era, intended=True)
    segments = kafka_segments(case.spec, case.records, behaviour) if mode == "commit-points" else None
    try:
        verdict = check(Emitted(expected, causes_known=True), scored.actual, mode, segments=segments)
    except OracleError:
        return None
    return verdict.status == "pass", len(verdict.divergences)


def era_scores(scored: Scored) -> tuple[Score, ...]:
    """The case against every era of ``ERA_VERSIONS``, in that order: computed once per case (when its
    result is written), so that a verdict is a sum over its cases and reading or merging results runs no
    oracle. The oracle runs once per era; the check once per distinct answer of the oracle (most eras
    emit the same for a case). A case compared at ``commit-points`` costs the oracle O(n^2) runs per era,
    so an era whose flags for the case's join equal an earlier era's takes that era's score."""
    flags_of = flags_for(scored.case.join)
    by_answer: dict[tuple[Output, ...], Score] = {}
    by_flags: dict[tuple[object, ...], Score] = {}
    scores: list[Score] = []
    for _, behaviour in ERA_VERSIONS:
        if scored.mode == "commit-points":
            flags = tuple(getattr(behaviour, flag) for flag in flags_of)
            if flags not in by_flags:
                by_flags[flags] = _score(scored, behaviour)
            scores.append(by_flags[flags])
            continue
        expected = _expected(scored, behaviour)
        if expected is None:
            scores.append(None)
            continue
        if expected not in by_answer:
            by_answer[expected] = _checked(scored, expected, behaviour)
        scores.append(by_answer[expected])
    return tuple(scores)


@dataclass(frozen=True, slots=True)
class CaseScores:
    """One checked case as a verdict needs it: what it was run as, and its ``era_scores``."""

    join: str
    variant: str
    kafka: str
    intended: bool
    scores: tuple[Score, ...]

    @classmethod
    def of(cls, scored: Scored) -> CaseScores:
        case = scored.case
        return cls(case.join, case.variant, case.kafka, case.intended, era_scores(scored))


def changed_flags(before: Behaviour, after: Behaviour) -> tuple[str, ...]:
    """The behaviour flags whose value differs between two eras, in declaration order."""
    return tuple(name for name in flag_names() if getattr(before, name) != getattr(after, name))


def era_range_label(eras: Sequence[str]) -> str:
    """``0.10.2-3.0`` (with an en dash) for a run of consecutive eras, named by their first versions;
    ``3.1+`` when the run reaches the newest era, ``2.3`` for a single era."""
    newest = ERA_VERSIONS[-1][0]
    if eras[-1] == newest:
        return f"{eras[0]}+"
    return eras[0] if len(eras) == 1 else f"{eras[0]}\u2013{eras[-1]}"


def _runs(best: set[str]) -> list[tuple[bool, list[int]]]:
    """Consecutive eras grouped by whether they are among the best: (is_best, era indexes)."""
    groups: list[tuple[bool, list[int]]] = []
    for index, (era, _) in enumerate(ERA_VERSIONS):
        inside = era in best
        if groups and groups[-1][0] == inside:
            groups[-1][1].append(index)
        else:
            groups.append((inside, [index]))
    return groups


def _ranges(scores: Sequence[EraScore], best: set[str], join: str) -> tuple[EraRange, ...]:
    groups = _runs(best)
    ranges = []
    for position, (inside, indexes) in enumerate(groups):
        flags: list[str] = []
        if not inside and position > 0:  # what changes where this run starts, after a best era
            flags += changed_flags(ERA_VERSIONS[indexes[0] - 1][1], ERA_VERSIONS[indexes[0]][1])
        if not inside and position + 1 < len(groups):  # ... and where it ends, before a best era
            flags += changed_flags(ERA_VERSIONS[indexes[-1]][1], ERA_VERSIONS[indexes[-1] + 1][1])
        label = era_range_label([ERA_VERSIONS[i][0] for i in indexes])
        matched = max(scores[i].matched for i in indexes)
        applicable = set(flags_for(join))
        named = tuple(flag for flag in dict.fromkeys(flags) if flag in applicable)
        ranges.append(EraRange(label, inside, matched, named))
    return tuple(ranges)


def _summary(verdict_of: str, cases: int, ranges: Sequence[EraRange], exact: bool) -> str:
    best = [r for r in ranges if r.best]
    relation = "matches" if exact else "comes closest to"
    text = f"{verdict_of} {relation} {' and '.join(r.label for r in best)} ({best[0].matched}/{cases} cases)"
    rejected = [
        f"{r.label} ({r.matched}/{cases}" + (f"; {', '.join(r.flags)})" if r.flags else ")")
        for r in ranges
        if not r.best
    ]
    return text + (f"; not {', not '.join(rejected)}" if rejected else "")


_VERSION_PREFIX = re.compile(r"^[^:`]{0,80}?\([^)]*\):\s+|^[0-9][^:`]{0,40}:\s+")


def behaviour_words(flag: str) -> str:
    """What a behaviour flag means, in the words of its documentation (``oracle/behaviour.py``): its first
    sentence, without the leading versions and tickets (``3.1 (KAFKA-10847): ...``)."""
    text = _VERSION_PREFIX.sub("", flag_note(flag).text, count=1)
    sentence = re.split(r"(?<=[.;])\s", text, maxsplit=1)[0].rstrip(".;")
    return sentence.replace("`", "")


def _all(cases: int) -> str:
    return "its one case" if cases == 1 else f"all {cases} cases"


def _border_flags(ranges: Sequence[EraRange], best: set[str], era: str) -> tuple[str, ...]:
    """The flags named by the range of eras that holds ``era``: those that change where it meets a best
    range (``_ranges`` made ``ranges`` from the same runs)."""
    for position, (_, indexes) in enumerate(_runs(best)):
        if era in [ERA_VERSIONS[index][0] for index in indexes]:
            return ranges[position].flags
    return ()


def _said(
    what: str,
    asked: str,
    asked_era: str,
    cases: int,
    scores: Sequence[EraScore],
    ranges: Sequence[EraRange],
    best: set[str],
) -> tuple[str, bool]:
    """The verdict in a porting engineer's words, and whether it helps: it does when the candidate behaves
    like another Kafka release than the one it was run as (on every case, or on more cases), and then it
    says what that release does differently."""
    eras = [era for era, _ in ERA_VERSIONS]
    by_era = {score.era: score for score in scores}
    own = by_era.get(asked_era)
    top = max((by_era[era] for era in best), key=lambda score: eras.index(score.era))
    exact = top.matched == cases
    if own is not None and asked_era in best:
        if exact:
            return f"{what} behaves as Kafka {asked} on {_all(cases)}.", False
        return (
            f"{what}: no Kafka release behaves like it on {_all(cases)}; Kafka {asked} agrees on "
            f"{own.matched}, no other release on more. Its divergences are its own, not another release's "
            "semantics.",
            False,
        )
    if own is not None and top.matched <= own.matched:
        return (
            f"{what}: no Kafka release agrees with it on more cases than Kafka {asked} ({own.matched}).",
            False,
        )
    nearest = min(best, key=lambda era: abs(eras.index(era) - eras.index(asked_era)))
    border = _border_flags(ranges, best, asked_era)
    flags = [f for f in border if getattr(behaviour_for(nearest), f) != getattr(behaviour_for(asked_era), f)]
    label = era_range_label([era for era in eras if era in best])
    agreement = (
        f"on {_all(cases)}"
        if exact
        else f"on {top.matched} of {cases} cases ({own.matched if own else 0} as Kafka {asked})"
    )
    asked_behaviour = behaviour_for(asked_era)
    differences = "; ".join(
        f"in Kafka {asked if getattr(asked_behaviour, flag) else label}, {behaviour_words(flag)}; in Kafka "
        f"{label if getattr(asked_behaviour, flag) else asked}, not ({flag})"
        for flag in flags
    )
    where = f" Where they differ: {differences}." if differences else ""
    return f"{what} behaves like Kafka {label}, not like Kafka {asked}, {agreement}.{where}", True


def _rank(score: EraScore) -> tuple[int, int, int]:
    return (score.matched, score.applicable, -score.divergences)


def _verdict(key: tuple[str, str, str, bool], cases: Sequence[CaseScores]) -> JoinVerdict:
    join, variant, _, intended = key
    tallies = []
    for index, (era, _) in enumerate(ERA_VERSIONS):
        applicable = [score for score in (case.scores[index] for case in cases) if score is not None]
        tallies.append(
            EraScore(
                era, sum(1 for ok, _ in applicable if ok), sum(n for _, n in applicable), len(applicable)
            )
        )
    scores = tuple(tallies)
    # most cases matched; then most cases the era can run at all (an era without the join is no match);
    # then fewest divergences
    top = max(_rank(s) for s in scores)
    best = {s.era for s in scores if _rank(s) == top}
    exact = top[0] == len(cases)
    asked = tuple(sorted({case.kafka for case in cases}))
    ranges = _ranges(scores, best, join)
    run_as = f"run as Kafka {', '.join(asked)}" + (", intended semantics" if intended else "")
    summary = _summary(f"{variant} {join} join ({run_as})", len(cases), ranges, exact)
    ordered_best = tuple(era for era, _ in ERA_VERSIONS if era in best)
    what = f"Your {variant} {join} join" + (" (intended semantics)" if intended else "")
    said, helps = _said(what, ", ".join(asked), key[2], len(cases), scores, ranges, best)
    return JoinVerdict(
        join, variant, asked, intended, len(cases), scores, ordered_best, exact, ranges, summary, said, helps
    )


def verdicts(cases: Iterable[Scored]) -> tuple[JoinVerdict, ...]:
    """One verdict per join kind x variant x era the cases were run as (x intended); sorted, so the same
    cases give the same verdicts."""
    return verdicts_of_scores(map(CaseScores.of, cases))


def verdicts_of_scores(cases: Iterable[CaseScores]) -> tuple[JoinVerdict, ...]:
    """``verdicts`` from cases already scored against every era (``era_scores``): sums, no oracle."""
    groups: dict[tuple[str, str, str, bool], list[CaseScores]] = defaultdict(list)
    for case in cases:
        groups[(case.join, case.variant, era_of(case.kafka) or case.kafka, case.intended)].append(case)
    return tuple(_verdict(key, groups[key]) for key in sorted(groups, key=_group_order))


def _group_order(key: tuple[str, str, str, bool]) -> tuple[int, int, int, str, bool]:
    join, variant, era, intended = key
    eras = [name for name, _ in ERA_VERSIONS]
    return (
        _index(JOIN_KINDS, join),
        _index(VARIANTS, variant),
        _index(eras, era),
        f"{join}/{variant}/{era}",
        intended,
    )


def _index(items: Sequence[str], item: str) -> int:
    return items.index(item) if item in items else len(items)
