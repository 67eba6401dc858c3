"""Why Kafka emits (or does not emit) an output where a candidate first differs, as a value: the sentence, the
spec rule it applies and the numbers it uses (docs/results-format.md, ``explanation.why``).

This module holds the reasons that depend on the divergence's kind in every join (a timestamp, the emitting
input, an order) and the reasons of the table-like joins (stream-table, table-table, foreign-key,
stream-GlobalKTable), each naming the row, buffer entry or subscription of Kafka's state that decides the
output. The stream-stream join's reasons (windows, held records, emission passes) are in ``explain``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from kjoin.conformance.catalogue import Case
from kjoin.conformance.checker import Divergence
from kjoin.conformance.documents.rules import rule
from kjoin.conformance.notation import show_output
from kjoin.oracle.behaviour import Behaviour
from kjoin.oracle.records import Key, Output, Record, foreign_key_of, mapped_key_of

__all__ = ["Why", "kind_why", "table_join_why"]

Row = tuple[Any, int]
"""A table's current value for a key and its timestamp."""


@dataclass(frozen=True, slots=True)
class Why:
    """Why Kafka emits (or does not emit) an output: the sentence, the spec rule that decides it (an id of
    ``rules.RULES``, or ``None``) and the numbers the sentence uses, by name."""

    text: str
    rule: str | None = None
    numbers: Mapping[str, int | None] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """``{"text", "rule": {"id", "title", "link"} | null, "numbers": {name: int | null}}``."""
        return {
            "text": self.text,
            "rule": None if self.rule is None else rule(self.rule).to_json(),
            "numbers": dict(self.numbers),
        }


def _shown_key(key: Key) -> str:
    return "null" if key is None else str(key)


def _record(record: Record) -> str:
    value = "null" if record.value is None else record.value
    return f"{record.side} {_shown_key(record.key)}={value}@{record.ts}"


def _row_text(row: Row | None, key: Key, table: str) -> str:
    if row is None:
        return f"the {table} holds no {_shown_key(key)}"
    return f"the {table} holds {_shown_key(key)} = {row[0]} (ts {row[1]})"


def current_row(table: Mapping[str, Any], key: Key) -> Row | None:
    """A table's current value for ``key`` as the snapshot shows it (stores name keys by ``repr``): plain,
    versioned (the latest version) or behind a record cache (a dirty entry first: what a lookup reads
    through the cache, spec PR-6)."""
    if "store" in table and "dirty" in table:
        for dirty_key, value, ts in reversed(table["dirty"]):
            if dirty_key == key:
                return None if value is None else (value, ts)
        return current_row(table["store"], key)
    if "keys" in table:
        entry = table["keys"].get(repr(key))
        latest = None if entry is None else entry["latest"]
        return None if latest is None else (latest["value"], latest["ts"])
    row = table.get(repr(key))
    return None if row is None else (row["value"], row["ts"])


def row_as_of(table: Mapping[str, Any], key: Key, ts: int) -> Row | None:
    """The value a versioned table held for ``key`` at ``ts`` (spec ST-6); a plain table's current one."""
    if "keys" not in table:
        return current_row(table, key)
    entry = table["keys"].get(repr(key))
    if entry is None:
        return None
    latest = entry["latest"]
    if latest is not None and latest["ts"] <= ts:
        return latest["value"], latest["ts"]
    for version in (entry["history"] or {}).get("versions", []):
        if version["from"] <= ts < version["to"]:
            return version["value"], version["from"]
    return None


def is_dirty(table: Mapping[str, Any], key: Key) -> bool:
    """Whether ``key`` waits in the table's record cache, not forwarded yet (spec PR-6)."""
    return "dirty" in table and any(dirty_key == key for dirty_key, _, _ in table["dirty"])


# --- reasons by divergence kind, in every join ----------------------------------------------------------


def _is_joined(output: Output) -> bool:
    value = output.value
    return value is not None and value[0] is not None and value[1] is not None


