"""Shrink failing scenarios by delta reduction, one batched candidate call per round.

A candidate answers through Spark, where one call costs about as much for a thousand small scenarios as for
one. So instead of trying reductions one at a time (hypothesis's shrinker, ddmin), every round builds *all*
reductions of each scenario still being shrunk (``reductions``), hands them to the candidate in one batch
(one call per join kind), and keeps, per scenario, the smallest reduction that still fails
(``complexity`` orders them). A round that keeps none ends that scenario's shrinking; so does the round
limit.

Reductions, smallest first:

* record subsets: every subset of one to three records (a failure seldom needs more), and every subset
  without one or two records; relative order is kept;
* the specification: narrower windows and grace, a shorter history retention, fewer or no versioned sides;
* the records: earlier timestamps (to 0, halved, one less, all shifted down, ranks), fewer keys (a key
  replaced by the first one), keys and values renamed in order of appearance (``k1, k2``; ``L0, R1``).

"Still fails" means the candidate's outcome is ``fail`` (a declared difference does not count), whatever the
divergence: the smallest failing scenario is what a user needs first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import combinations

from conformance.harness.cases import Case, case_id
from conformance.harness.outcomes import CaseOutcome
from oracle.records import JoinSpec, Key, Record, Versioning

__all__ = ["Evaluate", "Shrunk", "complexity", "reductions", "shrink"]

Evaluate = Callable[[Sequence[Case]], dict[str, CaseOutcome]]
"""Check many cases with one candidate call per join kind; the outcome per case id."""

_SMALL_SUBSETS = 3
"""Record subsets of up to this many records are all tried in each round."""


@dataclass(frozen=True, slots=True)
class Shrunk:
    """A failing case shrunk as far as the rounds went: the original outcome, the minimal one, and the
    number of rounds that made progress."""

    original: CaseOutcome
    minimal: CaseOutcome
    rounds: int


def complexity(case: Case) -> tuple[int, ...]:
    """The order in which reductions are preferred, smallest first: fewer records, then a narrower window
    and grace, a shorter history, fewer versioned sides, fewer keys, earlier timestamps, then names in order
    of appearance."""
    spec, records = case.spec, case.records
    window = spec.window
    width = 0 if window is None else window.before + window.after + (window.grace or 0) + window.legacy
    versioned = spec.versioned
    history = 0 if versioned is None else versioned.history_ms + 1
    sides = 0 if versioned is None else versioned.left + versioned.right
    keys = len({record.key for record in records})
    times = [record.ts for record in records]
    renamed = sum(a != b for a, b in zip(_renamed(case).records, records, strict=True))
    return (len(records), width, history, sides, keys, sum(times), max(times, default=0), renamed)


def reductions(case: Case, *, limit: int) -> list[Case]:
    """Distinct smaller variants of ``case`` (at most ``limit``), in ``complexity`` order. Their ids are
    made unique by the caller."""
    own = complexity(case)
    seen = {(case.spec, case.records)}
    found: list[Case] = []
    for candidate in _all_reductions(case):
        content = (candidate.spec, candidate.records)
        if content in seen or complexity(candidate) >= own:
            continue
        seen.add(content)
        found.append(candidate)
    found.sort(key=complexity)
    return found[:limit]


def shrink(
    failing: Sequence[CaseOutcome], evaluate: Evaluate, *, rounds: int, limit: int
) -> list[Shrunk]:
    """Shrink every failing outcome, all of them together: each round is one ``evaluate`` call."""
    current = list(failing)
    progress = [0] * len(current)
    active = set(range(len(current)))
    for number in range(1, rounds + 1):
        batch: list[Case] = []
        tried: dict[int, list[Case]] = {}
        for which in sorted(active):
            named = [_named(c, current[which].case, number, i)
                     for i, c in enumerate(reductions(current[which].case, limit=limit))]
            tried[which] = named
            batch.extend(named)
        if not batch:
            break
        outcomes = evaluate(batch)
        for which, named in tried.items():
            failing_now = [outcomes[c.id] for c in named if outcomes[c.id].status == "fail"]
            if failing_now:
                current[which] = min(failing_now, key=lambda outcome: complexity(outcome.case))
                progress[which] += 1
            else:
                active.discard(which)
        if not active:
            break
    return [Shrunk(original, minimal, steps)
            for original, minimal, steps in zip(failing, current, progress, strict=True)]


def _named(reduced: Case, base: Case, round_number: int, index: int) -> Case:
    """``reduced`` with an id unique in its round: ``<original scenario>.r<round>.<n>``."""
    root = base.scenario.split(".r", 1)[0]
    scenario = f"{root}.r{round_number}.{index}"
    return replace(reduced, scenario=scenario, id=case_id(scenario, reduced.variant, reduced.kafka,
                                                          reduced.intended))


def _all_reductions(case: Case) -> Iterator[Case]:
    yield from _record_subsets(case)
    for spec_change in _spec_reductions(case):
        yield replace(case, spec=spec_change)
    for records in _record_reductions(case):
        yield replace(case, records=records)


def _record_subsets(case: Case) -> Iterator[Case]:
    """Subsets of one to ``_SMALL_SUBSETS`` records, and subsets without one or two records."""
    count = len(case.records)
    sizes = sorted({*range(1, min(_SMALL_SUBSETS, count - 1) + 1), *range(max(count - 2, 1), count)})
    for size in sizes:
        for kept in combinations(range(count), size):
            yield replace(case, records=tuple(case.records[i] for i in kept))


def _smaller(value: int) -> list[int]:
    """0, half and one less: the values a size or timestamp shrinks to."""
    return sorted({0, value // 2, value - 1} - {value}) if value > 0 else []


def _spec_reductions(case: Case) -> Iterator[JoinSpec]:
    spec = case.spec
    window = spec.window
    if window is not None:
        for smaller in _smaller(window.before):
            yield replace(spec, window=replace(window, before=smaller))
        for smaller in _smaller(window.after):
            yield replace(spec, window=replace(window, after=smaller))
        if window.grace is not None:
            for smaller in _smaller(window.grace):
                yield replace(spec, window=replace(window, grace=smaller))
        if window.legacy:
            yield replace(spec, window=replace(window, legacy=False))
        if spec.join == "stream-table":
            yield replace(spec, window=None)
    versioned = spec.versioned
    if versioned is not None:
        yield replace(spec, versioned=None)
        for smaller in _smaller(versioned.history_ms):
            yield replace(spec, versioned=replace(versioned, history_ms=smaller))
        if versioned.left and versioned.right:
            yield replace(spec, versioned=Versioning(left=False, right=True, history_ms=versioned.history_ms))
            yield replace(spec, versioned=Versioning(left=True, right=False, history_ms=versioned.history_ms))


def _record_reductions(case: Case) -> Iterator[tuple[Record, ...]]:
    records = case.records
    for index, record in enumerate(records):
        for smaller in _smaller(record.ts):
            yield _with(records, index, replace(record, ts=smaller))
        if index and records[index - 1].ts < record.ts:
            yield _with(records, index, replace(record, ts=records[index - 1].ts))
    lowest = min((record.ts for record in records), default=0)
    if lowest:
        yield tuple(replace(record, ts=record.ts - lowest) for record in records)
    ranks = {ts: rank for rank, ts in enumerate(sorted({record.ts for record in records}))}
    yield tuple(replace(record, ts=ranks[record.ts]) for record in records)
    first = {prefix: f"{prefix}1" for prefix in ("k", "p", "f")}
    for key in sorted({r.key for r in records if isinstance(r.key, str)} - set(first.values())):
        yield _rename_keys(case, {key: first.get(key[:1], key)})
    yield _renamed(case).records


def _with(records: tuple[Record, ...], index: int, record: Record) -> tuple[Record, ...]:
    return (*records[:index], record, *records[index + 1:])


def _renamed(case: Case) -> Case:
    """Keys renamed in order of first appearance per prefix (``k1, k2``), foreign keys inside values too,
    and values relabelled by position (``L0``, ``R1``, ``f1:L2``)."""
    order: dict[str, list[str]] = {}
    for record in case.records:
        for name in (record.key, _foreign_key(case, record)):
            if isinstance(name, str) and name[:1].isalpha() and name[1:].isdigit():
                names = order.setdefault(name[:1], [])
                if name not in names:
                    names.append(name)
    mapping = {name: f"{prefix}{n}" for prefix, names in order.items() for n, name in enumerate(names, 1)}
    renamed = _rename_keys(case, mapping)
    labelled = tuple(
        record if record.value is None else replace(record, value=_label(case, record, index))
        for index, record in enumerate(renamed)
    )
    return replace(case, records=labelled)


def _foreign_key(case: Case, record: Record) -> str | None:
    if case.spec.join != "fk" or record.side != "left" or record.value is None or ":" not in record.value:
        return None
    return record.value.split(":", 1)[0]


def _label(case: Case, record: Record, index: int) -> str:
    label = f"{record.side[0].upper()}{index}"
    foreign = _foreign_key(case, record)
    return label if foreign is None else f"{foreign}:{label}"


def _rename_keys(case: Case, mapping: dict[str, str]) -> tuple[Record, ...]:
    """Records with keys (and the foreign keys inside foreign-key join values) renamed by ``mapping``."""
    renamed: list[Record] = []
    for record in case.records:
        key: Key = mapping.get(record.key, record.key) if isinstance(record.key, str) else record.key
        value = record.value
        foreign = _foreign_key(case, record)
        if foreign is not None and value is not None:
            value = f"{mapping.get(foreign, foreign)}:{value.split(':', 1)[1]}"
        renamed.append(replace(record, key=key, value=value))
    return tuple(renamed)
