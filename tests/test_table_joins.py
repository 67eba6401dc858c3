"""The table-backed joins: versioned store rules (spec VS-1), KStream-KTable (spec ST-1), KTable-KTable (spec
TT-1).

Records and outputs are written compactly: ``L k:A@3`` is a left record with key ``k``, value ``A``, ts 3
(``null`` is a null value, ``~`` a null key); an output ``k:A - a@4`` is the pair ``(A, a)`` at ts 4 and
``k:⊥@7`` a tombstone.
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


def _show(output: Output) -> str:
    key = "~" if output.key is None else output.key
    if output.value is None:
        return f"{key}:⊥@{output.ts}"
    left, right = ("null" if v is None else v for v in output.value)
    return f"{key}:{left} - {right}@{output.ts}"


def _join(
    join: str,
    variant: str,
    kafka: str,
    records: str,
    *,
    versioned: Versioning | None = None,
    grace: int | None = None,
) -> list[str]:
    window = None if grace is None else Window(grace=grace)
    spec = JoinSpec(join=join, variant=variant, window=window, versioned=versioned)  # type: ignore[arg-type]
    return [_show(output) for output in run(spec, _records(records), behaviour_for(kafka))]


def _right_versioned(history_ms: int) -> Versioning:
    return Versioning(left=False, right=True, history_ms=history_ms)


# --- versioned store (spec VS-1) ---------------------------------------------------------------


def test_versioned_table_rejects_put_older_than_observed_stream_time_minus_history() -> None:
    table = VersionedTable(history_ms=2)
    assert table.put("k1", "R1", 10) is PutStatus.LATEST
    # observedStreamTime is per store, over all keys: k2's first record is already too old
    assert table.put("k2", "R2", 7) is PutStatus.REJECTED
    assert table.update("k2", "R2", 7) is None
    assert table.get("k2") is None
    assert table.put("k2", "R3", 8) is PutStatus.LATEST
    assert table.observed_stream_time == 10


def test_versioned_table_rejected_put_does_not_advance_observed_stream_time() -> None:
    table = VersionedTable(history_ms=0)
    table.put("k", "a", 5)
    assert table.put("k", "b", 4) is PutStatus.REJECTED
    assert table.observed_stream_time == 5


def test_versioned_table_get_as_of_returns_version_valid_at_that_time() -> None:
    table = VersionedTable(history_ms=100)
    table.put("k", "a", 1)
    table.put("k", "b", 5)
    assert table.get_as_of("k", 0) is None
    assert table.get_as_of("k", 3) == ("a", 1)
    assert table.get_as_of("k", 5) == ("b", 5)
    assert table.get("k") == ("b", 5)


def test_versioned_table_get_as_of_past_history_returns_latest_only_if_not_newer() -> None:
    table = VersionedTable(history_ms=10)
    for value, ts in (("t0", 0), ("t5", 5), ("t20", 20)):
        table.put("k", value, ts)
    # 4 < 20 - 10: only the latest version is consulted, and it is newer than 4
    assert table.get_as_of("k", 4) is None
    assert table.get_as_of("k", 12) == ("t5", 5)
    assert table.get_as_of("k", 25) == ("t20", 20)


def test_versioned_table_out_of_order_put_is_not_latest() -> None:
    table = VersionedTable(history_ms=100)
    table.put("k", "a", 5)
    assert table.update("k", "b", 3) == ("a", False)
    assert table.get("k") == ("a", 5)
    assert table.get_as_of("k", 4) == ("b", 3)


def test_versioned_table_put_before_recorded_tombstone_is_not_latest() -> None:
    table = VersionedTable(history_ms=100)
    table.put("k", "a", 5)
    assert table.put("k", None, 7) is PutStatus.LATEST
    assert table.put("k", "c", 6) is PutStatus.HISTORICAL
    assert table.get("k") is None
    assert table.get_as_of("k", 6) == ("c", 6)
    assert table.get_as_of("k", 7) is None


def test_versioned_table_tombstone_on_fresh_key_is_recorded() -> None:
    table = VersionedTable(history_ms=100)
    assert table.put("k", None, 7) is PutStatus.LATEST
    assert table.put("k", "a", 3) is PutStatus.HISTORICAL
    assert table.get("k") is None
    assert table.get_as_of("k", 5) == ("a", 3)


def test_versioned_table_tombstone_with_latest_ts_forgets_key() -> None:
    """spec VS-7: R1@10, null@10 leaves nothing, so R2@5 becomes the latest value."""
    table = VersionedTable(history_ms=1000)
    table.put("k", "R1", 10)
    assert table.put("k", None, 10) is PutStatus.LATEST
    assert table.update("k", "R2", 5) == (None, True)
    assert table.get("k") == ("R2", 5)


def test_versioned_table_tombstone_with_latest_ts_keeps_older_history_end() -> None:
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

    It agrees with the versioned store everywhere except the spec VS-7 tombstone exception, which the check
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
    table = PlainTable()
    assert table.update("k", "a", 5) == (None, True)
    assert table.update("k", "b", 3) == ("a", True)
    assert table.get("k") == ("b", 3)
    assert table.update("k", None, 1) == ("b", True)
    assert table.get("k") is None
    assert table.update("k", None, 1) == (None, True)


# --- KStream-KTable (spec ST-1) -------------------------------------------------------------------


def test_stream_table_join_versioned_lookup_uses_stream_ts() -> None:
    records = "R k:a@4 R k:b@6 R k:d@7 L k:D@6 L k:F@4 L k:E@1"
    assert _join("stream-table", "inner", "3.5", records, versioned=_right_versioned(300_000)) == [
        "k:D - b@6",
        "k:F - a@4",
    ]
    assert _join("stream-table", "left", "3.9", records) == ["k:D - d@6", "k:F - d@4", "k:E - d@1"]


def test_stream_table_join_rejected_table_update_is_not_visible() -> None:
    """spec VS-3 example: with history 2 the table never stores R2@5 (observed stream time is already 10)."""
    records = "R k1:R1@10 R k2:R2@5 L k2:L1@6"
    assert _join("stream-table", "inner", "3.5", records, versioned=_right_versioned(2)) == []
    assert _join("stream-table", "inner", "3.5", records, versioned=_right_versioned(5)) == ["k2:L1 - R2@6"]


def test_stream_table_join_lookup_past_history_sees_only_latest() -> None:
    records = "R k:t0@0 R k:t5@5 L k:s3@3 R k:t20@20 L k:s4@4 L k:s21@21 L k:s12@12"
    expected = ["k:s3 - t0@3", "k:s21 - t20@21", "k:s12 - t5@12"]
    assert _join("stream-table", "inner", "3.9", records, versioned=_right_versioned(10)) == expected


def test_stream_table_join_tombstone_with_equal_ts_then_older_value_joins() -> None:
    records = "R k:R1@10 R k:null@10 R k:R2@5 L k:L1@20"
    for kafka in ("3.5", "3.9"):
        assert _join("stream-table", "inner", kafka, records, versioned=_right_versioned(1000)) == [
            "k:L1 - R2@20"
        ]


def test_stream_table_join_inner_join_is_unsupported_before_0_10_2() -> None:
    with pytest.raises(UnsupportedJoinError):
        _join("stream-table", "inner", "0.10.1", "L k:A@1")
    assert _join("stream-table", "inner", "0.10.2", "R k:a@1 L k:A@2") == ["k:A - a@2"]


def test_stream_table_join_null_value_is_joined_in_0_10_1() -> None:
    records = "R k:a@1 L k:null@2 L j:null@3 L ~:A@4"
    assert _join("stream-table", "left", "0.10.1", records) == ["k:null - a@2", "j:null - null@3"]


def test_stream_table_join_drops_null_key_and_value_from_0_10_2_to_3_6() -> None:
    records = "R k:a@1 L k:null@2 L ~:A@4 L k:B@5"
    for kafka in ("0.10.2", "3.0", "3.6"):
        assert _join("stream-table", "left", kafka, records) == ["k:B - a@5"]


def test_stream_table_join_left_join_forwards_null_key_from_3_7() -> None:
    records = "R k:a@1 L ~:A@4 L ~:null@5 L k:B@6"
    assert _join("stream-table", "left", "3.7", records) == ["~:A - null@4", "k:B - a@6"]
    assert _join("stream-table", "inner", "3.7", records) == ["k:B - a@6"]


def test_stream_table_join_output_ts_is_stream_ts_in_every_era() -> None:
    for kafka in ("0.10.1", "2.2", "2.3", "3.9"):
        assert _join("stream-table", "left", kafka, "R k:a@10 L k:A@3") == ["k:A - a@3"]


def test_stream_table_join_grace_delays_join_until_buffer_time_passes_grace() -> None:
    """KStreamKTableJoinTest#shouldDelayJoinByGracePeriod (values as in kafka-tests.json)."""
    records = (
        "R 0:Y0@0 R 1:Y1@0 R 2:Y2@0 R 3:Y3@0 L 0:X0@0 L 1:X1@1 L 2:X2@2 L 3:X3@3 "
        "R 0:YY0@0 R 1:YY1@0 R 2:YY2@0 R 3:YY3@0 L 0:X0@0 L 1:X1@1 L 2:X2@2 L 3:X3@3 L 5:test@7"
    )
    assert _join("stream-table", "inner", "3.6", records, versioned=_right_versioned(300_000), grace=2) == [
        "0:X0 - Y0@0",
        "1:X1 - Y1@1",
        "0:X0 - YY0@0",
        "1:X1 - YY1@1",
        "2:X2 - YY2@2",
        "2:X2 - YY2@2",
        "3:X3 - YY3@3",
        "3:X3 - YY3@3",
    ]


