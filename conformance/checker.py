"""Compare two output sequences and explain every difference: the project's one checker (pure; no Spark, no
I/O).

``check(expected, actual, mode) -> Verdict`` (docs/candidates.md, "What is compared"; after Jepsen Elle)
serves every comparison: a candidate's outputs against the oracle's, and the oracle's against what a
scenario file states. The verdict's
status is ``pass``, ``fail`` or ``unknown`` (the requested level cannot be decided, e.g. exact order from a
candidate that does not say which input emitted each output), and a failing verdict carries typed
``Divergence`` data of a closed list of kinds, each with its evidence. Rendering lives elsewhere.

Each side is ``Emitted``: outputs in emission order and whether each output's ``cause`` (the input that
emitted it) is known. Seed tables and the oracle know causes; captured traces give only the order.

Equivalence levels (``Mode``), strongest first:

* ``exact``: the same outputs in the same order; where both sides know causes, each emitted while
  processing the same input;
* ``key-order``: the same outputs, in the same order per key;
* ``multiset``: the same outputs, in any order;
* ``commit-points``: what Kafka with record caches emits for *some* sequence of commit points, up to the
  order of keys within one commit (and, for table results, an identical repeat of a key within one commit
  counted once): the level of micro-batch ports (spec CP-1 to CP-4). Kafka's side is not
  one output sequence but ``segments``, what it emits between any two commit points
  (``kjoin.conformance.commit_points``); a passing verdict names the commit points that explain the output;
* ``table``: the same final table (each changelog folded: last value per key, a tombstone deletes);
  meaningful for table results (table-table and foreign-key joins) only.

Outputs are compared on key, value and timestamp; ``timestamps=False`` (a file that states none) makes every
timestamp match. The kinds of divergence, each with its meaning, are ``DIVERGENCE_KINDS`` in
``kjoin.conformance.documents.vocabulary``. Details are sentences in the project's notation naming the two
sides (``names``: Kafka and the candidate by default; the scenario file and the oracle when ``kjoin check``
compares them).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from kjoin.conformance.commit_points import Explanation, Segments, explain
from kjoin.conformance.documents.vocabulary import KIND_ORDER, DivergenceKind
from kjoin.conformance.notation import show_key, show_output
from kjoin.oracle.records import UNKNOWN_CAUSE, Output

__all__ = [
    "MODES",
    "UNKNOWN_CAUSE",
    "CandidateFailure",
    "Divergence",
    "Emitted",
    "Mode",
    "Segments",
    "Status",
    "Verdict",
    "check",
]

Mode = Literal["exact", "key-order", "multiset", "commit-points", "table"]
MODES: tuple[Mode, ...] = get_args(Mode)
Status = Literal["pass", "fail", "unknown"]


@dataclass(frozen=True, slots=True)
class Emitted:
    """Outputs for one scenario in emission order; ``causes_known``: each ``cause`` is the emitting input."""

    outputs: tuple[Output, ...]
    causes_known: bool = False


@dataclass(frozen=True, slots=True)
class CandidateFailure:
    """The candidate produced no usable outputs for this scenario: why, and the traceback if any."""

    message: str
    traceback: str = ""


@dataclass(frozen=True, slots=True)
class Divergence:
    """One difference, with its evidence.

    ``expected`` is Kafka's output involved (``None`` for ``unexpected-output``), ``actual`` the other side's
    (``None`` for ``missing-output``), ``at`` the input index where it shows (the emitting input of Kafka's
    output, else of the other side's when known), ``detail`` a sentence in the project's notation
    (``candidate-error``: the message and traceback).
    """

    kind: DivergenceKind
    expected: Output | None = None
    actual: Output | None = None
    at: int | None = None
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Verdict:
    """The result of one check. ``divergences`` are sorted by input index (unknown last), then kind.
    ``commit_points`` (level ``commit-points``): the input indexes after which a commit explains the other
    side's output (the last: the end of the input) when it passes, those that explain the most of it (the
    outputs before the first divergence) when it fails."""

    status: Status
    mode: Mode
    divergences: tuple[Divergence, ...] = ()
    reason: str = ""
    commit_points: tuple[int, ...] | None = None

    @property
    def first(self) -> Divergence | None:
        """The divergence at the earliest input, if any."""
        return self.divergences[0] if self.divergences else None

    def of_kind(self, kind: DivergenceKind) -> tuple[Divergence, ...]:
        """The divergences of one kind."""
        return tuple(d for d in self.divergences if d.kind == kind)


def check(
    expected: Emitted,
    actual: Emitted | CandidateFailure,
    mode: Mode,
    *,
    timestamps: bool = True,
    names: tuple[str, str] = ("Kafka", "the candidate"),
    segments: Segments | None = None,
) -> Verdict:
    """Compare Kafka's outputs (``expected``) with another side's (``actual``) at equivalence ``mode``;
    ``names`` are the two sides as the details call them. ``commit-points`` compares with ``segments``,
    what Kafka emits between any two commit points, instead of ``expected``."""
    if mode not in MODES:
        raise ValueError(f"unknown equivalence mode {mode!r} (one of {', '.join(MODES)})")
    if isinstance(actual, CandidateFailure):
        detail = f"{actual.message}\n{actual.traceback}".strip()
        return Verdict("fail", mode, (Divergence("candidate-error", detail=detail),))
    if mode == "commit-points":
        if segments is None:
            raise ValueError("the commit-points level needs Kafka's segments (what it emits between commits)")
        return _commit_points_verdict(explain(actual.outputs, segments, timestamps=timestamps), names)
    if mode == "exact" and not actual.causes_known:
        reason = "exact order needs the emitting input index (an idx column); the candidate reports none"
        return Verdict("unknown", mode, reason=reason)
    if mode == "table":
        found = _table_divergences(expected.outputs, actual.outputs, timestamps, names)
    else:
        found = _content_divergences(expected, actual, timestamps, names)
        if not found and mode == "exact":
            found = _exact_order_divergences(expected, actual, timestamps, names)
        elif not found and mode == "key-order":
            found = _key_order_divergences(expected.outputs, actual.outputs, timestamps, names)
    ordered = tuple(sorted(found, key=_position))
    return Verdict("fail" if ordered else "pass", mode, ordered)


_KIND_ORDER = {kind: index for index, kind in enumerate(KIND_ORDER)}


def _position(divergence: Divergence) -> tuple[bool, int, int]:
    at = divergence.at
    return (at is None, at if at is not None else 0, _KIND_ORDER[divergence.kind])


def _content(output: Output, timestamps: bool) -> Hashable:
    return (output.key, output.value, output.ts if timestamps else None)


def _cause(output: Output) -> int | None:
    return None if output.cause == UNKNOWN_CAUSE else output.cause


def _at(want: Output | None, got: Output | None) -> int | None:
    """Where a divergence shows: the emitting input of Kafka's output, else of the other side's."""
    if want is not None and _cause(want) is not None:
        return want.cause
    return None if got is None else _cause(got)


def _content_divergences(
    expected: Emitted, actual: Emitted, timestamps: bool, names: tuple[str, str]
) -> list[Divergence]:
    """Outputs one side has and the other has not (as multisets), paired up where they explain each other:
    the same key and value -> wrong timestamp; the same key at the same place -> wrong value. Pairs at the
    same emitting input are preferred."""
    have = Counter(_content(o, timestamps) for o in actual.outputs)
    want = Counter(_content(o, timestamps) for o in expected.outputs)
    missing = _surplus(expected.outputs, want - have, timestamps)
    extra = _surplus(actual.outputs, have - want, timestamps)
    both_causes = expected.causes_known and actual.causes_known
    found: list[Divergence] = []
    if timestamps:
        same_result = _same(lambda e, a: (e.key, e.value) == (a.key, a.value), both_causes)
        for predicate in same_result:
            found += _pair(missing, extra, "wrong-timestamp", predicate, names)
    if both_causes:
        place: Callable[[Output, Output], bool] = lambda e, a: e.key == a.key and e.cause == a.cause  # noqa: E731
    elif timestamps:
        place = lambda e, a: e.key == a.key and e.ts == a.ts  # noqa: E731
    else:
        place = lambda e, a: e.key == a.key  # noqa: E731
    found += _pair(missing, extra, "wrong-value", place, names)
    found += [
        Divergence("missing-output", expected=o, at=_at(o, None), detail=_missing(o, names)) for o in missing
    ]
    found += [
        Divergence("unexpected-output", actual=o, at=_at(None, o), detail=_unexpected(o, names))
        for o in extra
    ]
    return found


def _same(
    predicate: Callable[[Output, Output], bool], both_causes: bool
) -> list[Callable[[Output, Output], bool]]:
    """``predicate`` restricted to the same emitting input first (when both sides know it), then as is."""
    if not both_causes:
        return [predicate]
    return [lambda e, a: predicate(e, a) and e.cause == a.cause, predicate]


def _surplus(outputs: Sequence[Output], surplus: Counter[Hashable], timestamps: bool) -> list[Output]:
    """The last ``surplus[c]`` outputs of each content ``c``, in emission order."""
    left = Counter(surplus)
    picked: list[Output] = []
    for output in reversed(outputs):
        content = _content(output, timestamps)
        if left[content] > 0:
            left[content] -= 1
            picked.append(output)
    return picked[::-1]


def _pair(
    missing: list[Output],
    extra: list[Output],
    kind: DivergenceKind,
    match: Callable[[Output, Output], bool],
    names: tuple[str, str],
) -> list[Divergence]:
    """Pair each missing output with the first unpaired extra one that ``match``es; both leave the lists."""
    paired: list[Divergence] = []
    for want in list(missing):
        for got in extra:
            if match(want, got):
                detail = f"{names[0]} emits {show_output(want)}, {names[1]} {show_output(got)}"
                paired.append(Divergence(kind, expected=want, actual=got, at=_at(want, got), detail=detail))
                missing.remove(want)
                extra.remove(got)
                break
    return paired


def _missing(output: Output, names: tuple[str, str]) -> str:
    where = "" if _cause(output) is None else f" while processing input #{output.cause}"
    return f"{names[0]} emits {show_output(output)}{where}; {names[1]} does not"


def _unexpected(output: Output, names: tuple[str, str]) -> str:
    where = "" if _cause(output) is None else f" while processing input #{output.cause}"
    return f"{names[1]} emits {show_output(output)}{where}; {names[0]} does not"


def _occurrence_pairs(expected: Sequence[Output], actual: Sequence[Output], timestamps: bool) -> list[int]:
    """For each actual output (same multiset as ``expected``), the position of the expected output it stands
    for: the k-th occurrence of a content pairs with the k-th occurrence."""
    positions: dict[Hashable, list[int]] = defaultdict(list)
    for position, output in enumerate(expected):
        positions[_content(output, timestamps)].append(position)
    taken: Counter[Hashable] = Counter()
    pairs: list[int] = []
    for output in actual:
        content = _content(output, timestamps)
        pairs.append(positions[content][taken[content]])
        taken[content] += 1
    return pairs


def _exact_order_divergences(
    expected: Emitted, actual: Emitted, timestamps: bool, names: tuple[str, str]
) -> list[Divergence]:
    """Same multiset: each output from the same input (when both know), then in Kafka's order."""
    pairs = _occurrence_pairs(expected.outputs, actual.outputs, timestamps)
    found: list[Divergence] = []
    if expected.causes_known and actual.causes_known:
        for got, position in zip(actual.outputs, pairs, strict=True):
            want = expected.outputs[position]
            if got.cause != want.cause:
                detail = (
                    f"{names[1]} emits {show_output(want)} while processing input #{got.cause}; "
                    f"{names[0]} emits it while processing input #{want.cause}"
                )
                at = min(want.cause, got.cause)
                found.append(Divergence("wrong-input", expected=want, actual=got, at=at, detail=detail))
    if found:
        return found
    return _first_inversion(expected.outputs, actual.outputs, pairs, "", names)


