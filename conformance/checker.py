"""Compare a candidate's outputs with Kafka's (the oracle's): a pure checker that explains itself.

``check(expected, actual, mode) -> Verdict`` (STYLE.md §3, after Jepsen Elle): no Spark, no I/O. The
verdict's status is ``pass``, ``fail`` or ``unknown`` (the requested level cannot be decided, e.g. exact
order without the emitting input index), and a failing verdict carries typed ``Divergence`` data of a
closed list of kinds, each with its evidence. Rendering lives elsewhere (``conformance.harness.render``).

Equivalence levels (``Mode``), strongest first:

* ``exact``: the same outputs in the same order, each emitted while processing the same input record
  (needs the candidate's ``idx`` column);
* ``key-order``: the same outputs, in the same order per key;
* ``multiset``: the same outputs, in any order;
* ``table``: the same final table (fold each side's changelog: last value per key, a tombstone deletes);
  meaningful for table results (table-table and foreign-key joins) only.

Outputs are compared on key, value and timestamp (timestamps left out when the scenario does not know
them). Divergence kinds, the closed list:

* ``missing-output``: Kafka emits it, the candidate does not;
* ``unexpected-output``: the candidate emits it, Kafka does not;
* ``wrong-value``: a missing and an extra output with the same key at the same point (same emitting
  input when known, else same timestamp): the candidate emitted a different value there;
* ``wrong-timestamp``: the same key and value, another timestamp;
* ``out-of-order``: the same outputs, emitted in another order or while processing another input;
* ``candidate-error``: the candidate failed or returned unusable rows (evidence: message, traceback).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from kjoin.oracle.records import Output

__all__ = [
    "DIVERGENCE_KINDS",
    "MODES",
    "CandidateFailure",
    "Divergence",
    "DivergenceKind",
    "Emitted",
    "Mode",
    "Status",
    "Verdict",
    "check",
]

Mode = Literal["exact", "key-order", "multiset", "table"]
MODES: tuple[Mode, ...] = get_args(Mode)
Status = Literal["pass", "fail", "unknown"]
DivergenceKind = Literal[
    "missing-output", "unexpected-output", "wrong-value", "wrong-timestamp", "out-of-order", "candidate-error"
]
DIVERGENCE_KINDS: tuple[DivergenceKind, ...] = get_args(DivergenceKind)

UNKNOWN_CAUSE = -1
"""``Output.cause`` of a candidate output whose emitting input is not reported."""


@dataclass(frozen=True, slots=True)
class Emitted:
    """A candidate's outputs for one scenario, in its emission order.

    ``causes_known`` says whether each output's ``cause`` is the input index that emitted it (the
    candidate's ``idx`` column); otherwise causes are ``UNKNOWN_CAUSE``.
    """

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

    ``expected`` is Kafka's output involved (``None`` for ``unexpected-output``), ``actual`` the
    candidate's (``None`` for ``missing-output``), ``at`` the input index where it shows (the emitting
    input of Kafka's output, else of the candidate's when known), ``detail`` a short explanation
    (``candidate-error``: the message and traceback).
    """

    kind: DivergenceKind
    expected: Output | None = None
    actual: Output | None = None
    at: int | None = None
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Verdict:
    """The result of one check. ``divergences`` are sorted by input index (unknown last)."""

    status: Status
    mode: Mode
    divergences: tuple[Divergence, ...] = ()
    reason: str = ""

    @property
    def first(self) -> Divergence | None:
        """The divergence at the earliest input row, if any."""
        return self.divergences[0] if self.divergences else None

    def of_kind(self, kind: DivergenceKind) -> tuple[Divergence, ...]:
        """The divergences of one kind."""
        return tuple(d for d in self.divergences if d.kind == kind)


def check(
    expected: Sequence[Output], actual: Emitted | CandidateFailure, mode: Mode, *, timestamps: bool = True
) -> Verdict:
    """Compare Kafka's outputs (``expected``, emission order, causes known) with a candidate's at ``mode``."""
    if mode not in MODES:
        raise ValueError(f"unknown equivalence mode {mode!r} (one of {', '.join(MODES)})")
    if isinstance(actual, CandidateFailure):
        detail = f"{actual.message}\n{actual.traceback}".strip()
        return Verdict("fail", mode, (Divergence("candidate-error", detail=detail),))
    if mode == "exact" and not actual.causes_known:
        reason = "exact order needs the emitting input index (an idx column); the candidate reports none"
        return Verdict("unknown", mode, reason=reason)
    if mode == "table":
        found = _table_divergences(expected, actual.outputs, timestamps)
    else:
        found = _content_divergences(expected, actual, timestamps)
        if not found and mode == "exact":
            found = _exact_order_divergences(expected, actual.outputs, timestamps)
        elif not found and mode == "key-order":
            found = _key_order_divergences(expected, actual.outputs, timestamps)
    ordered = tuple(sorted(found, key=_position))
    return Verdict("fail" if ordered else "pass", mode, ordered)


def _position(divergence: Divergence) -> tuple[bool, int, int]:
    at = divergence.at
    return (at is None, at if at is not None else 0, DIVERGENCE_KINDS.index(divergence.kind))