def test_stream_table_join_grace_buffer_releases_in_ts_then_key_bytes_order() -> None:
    records = "R a:ra@0 R b:rb@0 L b:B1@5 L a:A1@5 L b:B0@4 L z:Z@7"
    assert _join("stream-table", "left", "3.9", records, versioned=_right_versioned(10), grace=2) == [
        "b:B0 - rb@4",
        "a:A1 - ra@5",
        "b:B1 - rb@5",
    ]


def test_stream_table_join_grace_joins_record_at_or_past_deadline_at_once() -> None:
    records = "R k:r@0 L k:A@10 L k:B@7 L k:C@8 L k:D@9"
    # buffer time 10, grace 2: B@7 is past the deadline (8 > 7) and joins without being buffered; C@8 is
    # buffered and released in the same step (8 <= 10 - 2); D@9 and A@10 wait
    assert _join("stream-table", "inner", "3.9", records, versioned=_right_versioned(10), grace=2) == [
        "k:B - r@7",
        "k:C - r@8",
    ]


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


def test_stream_table_join_grace_equal_to_history_is_allowed() -> None:
    records = "R k:r@0 L k:A@1 L k:B@3"
    assert _join("stream-table", "inner", "3.9", records, versioned=_right_versioned(2), grace=2) == [
        "k:A - r@1"
    ]