def _key_order_divergences(
    expected: Sequence[Output], actual: Sequence[Output], timestamps: bool, names: tuple[str, str]
) -> list[Divergence]:
    """Same multiset: per key, the other side's outputs come in Kafka's order."""
    pairs = _occurrence_pairs(expected, actual, timestamps)
    by_key: dict[Hashable, list[int]] = defaultdict(list)
    for index, position in enumerate(pairs):
        by_key[expected[position].key].append(index)
    found: list[Divergence] = []
    for key, indices in by_key.items():
        found += _first_inversion(
            expected, [actual[i] for i in indices], [pairs[i] for i in indices], f" (key {key})", names
        )
    return found


def _first_inversion(
    expected: Sequence[Output],
    actual: Sequence[Output],
    pairs: Sequence[int],
    scope: str,
    names: tuple[str, str],
) -> list[Divergence]:
    """The first output the other side emits after one that Kafka emits later."""
    latest = -1
    for got, position in zip(actual, pairs, strict=True):
        if position < latest:
            want, later = expected[position], expected[latest]
            detail = (
                f"{names[0]} emits {show_output(want)} before {show_output(later)}{scope}; "
                f"{names[1]} emits it after"
            )
            return [Divergence("out-of-order", expected=want, actual=got, at=_at(want, got), detail=detail)]
        latest = position
    return []


