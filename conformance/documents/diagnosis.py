"""What a run's divergences have in common: each divergence sorted into a *cause shape* (a missing tombstone,
a null-key record, a record later than the grace period, the trigger's timestamp where Kafka takes the
larger, ...), and the shapes counted over the run, each naming the spec rule it concerns.

Pure: a shape is decided from the typed divergence, the case's inputs and Kafka's outputs only
(``shape_of``). ``diagnose`` counts one case's divergences by shape (kept in the results document's case,
``diagnosis``); ``roll_up`` adds the cases of a run into the summary's ``diagnosis`` entries with one
sentence each ("every missing output is a tombstone (217 in 31 cases)"), which the terminal and the
report's index show (docs/results-format.md, docs/reports.md). A divergence takes the first shape that
fits, in the order of ``SHAPES``; one that fits none is counted under its kind only.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kjoin.conformance.catalogue import Case
from kjoin.conformance.checker import UNKNOWN_CAUSE, Divergence
from kjoin.conformance.documents.rules import rule
from kjoin.conformance.documents.vocabulary import DivergenceKind
from kjoin.oracle.records import Output, Record

__all__ = ["SHAPES", "Evidence", "Shape", "diagnose", "roll_up", "shape_of"]

Fits = Callable[["Evidence", Divergence], bool]

KIND_NOUNS: Mapping[DivergenceKind | None, tuple[str, str]] = {
    None: ("divergence", "divergences"),
    "missing-output": ("missing output", "missing outputs"),
    "unexpected-output": ("unexpected output", "unexpected outputs"),
    "wrong-value": ("wrong value", "wrong values"),
    "wrong-timestamp": ("wrong timestamp", "wrong timestamps"),
    "wrong-input": ("output emitted at another input", "outputs emitted at another input"),
    "out-of-order": ("output out of order", "outputs out of order"),
    "candidate-error": ("candidate error", "candidate errors"),
}
"""How the roll-up's sentences name a divergence kind (``None``: divergences of every kind)."""


@dataclass(frozen=True, slots=True)
class Shape:
    """A cause shape: which divergences it draws from (``kind``, ``None`` for any), what it says about them
    (singular and plural predicate), the spec rule it concerns per join kind, and the test that fits it."""

    id: str
    kinds: frozenset[DivergenceKind] | None
    says: tuple[str, str]
    rules: Mapping[str, str]
    fits: Fits

    @property
    def kind(self) -> DivergenceKind | None:
        """The one kind the shape draws from, else ``None``."""
        return next(iter(self.kinds)) if self.kinds is not None and len(self.kinds) == 1 else None


# --- the evidence each shape reads ------------------------------------------------------------------------


class Evidence:
    """One case's inputs and Kafka's outputs, with the lookups the shapes make built once (a case may have
    a million inputs and thousands of divergences): the latest timestamp before each input, each side and
    key's updates in order, the contents Kafka emits."""

    def __init__(self, case: Case, kafka: Sequence[Output]) -> None:
        self.case = case
        self.kafka = kafka
        self._latest: list[int | None] | None = None
        self._updates: dict[tuple[str, object], tuple[list[int], list[str | None]]] | None = None
        self._contents: set[tuple[object, ...]] | None = None

    def latest_before(self, at: int) -> int | None:
        """The largest timestamp of the inputs before ``at`` that count for lateness (stream-table: the
        stream's records only, as its grace buffer counts), ``None`` before any."""
        if self._latest is None:
            latest: list[int | None] = []
            seen: int | None = None
            for record in self.case.records:
                latest.append(seen)
                if self.case.join != "stream-table" or record.side == "left":
                    seen = record.ts if seen is None else max(seen, record.ts)
            self._latest = latest
        return self._latest[at]

    def updates(self, side: str, key: object, until: int) -> list[str | None]:
        """The values of ``side``'s records with ``key`` up to input ``until`` (included), in order."""
        if self._updates is None:
            updates: dict[tuple[str, object], tuple[list[int], list[str | None]]] = {}
            for index, record in enumerate(self.case.records):
                indexes, values = updates.setdefault((record.side, record.key), ([], []))
                indexes.append(index)
                values.append(record.value)
            self._updates = updates
        indexes, values = self._updates.get((side, key), ([], []))
        return values[: bisect_right(indexes, until)]

    def kafka_emits(self, output: Output) -> bool:
        """Whether Kafka emits an output of the same key, value and timestamp."""
        if self._contents is None:
            self._contents = {(o.key, o.value, o.ts) for o in self.kafka}
        return (output.key, output.value, output.ts) in self._contents