def test_stream_table_join_left_join_with_grace_fails_on_null_key() -> None:
    with pytest.raises(UnsupportedJoinError):
        _join("stream-table", "left", "3.7", "L ~:A@1", versioned=_right_versioned(10), grace=2)


# --- KTable-KTable (spec TT-1) --------------------------------------------------------------------

_DOCS = "L k:null@1 R k:null@2 L k:A@3 R k:a@4 L k:B@5 R k:b@6 L k:null@7 R k:null@8 L k:C@9 R k:c@10"
"""The first rows of the documentation's table-table example (KIP-77 "new semantics" table)."""


@pytest.mark.parametrize(
    ("variant", "expected"),
    [
        ("inner", ["k:A - a@4", "k:B - a@5", "k:B - b@6", "k:⊥@7", "k:C - c@10"]),
        (
            "left",
            ["k:A - null@3", "k:A - a@4", "k:B - a@5", "k:B - b@6", "k:⊥@7", "k:C - null@9", "k:C - c@10"],
        ),
        (
            "outer",
            [
                "k:A - null@3",
                "k:A - a@4",
                "k:B - a@5",
                "k:B - b@6",
                "k:null - b@7",
                "k:⊥@8",
                "k:C - null@9",
                "k:C - c@10",
            ],
        ),
    ],
)
def test_table_table_join_forwards_only_when_needed_from_0_10_2(variant: str, expected: list[str]) -> None:
    assert _join("table-table", variant, "0.10.2", _DOCS) == expected


def test_table_table_join_kip77_rows_12_to_14_tombstone_rules() -> None:
    """spec ER-7: L null@12 (after R null@11), R null@13, R d@14."""
    records = _DOCS + " R k:null@11 L k:null@12 R k:null@13 R k:d@14"
    tail = {
        variant: _join("table-table", variant, "3.9", records)[-3:] for variant in ("inner", "left", "outer")
    }
    assert tail["inner"] == ["k:⊥@7", "k:C - c@10", "k:⊥@11"]
    assert tail["left"] == ["k:C - c@10", "k:C - null@11", "k:⊥@12"]
    assert tail["outer"] == ["k:C - null@11", "k:⊥@12", "k:null - d@14"]


def test_table_table_join_left_join_right_delete_gives_pair_not_tombstone() -> None:
    assert _join("table-table", "left", "3.9", "L k:A@1 R k:a@2 R k:null@3") == [
        "k:A - null@1",
        "k:A - a@2",
        "k:A - null@3",
    ]


