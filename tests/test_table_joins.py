"""Oracle-internal checks of the table-backed joins that no scenario file can state (spec VS-n, ST-n, TT-n).

Every behaviour with observable outputs is a scenario file under ``scenarios/stream_table/`` or
``scenarios/table_table/`` (one behaviour per file, run by ``kjoin check`` and by every candidate). What stays
here is not a scenario's outputs:

* the versioned store model (``VersionedTable``, ``PlainTable``): its put statuses (latest, historical,
  rejected) and timestamped reads, and the check against a reference model. The joins' view of each rule is a
  scenario file (named in each test's docstring);
* joins the oracle must refuse (``UnsupportedJoinError``): a scenario its own Kafka version cannot run is an
  input error by design, so these cannot be scenario files;
* the grace buffer's internal state (``snapshot``).

Records are written compactly: ``L k:A@3`` is a left record with key ``k``, value ``A``, ts 3 (``null`` is a
null value, ``~`` a null key).
"""

from __future__ import annotations

import random

import pytest

from kjoin.oracle import (
    JoinSpec,
    Output,
    Record,
    UnsupportedJoinError,
    Versioning,
    Window,
    behaviour_for,
    processor_for,
    run,
)
from kjoin.oracle.stream_table import StreamTableJoin
from kjoin.oracle.versioned import PlainTable, PutStatus, VersionedTable


def _records(text: str) -> list[Record]:
    records = []
    words = text.split()
    for side, item in zip(words[::2], words[1::2], strict=True):
        key, rest = item.split(":", 1)
        value, ts = rest.rsplit("@", 1)
        records.append(
            Record(
                side="left" if side == "L" else "right",
                key=None if key == "~" else key,
                value=None if value == "null" else value,
                ts=int(ts),
            )
        )
    return records


def _join(
    join: str,
    variant: str,
    kafka: str,
    records: str,
    *,
    versioned: Versioning | None = None,
    grace: int | None = None,
) -> list[Output]:
    window = None if grace is None else Window(grace=grace)
    spec = JoinSpec(join=join, variant=variant, window=window, versioned=versioned)  # type: ignore[arg-type]
    return run(spec, _records(records), behaviour_for(kafka))


def _right_versioned(history_ms: int) -> Versioning:
    return Versioning(left=False, right=True, history_ms=history_ms)


# --- the versioned store model (spec VS-n) ------------------------------------------------------------


def test_versioned_table_rejects_put_older_than_observed_stream_time_minus_history() -> None:
    """Spec VS-2, VS-3; in a join:
    scenarios/stream_table/versioned-table-rejects-put-older-than-history.toml."""
    table = VersionedTable(history_ms=2)
    assert table.put("k1", "R1", 10) is PutStatus.LATEST
    # observedStreamTime is per store, over all keys: k2's first record is already too old
    assert table.put("k2", "R2", 7) is PutStatus.REJECTED
    assert table.update("k2", "R2", 7) is None
    assert table.get("k2") is None
    assert table.put("k2", "R3", 8) is PutStatus.LATEST
    assert table.observed_stream_time == 10


def test_versioned_table_rejected_put_does_not_advance_observed_stream_time() -> None:
    """Spec VS-2 (not observable in a join: a rejected put is always older than the observed time)."""
    table = VersionedTable(history_ms=0)
    table.put("k", "a", 5)
    assert table.put("k", "b", 4) is PutStatus.REJECTED
    assert table.observed_stream_time == 5


def test_versioned_table_get_as_of_returns_version_valid_at_that_time() -> None:
    """Spec VS-9; in a join:
    scenarios/stream_table/versioned-lookup-as-of-stream-ts.toml."""
    table = VersionedTable(history_ms=100)
    table.put("k", "a", 1)
    table.put("k", "b", 5)
    assert table.get_as_of("k", 0) is None
    assert table.get_as_of("k", 3) == ("a", 1)
    assert table.get_as_of("k", 5) == ("b", 5)
    assert table.get("k") == ("b", 5)


def test_versioned_table_get_as_of_past_history_returns_latest_only_if_not_newer() -> None:
    """Spec VS-9; in a join:
    scenarios/stream_table/kip914-lookup-history-10.toml (the same versions)."""
    table = VersionedTable(history_ms=10)
    for value, ts in (("t0", 0), ("t5", 5), ("t20", 20)):
        table.put("k", value, ts)
    # 4 < 20 - 10: only the latest version is consulted, and it is newer than 4
    assert table.get_as_of("k", 4) is None
    assert table.get_as_of("k", 12) == ("t5", 5)
    assert table.get_as_of("k", 25) == ("t20", 20)


