"""Corners where one catalogue file used to stand between a port's mistake and its escape, and which
scenarios reach them (issue 23; docs/reach-report.md, "Corners").

Each corner is a shape of input that makes a known mistake visible, read from the scenario alone (no
oracle run): a scenario *reaches* the corner when it has that shape, so a port that makes the mistake
emits something else there. ``tools/reach.py`` counts, per era, the generated scenarios of the ci profile
that reach each corner the era offers; ``tests/test_generation_reach.py`` requires a floor of them.

* ``fk-null-round-trip``: a left row's foreign key goes from ``X`` through null to a non-null key, and a
  right row of ``X`` comes after the null: a port that keeps ``X``'s subscription joins it (visible
  on 3.1 to 3.9.0 and on 4.0.0, spec FK-*);
* ``fk-unsubscribe``: a left row's foreign key changes from ``X`` to another key, and a right row of ``X``
  comes after: the old subscription must be gone;
* ``fk-right-delete``: a right tombstone for a key some left row points to (a subscriber exists);
* ``st-grace-clock-by-stream``: KIP-923 grace: a buffered stream record is released by a later stream
  record past its ts + grace, with a table update of its key in between (the table version it meets
  depends on when it is released);
* ``st-grace-clock-by-table``: a table update past a buffered stream record's ts + grace comes before any
  stream record releases it, and the record's key is updated after that: a buffer clocked by table
  updates releases it early, against the older table value;
* ``versioned-same-ts-put:<join>``: two puts of one key with the same timestamp into a versioned table
  (the second is the latest), in each join kind that reads versioned tables: a port that keeps the first
  as the latest answers with the wrong version;
* ``ss-min-time-past-stop``: 3.8+ as released (spec SS-24): an outer join's emission pass stops one entry
  after the later of the two sides' first open records with held entries past that stop entry, and a
  later record runs the pass under the ``minTime`` it left and emits there, where a walk that never stops
  (``minTime`` at the last entry) skips it: the mistake of ``outer_store.py:98 2 -> 3``
  (docs/mutation-report.md). The held records and ``minTime`` depend on which records joined, so this
  corner replays the scenario through the oracle's ``JoinDriver`` and follows the other ``minTime``
  beside it (the held records are the same for both until one of them emits something the other does
  not).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kjoin.conformance.catalogue import Case
from kjoin.oracle.behaviour import Behaviour
from kjoin.oracle.driver import JoinDriver
from kjoin.oracle.records import JoinKind, Record, Settings

__all__ = ["CORNERS", "Corner", "corners_of", "offered_corners"]


def _foreign_key(record: Record) -> str | None:
    """A foreign-key join's left value ``<fk>:L<i>``: its foreign key (``None`` if empty or a tombstone)."""
    if record.value is None or ":" not in record.value:
        return None
    return record.value.split(":", 1)[0] or None


def _foreign_key_runs(case: Case) -> list[tuple[int, Record, str | None]]:
    return [(i, r, _foreign_key(r)) for i, r in enumerate(case.records) if r.side == "left"]


def _right_after(case: Case, key: str, after: int) -> bool:
    return any(r.side == "right" and r.key == key for r in case.records[after + 1 :])


def fk_null_round_trip(case: Case) -> bool:
    if case.join != "fk":
        return False
    left = _foreign_key_runs(case)
    for position, (_, record, first) in enumerate(left):
        if first is None:
            continue
        later = [(i, fk) for i, r, fk in left[position + 1 :] if r.key == record.key]
        for number, (null_at, fk) in enumerate(later):
            if fk is None and case.records[null_at].value is not None:
                back = any(other is not None for _, other in later[number + 1 :])
                if back and _right_after(case, first, null_at):
                    return True
    return False


def fk_unsubscribe(case: Case) -> bool:
    if case.join != "fk":
        return False
    last: dict[object, str] = {}
    for index, record, fk in _foreign_key_runs(case):
        old = last.get(record.key)
        if old is not None and fk is not None and fk != old and _right_after(case, old, index):
            return True
        if fk is not None:
            last[record.key] = fk
    return False


def fk_right_delete(case: Case) -> bool:
    if case.join != "fk":
        return False
    pointed: set[str] = set()
    for record in case.records:
        if record.side == "left":
            fk = _foreign_key(record)
            if fk is not None:
                pointed.add(fk)
        elif record.value is None and record.key in pointed:
            return True
    return False


def _grace(case: Case) -> int | None:
    window = case.spec.window
    return None if case.join != "stream-table" or window is None else window.grace


def st_grace_clock_by_stream(case: Case) -> bool:
    grace = _grace(case)
    if grace is None:
        return False
    records = case.records
    for index, held in enumerate(records):
        if held.side != "left" or held.key is None:
            continue
        for later in range(index + 1, len(records)):
            record = records[later]
            if record.side == "left" and record.ts > held.ts + grace:
                between = records[index + 1 : later]
                if any(r.side == "right" and r.key == held.key for r in between):
                    return True
                break
    return False


def st_grace_clock_by_table(case: Case) -> bool:
    grace = _grace(case)
    if grace is None:
        return False
    records = case.records
    for index, held in enumerate(records):
        if held.side != "left" or held.key is None:
            continue
        passed = False
        for record in records[index + 1 :]:
            if record.side == "left" and record.ts > held.ts + grace:
                break  # the stream releases it first
            if record.side == "right" and passed and record.key == held.key:
                return True
            if record.side == "right" and record.ts > held.ts + grace:
                passed = True
    return False


