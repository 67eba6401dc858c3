"""Why Kafka emits what it emits where a candidate first differs: the oracle's state as readable tables,
and why: one sentence naming what in that state decides the output, the spec rule it applies (with its link
into docs/semantics) and the numbers it uses.

Computed once per failing case while the run's results are written (docs/results-format.md,
``explanation``); the report and the command line only show it. Also the stream time after each input of a
stream-stream case, which the report draws on its timeline.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kjoin.conformance.catalogue import Case
from kjoin.conformance.checker import Divergence
from kjoin.conformance.documents.why import Why, kind_why, table_join_why
from kjoin.conformance.notation import show_output
from kjoin.oracle.behaviour import Behaviour, UnknownVersionError, behaviour_for
from kjoin.oracle.engine import run_traced
from kjoin.oracle.errors import OracleError
from kjoin.oracle.records import Output

__all__ = ["Why", "explain", "state_tables", "stream_times"]

Table = dict[str, Any]


def _table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]], note: str = "") -> Table:
    return {"title": title, "columns": list(columns), "rows": [list(row) for row in rows], "note": note}


def _time(value: object) -> str:
    return "none yet" if value is None or value == -1 else str(value)


def state_tables(join: str, state: Mapping[str, Any]) -> list[Table]:
    """The oracle's snapshot of one join (``JoinProcessor.snapshot``) as titled tables."""
    if join == "stream-stream":
        return _stream_stream_tables(state)
    tables: list[Table] = []
    if join == "stream-globaltable":
        return [_table_contents("global table (right side)", state["table"])]
    if join == "stream-table":
        tables.append(_table_contents("table (right side)", state["table"]))
        buffer = state.get("buffer")
        if buffer is not None:
            rows = [[held["key"], held["value"], held["ts"]] for held in buffer["held"]]
            note = f"buffer stream time {_time(buffer['stream_time'])}, grace {buffer['grace']} ms"
            tables.append(
                _table(
                    "stream records held by the grace buffer (KIP-923)", ["key", "value", "ts"], rows, note
                )
            )
        return tables
    tables.append(_table_contents("left table", state["left"]))
    tables.append(_table_contents("right table", state["right"]))
    if join == "fk":
        rows = [
            [fk, pk, digest]
            for fk, subscribers in state["subscriptions"].items()
            for pk, digest in subscribers
        ]
        tables.append(
            _table(
                "subscriptions (foreign key -> left key, value hash)",
                ["foreign key", "left key", "hash"],
                rows,
            )
        )
    return tables


def _stream_stream_tables(state: Mapping[str, Any]) -> list[Table]:
    if "store" in state:  # the rewritten self-join: one processor, one window store (spec SJ-3)
        store = state["store"]
        note = (
            f"observed stream time {_time(store['observed_time'])}, the self-join processor's stream time "
            f"{_time(state['stream_time'])}"
        )
        return [
            _table(
                "the self-join's window store (one store, spec SJ-3)",
                ["key", "ts", "value"],
                store["records"],
                note,
            )
        ]
    tables: list[Table] = []
    for side in ("left", "right"):
        store = state.get(f"{side}_store")
        if store is None:
            tables.append(
                _table(
                    f"{side} window store",
                    ["key", "ts", "value"],
                    [],
                    "none: this join never stores that side",
                )
            )
            continue
        note = f"observed stream time {_time(store['observed_time'])}"
        tables.append(_table(f"{side} window store", ["key", "ts", "value"], store["records"], note))
    outer = state.get("outer")
    if outer is not None:
        rows = [[side, key, value, ts] for ts, side, key, value in outer["held"]]
        note = f"join stream time {_time(outer['stream_time'])}, minTime {_time(outer['min_time'])}"
        tables.append(
            _table("held non-joined records (outer store)", ["side", "key", "value", "ts"], rows, note)
        )
    return tables