def test_table_table_join_forwards_every_update_in_0_10_1() -> None:
    records = _DOCS + " R k:null@11 L k:null@12 R k:null@13 R k:d@14"
    assert _join("table-table", "inner", "0.10.1", records) == [
        "k:⊥@1",
        "k:⊥@2",
        "k:⊥@3",
        "k:A - a@4",
        "k:B - a@5",
        "k:B - b@6",
        "k:⊥@7",
        "k:⊥@8",
        "k:⊥@9",
        "k:C - c@10",
        "k:⊥@11",
        "k:⊥@12",
        "k:⊥@13",
        "k:⊥@14",
    ]
    assert _join("table-table", "left", "0.10.1", records)[-4:] == [
        "k:C - null@11",
        "k:⊥@12",
        "k:⊥@13",
        "k:⊥@14",
    ]
    assert _join("table-table", "outer", "0.10.1", records)[-4:] == [
        "k:C - null@11",
        "k:⊥@12",
        "k:⊥@13",
        "k:null - d@14",
    ]


def test_table_table_join_output_ts_is_max_of_inputs_from_2_3() -> None:
    records = "R k:a@10 L k:A@3 L k:null@4"
    assert _join("table-table", "inner", "2.3", records) == ["k:A - a@10", "k:⊥@10"]
    assert _join("table-table", "inner", "2.2", records) == ["k:A - a@3", "k:⊥@4"]
    assert _join("table-table", "inner", "0.10.1", records) == ["k:⊥@10", "k:A - a@3", "k:⊥@4"]


def test_table_table_join_output_ts_uses_other_sides_stored_ts_even_if_older() -> None:
    assert _join("table-table", "outer", "3.9", "R k:a@3 L k:A@10 L k:B@1") == [
        "k:null - a@3",
        "k:A - a@10",
        "k:B - a@3",
    ]


def test_table_table_join_deleting_absent_key_emits_tombstone_when_other_side_exists() -> None:
    records = "R k:a@1 L k:null@2"
    assert _join("table-table", "inner", "3.9", records) == ["k:⊥@2"]
    assert _join("table-table", "left", "3.9", records) == ["k:⊥@2"]
    assert _join("table-table", "outer", "3.9", records) == ["k:null - a@1", "k:null - a@2"]


def test_table_table_join_versioned_side_drops_out_of_order_update() -> None:
    records = "L k:A@5 R k:a@5 L k:B@3 R k:b@4"
    both = Versioning(left=True, right=True, history_ms=100)
    left_only = Versioning(left=True, right=False, history_ms=100)
    assert _join("table-table", "inner", "3.5", records, versioned=both) == ["k:A - a@5"]
    assert _join("table-table", "inner", "3.5", records, versioned=left_only) == ["k:A - a@5", "k:A - b@5"]
    assert _join("table-table", "inner", "3.5", records) == ["k:A - a@5", "k:B - a@5", "k:B - b@4"]


def test_table_table_join_update_rejected_by_versioned_store_is_not_forwarded() -> None:
    versioned = Versioning(left=True, right=False, history_ms=2)
    # k's first left record is older than observedStreamTime (10) - history: not stored, not joined
    records = "L j:J@10 L k:A@5 R k:a@11"
    assert _join("table-table", "left", "3.9", records, versioned=versioned) == ["j:J - null@10"]


def test_table_table_join_lookup_uses_other_sides_latest_value() -> None:
    versioned = Versioning(left=True, right=True, history_ms=100)
    records = "L k:a0@0 R k:b0@0 L k:a4@4 R k:b3@3 R k:b2@2 L k:a1@1"
    assert _join("table-table", "inner", "3.5", records, versioned=versioned) == [
        "k:a0 - b0@0",
        "k:a4 - b0@4",
        "k:a4 - b3@4",
    ]


def test_table_table_join_tombstone_with_equal_ts_then_older_value_joins() -> None:
    versioned = Versioning(left=False, right=True, history_ms=1000)
    records = "R k:R1@10 R k:null@10 R k:R2@5 L k:L1@20"
    assert _join("table-table", "inner", "3.9", records, versioned=versioned) == ["k:L1 - R2@20"]


def test_table_table_join_skips_null_key_from_0_10_2() -> None:
    assert _join("table-table", "outer", "3.9", "L ~:A@1 R k:a@2") == ["k:null - a@2"]


def test_table_table_join_null_key_fails_in_0_10_1() -> None:
    with pytest.raises(UnsupportedJoinError):
        _join("table-table", "inner", "0.10.1", "L ~:A@1")