def _versioned_same_ts_put(join: JoinKind) -> Callable[[Case], bool]:
    def reaches(case: Case) -> bool:
        versioned = case.spec.versioned
        if case.join != join or versioned is None:
            return False
        seen: set[tuple[str, object, int]] = set()
        for record in case.records:
            if record.key is None or not versioned.of(record.side):
                continue
            put = (record.side, record.key, record.ts)
            if put in seen:
                return True
            seen.add(put)
        return False

    return reaches


def _held_state(driver: JoinDriver) -> tuple[int | None, list[tuple[int, str, object]]]:
    """The outer store's ``minTime`` (``None``: ``Long.MAX_VALUE``) and its held records' (ts, side, key),
    in store order."""
    outer = driver.snapshot()["outer"]
    assert isinstance(outer, dict)
    held = [(int(entry[0]), str(entry[1]), entry[2]) for entry in outer["held"]]
    min_time = outer["min_time"]
    return (min_time if isinstance(min_time, int) else None), held


def _spurious_free_outer(case: Case) -> bool:
    """A two-sided outer join with ``ofTimeDifferenceAndGrace`` under the test driver's settings."""
    window = case.spec.window
    return (
        case.join == "stream-stream"
        and case.spec.variant == "outer"
        and not case.spec.self_join
        and case.spec.settings == Settings()
        and window is not None
        and window.grace is not None
        and not window.legacy
    )


def ss_min_time_past_stop(case: Case) -> bool:
    window = case.spec.window
    if not _spurious_free_outer(case) or window is None or window.grace is None:
        return False
    driver = JoinDriver(case.spec, kafka=case.kafka, intended=case.intended)
    if not driver.behaviour.outer_join_min_time_is_last_visited:
        return False
    grace, stream_time = window.grace, -1
    closes_by = {"left": window.after, "right": window.before}
    other: int | None = None  # the minTime a walk that never stops would have left (None: Long.MAX_VALUE)
    for record in case.records:
        if record.key is None or record.value is None:
            return False  # null records take other paths (spec SS-10 to SS-13): not followed here
        real, held = _held_state(driver)
        driver.pipe(record.side, record.key, record.value, record.ts)
        emitted = any(
            None in output.value and record.value not in output.value
            for output in driver.read_outputs()
            if isinstance(output.value, tuple)
        )
        in_order, stream_time = record.ts >= stream_time, max(stream_time, record.ts)
        join_after = window.after if record.side == "left" else window.before
        runs = in_order and real is not None and real + join_after + grace < stream_time
        other_runs = in_order and other is not None and other + join_after + grace < stream_time
        if runs and not other_runs and emitted:
            return True  # the pass emits here, the other walk's early return skips it
        if (
            other_runs
            and not runs
            and any(ts + closes_by[side] + grace < stream_time for ts, side, _ in held)
        ):
            return True  # the other walk emits where the pass is skipped
        if other_runs:
            other = held[-1][0] if held else None  # it visited every entry
        _, now_held = _held_state(driver)
        if (record.ts, record.side, record.key) in now_held:
            other = record.ts if other is None else min(other, record.ts)  # the record is held (spec SS-20)
    return False


class Corner:
    """A named corner: the join kind it lives in, the era capability it needs, and its shape."""

    __slots__ = ("join", "name", "needs", "reaches")

    def __init__(self, name: str, join: JoinKind, needs: str, reaches: Callable[[Case], bool]) -> None:
        self.name, self.join, self.needs, self.reaches = name, join, needs, reaches

    def offered(self, behaviour: Behaviour) -> bool:
        """Whether ``behaviour``'s era has what the corner needs (a foreign-key join, versioned tables,
        stream-table grace)."""
        return bool(getattr(behaviour, self.needs))


CORNERS: tuple[Corner, ...] = (
    Corner("fk-null-round-trip", "fk", "has_foreign_key_join", fk_null_round_trip),
    Corner("fk-unsubscribe", "fk", "has_foreign_key_join", fk_unsubscribe),
    Corner("fk-right-delete", "fk", "has_foreign_key_join", fk_right_delete),
    Corner("st-grace-clock-by-stream", "stream-table", "has_stream_table_grace", st_grace_clock_by_stream),
    Corner("st-grace-clock-by-table", "stream-table", "has_stream_table_grace", st_grace_clock_by_table),
    *(
        Corner(f"versioned-same-ts-put:{join}", join, "has_versioned_stores", _versioned_same_ts_put(join))
        for join in ("stream-table", "table-table", "fk")
    ),
    Corner(
        "ss-min-time-past-stop", "stream-stream", "outer_join_min_time_is_last_visited", ss_min_time_past_stop
    ),
)
"""Every corner, in the order the report lists them."""


def offered_corners(behaviour: Behaviour) -> tuple[Corner, ...]:
    """The corners ``behaviour``'s era offers."""
    return tuple(corner for corner in CORNERS if corner.offered(behaviour))


def corners_of(cases: Sequence[Case], behaviour: Behaviour) -> dict[str, int]:
    """Per corner the era offers: how many of ``cases`` reach it."""
    return {corner.name: sum(corner.reaches(case) for case in cases) for corner in offered_corners(behaviour)}