def test_versioned_table_out_of_order_put_is_not_latest() -> None:
    """Spec VS-5; in a join:
    scenarios/table_table/versioned-both-drop-out-of-order-updates.toml."""
    table = VersionedTable(history_ms=100)
    table.put("k", "a", 5)
    assert table.update("k", "b", 3) == ("a", False)
    assert table.get("k") == ("a", 5)
    assert table.get_as_of("k", 4) == ("b", 3)


def test_versioned_table_put_before_recorded_tombstone_is_not_latest() -> None:
    """Spec VS-5; in a join:
    scenarios/stream_table/versioned-put-before-recorded-tombstone-is-history.toml."""
    table = VersionedTable(history_ms=100)
    table.put("k", "a", 5)
    assert table.put("k", None, 7) is PutStatus.LATEST
    assert table.put("k", "c", 6) is PutStatus.HISTORICAL
    assert table.get("k") is None
    assert table.get_as_of("k", 6) == ("c", 6)
    assert table.get_as_of("k", 7) is None


def test_versioned_table_tombstone_on_fresh_key_is_recorded() -> None:
    """Spec VS-5, VS-6; in a join:
    scenarios/stream_table/versioned-tombstone-on-fresh-key-is-recorded.toml."""
    table = VersionedTable(history_ms=100)
    assert table.put("k", None, 7) is PutStatus.LATEST
    assert table.put("k", "a", 3) is PutStatus.HISTORICAL
    assert table.get("k") is None
    assert table.get_as_of("k", 5) == ("a", 3)


def test_versioned_table_tombstone_with_latest_ts_forgets_key() -> None:
    """Spec VS-7: R1@10, null@10 leaves nothing, so R2@5 becomes the latest value; in joins:
    scenarios/stream_table/ and scenarios/table_table/versioned-tombstone-at-latest-ts-forgets-value.toml."""
    table = VersionedTable(history_ms=1000)
    table.put("k", "R1", 10)
    assert table.put("k", None, 10) is PutStatus.LATEST
    assert table.update("k", "R2", 5) == (None, True)
    assert table.get("k") == ("R2", 5)


def test_versioned_table_tombstone_with_latest_ts_keeps_older_history_end() -> None:
    """Spec VS-7; in a join:
    scenarios/stream_table/versioned-tombstone-at-latest-ts-keeps-history-end.toml."""
    table = VersionedTable(history_ms=1000)
    table.put("k", "R1", 5)
    table.put("k", "R2", 10)
    table.put("k", None, 10)
    # the history still ends at 10 (where R1 ended), so R3@8 lands before it
    assert table.put("k", "R3", 8) is PutStatus.HISTORICAL
    assert table.get("k") is None
    assert table.get_as_of("k", 9) == ("R3", 8)
    assert table.put("k", "R4", 12) is PutStatus.LATEST


def test_versioned_table_gap_between_versions_reads_as_tombstone() -> None:
    """Spec VS-4; in a join:
    scenarios/stream_table/versioned-gap-reads-as-tombstone.toml."""
    table = VersionedTable(history_ms=1000)
    table.put("k", "R1", 5)
    table.put("k", None, 7)
    table.put("k", "R2", 9)
    assert table.get_as_of("k", 6) == ("R1", 5)
    assert table.get_as_of("k", 8) is None
    assert table.get_as_of("k", 9) == ("R2", 9)
    table.put("k", "R3", 11)
    assert table.get_as_of("k", 8) is None


def test_versioned_table_put_with_equal_ts_replaces_version() -> None:
    """Spec VS-6; in a join:
    scenarios/stream_table/versioned-put-with-equal-ts-replaces-version.toml."""
    table = VersionedTable(history_ms=1000)
    table.put("k", "Y", 0)
    assert table.update("k", "YY", 0) == ("Y", True)
    table.put("k", "Z", 4)
    table.put("k", "Q", 2)
    assert table.put("k", "QQ", 2) is PutStatus.HISTORICAL
    assert table.get_as_of("k", 0) == ("YY", 0)
    assert table.get_as_of("k", 3) == ("QQ", 2)


class _PointTimeline:
    """Reference model: a key's value at ``t`` is the last put at or before ``t`` (equal ts: last put wins).

    It agrees with the versioned store everywhere except the tombstone rule of spec VS-7, which the check
    below therefore avoids."""

    def __init__(self, history_ms: int) -> None:
        self.history_ms = history_ms
        self.observed = -1
        self.points: dict[str, dict[int, str | None]] = {}

    def put(self, key: str, value: str | None, ts: int) -> PutStatus:
        if ts < self.observed - self.history_ms:
            return PutStatus.REJECTED
        self.observed = max(self.observed, ts)
        points = self.points.setdefault(key, {})
        is_latest = not points or ts >= max(points)
        points[ts] = value
        return PutStatus.LATEST if is_latest else PutStatus.HISTORICAL

    def get_as_of(self, key: str, as_of: int) -> tuple[str, int] | None:
        points = self.points.get(key, {})
        if as_of < self.observed - self.history_ms:
            points = {max(points): points[max(points)]} if points else {}
        times = [t for t in points if t <= as_of]
        value = points[max(times)] if times else None
        return None if value is None else (value, max(times))


