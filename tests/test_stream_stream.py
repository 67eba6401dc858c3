"""Focused checks of the stream-stream join oracle's subtle rules (spec SS-1).

Each test pipes a handful of records through ``oracle.stream_stream`` for one or more Kafka versions and
compares the exact outputs: key, ``(left, right)`` value, timestamp and the index of the record that
emitted it.
"""

from __future__ import annotations

import pytest

from kjoin.oracle import UnsupportedJoinError, behaviour_for, run
from kjoin.oracle.behaviour import DAY_MS
from kjoin.oracle.engine import processor_for
from kjoin.oracle.outer_store import outer_store_key_bytes
from kjoin.oracle.records import JoinSpec, Key, Record, StoreKind, Value, Variant, Window

Emitted = tuple[Key, tuple[Value, Value] | None, int, int]


def _left(key: Key, value: Value, ts: int) -> Record:
    return Record("left", key, value, ts)


def _right(key: Key, value: Value, ts: int) -> Record:
    return Record("right", key, value, ts)


def _join(
    version: str,
    variant: Variant,
    window: Window,
    records: list[Record],
    *,
    stores: StoreKind = "memory",
    intended: bool = False,
) -> list[Emitted]:
    spec = JoinSpec(join="stream-stream", variant=variant, window=window, stores=stores)
    outputs = run(spec, records, behaviour_for(version, intended=intended))
    return [(o.key, o.value, o.ts, o.cause) for o in outputs]


# --- window bounds and output timestamps (spec SS-2, SS-4) -------------------------------------------------


def test_stream_stream_window_bounds_are_inclusive_at_both_ends() -> None:
    records = [
        _left("k", "A", 1000),
        _right("k", "x", 900),
        _right("k", "y", 899),
        _right("k", "z", 1100),
        _right("k", "w", 1101),
    ]
    assert _join("3.9", "inner", Window(100, 100, 0), records) == [
        ("k", ("A", "x"), 1000, 1),
        ("k", ("A", "z"), 1100, 3),
    ]


def test_stream_stream_asymmetric_window_looks_before_and_after_from_the_left_record() -> None:
    records = [
        _right("k", "early", 95),
        _right("k", "late", 120),
        _left("k", "A", 100),
        _right("k", "b", 121),
    ]
    # A at 100 joins right records in [100 - 5, 100 + 20] (the grace keeps "early" in the store: with
    # retention 5 + 20 + 0 it would have expired, 95 <= 120 - 25)
    assert _join("3.9", "inner", Window(5, 20, 10), records) == [
        ("k", ("A", "early"), 100, 2),
        ("k", ("A", "late"), 120, 2),
    ]


@pytest.mark.parametrize(("version", "ts"), [("2.2", 3), ("2.3", 5)])
def test_stream_stream_joined_ts_is_trigger_ts_before_2_3_and_max_after(version: str, ts: int) -> None:
    records = [_left("k", "A", 5), _right("k", "a", 3)]
    assert _join(version, "inner", Window(10, 10, None), records, stores="rocksdb") == [
        ("k", ("A", "a"), ts, 1)
    ]


# --- old era and KIP-77 eager results (spec SS-12, SS-13) -------------------------------------------------


def test_stream_stream_old_left_join_ignores_right_records() -> None:
    records = [_left("k", "A", 0), _right("k", "a", 0), _right("k", "b", 0), _left("k", "B", 0)]
    window = Window(100, 100, None)
    assert _join("0.10.1", "left", window, records, stores="rocksdb") == [
        ("k", ("A", None), 0, 0),
        ("k", ("B", "a"), 0, 3),
        ("k", ("B", "b"), 0, 3),
    ]
    assert _join("0.10.2", "left", window, records, stores="rocksdb") == [
        ("k", ("A", None), 0, 0),
        ("k", ("A", "a"), 0, 1),
        ("k", ("A", "b"), 0, 2),
        ("k", ("B", "a"), 0, 3),
        ("k", ("B", "b"), 0, 3),
    ]