def _content(output: Output, timestamps: bool) -> Hashable:
    return (output.key, output.value, output.ts if timestamps else None)


def _cause(output: Output) -> int | None:
    return None if output.cause == UNKNOWN_CAUSE else output.cause


def _content_divergences(expected: Sequence[Output], actual: Emitted, timestamps: bool) -> list[Divergence]:
    """Outputs one side has and the other has not (as multisets), paired up where they explain each other:
    same key and value -> wrong timestamp; same key at the same point -> wrong value."""
    have = Counter(_content(o, timestamps) for o in actual.outputs)
    want = Counter(_content(o, timestamps) for o in expected)
    missing = _surplus(expected, want - have, timestamps)
    extra = _surplus(actual.outputs, have - want, timestamps)
    found: list[Divergence] = []
    if timestamps:
        found += _pair(missing, extra, "wrong-timestamp", lambda e, a: (e.key, e.value) == (a.key, a.value))
    found += _pair(missing, extra, "wrong-value", _same_point(actual.causes_known))
    found += [Divergence("missing-output", expected=o, at=o.cause) for o in missing]
    found += [Divergence("unexpected-output", actual=o, at=_cause(o)) for o in extra]
    return found


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


def _same_point(causes_known: bool) -> Callable[[Output, Output], bool]:
    def same(e: Output, a: Output) -> bool:
        if e.key != a.key:
            return False
        return e.cause == a.cause if causes_known else e.ts == a.ts

    return same


def _pair(
    missing: list[Output], extra: list[Output], kind: DivergenceKind, match: Callable[[Output, Output], bool]
) -> list[Divergence]:
    """Pair each missing output with the first unpaired extra one that ``match``es; both leave the lists."""
    paired: list[Divergence] = []
    for want in list(missing):
        for got in extra:
            if match(want, got):
                paired.append(Divergence(kind, expected=want, actual=got, at=want.cause))
                missing.remove(want)
                extra.remove(got)
                break
    return paired


def _occurrence_pairs(expected: Sequence[Output], actual: Sequence[Output], timestamps: bool) -> list[int]:
    """For each actual output (same multiset as ``expected``), the position of the expected output it
    stands for: the k-th occurrence of a content pairs with the k-th occurrence."""
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
    expected: Sequence[Output], actual: Sequence[Output], timestamps: bool
) -> list[Divergence]:
    """Same multiset: every output must come from the same input, and in Kafka's order."""
    pairs = _occurrence_pairs(expected, actual, timestamps)
    found: list[Divergence] = []
    for got, position in zip(actual, pairs, strict=True):
        want = expected[position]
        if got.cause != want.cause:
            detail = f"emitted while processing input #{got.cause}; Kafka emits it at input #{want.cause}"
            at = min(want.cause, got.cause)
            found.append(Divergence("out-of-order", expected=want, actual=got, at=at, detail=detail))
    if found:
        return found
    return _first_inversion(expected, actual, pairs, "")


def _key_order_divergences(
    expected: Sequence[Output], actual: Sequence[Output], timestamps: bool
) -> list[Divergence]:
    """Same multiset: per key, the candidate's outputs must come in Kafka's order."""
    pairs = _occurrence_pairs(expected, actual, timestamps)
    by_key: dict[Hashable, list[int]] = defaultdict(list)
    for index, position in enumerate(pairs):
        by_key[expected[position].key].append(index)
    found: list[Divergence] = []
    for key, indices in by_key.items():
        found += _first_inversion(
            expected, [actual[i] for i in indices], [pairs[i] for i in indices], f" for key {key!r}"
        )
    return found


def _first_inversion(
    expected: Sequence[Output], actual: Sequence[Output], pairs: Sequence[int], scope: str
) -> list[Divergence]:
    """The first candidate output that comes before one Kafka emits earlier."""
    latest = -1
    for got, position in zip(actual, pairs, strict=True):
        if position < latest:
            want = expected[position]
            before = expected[latest]
            detail = f"emitted after {before.value!r}@{before.ts}{scope}; Kafka emits it before"
            return [Divergence("out-of-order", expected=want, actual=got, at=want.cause, detail=detail)]
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
    expected: Sequence[Output], actual: Sequence[Output], timestamps: bool
) -> list[Divergence]:
    """Row by row comparison of the two final tables (evidence: the output that left each row)."""
    want, have = _final_table(expected), _final_table(actual)
    final = "final table row"
    found: list[Divergence] = []
    for key, row in want.items():
        got = have.get(key)
        if got is None:
            found.append(Divergence("missing-output", expected=row, at=row.cause, detail=final))
        elif got.value != row.value:
            found.append(Divergence("wrong-value", expected=row, actual=got, at=row.cause, detail=final))
        elif timestamps and got.ts != row.ts:
            found.append(Divergence("wrong-timestamp", expected=row, actual=got, at=row.cause, detail=final))
    for key, got in have.items():
        if key not in want:
            found.append(Divergence("unexpected-output", actual=got, at=_cause(got), detail=final))
    return found