def _input(case: Case, divergence: Divergence) -> Record | None:
    at = divergence.at
    return case.records[at] if at is not None and 0 <= at < len(case.records) else None


def _subject(divergence: Divergence) -> Output | None:
    return divergence.expected if divergence.expected is not None else divergence.actual


def _one_sided(output: Output | None) -> bool:
    value = None if output is None else output.value
    return value is not None and (value[0] is None) != (value[1] is None)


def _null_key(evidence: Evidence, divergence: Divergence) -> bool:
    record = _input(evidence.case, divergence)
    outputs = (divergence.expected, divergence.actual)
    null_output = any(o is not None and o.key is None for o in outputs)
    return (record is not None and record.key is None) or null_output


_WINDOWED = ("stream-stream", "stream-table")


def _late(evidence: Evidence, divergence: Divergence) -> bool:
    """The input where it shows is older than the latest timestamp seen before it by more than the grace
    period (stream-stream: of any record; stream-table: of the stream's records, as its buffer counts)."""
    case = evidence.case
    window = case.spec.window
    record = _input(case, divergence)
    if window is None or window.grace is None or record is None or case.join not in _WINDOWED:
        return False
    if case.join == "stream-table" and record.side != "left":
        return False
    latest = evidence.latest_before(divergence.at or 0)
    return latest is not None and record.ts < latest - window.grace


def _missing_tombstone(evidence: Evidence, divergence: Divergence) -> bool:
    return divergence.expected is not None and divergence.expected.value is None


def _uses_deleted_value(evidence: Evidence, divergence: Divergence) -> bool:
    """The candidate's output joins a value that its key's last update on that side, before the output,
    deleted (a table side; for a foreign-key join only the left side, keyed like the output)."""
    case = evidence.case
    output = divergence.actual
    if output is None or output.value is None or case.join == "stream-stream":
        return False
    cause = output.cause if output.cause != UNKNOWN_CAUSE else divergence.at
    if cause is None:
        return False
    sides = {"stream-table": ("right",), "fk": ("left",)}.get(case.join, ("left", "right"))
    for position, side in enumerate(("left", "right")):
        value = output.value[position]
        if side not in sides or value is None:
            continue
        updates = evidence.updates(side, output.key, cause)
        if updates and updates[-1] is None and value in updates[:-1]:
            return True
    return False


def _trigger_timestamp(evidence: Evidence, divergence: Divergence) -> bool:
    expected, actual = divergence.expected, divergence.actual
    if expected is None or actual is None or expected.ts <= actual.ts:
        return False
    records = evidence.case.records
    cause = expected.cause if expected.cause != UNKNOWN_CAUSE else divergence.at
    if cause is None or not 0 <= cause < len(records):
        return False
    return actual.ts == records[cause].ts


def _held_released_early(evidence: Evidence, divergence: Divergence) -> bool:
    expected, actual = divergence.expected, divergence.actual
    return (
        evidence.case.join == "stream-stream"
        and expected is not None
        and actual is not None
        and _one_sided(expected)
        and actual.cause < expected.cause
    )


def _swapped(evidence: Evidence, divergence: Divergence) -> bool:
    expected, actual = divergence.expected, divergence.actual
    if expected is None or actual is None or expected.value is None or actual.value is None:
        return False
    return expected.value != actual.value and actual.value == (expected.value[1], expected.value[0])


def _non_joined(evidence: Evidence, divergence: Divergence) -> bool:
    return _one_sided(_subject(divergence))