def test_stream_stream_old_era_joins_null_values() -> None:
    records = [_left("k", "A", 0), _right("k", None, 1), _right("k2", None, 2)]
    window = Window(100, 100, None)
    assert _join("0.10.1", "outer", window, records, stores="rocksdb") == [
        ("k", ("A", None), 0, 0),
        ("k", ("A", None), 1, 1),
        ("k2", (None, None), 2, 2),
    ]
    assert _join("0.10.2", "outer", window, records, stores="rocksdb") == [("k", ("A", None), 0, 0)]


@pytest.mark.parametrize("version", ["3.0", "3.9"])
def test_stream_stream_legacy_window_emits_spurious_left_result_eagerly(version: str) -> None:
    records = [_left("k", "A", 3), _right("k", "a", 4)]
    assert _join(version, "left", Window(10, 10, None), records) == [
        ("k", ("A", None), 3, 0),
        ("k", ("A", "a"), 4, 1),
    ]


def test_stream_stream_grace_on_3_0_means_of_grace_which_stays_eager() -> None:
    records = [_left("k", "A", 3), _right("k", "a", 4)]
    assert _join("3.0", "left", Window(10, 10, 5), records) == [
        ("k", ("A", None), 3, 0),
        ("k", ("A", "a"), 4, 1),
    ]
    assert _join("3.1", "left", Window(10, 10, 5), records) == [("k", ("A", "a"), 4, 1)]


# --- spurious-free left/outer joins (spec SS-14, SS-25) ---------------------------------------------------


@pytest.mark.parametrize("version", ["3.1", "3.7", "3.9"])
def test_stream_stream_held_record_closes_only_when_stream_time_exceeds_window_plus_grace(
    version: str,
) -> None:
    records = [_left("k1", "A", 0), _right("k2", "x", 15), _right("k2", "y", 16)]
    # 0 + after 10 + grace 5 = 15: still open at stream time 15, closed at 16
    assert _join(version, "left", Window(10, 10, 5), records) == [("k1", ("A", None), 0, 2)]


def test_stream_stream_emission_pass_runs_before_the_records_own_results() -> None:
    records = [_left(0, "A0", 0), _left(1, "A1", 100), _right(1, "a1", 110)]
    assert _join("3.9", "left", Window(100, 100, 0), records) == [
        (0, ("A0", None), 0, 2),
        (1, ("A1", "a1"), 110, 2),
    ]


def test_stream_stream_partner_found_later_deletes_the_held_record() -> None:
    records = [_left("k", "A", 0), _right("k", "a", 5), _right("k2", "x", 100)]
    assert _join("3.9", "left", Window(10, 10, 0), records) == [("k", ("A", "a"), 5, 1)]


def test_stream_stream_out_of_order_record_past_its_window_is_emitted_at_once_ignoring_grace() -> None:
    records = [_left("k1", "A", 200), _left("k2", "B", 100)]
    # B's window ended at 110 < stream time 200, although 100 + 10 + grace 100 = 210 is not reached
    assert _join("3.9", "left", Window(10, 10, 100), records) == [("k2", ("B", None), 100, 1)]


def test_stream_stream_outer_join_emits_3_7_by_processor_bound_and_3_8_by_each_sides_bound() -> None:
    # KStreamKStreamOuterJoinTest#testEmitAllNonJoinedResultsForAsymmetricWindow
    records = [
        _left(0, "A0", 29),
        _left(1, "A1", 30),
        _right(2, "12", 31),
        _right(3, "13", 36),
        _right(4, "14", 37),
        _right(5, "15", 50),
    ]
    window = Window(5, 20, 0)
    assert _join("3.7", "outer", window, records) == [
        (0, ("A0", None), 29, 5),
        (1, ("A1", None), 30, 5),
        (2, (None, "12"), 31, 5),
        (3, (None, "13"), 36, 5),
        (4, (None, "14"), 37, 5),
    ]
    # 3.8+: left records close at ts + after, right ones at ts + before; A1 (30 + 20 = 50) stays open
    assert _join("3.9", "outer", window, records) == [
        (2, (None, "12"), 31, 4),
        (0, ("A0", None), 29, 5),
        (3, (None, "13"), 36, 5),
        (4, (None, "14"), 37, 5),
    ]