def _timestamp_rule(case: Case, behaviour: Behaviour, output: Output) -> tuple[str, str]:
    """The spec rule that stamps ``output`` and its sentence, as the case's release applies it."""
    if case.join == "stream-stream":
        if not _is_joined(output):
            return "SS-5", "a non-joined result carries its own record's timestamp"
        if behaviour.stream_join_ts_is_max_of_inputs:
            return "SS-4", "a joined result carries the larger of the two records' timestamps (2.3+)"
        return "SS-4", "a joined result carries the triggering record's timestamp (up to 2.2)"
    if case.join == "table-table":
        if behaviour.table_join_ts_is_max_of_inputs:
            return "TT-8", (
                "a result carries the larger of the update's timestamp and the other side's stored one, "
                "or the update's when the other side has no value (2.3+)"
            )
        return "TT-8", "a result carries the update's timestamp (up to 2.2)"
    if case.join == "fk":
        return "FK-9", (
            "a result of a left change carries max(left ts, right ts) when the right value exists, else the "
            "left record's; a result of a right change carries the right record's timestamp"
        )
    if case.join == "stream-globaltable":
        return "GT-6", "a result carries the stream record's own timestamp, whatever the table value's"
    return "ST-2", "a result carries the stream record's own timestamp, also after the grace buffer"


def _order_rule(case: Case) -> tuple[str, str]:
    if case.join == "stream-stream":
        return "SS-3", "one joined result per partner, in the window store's order"
    if case.join == "fk":
        return "FK-8", "a right update reaches its subscribers in the subscription store's prefix-scan order"
    if case.join == "stream-table":
        return "ST-8", "the grace buffer releases records in (ts, key, arrival) order"
    return "PROCESSING", "outputs follow the inputs that emit them, in processing order"


def _input_rule(case: Case, output: Output) -> tuple[str, str]:
    if case.join == "stream-stream":
        if _is_joined(output):
            return "SS-2", "a joined result is emitted by the later of its two records"
        return "SS-20", "a result without partner is emitted at once if its window has ended, else later"
    if case.join == "stream-table":
        return "ST-1", "only stream records trigger output (with a grace buffer, when they leave it)"
    if case.join == "stream-globaltable":
        return "GT-3", "global table updates never emit; each stream record is joined when it is processed"
    if case.join == "fk":
        return "FK-1", "a left change emits through its subscription, a right change through its subscribers"
    return "TT-1", "each update emits against the other side's current value"


def kind_why(case: Case, behaviour: Behaviour, first: Divergence) -> Why | None:
    """The reason of a divergence decided by its kind, in every join: a timestamp rule, the input that
    emits, an order; ``None`` for the kinds whose reason depends on the join's state."""
    expected, actual = first.expected, first.actual
    if expected is None or actual is None:
        return None
    shown = show_output(expected)
    if first.kind == "wrong-timestamp":
        rule_id, sentence = _timestamp_rule(case, behaviour, expected)
        record = case.records[first.at or 0]
        return Why(
            f"Kafka stamps {shown} with ts {expected.ts}, the candidate with {actual.ts}: {sentence} (input "
            f"#{first.at}: {_record(record)}).",
            rule_id,
            {"kafka_ts": expected.ts, "candidate_ts": actual.ts, "input_ts": record.ts},
        )
    if first.kind == "wrong-input":
        rule_id, sentence = _input_rule(case, expected)
        return Why(
            f"Kafka emits {shown} while processing input #{expected.cause} "
            f"({_record(case.records[expected.cause])}), the candidate while processing input "
            f"#{actual.cause}: {sentence}.",
            rule_id,
            {"kafka_input": expected.cause, "candidate_input": actual.cause},
        )
    if first.kind == "out-of-order":
        rule_id, sentence = _order_rule(case)
        return Why(
            f"Kafka emits {shown} before {show_output(actual)}; the candidate the other way round: "
            f"{sentence}.",
            rule_id,
            {"input": first.at},
        )
    return None


# --- table-like joins: missing, unexpected and wrong values ----------------------------------------------


def table_join_why(
    case: Case, behaviour: Behaviour, first: Divergence, before: Mapping[str, Any], after: Mapping[str, Any]
) -> Why:
    """What row, buffer entry or subscription of Kafka's state decides the output ``first`` is about, for
    the joins other than stream-stream; ``before``/``after``: the snapshots around the input it shows at."""
    subject = first.expected or first.actual
    assert subject is not None
    reason = {
        "stream-table": _stream_table_why,
        "stream-globaltable": _global_table_why,
        "table-table": _table_table_why,
        "fk": _fk_why,
    }[case.join]
    return reason(_Moment(case, behaviour, first.at or 0, subject, first.expected is not None, before, after))


