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
  as the latest answers with the wrong version.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kjoin.conformance.catalogue import Case
from kjoin.oracle.behaviour import Behaviour
from kjoin.oracle.records import JoinKind, Record

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
)
"""Every corner, in the order the report lists them."""


def offered_corners(behaviour: Behaviour) -> tuple[Corner, ...]:
    """The corners ``behaviour``'s era offers."""
    return tuple(corner for corner in CORNERS if corner.offered(behaviour))


def corners_of(cases: Sequence[Case], behaviour: Behaviour) -> dict[str, int]:
    """Per corner the era offers: how many of ``cases`` reach it."""
    return {corner.name: sum(corner.reaches(case) for case in cases) for corner in offered_corners(behaviour)}