_STALE_MIN_TIME_RECORDS = [
    _left("k1", "A", 100),
    _left("k2", "B", 105),
    _left("k3", "C", 108),
    _right("k9", "x", 111),
    _right("k9", "y", 116),
    _right("k9", "z", 119),
]
_EACH_AT_FIRST_CLOSING_RECORD = [
    ("k1", ("A", None), 100, 3),
    ("k2", ("B", None), 105, 4),
    ("k3", ("C", None), 108, 5),
]


def test_stream_stream_3_8_stale_min_time_delays_a_closed_record() -> None:
    assert _join("3.9", "left", Window(10, 10, 0), _STALE_MIN_TIME_RECORDS) == [
        ("k1", ("A", None), 100, 3),
        ("k2", ("B", None), 105, 5),
        ("k3", ("C", None), 108, 5),
    ]


@pytest.mark.parametrize(("version", "intended"), [("3.7", False), ("3.9", True)])
def test_stream_stream_closed_record_is_emitted_by_first_closing_record_without_stale_min_time(
    version: str, intended: bool
) -> None:
    outputs = _join(version, "left", Window(10, 10, 0), _STALE_MIN_TIME_RECORDS, intended=intended)
    assert outputs == _EACH_AT_FIRST_CLOSING_RECORD


def test_stream_stream_intended_3_8_emits_asymmetric_closed_record_at_once() -> None:
    # shipped 3.9 waits for minTime + joinAfter(right processor: before = 5) + grace; intended does not:
    # L A@0 closes at stream time > 0 + after 1, so the right record at 2 emits it
    records = [_left("k1", "A", 0), _right("k2", "x", 2)]
    assert _join("3.9", "left", Window(5, 1, 0), records) == []
    assert _join("3.9", "left", Window(5, 1, 0), records, intended=True) == [("k1", ("A", None), 0, 1)]


def test_stream_stream_held_records_leave_in_store_order_ts_then_right_then_key_bytes() -> None:
    records = [
        _left("b", "Lb", 0),
        _left("a", "La", 0),
        _right("c", "Rc", 0),
        _right("B", "RB", 0),
        _left("a", "La2", 0),
        _right("z", "Rz", 1),
    ]
    assert _join("3.9", "outer", Window(0, 0, 0), records) == [
        ("B", (None, "RB"), 0, 5),
        ("c", (None, "Rc"), 0, 5),
        ("a", ("La", None), 0, 5),
        ("a", ("La2", None), 0, 5),
        ("b", ("Lb", None), 0, 5),
    ]


def test_stream_stream_int_keys_are_held_in_twos_complement_byte_order() -> None:
    records = [_left(-1, "Lm", 0), _left(10, "L10", 0), _left(2, "L2", 0), _right(7, "R7", 1)]
    assert [o[0] for o in _join("3.9", "left", Window(0, 0, 0), records)] == [2, 10, -1]
    assert outer_store_key_bytes(-1) > outer_store_key_bytes(2**40) > outer_store_key_bytes(10)


# --- null keys and values (spec SS-10, SS-11) -------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "expected"),
    [
        ("inner", []),
        ("left", [(None, ("A", None), 5, 0)]),
        ("outer", [(None, ("A", None), 5, 0), (None, (None, "a"), 6, 1)]),
    ],
)
def test_stream_stream_3_7_forwards_null_keys_of_outer_sides(
    variant: Variant, expected: list[Emitted]
) -> None:
    records = [_left(None, "A", 5), _right(None, "a", 6)]
    assert _join("3.7", variant, Window(10, 10, 0), records) == expected
    assert _join("3.6", variant, Window(10, 10, 0), records) == []


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("3.5", [("k1", ("A", None), 0, 2)]),  # B at 10 is in order: the pass emits A, B is held
        ("3.7", [("k3", ("B", None), 10, 2)]),  # the null value moved stream time to 20: B is late
    ],
)
def test_stream_stream_3_7_null_value_advances_stream_time(version: str, expected: list[Emitted]) -> None:
    records = [_left("k1", "A", 0), _right("k2", None, 20), _left("k3", "B", 10)]
    assert _join(version, "left", Window(5, 5, 0), records) == expected