class _Moment(NamedTuple):
    """Where a divergence shows: the case, its release's behaviour, the input, the output in question,
    whether Kafka emits it, and Kafka's state before and after that input."""

    case: Case
    behaviour: Behaviour
    at: int
    subject: Output
    kafka_emits: bool
    before: Mapping[str, Any]
    after: Mapping[str, Any]


def _emits(kafka_emits: bool, subject: Output) -> str:
    verb = "emits" if kafka_emits else "does not emit"
    return f"Kafka {verb} {show_output(subject)}"


def _stream_table_why(moment: _Moment) -> Why:
    case, _behaviour, at, subject, kafka_emits, before, after = moment
    record = case.records[at]
    buffer = after.get("buffer")
    numbers: dict[str, int | None] = {"input": at, "ts": subject.ts}
    if buffer is not None:
        held = any(h["key"] == subject.key and h["ts"] == subject.ts for h in buffer["held"])
        releases_at = subject.ts + buffer["grace"]
        numbers |= {"grace": buffer["grace"], "releases_at": releases_at}
        numbers["stream_time"] = buffer["stream_time"]
        if held and not kafka_emits:
            return Why(
                f"Kafka still holds stream record {_shown_key(subject.key)}@{subject.ts} in the grace "
                f"buffer: it leaves once the buffer's stream time reaches {subject.ts} + {buffer['grace']} = "
                f"{releases_at}; that stream time is {buffer['stream_time']}.",
                "ST-8",
                numbers,
            )
    if record.side == "right" and buffer is None:
        return Why(
            f"{_emits(kafka_emits, subject)} here: input #{at} is a table update "
            f"({_record(record)}), and table updates never emit.",
            "ST-1",
            numbers,
        )
    if subject.key is None or (subject.value is not None and subject.value[0] is None):
        return Why(
            f"{_emits(kafka_emits, subject)}: a stream record with a null key or value is "
            f"{'joined' if kafka_emits else 'dropped'} by a {case.spec.variant} join in this release.",
            "ST-4",
            numbers,
        )
    versioned = "keys" in after["table"]
    row = (
        row_as_of(after["table"], subject.key, subject.ts)
        if versioned
        else current_row(before.get("table", after["table"]), subject.key)
    )
    found = _row_text(row, subject.key, "table")
    as_of = f" as of ts {subject.ts} (versioned)" if versioned else ""
    if row is not None:
        numbers["table_ts"] = row[1]
    verdict = (
        "so the left join emits the stream value with null"
        if row is None and case.spec.variant == "left"
        else "so the inner join emits nothing"
        if row is None
        else "so the record joins it"
    )
    return Why(
        f"{_emits(kafka_emits, subject)}: when stream record {_shown_key(subject.key)}@{subject.ts} is "
        f"looked up{as_of}, {found}, {verdict}.",
        "ST-6" if versioned else "ST-3",
        numbers,
    )


def _global_table_why(moment: _Moment) -> Why:
    case, _behaviour, at, subject, kafka_emits, _before, after = moment
    record = case.records[at]
    numbers: dict[str, int | None] = {"input": at, "ts": record.ts}
    if record.side == "right":
        return Why(
            f"{_emits(kafka_emits, subject)} here: input #{numbers['input']} updates the global table "
            f"({_record(record)}), and global table updates never emit.",
            "GT-3",
            numbers,
        )
    if record.value is None:
        return Why(
            f"{_emits(kafka_emits, subject)}: a stream record with a null value is dropped in every release.",
            "GT-4",
            numbers,
        )
    mapper = case.spec.key_mapper
    mapped = mapped_key_of(record.key, record.value, mapper)
    if record.key is None or mapped is None:
        what = "key" if record.key is None else f"mapped key (key mapper {mapper})"
        return Why(
            f"{_emits(kafka_emits, subject)}: the stream record {_record(record)} has a null {what}; a "
            f"{case.spec.variant} join {'keeps' if kafka_emits else 'drops'} it in this release.",
            "GT-5" if case.spec.variant == "left" else "GT-4",
            numbers,
        )
    row = current_row(after["table"], mapped)
    return Why(
        f"{_emits(kafka_emits, subject)}: the key mapper {mapper} maps the stream record {_record(record)} "
        f"to table key {mapped}, and at that moment {_row_text(row, mapped, 'global table')} (a lookup "
        "sees the table as it is now, whatever the timestamps).",
        "GT-7",
        numbers,
    )


