"""The sequential part of the spurious-free left/outer stream-stream join (spec SS-16, SS-23, SS-24).

``emit_held_records`` is an ``applyInPandas`` function over ONE scenario. Everything it needs was computed
set-based by ``stream_stream``: the stream time after each record (``st``), whether the record runs an
emission pass (``trigger``), whether it is emitted at once when unmatched (``immediate``), and each
record's matches; from the matches it reads whether a record is held in the outer store and at which input
index the other side first matches it (that probe deletes its entry). What cannot be set-based
is the pass itself: whether a pass runs depends on ``minTime``, which the previous pass left behind (3.8+: the
ts of the last entry it visited, even an open one), and a pass visits the outer store in its key order
(ts, right before left, key bytes, insertion order) and stops early. So this is a small state machine.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["HELD_INPUT_COLUMNS", "HELD_OUTPUT_SCHEMA", "emit_held_records"]

HELD_INPUT_COLUMNS = [
    "scenario_id",
    "idx",
    "side",
    "key",
    "value",
    "ts",
    "st",
    "trigger",
    "outer_side",
    "immediate",
    "matched",
    "before",
    "after",
    "grace",
    "outer_join_closes_each_side_by_its_own_bound",
    "outer_join_min_time_is_last_visited",
]

HELD_OUTPUT_SCHEMA = (
    "scenario_id string, idx long, key string, left string, right string, ts long, position long"
)

_LONG_MAX = 2**63 - 1
_RIGHT, _LEFT = 0, 1  # the side byte of the outer store's key: right records sort first

EntryKey = tuple[int, int, bytes]


def _java_long(value: int) -> int:
    """Wrap like Java ``long`` arithmetic (``Long.MAX_VALUE + n`` overflows in the 3.8+ early-return test)."""
    return (value + 2**63) % 2**64 - 2**63


class _OuterStore:
    """Held non-joined records of one scenario and the shared ``minTime`` (spec SS-16, SS-21)."""

    def __init__(self, before: int, after: int, grace: int, per_side: bool, last_visited: bool) -> None:
        self.before, self.after, self.grace = before, after, grace
        self.per_side, self.last_visited = per_side, last_visited
        self.entries: dict[EntryKey, list[tuple[str, str | None]]] = {}
        self.min_time = _LONG_MAX

    def hold(self, entry: EntryKey, key: str, value: str | None) -> None:
        """spec SS-20: append a non-joined record and lower ``minTime``."""
        self.entries.setdefault(entry, []).append((key, value))
        self.min_time = min(self.min_time, entry[0])

    def delete(self, entry: EntryKey) -> None:
        """spec SS-19: a match deletes the whole entry (all values of that ts, side and key)."""
        self.entries.pop(entry, None)

    def emission_pass(self, left_processor: bool, stream_time: int) -> list[tuple[EntryKey, str, str | None]]:
        """One pass run by the left or right processor; returns the emitted values in order."""
        if self.per_side:
            return self._pass_per_side(left_processor, stream_time)
        return self._pass_shared_bound(left_processor, stream_time)

    def _pass_per_side(
        self, left_processor: bool, stream_time: int
    ) -> list[tuple[EntryKey, str, str | None]]:
        """3.8+ (KAFKA-15417): each held record closes by its own side's bound; open entries are skipped
        until both sides have an open one. As shipped (bug flag), the pass is skipped while ``minTime +
        joinAfter + grace >= streamTime`` and ``minTime`` ends as the last visited entry's ts; intended, every
        in-order record runs the pass, so each closed record goes out at the first record that closes it."""
        join_after = self.after if left_processor else self.before
        if self.last_visited and _java_long(self.min_time + join_after + self.grace) >= stream_time:
            return []
        self.min_time = _LONG_MAX
        open_sides: set[int] = set()
        emitted: list[tuple[EntryKey, str, str | None]] = []
        stopped = False
        for entry in sorted(self.entries):
            for key, value in self.entries[entry]:
                # Kafka reads the next entry and sets minTime to its ts before it tests whether both sides
                # are open: the walk stops one entry after the second open one, and minTime is that ts
                self.min_time = entry[0]
                if len(open_sides) == 2:
                    stopped = True
                    break
                look_back = self.after if entry[1] == _LEFT else self.before
                if entry[0] + look_back + self.grace >= stream_time:
                    open_sides.add(entry[1])
                    continue
                emitted.append((entry, key, value))
            if stopped:
                break
        for entry in {entry for entry, _, _ in emitted}:
            self.delete(entry)
        return emitted

    def _pass_shared_bound(
        self, left_processor: bool, stream_time: int
    ) -> list[tuple[EntryKey, str, str | None]]:
        """3.1-3.7: the triggering processor's bound closes records of both sides; stop at the first
        open entry."""
        join_after = self.after if left_processor else self.before
        look_back = self.before if left_processor else self.after
        if self.min_time >= stream_time - look_back - self.grace:
            return []
        self.min_time = _LONG_MAX
        emitted: list[tuple[EntryKey, str, str | None]] = []
        for entry in sorted(self.entries):
            self.min_time = entry[0]
            if entry[0] + join_after + self.grace >= stream_time:
                break
            emitted.extend((entry, key, value) for key, value in self.entries[entry])
        for entry in {entry for entry, _, _ in emitted}:
            self.delete(entry)
        return emitted


def _entry(side: str, key: str, ts: int) -> EntryKey:
    return (ts, _LEFT if side == "left" else _RIGHT, key.encode("utf-8"))


def emit_held_records(probes: pd.DataFrame) -> pd.DataFrame:
    """The outputs of the emission passes of one scenario, as rows of ``HELD_OUTPUT_SCHEMA``.

    ``probes`` has one row per probing record with ``matched``, the indexes of the stored records it
    joins. A probe is held iff it is on an outer side, unmatched and not emitted at once; a held record leaves
    the outer store at the first later probe that matches it.
    """
    first = probes.iloc[0]
    store = _OuterStore(
        before=int(first["before"]),
        after=int(first["after"]),
        grace=int(first["grace"]),
        per_side=bool(first["outer_join_closes_each_side_by_its_own_bound"]),
        last_visited=bool(first["outer_join_min_time_is_last_visited"]),
    )
    records: list[dict[str, Any]] = [
        {str(name): value for name, value in row.items()}
        for row in probes.sort_values("idx").to_dict("records")
    ]
    first_match: dict[int, int] = {}
    for row in records:
        for stored in row["matched"]:
            first_match.setdefault(int(stored), int(row["idx"]))
    held = {
        int(row["idx"]): _entry(row["side"], row["key"], int(row["ts"]))
        for row in records
        if len(row["matched"]) == 0 and _is_true(row["outer_side"]) and not _is_true(row["immediate"])
    }
    deletions: dict[int, set[EntryKey]] = {}
    for idx, entry in held.items():
        if idx in first_match:
            deletions.setdefault(first_match[idx], set()).add(entry)
    out: list[tuple[str, int, str, str | None, str | None, int, int]] = []
    for row in records:
        idx = int(row["idx"])
        if _is_true(row["trigger"]):
            for position, (entry, key, value) in enumerate(
                store.emission_pass(row["side"] == "left", int(row["st"]))
            ):
                left, right = (value, None) if entry[1] == _LEFT else (None, value)
                out.append((row["scenario_id"], idx, key, left, right, entry[0], position))
        for entry in deletions.pop(idx, ()):
            store.delete(entry)
        if idx in held:
            store.hold(held[idx], row["key"], row["value"])
    return pd.DataFrame(
        {
            "scenario_id": pd.Series([o[0] for o in out], dtype=object),
            "idx": pd.Series([o[1] for o in out], dtype="int64"),
            "key": pd.Series([o[2] for o in out], dtype=object),
            "left": pd.Series([o[3] for o in out], dtype=object),
            "right": pd.Series([o[4] for o in out], dtype=object),
            "ts": pd.Series([o[5] for o in out], dtype="int64"),
            "position": pd.Series([o[6] for o in out], dtype="int64"),
        }
    )


def _is_true(flag: Any) -> bool:
    """A nullable boolean cell from Arrow (``None``/``NaN`` = false)."""
    return flag is True or (flag is not None and not pd.isna(flag) and bool(flag))