def _table_contents(title: str, table: Mapping[str, Any]) -> Table:
    """A plain table (``{key: {value, ts}}``), a versioned one (latest value and history per key), or one
    behind a record cache (the store below and the dirty entries not flushed yet, spec PR-6)."""
    if "store" in table and "dirty" in table:
        rows = [[key, row["value"], row["ts"], "flushed"] for key, row in table["store"].items()]
        rows += [[key, value, ts, "in the record cache"] for key, value, ts in table["dirty"]]
        note = "behind a record cache: dirty entries are forwarded when it flushes"
        return _table(title, ["key", "value", "ts", "where"], rows, note)
    if "keys" not in table:
        rows = [[key, row["value"], row["ts"]] for key, row in table.items()]
        return _table(title, ["key", "value", "ts"], rows)
    rows = []
    for key, entry in table["keys"].items():
        latest = entry["latest"]
        if latest is not None:
            rows.append([key, latest["value"], latest["ts"], "latest"])
        history = entry["history"] or {}
        for version in history.get("versions", []):
            rows.append([key, version["value"], version["from"], f"until {version['to']}"])
    note = (
        f"versioned, history {table['history_ms']} ms, observed stream time "
        f"{_time(table['observed_stream_time'])}"
    )
    return _table(title, ["key", "value", "valid from", "valid to"], rows, note)


def stream_times(case: Case) -> list[int | None] | None:
    """The stream-stream join's stream time after each input (``None`` before any record counts), or
    ``None`` for other joins or when the oracle cannot run the case."""
    if case.join != "stream-stream":
        return None
    try:
        steps = run_traced(case.spec, case.records, behaviour_for(case.kafka, intended=case.intended))
    except (OracleError, UnknownVersionError):
        return None
    times: list[int | None] = []
    for _, state in steps:
        outer = state.get("outer")
        if isinstance(outer, Mapping):
            value = outer["stream_time"]
        elif "stream_time" in state:  # the rewritten self-join's processor (spec SJ-6)
            value = state["stream_time"]
        else:
            stores = [state["left_store"], state["right_store"]]
            observed = [store["observed_time"] for store in stores if isinstance(store, Mapping)]
            value = max(observed, default=-1)
        times.append(None if value == -1 else value)
    return times


def explain(case: Case, first: Divergence) -> dict[str, Any] | None:
    """The oracle's state before and after the input where ``first`` shows, what Kafka emitted there, and
    why (docs/results-format.md ``explanation``); ``None`` when the input is unknown."""
    at = first.at
    if at is None or not 0 <= at < len(case.records):
        return None
    try:
        behaviour = behaviour_for(case.kafka, intended=case.intended)
        # A run closes with a flush of its record caches (spec PR-8): with settings, the state after input
        # ``at`` is the one of the whole run, not of a run that ends there.
        records = case.records if case.spec.settings is not None else case.records[: at + 1]
        steps = run_traced(case.spec, records, behaviour)
    except (OracleError, UnknownVersionError):
        return None
    before_state = steps[at - 1][1] if at > 0 else {}
    emitted, after_state = steps[at]
    return {
        "at": at,
        "why": _why(case, behaviour, first, before_state, after_state).to_json(),
        "before": state_tables(case.join, before_state) if at > 0 else [],
        "after": state_tables(case.join, after_state),
        "emitted": emitted,
    }


def _why(
    case: Case, behaviour: Behaviour, first: Divergence, before: Mapping[str, Any], after: Mapping[str, Any]
) -> Why:
    """What in Kafka's state decides the output the first divergence is about: by its kind when that decides
    (a timestamp, the emitting input, an order), else by the join's state (docs/results-format.md)."""
    subject = first.expected or first.actual
    if subject is None:
        return Why("")
    by_kind = kind_why(case, behaviour, first)
    if by_kind is not None:
        return by_kind
    if case.join == "stream-stream":
        return _why_stream_stream(case, behaviour, first, after, subject, first.expected is not None)
    return table_join_why(case, behaviour, first, before, after)