def _duplicate(evidence: Evidence, divergence: Divergence) -> bool:
    output = divergence.actual
    return output is not None and evidence.kafka_emits(output)


def _always(evidence: Evidence, divergence: Divergence) -> bool:
    return True


_ANY_JOIN_TS = {"stream-stream": "SS-5", "stream-table": "ST-2", "table-table": "TT-8", "fk": "FK-9"}
_NON_JOINED = {"stream-stream": "SS-20", "stream-table": "ST-3", "table-table": "TT-5", "fk": "FK-7"}

SHAPES: tuple[Shape, ...] = (
    Shape(
        "null-key",
        None,
        ("concerns a null-key record", "concern null-key records"),
        {"stream-stream": "SS-10", "stream-table": "ST-4", "table-table": "TT-9", "fk": "FK-3"},
        _null_key,
    ),
    Shape(
        "late-record",
        None,
        ("shows at a record later than the grace period", "show at records later than the grace period"),
        {"stream-stream": "SS-27", "stream-table": "ST-8"},
        _late,
    ),
    Shape(
        "missing-tombstone",
        frozenset({"missing-output"}),
        ("is a tombstone (a delete Kafka forwards)", "are tombstones (deletes Kafka forwards)"),
        {"table-table": "TT-1", "fk": "FK-4"},
        _missing_tombstone,
    ),
    Shape(
        "deleted-value-used",
        frozenset({"unexpected-output", "wrong-value"}),
        ("joins a value an earlier delete removed", "join values an earlier delete removed"),
        {"stream-table": "ST-5", "table-table": "TT-1", "fk": "FK-8"},
        _uses_deleted_value,
    ),
    Shape(
        "trigger-timestamp",
        frozenset({"wrong-timestamp"}),
        (
            "carries the triggering record's timestamp where Kafka takes the larger of the two",
            "carry the triggering record's timestamp where Kafka takes the larger of the two",
        ),
        {"stream-stream": "SS-4", "stream-table": "ST-2", "table-table": "TT-8", "fk": "FK-9"},
        _trigger_timestamp,
    ),
    Shape(
        "timestamp-rule",
        frozenset({"wrong-timestamp"}),
        ("follows another timestamp rule", "follow another timestamp rule"),
        _ANY_JOIN_TS,
        _always,
    ),
    Shape(
        "held-result-early",
        frozenset({"wrong-input"}),
        (
            "is a non-joined result emitted before Kafka releases it (Kafka holds it until its window "
            "closes)",
            "are non-joined results emitted before Kafka releases them (Kafka holds them until their window "
            "closes)",
        ),
        {"stream-stream": "SS-20"},
        _held_released_early,
    ),
    Shape(
        "wrong-input",
        frozenset({"wrong-input"}),
        ("is emitted while processing another input", "are emitted while processing another input"),
        {"stream-stream": "SS-18", **dict.fromkeys(("stream-table", "table-table", "fk"), "PROCESSING")},
        _always,
    ),
    Shape(
        "swapped-values",
        frozenset({"wrong-value"}),
        (
            "has the two values swapped (the joiner gets the left value first)",
            "have the two values swapped (the joiner gets the left value first)",
        ),
        dict.fromkeys(("stream-stream", "stream-table", "table-table", "fk"), "NOTATION"),
        _swapped,
    ),
    Shape(
        "missing-non-joined",
        frozenset({"missing-output"}),
        ("is a non-joined result (one side null)", "are non-joined results (one side null)"),
        _NON_JOINED,
        _non_joined,
    ),
    Shape(
        "duplicate",
        frozenset({"unexpected-output"}),
        ("repeats an output Kafka emits fewer times", "repeat outputs Kafka emits fewer times"),
        {"stream-stream": "SS-3", "stream-table": "ST-1", "table-table": "TT-1", "fk": "FK-7"},
        _duplicate,
    ),
    Shape(
        "unexpected-non-joined",
        frozenset({"unexpected-output"}),
        ("is a non-joined result (one side null)", "are non-joined results (one side null)"),
        _NON_JOINED,
        _non_joined,
    ),
)
"""Every cause shape, in the order a divergence is tried against them (the most specific first)."""
_BY_ID = {shape.id: shape for shape in SHAPES}