def _final_table(outputs: Sequence[Output]) -> dict[Hashable, Output]:
    """The table a changelog leaves behind: the last output per key; a tombstone deletes the key."""
    table: dict[Hashable, Output] = {}
    for output in outputs:
        if output.value is None:
            table.pop(output.key, None)
        else:
            table[output.key] = output
    return table


def _table_divergences(
    expected: Sequence[Output], actual: Sequence[Output], timestamps: bool, names: tuple[str, str]
) -> list[Divergence]:
    """Row by row comparison of the two final tables (evidence: the output that left each row)."""
    want, have = _final_table(expected), _final_table(actual)
    found: list[Divergence] = []
    for key, row in want.items():
        got = have.get(key)
        if got is None:
            detail = f"{names[0]}'s final table has {show_output(row)}; {names[1]}'s has no row for the key"
            found.append(Divergence("missing-output", expected=row, at=_at(row, None), detail=detail))
        elif got.value != row.value:
            detail = f"final table row: {names[0]} {show_output(row)}, {names[1]} {show_output(got)}"
            found.append(Divergence("wrong-value", expected=row, actual=got, at=_at(row, got), detail=detail))
        elif timestamps and got.ts != row.ts:
            detail = f"final table row: {names[0]} {show_output(row)}, {names[1]} {show_output(got)}"
            found.append(
                Divergence("wrong-timestamp", expected=row, actual=got, at=_at(row, got), detail=detail)
            )
    for key, got in have.items():
        if key not in want:
            detail = f"{names[1]}'s final table has {show_output(got)}; {names[0]}'s has no row for the key"
            found.append(Divergence("unexpected-output", actual=got, at=_at(None, got), detail=detail))
    return found