def _why_stream_stream(
    case: Case,
    behaviour: Behaviour,
    first: Divergence,
    state: Mapping[str, Any],
    subject: Output,
    kafka_emits: bool,
) -> Why:
    window = case.spec.window
    assert window is not None
    shown = show_output(subject)
    value = subject.value
    if value is not None and value[0] is not None and value[1] is not None:
        relation = "joins" if kafka_emits else "does not join"
        return Why(
            f"Kafka {relation} these records: a right record joins a left record at t when it lies in "
            f"[t - {window.before}, t + {window.after}] and both are still in the window stores shown.",
            "SS-2",
            {"before": window.before, "after": window.after},
        )
    outer = state.get("outer")
    if outer is None:
        if kafka_emits:
            return Why(
                f"Kafka emits {shown} at once: the record found no partner in the other window store (eager "
                "left/outer results).",
                "SS-13",
            )
        return Why(
            f"Kafka does not emit {shown}: the record found a partner, or this join variant never emits it.",
            "SS-13",
        )
    own = subject.ts
    bound = window.after if value is not None and value[0] is not None else window.before
    close = own + bound + (window.grace or 0)
    stream_time = outer["stream_time"]
    numbers = {
        "ts": own,
        "bound": bound,
        "grace": window.grace,
        "closes_at": close,
        "stream_time": stream_time,
    }
    held = any(row[0] == own and row[2] == subject.key for row in outer["held"])
    if kafka_emits:
        return Why(
            f"Kafka emits {shown} once stream time passes {own} + {bound} + {window.grace} = {close}: stream "
            f"time is now {stream_time}.",
            "SS-20",
            numbers,
        )
    if held and stream_time > close:
        return _why_still_held(case, behaviour, first, outer, shown, numbers)
    if held:
        return Why(
            f"Kafka still holds {shown}: it closes when stream time passes {close}; stream time is "
            f"{stream_time}.",
            "SS-20",
            numbers,
        )
    return Why(
        f"Kafka does not emit {shown} here: the record joined within its window, or was emitted earlier.",
        "SS-19",
        numbers,
    )


def _why_still_held(
    case: Case,
    behaviour: Behaviour,
    first: Divergence,
    outer: Mapping[str, Any],
    shown: str,
    numbers: Mapping[str, int | None],
) -> Why:
    """A held record whose window has closed, not emitted yet: which rule of the emission pass keeps it."""
    window = case.spec.window
    assert window is not None
    grace = window.grace or 0
    close = numbers["closes_at"]
    record = case.records[first.at or 0]
    stream_time, min_time = outer["stream_time"], outer["min_time"]
    head = f"Kafka still holds {shown} although its window closed at {close} (stream time {stream_time}): "
    if record.value is None or record.key is None or record.ts < stream_time:
        return Why(
            head
            + f"input #{first.at} ({record.side} {record.key}@{record.ts}) runs no emission pass, only an "
            "in-order record with a key and a value does (spec SS-18).",
            "SS-18",
            {**numbers, "input": first.at, "input_ts": record.ts},
        )
    if behaviour.outer_join_min_time_is_last_visited:
        join_after = window.after if record.side == "left" else window.before
        gate = None if min_time is None else min_time + join_after + grace
        found = {**numbers, "min_time": min_time, "gate": gate}
        if gate is not None and gate >= stream_time:
            return Why(
                head + f"no emission pass runs, because minTime {min_time} (3.8+ as released: the ts of the "
                f"last record the previous pass read) + {join_after} + {grace} = {gate} is not below stream "
                f"time {stream_time} (spec SS-24).",
                "SS-24",
                found,
            )
        return Why(
            head + "the pass stops once it has read an open record of each side (spec SS-24).", "SS-24", found
        )
    return Why(
        head + "the 3.1-3.7 pass closes records by the triggering side's bound and stops at the first record "
        "still open in store order (spec SS-23).",
        "SS-23",
        numbers,
    )