def test_versioned_table_matches_point_timeline_apart_from_equal_ts_tombstones() -> None:
    """The store model against a reference model (a last-put-wins timeline), except spec VS-7."""
    for seed in range(300):
        rnd = random.Random(seed)
        history_ms = rnd.choice([0, 2, 5, 100])
        table, reference = VersionedTable(history_ms), _PointTimeline(history_ms)
        for step in range(rnd.randint(1, 25)):
            key, ts = rnd.choice("xy"), rnd.randint(0, 20)
            value = None if rnd.random() < 0.35 else f"v{step}"
            latest = table.get(key)
            if value is None and latest is not None and latest[1] == ts:
                break
            assert table.put(key, value, ts) is reference.put(key, value, ts), (seed, step)
            for probe in ("x", "y"):
                for as_of in range(22):
                    assert table.get_as_of(probe, as_of) == reference.get_as_of(probe, as_of), (seed, step)


def test_plain_table_update_overwrites_out_of_order_and_is_always_latest() -> None:
    """Spec ST-5; in a join:
    scenarios/stream_table/unversioned-table-out-of-order-update-overwrites.toml."""
    table = PlainTable()
    assert table.update("k", "a", 5) == (None, True)
    assert table.update("k", "b", 3) == ("a", True)
    assert table.get("k") == ("b", 3)
    assert table.update("k", None, 1) == ("b", True)
    assert table.get("k") is None
    assert table.update("k", None, 1) == (None, True)


# --- KStream-KTable joins the oracle refuses, and the grace buffer's state (spec ST-n) ----------------


def test_stream_table_join_inner_join_is_unsupported_before_0_10_2() -> None:
    """The 0.10.2+ inner join is scenarios/stream_table/inner-join-exists-from-0-10-2.toml."""
    with pytest.raises(UnsupportedJoinError):
        _join("stream-table", "inner", "0.10.1", "L k:A@1")


@pytest.mark.parametrize("join", ["stream-table", "table-table"])
@pytest.mark.parametrize("left", [False, True])
def test_a_versioned_table_on_either_side_is_unsupported_before_3_5(join: str, left: bool) -> None:
    """KIP-914 versioned stores arrive in 3.5: before, one versioned table, on either side, is refused."""
    versioned = Versioning(left=left, right=not left, history_ms=5)
    with pytest.raises(UnsupportedJoinError):
        _join(join, "left", "3.4", "L k:A@1", versioned=versioned)


def test_table_table_snapshot_names_each_table_by_its_side() -> None:
    join = processor_for(JoinSpec(join="table-table", variant="left"), behaviour_for("3.9"))
    for index, record in enumerate(_records("L k:A@1 R k:a@2")):
        join.process(index, record)
    snapshot = join.snapshot()
    assert snapshot["left"] == {"'k'": {"value": "A", "ts": 1}}
    assert snapshot["right"] == {"'k'": {"value": "a", "ts": 2}}


def test_stream_table_join_grace_buffer_state_is_in_snapshot() -> None:
    spec = JoinSpec(
        join="stream-table", variant="left", window=Window(grace=3), versioned=_right_versioned(5)
    )
    join = StreamTableJoin(spec, behaviour_for("3.9"))
    for index, record in enumerate(_records("R k:r@1 L k:A@4")):
        join.process(index, record)
    buffer = join.snapshot()["buffer"]
    assert buffer == {"stream_time": 4, "grace": 3, "held": [{"key": "k", "value": "A", "ts": 4}]}


@pytest.mark.parametrize(
    ("kafka", "versioned", "grace"),
    [
        ("3.5", _right_versioned(10), 2),  # no KIP-923 before 3.6
        ("3.9", None, 2),  # grace needs a versioned table
        ("3.9", _right_versioned(1), 2),  # grace must not exceed the history
    ],
)
def test_stream_table_join_grace_is_unsupported_without_its_preconditions(
    kafka: str, versioned: Versioning | None, grace: int
) -> None:
    with pytest.raises(UnsupportedJoinError):
        _join("stream-table", "inner", kafka, "L k:A@1", versioned=versioned, grace=grace)


def test_stream_table_join_left_join_with_grace_fails_on_null_key() -> None:
    with pytest.raises(UnsupportedJoinError):
        _join("stream-table", "left", "3.7", "L ~:A@1", versioned=_right_versioned(10), grace=2)


# --- KTable-KTable joins the oracle refuses (spec TT-9) -----------------------------------------------


def test_table_table_join_null_key_fails_in_0_10_1() -> None:
    with pytest.raises(UnsupportedJoinError):
        _join("table-table", "inner", "0.10.1", "L ~:A@1")