def _commit_points_verdict(found: Explanation, names: tuple[str, str]) -> Verdict:
    """The verdict of level ``commit-points``: the commit points that explain the other side's output, or
    the first output no commit points explain (``unexplained-output``), or, when all are explained but the
    input is not finished, the first output Kafka must still emit (``missing-output``)."""
    if found.passed:
        return Verdict("pass", "commit-points", commit_points=found.commits)
    kafka, other = names
    want, got = found.expected, found.unexplained
    schedule = found.commits if found.until is None else (*found.commits, found.until)
    fit = f"fit what {kafka} emits with commits after " + ", ".join(f"input #{index}" for index in schedule)
    if got is None:
        assert want is not None
        detail = (
            f"{other}'s {found.explained} outputs {fit}, but no commit points let {kafka} stop there: by the "
            f"commit after input #{found.until} it also emits {show_output(want)}; {other} does not"
        )
        divergence = Divergence("missing-output", expected=want, at=_at(want, None), detail=detail)
    else:
        detail = (
            f"no commit points make {kafka} emit {show_output(got)} as {other}'s output #{found.explained}"
        )
        if found.explained:
            detail += f" (the outputs before it {fit})"
        if want is not None and want.key == got.key:
            detail += f"; next for key {show_key(got.key)} {kafka} emits {show_output(want)}"
        elif want is not None:
            detail += (
                f"; {kafka}'s flush at the commit after input #{found.until} also emits {show_output(want)}"
            )
        at = found.commits[-1] + 1 if found.commits else 0
        divergence = Divergence("unexplained-output", expected=want, actual=got, at=at, detail=detail)
    return Verdict("fail", "commit-points", (divergence,), commit_points=schedule)