_TABLE_VARIANT_RULES = {("inner", "left"): "TT-4", ("inner", "right"): "TT-4", ("left", "left"): "TT-5"}


def _table_table_why(moment: _Moment) -> Why:
    case, behaviour, at, subject, kafka_emits, before, after = moment
    record = case.records[at]
    side, key = record.side, record.key
    other = "right" if side == "left" else "left"
    numbers: dict[str, int | None] = {"input": at, "ts": record.ts}
    if is_dirty(after[side], key) and not kafka_emits:
        return Why(
            f"Kafka does not emit {show_output(subject)} yet: the update {_record(record)} waits in the "
            f"{side} table's record cache, forwarded when the cache flushes (at a commit or on eviction).",
            "PR-6",
            numbers,
        )
    if key is None:
        return Why(f"{_emits(kafka_emits, subject)}: an update with a null key is dropped.", "TT-9", numbers)
    own = current_row(before.get(side, {}), key)
    partner = current_row(after[other], key)
    if partner is not None:
        numbers["other_ts"] = partner[1]
    previously = "had no value" if own is None else f"held {own[0]}"
    variant = case.spec.variant
    rule_id = _TABLE_VARIANT_RULES.get((variant, side), "TT-6" if variant == "left" else "TT-7")
    if "keys" in after[side] or "keys" in after[other]:
        rule_id = "TT-10"
    if behaviour.table_joins_forward_every_update:
        rule_id = "TT-3"
    elif record.value is None and own is None:
        rule_id = "TT-2"
    return Why(
        f"{_emits(kafka_emits, subject)}: the update {_record(record)} (the {side} table {previously} for "
        f"{_shown_key(key)}) meets the {other} table's current value: "
        f"{_row_text(partner, key, f'{other} table')} ({variant} join).",
        rule_id,
        numbers,
    )


def _fk_why(moment: _Moment) -> Why:
    case, behaviour, at, subject, kafka_emits, before, after = moment
    record = case.records[at]
    numbers: dict[str, int | None] = {"input": at, "ts": record.ts}
    if record.key is None:
        return Why(f"{_emits(kafka_emits, subject)}: an update with a null key is dropped.", "FK-3", numbers)
    if record.side == "right":
        subscribers = [pk for pk, _ in after["subscriptions"].get(record.key, [])]
        listed = ", ".join(_shown_key(pk) for pk in subscribers) or "no left key"
        return Why(
            f"{_emits(kafka_emits, subject)}: the right update {_record(record)} reaches the left keys "
            f"subscribed to foreign key {record.key}: {listed}.",
            "FK-8",
            numbers,
        )
    extractor = case.spec.fk_extractor
    new_fk = None if record.value is None else foreign_key_of(record.value, extractor)
    old = current_row(before.get("left", {}), record.key)
    old_fk = None if old is None or old[0] is None else foreign_key_of(old[0], extractor)
    right = None if new_fk is None else current_row(after["right"], new_fk)
    if old is None:
        moved = f"(a new row) to foreign key {_shown_key(new_fk)}"
    elif old_fk != new_fk:
        moved = f"from foreign key {_shown_key(old_fk)} to {_shown_key(new_fk)}"
    else:
        moved = f"staying at foreign key {_shown_key(new_fk)}"
    found = "" if new_fk is None else f"; {_row_text(right, new_fk, 'right table')}"
    left_rules = case.spec.variant == "left" and behaviour.fk_left_join_keeps_null_foreign_keys
    rule_id = "FK-5" if left_rules else "FK-4"
    return Why(
        f"{_emits(kafka_emits, subject)}: the left update {_record(record)} moves left {record.key} {moved}; "
        f"its subscription messages decide what is sent{found}.",
        rule_id,
        numbers,
    )
