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
* micro-batch boundaries (a case fed to a streaming candidate in micro-batches): each one removed, and a
  record subset keeps a boundary only between two kept records that were in different micro-batches;
* the specification: narrower windows and grace, a shorter history retention, fewer or no versioned sides;
* the records: earlier timestamps (0 to 7, halved, one less, another record's, all shifted down, ranks),
  fewer keys (a key replaced by the first one), keys and values renamed in order of appearance
  (``k1, k2``; ``L0, R1``);
* for scenarios of up to three records, every pair of the changes above (a window edge often moves only
  together with a timestamp), and the previous round's best combined with the other changes that kept the
  failure then (independent simplifications need not take a round each).

After the rounds, a final pass (``local_minimum``) makes each result a local minimum: it tries, all in one
batch, removing each single record, all records of each key and each micro-batch boundary, keeps the
smallest that still fails, and repeats until none does. The rounds (like hypothesis's shrinker) may stop
early, at their limit or when a round's ``limit`` of reductions left out the one that worked; the pass
does not stop before a local minimum.

"Still fails" means the candidate's outcome is ``fail`` (a declared difference does not count), whatever the
divergence: the smallest failing scenario is what a user needs first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial
from itertools import combinations

import msgspec

from kjoin.conformance.catalogue import Case
from kjoin.conformance.documents.outcomes import CaseOutcome
from kjoin.conformance.harness.micro_batches import kept_records, split_case_id, without_start
from kjoin.oracle.records import Key, Record

__all__ = ["Evaluate", "Shrunk", "complexity", "local_minimum", "reductions", "removals", "shrink"]

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
    final_steps: int = 0
    """Removals the final pass (``local_minimum``) made after the rounds."""


def complexity(case: Case) -> tuple[int, ...]:
    """The order in which reductions are preferred, smallest first: fewer records, then fewer micro-batch
    boundaries, a narrower window and grace, a shorter history, fewer versioned sides, fewer keys, earlier
    timestamps, then names in order of appearance."""
    spec, records = case.spec, case.records
    window = spec.window
    width = 0 if window is None else window.before + window.after + (window.grace or 0) + window.legacy
    versioned = spec.versioned
    history = 0 if versioned is None else versioned.history_ms + 1
    sides = 0 if versioned is None else versioned.left + versioned.right
    keys = len({record.key for record in records})
    times = [record.ts for record in records]
    renamed = sum(a != b for a, b in zip(_renamed(case).records, records, strict=True))
    boundaries = 0 if case.micro_batches is None else len(case.micro_batches.starts)
    return (len(records), boundaries, width, history, sides, keys, sum(times), max(times, default=0), renamed)


def reductions(case: Case, *, limit: int) -> list[Case]:
    """Distinct smaller variants of ``case`` (at most ``limit``), in ``complexity`` order. Their ids are
    made unique by the caller."""
    return [reduced for _, reduced in _reductions(case, limit=limit)]


@dataclass(frozen=True, slots=True)
class _Change:
    """One reduction: which part of the scenario it changes (``records`` for a subset; ``window.before``,
    ``ts#3``, ``key k2``, ...) and how. Changes of different parts of a scenario with the same records can
    be applied one after the other, which is how a round combines what the previous one found."""

    part: str
    apply: Callable[[Case], Case]


def _reductions(case: Case, *, limit: int, extra: Sequence[Case] = ()) -> list[tuple[_Change | None, Case]]:
    """``(change, reduced case)`` pairs: ``extra`` cases (no change of their own) and the changes of
    ``case``, distinct, strictly less complex than ``case``, in ``complexity`` order, at most ``limit``."""
    own = complexity(case)
    seen = {_content(case)}
    found: list[tuple[_Change | None, Case]] = []
    changes = list(_changes(case))
    if len(case.records) <= _SMALL_SUBSETS:
        changes += _pairs_of(changes)
    options = [(None, reduced) for reduced in extra] + [(c, c.apply(case)) for c in changes]
    for change, reduced in options:
        content = _content(reduced)
        if content in seen or complexity(reduced) >= own:
            continue
        seen.add(content)
        found.append((change, reduced))
    found.sort(key=lambda pair: complexity(pair[1]))
    return found[:limit]


def _content(case: Case) -> tuple[object, ...]:
    """What makes two reductions the same scenario."""
    return (case.spec, case.records, case.micro_batches)


def _pairs_of(changes: Sequence[_Change]) -> list[_Change]:
    """Every two changes of different parts (not record subsets) applied one after the other: a small
    scenario often shrinks only when two parts shrink together (a narrower window and an earlier ts)."""
    single = [change for change in changes if change.part not in ("records", "batches")]
    return [
        _Change(f"{first.part}+{second.part}", partial(_both, first, second))
        for first, second in combinations(single, 2)
        if first.part != second.part
    ]


def _both(first: _Change, second: _Change, case: Case) -> Case:
    return second.apply(first.apply(case))


def _combined(best: Case, changes: Sequence[_Change]) -> Case:
    """``best`` with every other change that also kept the failure applied on top, one per part."""
    combined, parts = best, set()
    for change in changes:
        if change.part == "records" or change.part in parts:
            continue
        candidate = change.apply(combined)
        if len(candidate.records) == len(combined.records) and complexity(candidate) < complexity(combined):
            combined = candidate
            parts.add(change.part)
    return combined


def shrink(failing: Sequence[CaseOutcome], evaluate: Evaluate, *, rounds: int, limit: int) -> list[Shrunk]:
    """Shrink every failing outcome, all of them together: each round is one ``evaluate`` call.

    Each round also tries the round's best reduction combined with the other reductions of the previous
    round that kept the failure (one per part of the scenario), so independent simplifications (a narrower
    window, an earlier ts, fewer keys) need not take one round each."""
    current = list(failing)
    progress = [0] * len(current)
    helpers: list[list[_Change]] = [[] for _ in current]
    active = set(range(len(current)))
    for number in range(1, rounds + 1):
        batch: list[Case] = []
        tried: dict[int, list[tuple[_Change | None, Case]]] = {}
        for which in sorted(active):
            case = current[which].case
            extra = [_combined(case, helpers[which])] if helpers[which] else []
            pairs = _reductions(case, limit=limit, extra=extra)
            tried[which] = [
                (change, _named(reduced, case, number, i)) for i, (change, reduced) in enumerate(pairs)
            ]
            batch.extend(named for _, named in tried[which])
        if not batch:
            break
        outcomes = evaluate(batch)
        for which, pairs in tried.items():
            kept = [
                (change, outcomes[named.id]) for change, named in pairs if outcomes[named.id].status == "fail"
            ]
            if not kept:
                active.discard(which)
                continue
            best_change, best = min(kept, key=lambda pair: complexity(pair[1].case))
            current[which] = best
            progress[which] += 1
            same_records = best_change is None or best_change.part != "records"
            helpers[which] = [
                change
                for change, _ in kept
                if same_records and change is not None and change is not best_change
            ]
        if not active:
            break
    return [
        Shrunk(original, minimal, steps)
        for original, minimal, steps in zip(failing, current, progress, strict=True)
    ]


def local_minimum(shrunk: Sequence[Shrunk], evaluate: Evaluate) -> list[Shrunk]:
    """Each shrunk case reduced until no single record, no key (all its records) and no micro-batch
    boundary can be removed while it still fails: every pass tries all those removals of every case not
    yet minimal in one ``evaluate`` call and keeps the smallest failing one. Terminates: each kept removal
    makes a case strictly smaller."""
    current = [item.minimal for item in shrunk]
    steps = [0] * len(current)
    active = set(range(len(current)))
    number = 0
    while active:
        number += 1
        tried = {
            which: [
                _named(reduced, current[which].case, number, i, "m")
                for i, reduced in enumerate(removals(current[which].case))
            ]
            for which in sorted(active)
        }
        batch = [case for cases in tried.values() for case in cases]
        if not batch:
            break
        outcomes = evaluate(batch)
        for which, cases in tried.items():
            kept = [outcomes[case.id] for case in cases if outcomes[case.id].status == "fail"]
            if not kept:
                active.discard(which)
                continue
            current[which] = min(kept, key=lambda outcome: complexity(outcome.case))
            steps[which] += 1
    return [
        replace(item, minimal=minimal, final_steps=count)
        for item, minimal, count in zip(shrunk, current, steps, strict=True)
    ]


def removals(case: Case) -> list[Case]:
    """``case`` without one of its records, without all records of one of its keys, or without one of its
    micro-batch boundaries: the neighbours a local minimum has none failing of."""
    count = len(case.records)
    subsets = [tuple(i for i in range(count) if i != gone) for gone in range(count)] if count > 1 else []
    keys = list(dict.fromkeys(record.key for record in case.records))
    if len(keys) > 1:
        subsets += [tuple(i for i, record in enumerate(case.records) if record.key != key) for key in keys]
    found = [_keep(kept, case) for kept in dict.fromkeys(subsets) if kept]
    if case.micro_batches is not None:
        found += [
            msgspec.structs.replace(case, micro_batches=without_start(case.micro_batches, start))
            for start in case.micro_batches.starts
        ]
    return found


def _named(reduced: Case, base: Case, round_number: int, index: int, stage: str = "r") -> Case:
    """``reduced`` with an id unique in its round: ``<original scenario>.r<round>.<n>`` (``.m``: the final
    pass), ``@<split>`` after it for a case fed in micro-batches."""
    root = base.scenario.split(".r", 1)[0].split(".m", 1)[0]
    named = msgspec.structs.replace(reduced, scenario=f"{root}.{stage}{round_number}.{index}")
    return msgspec.structs.replace(named, id=split_case_id(named))


def _changes(case: Case) -> Iterator[_Change]:
    yield from _record_subsets(case)
    yield from _boundary_changes(case)
    yield from _spec_changes(case)
    yield from _record_changes(case)


def _record_subsets(case: Case) -> Iterator[_Change]:
    """Subsets of one to ``_SMALL_SUBSETS`` records, and subsets without one or two records."""
    count = len(case.records)
    sizes = sorted({*range(1, min(_SMALL_SUBSETS, count - 1) + 1), *range(max(count - 2, 1), count)})
    for size in sizes:
        for kept in combinations(range(count), size):
            yield _Change("records", partial(_keep, kept))


def _keep(kept: tuple[int, ...], case: Case) -> Case:
    """The records ``kept`` (and the micro-batch boundaries between them)."""
    count = len(case.records)
    present = tuple(i for i in kept if i < count)
    records = tuple(case.records[i] for i in present)
    if case.micro_batches is None:
        return msgspec.structs.replace(case, records=records)
    return msgspec.structs.replace(
        case, records=records, micro_batches=kept_records(case.micro_batches, present)
    )


def _boundary_changes(case: Case) -> Iterator[_Change]:
    """Each micro-batch boundary removed (its two micro-batches merged)."""
    if case.micro_batches is not None:
        for start in case.micro_batches.starts:
            yield _Change("batches", partial(_without_boundary, start))


def _without_boundary(start: int, case: Case) -> Case:
    if case.micro_batches is None:
        return case
    return msgspec.structs.replace(case, micro_batches=without_start(case.micro_batches, start))


def _smaller(value: int) -> list[int]:
    """The values a size or timestamp shrinks to: 0 to 7, half and one less (all below ``value``)."""
    return sorted({*range(min(value, 8)), value // 2, value - 1} - {value}) if value > 0 else []


def _spec_changes(case: Case) -> Iterator[_Change]:
    spec = case.spec
    window = spec.window
    if window is not None:
        for part in ("before", "after", "grace"):
            current = getattr(window, part)
            for smaller in _smaller(current or 0):
                yield _Change(f"window.{part}", partial(_with_window, {part: smaller}))
        if window.legacy:
            yield _Change("window.legacy", partial(_with_window, {"legacy": False}))
        if spec.join == "stream-table":
            yield _Change("window", partial(_with_spec, {"window": None}))
    versioned = spec.versioned
    if versioned is not None:
        yield _Change("versioned", partial(_with_spec, {"versioned": None}))
        for smaller in _smaller(versioned.history_ms):
            yield _Change("versioned.history", partial(_with_versioned, {"history_ms": smaller}))
        if versioned.left and versioned.right:
            yield _Change("versioned.sides", partial(_with_versioned, {"left": False}))
            yield _Change("versioned.sides", partial(_with_versioned, {"right": False}))


def _with_spec(changes: dict[str, object], case: Case) -> Case:
    return msgspec.structs.replace(case, spec=msgspec.structs.replace(case.spec, **changes))


def _with_window(changes: dict[str, object], case: Case) -> Case:
    window = case.spec.window
    if window is None or (changes.get("grace") is not None and window.grace is None):
        return case
    return msgspec.structs.replace(
        case, spec=msgspec.structs.replace(case.spec, window=msgspec.structs.replace(window, **changes))
    )


def _with_versioned(changes: dict[str, object], case: Case) -> Case:
    versioned = case.spec.versioned
    if versioned is None:
        return case
    return msgspec.structs.replace(
        case, spec=msgspec.structs.replace(case.spec, versioned=msgspec.structs.replace(versioned, **changes))
    )


def _record_changes(case: Case) -> Iterator[_Change]:
    records = case.records
    others = {record.ts for record in records}
    for index, record in enumerate(records):
        for smaller in sorted(set(_smaller(record.ts)) | {ts for ts in others if ts < record.ts}):
            yield _Change(f"ts#{index}", partial(_with_ts, index, smaller))
    yield _Change("ts", _shifted_down)
    yield _Change("ts", _ranked)
    first = {prefix: f"{prefix}1" for prefix in ("k", "p", "f")}
    for key in sorted({r.key for r in records if isinstance(r.key, str)} - set(first.values())):
        yield _Change(f"key {key}", partial(_with_keys_renamed, {key: first.get(key[:1], key)}))
    yield _Change("names", _renamed)


def _with_ts(index: int, ts: int, case: Case) -> Case:
    if index >= len(case.records):
        return case
    return msgspec.structs.replace(
        case, records=_with(case.records, index, msgspec.structs.replace(case.records[index], ts=ts))
    )


def _shifted_down(case: Case) -> Case:
    """Every ts less the smallest one."""
    lowest = min((record.ts for record in case.records), default=0)
    return msgspec.structs.replace(
        case, records=tuple(msgspec.structs.replace(r, ts=r.ts - lowest) for r in case.records)
    )


def _ranked(case: Case) -> Case:
    """Every ts replaced by its rank among the distinct timestamps (order and equality kept)."""
    ranks = {ts: rank for rank, ts in enumerate(sorted({record.ts for record in case.records}))}
    return msgspec.structs.replace(
        case, records=tuple(msgspec.structs.replace(r, ts=ranks[r.ts]) for r in case.records)
    )


def _with(records: tuple[Record, ...], index: int, record: Record) -> tuple[Record, ...]:
    return (*records[:index], record, *records[index + 1 :])


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
        record if record.value is None else msgspec.structs.replace(record, value=_label(case, record, index))
        for index, record in enumerate(renamed)
    )
    return msgspec.structs.replace(case, records=labelled)


def _foreign_key(case: Case, record: Record) -> str | None:
    """The key a left value points to: an fk join's, or a stream-globaltable join's colon prefix."""
    spec = case.spec
    points = spec.join == "fk" or (spec.join == "stream-globaltable" and spec.key_mapper == "colon-prefix")
    if not points or record.side != "left" or record.value is None or ":" not in record.value:
        return None
    return record.value.split(":", 1)[0]


def _label(case: Case, record: Record, index: int) -> str:
    label = f"{record.side[0].upper()}{index}"
    foreign = _foreign_key(case, record)
    return label if foreign is None else f"{foreign}:{label}"


def _with_keys_renamed(mapping: dict[str, str], case: Case) -> Case:
    return msgspec.structs.replace(case, records=_rename_keys(case, mapping))


def _rename_keys(case: Case, mapping: dict[str, str]) -> tuple[Record, ...]:
    """Records with keys (and the foreign keys inside foreign-key join values) renamed by ``mapping``."""
    renamed: list[Record] = []
    for record in case.records:
        key: Key = mapping.get(record.key, record.key) if isinstance(record.key, str) else record.key
        value = record.value
        foreign = _foreign_key(case, record)
        if foreign is not None and value is not None:
            value = f"{mapping.get(foreign, foreign)}:{value.split(':', 1)[1]}"
        renamed.append(msgspec.structs.replace(record, key=key, value=value))
    return tuple(renamed)