def test_stream_stream_0_10_0_left_join_fails_on_null_left_key() -> None:
    processor = processor_for(
        JoinSpec(join="stream-stream", variant="left", window=Window(10, 10, None)), behaviour_for("0.10.0")
    )
    assert processor.process(0, _right(None, "a", 0)) == []
    with pytest.raises(UnsupportedJoinError, match="null key"):
        processor.process(1, _left(None, "A", 0))


# --- window stores: kind, retention, expiry (spec SS-6, SS-9, SS-15) --------------------------------------


@pytest.mark.parametrize(("stores", "expected"), [("memory", []), ("rocksdb", [("k", ("L1", "R1"), 3, 2)])])
def test_stream_stream_null_value_expires_older_records_only_in_memory_store(
    stores: StoreKind, expected: list[Emitted]
) -> None:
    records = [_right("k", "R1", 1), _right("k", None, 10), _left("k", "L1", 3)]
    assert _join("3.9", "inner", Window(2, 2, 0), records, stores=stores) == expected


@pytest.mark.parametrize(
    ("version", "stores", "expected"),
    [
        ("3.3", "rocksdb", [("k", ("L1", "R1"), 3, 2)]),  # segment [0, 60 s) is still live
        ("3.4", "rocksdb", []),  # exact: 1 <= 59000 - retention 4
        ("3.3", "memory", []),
    ],
)
def test_stream_stream_rocksdb_expires_whole_segments_before_3_4(
    version: str, stores: StoreKind, expected: list[Emitted]
) -> None:
    records = [_right("k", "R1", 1), _right("k2", "R2", 59_000), _left("k", "L1", 3)]
    assert _join(version, "inner", Window(2, 2, 0), records, stores=stores) == expected


@pytest.mark.parametrize(("version", "expected"), [("2.4", []), ("2.6", [("k", ("L1", "R1"), 3, 2)])])
def test_stream_stream_rocksdb_null_value_rolls_segments_before_kafka_9921(
    version: str, expected: list[Emitted]
) -> None:
    records = [_right("k", "R1", 1), _right("k2", None, 200_000), _left("k", "L1", 3)]
    assert _join(version, "inner", Window(2, 2, 0), records, stores="rocksdb") == expected


@pytest.mark.parametrize(("version", "expected"), [("2.8", []), ("3.0", [("k1", ("L1", "R1"), 5, 2)])])
def test_stream_stream_legacy_default_grace_of_asymmetric_window(
    version: str, expected: list[Emitted]
) -> None:
    # of(10).after(1000): 2.x retains max(1 day, 1010); 3.0+ retains 1010 + (1 day - 2 * 10)
    records = [_right("k1", "R1", 0), _right("k2", "R2", DAY_MS + 500), _left("k1", "L1", 5)]
    assert _join(version, "inner", Window(10, 1000, None), records) == expected


def test_stream_stream_grace_before_2_1_is_unsupported() -> None:
    with pytest.raises(UnsupportedJoinError, match="grace"):
        processor_for(
            JoinSpec(join="stream-stream", variant="inner", window=Window(5, 5, 1)), behaviour_for("2.0")
        )


def test_stream_stream_in_memory_stores_before_2_4_are_unsupported() -> None:
    spec = JoinSpec(join="stream-stream", variant="inner", window=Window(5, 5, 1), stores="memory")
    with pytest.raises(UnsupportedJoinError, match="in-memory"):
        processor_for(spec, behaviour_for("2.3"))


def test_stream_stream_snapshot_shows_stores_and_held_records() -> None:
    processor = processor_for(
        JoinSpec(join="stream-stream", variant="left", window=Window(10, 10, 0), stores="memory"),
        behaviour_for("3.9"),
    )
    processor.process(0, _left("k", "A", 7))
    processor.process(1, _right("k2", None, 9))
    assert processor.snapshot() == {
        "left_store": {"observed_time": 7, "records": [["k", 7, "A"]]},
        "right_store": {"observed_time": 9, "records": []},
        "outer": {"stream_time": 9, "min_time": 7, "held": [[7, "left", "k", "A"]]},
    }