def shape_of(case: Case, kafka: Sequence[Output], divergence: Divergence) -> Shape | None:
    """The first shape ``divergence`` of ``case`` fits (``kafka``: Kafka's outputs for the case), if any."""
    return _shape(Evidence(case, kafka), divergence)


def _shape(evidence: Evidence, divergence: Divergence) -> Shape | None:
    if divergence.kind == "candidate-error":
        return None
    for shape in SHAPES:
        if (shape.kinds is None or divergence.kind in shape.kinds) and shape.fits(evidence, divergence):
            return shape
    return None


def diagnose(case: Case, kafka: Sequence[Output], divergences: Sequence[Divergence]) -> dict[str, Any]:
    """One case's divergences counted by shape and by kind (the results document's case ``diagnosis``)."""
    shapes: Counter[str] = Counter()
    evidence = Evidence(case, kafka)
    for divergence in divergences:
        shape = _shape(evidence, divergence)
        if shape is not None:
            shapes[shape.id] += 1
    kinds = Counter(divergence.kind for divergence in divergences)
    return {"shapes": dict(sorted(shapes.items())), "kinds": dict(sorted(kinds.items()))}


def _nouns(shape: Shape) -> tuple[str, str]:
    """How a sentence names the divergences a shape draws from: ``missing output(s)``, or every kind it
    draws from (``unexpected output or wrong value``)."""
    if shape.kinds is None or len(shape.kinds) == 1:
        return KIND_NOUNS[shape.kind]
    kinds = sorted(shape.kinds, key=list(KIND_NOUNS).index)
    return (
        " or ".join(KIND_NOUNS[kind][0] for kind in kinds),
        " and ".join(KIND_NOUNS[kind][1] for kind in kinds),
    )


def _sentence(shape: Shape, count: int, total: int, cases: int) -> str:
    singular, plural = _nouns(shape)
    where = f"{cases} case" + ("" if cases == 1 else "s")
    if count == total:
        return f"every {singular} {shape.says[0]} ({count} in {where})"
    return f"{count} of {total} {plural} {shape.says[1]} ({where})"


def roll_up(cases: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The summary's ``diagnosis``: for each shape found in the failing ``cases`` (results-document cases
    with a ``diagnosis``), how many divergences and cases it covers, out of how many divergences of its
    kind, the rules it concerns (of the join kinds it occurred in) and its sentence; most divergences
    first."""
    divergences: Counter[str] = Counter()
    cases_of: Counter[str] = Counter()
    joins: dict[str, set[str]] = {}
    kinds: Counter[str] = Counter()
    for case in cases:
        found = case.get("diagnosis")
        if case.get("status") != "fail" or not isinstance(found, Mapping):
            continue
        kinds.update({str(kind): int(n) for kind, n in (found.get("kinds") or {}).items()})
        for shape_id, count in (found.get("shapes") or {}).items():
            if shape_id in _BY_ID:
                divergences[shape_id] += int(count)
                cases_of[shape_id] += 1
                joins.setdefault(shape_id, set()).add(str(case.get("join")))
    entries = []
    for shape_id, count in divergences.items():
        shape = _BY_ID[shape_id]
        total = sum(kinds.values()) if shape.kinds is None else sum(kinds[k] for k in shape.kinds)
        cited = dict.fromkeys(shape.rules[join] for join in sorted(joins[shape_id]) if join in shape.rules)
        entries.append(
            {
                "shape": shape_id,
                "kind": shape.kind,
                "divergences": count,
                "of_kind": total,
                "cases": cases_of[shape_id],
                "rules": [rule(rule_id).to_json() for rule_id in cited],
                "text": _sentence(shape, count, total, cases_of[shape_id]),
            }
        )
    order = {shape.id: index for index, shape in enumerate(SHAPES)}
    return sorted(entries, key=lambda entry: (-entry["divergences"], order[entry["shape"]]))
