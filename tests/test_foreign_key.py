"""The foreign-key join oracle (oracle/foreign_key.py) follows spec FK-1 and seed 003's workflow.

Left values are ``<fk>:<name>`` (``colon-prefix`` extractor; ``:<name>`` has a null foreign key). Outputs are
compared as ``(key, value, ts)`` with ``value`` the joiner's ``(left, right)`` pair or ``None`` (tombstone).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from kjoin.conformance.catalogue.portable import case_from_json, output_to_json
from kjoin.oracle import JoinSpec, Record, UnsupportedJoinError, Versioning, behaviour_for, processor_for, run
from kjoin.oracle.records import FkExtractor, Key, Side, Value, Variant
from kjoin.scenarios import CATALOGUE_ROOT

GOLDEN = CATALOGUE_ROOT / "golden"

Row = tuple[Key, tuple[Value, Value] | None, int]


def _left(key: Key, value: Value, ts: int) -> Record:
    return Record("left", key, value, ts)


def _right(key: Key, value: Value, ts: int) -> Record:
    return Record("right", key, value, ts)


def _run(
    variant: Variant,
    records: list[Record],
    version: str = "3.9",
    *,
    intended: bool = False,
    versioned: Versioning | None = None,
    extractor: FkExtractor = "colon-prefix",
) -> list[Row]:
    spec = JoinSpec("fk", variant, versioned=versioned, fk_extractor=extractor)
    outputs = run(spec, records, behaviour_for(version, intended=intended))
    return [(output.key, output.value, output.ts) for output in outputs]


# --- eras and variants --------------------------------------------------------------------------------


def test_fk_join_raises_unsupported_before_kip_213() -> None:
    with pytest.raises(UnsupportedJoinError, match=r"2\.4"):
        processor_for(JoinSpec("fk", "inner"), behaviour_for("2.3"))


def test_fk_join_exists_from_2_4() -> None:
    records = [_right("f1", "R1", 1), _left("k1", "f1:L1", 2)]
    assert _run("inner", records, "2.4") == [("k1", ("f1:L1", "R1"), 2)]


def test_fk_join_raises_unsupported_for_outer_variant() -> None:
    with pytest.raises(UnsupportedJoinError, match="outer"):
        processor_for(JoinSpec("fk", "outer"), behaviour_for("3.9"))


# --- left-side changes: subscription instructions -------------------------------------------------------


def test_fk_inner_join_insert_emits_nothing_when_right_value_missing() -> None:
    assert _run("inner", [_left("k1", "f1:L1", 1)]) == []


def test_fk_left_join_insert_emits_left_with_null_when_right_value_missing() -> None:
    assert _run("left", [_left("k1", "f1:L1", 1)], "3.5") == [("k1", ("f1:L1", None), 1)]


@pytest.mark.parametrize("version", ["2.4", "3.5", "3.9"])
def test_fk_inner_join_emits_tombstone_when_fk_moves_to_missing_key(version: str) -> None:
    records = [
        _right("f1", "R1", 0),
        _left("k1", "f1:L1", 1),
        _left("k1", "f2:L2", 2),
        _left("k1", "f3:L3", 3),
    ]
    assert _run("inner", records, version) == [("k1", ("f1:L1", "R1"), 1), ("k1", None, 2), ("k1", None, 3)]


def test_fk_inner_join_same_fk_update_to_missing_right_emits_tombstone() -> None:
    records = [_left("k1", "f1:L1", 1), _left("k1", "f1:L2", 2)]
    assert _run("inner", records) == [("k1", None, 2)]


@pytest.mark.parametrize("variant", ["inner", "left"])
def test_fk_join_delete_of_absent_left_row_emits_nothing(variant: Variant) -> None:
    assert _run(variant, [_right("f1", "R1", 0), _left("k1", None, 1)]) == []


def test_fk_left_join_fk_change_emits_result_once_before_3_7() -> None:
    records = [_right("f2", "R2", 0), _left("k1", "f1:L1", 1), _left("k1", "f2:L2", 2)]
    assert _run("left", records, "3.5") == [("k1", ("f1:L1", None), 1), ("k1", ("f2:L2", "R2"), 2)]


def test_fk_left_join_fk_change_emits_left_with_null_first_on_3_7_kafka_16394() -> None:
    records = [_right("f2", "R2", 0), _left("k1", "f1:L1", 1), _left("k1", "f2:L2", 2)]
    assert _run("left", records, "3.7") == [
        ("k1", ("f1:L1", None), 1),
        ("k1", ("f2:L2", None), 2),
        ("k1", ("f2:L2", "R2"), 2),
    ]


def test_fk_left_join_fk_change_emits_result_once_when_intended() -> None:
    records = [_right("f2", "R2", 0), _left("k1", "f1:L1", 1), _left("k1", "f2:L2", 2)]
    assert _run("left", records, "3.9", intended=True) == [
        ("k1", ("f1:L1", None), 1),
        ("k1", ("f2:L2", "R2"), 2),
    ]


def test_fk_left_join_delete_emits_two_tombstones_on_3_7_kafka_16394() -> None:
    records = [_right("f1", "R1", 5), _left("k1", "f1:L1", 1), _left("k1", None, 3)]
    # The first tombstone answers DELETE_KEY_AND_PROPAGATE via f1 (max with R1's ts), the second the null-FK
    # subscription (left ts only).
    assert _run("left", records, "3.7") == [("k1", ("f1:L1", "R1"), 5), ("k1", None, 5), ("k1", None, 3)]


def test_fk_left_join_delete_emits_one_tombstone_before_3_7() -> None:
    records = [_right("f1", "R1", 5), _left("k1", "f1:L1", 1), _left("k1", None, 3)]
    # the one tombstone answers DELETE_KEY_AND_PROPAGATE via f1: max with R1's ts
    assert _run("left", records, "3.5") == [("k1", ("f1:L1", "R1"), 5), ("k1", None, 5)]


@pytest.mark.parametrize(("version", "intended"), [("3.9", True), ("3.9.1", False), ("4.3", False)])
def test_fk_left_join_delete_emits_one_tombstone_at_the_left_ts_once_fixed(
    version: str, intended: bool
) -> None:
    records = [_right("f1", "R1", 5), _left("k1", "f1:L1", 1), _left("k1", None, 3)]
    # KAFKA-16394 fixed (3.9.1, 4.0.1): the old foreign key's subscription is deleted without a result, the
    # tombstone comes from the null-foreign-key path at the left record's ts (golden 3.9.2 / 4.3.1 traces)
    assert _run("left", records, version, intended=intended) == [("k1", ("f1:L1", "R1"), 5), ("k1", None, 3)]


# --- null foreign keys -----------------------------------------------------------------------------------


def test_fk_left_join_null_foreign_key_joins_with_null_from_3_7() -> None:
    assert _run("left", [_right("f1", "R1", 0), _left("k1", ":L1", 4)], "3.7") == [("k1", (":L1", None), 4)]


@pytest.mark.parametrize(("variant", "version"), [("left", "3.5"), ("inner", "3.7"), ("inner", "3.9")])
def test_fk_join_null_foreign_key_insert_is_skipped(variant: Variant, version: str) -> None:
    assert _run(variant, [_left("k1", ":L1", 4)], version) == []


def test_fk_left_join_fk_change_to_null_retracts_old_subscription_from_3_7() -> None:
    records = [_right("f1", "R1", 0), _left("k1", "f1:L1", 1), _left("k1", ":L2", 2), _right("f1", "R2", 3)]
    assert _run("left", records, "3.9") == [
        ("k1", ("f1:L1", "R1"), 1),
        ("k1", (":L2", None), 2),
        ("k1", (":L2", None), 2),
    ]
    assert _run("left", records, "3.9", intended=True) == [
        ("k1", ("f1:L1", "R1"), 1),
        ("k1", (":L2", None), 2),
    ]


@pytest.mark.parametrize(("variant", "version"), [("inner", "3.9"), ("left", "3.5")])
def test_fk_join_null_fk_update_keeps_old_result_and_makes_subscription_stale(
    variant: Variant, version: str
) -> None:
    """The skipped update changes the left table but not the subscription's hash, so the next right update's
    response is stale and dropped (the hash check of seed 003 firing in a synchronous run)."""
    records = [_right("f1", "R1", 0), _left("k1", "f1:L1", 1), _left("k1", ":L2", 2), _right("f1", "R2", 3)]
    assert _run(variant, records, version) == [("k1", ("f1:L1", "R1"), 1)]


def test_fk_inner_join_stale_subscription_revives_when_left_returns_to_subscribed_value() -> None:
    """The hash is a function of the value: the update back to ``f1:L1`` is skipped (its old FK is null),
    yet the stored subscription's hash matches the current left value again."""
    records = [_left("k1", "f1:L1", 1), _left("k1", ":L2", 2), _left("k1", "f1:L1", 3), _right("f1", "R1", 4)]
    assert _run("inner", records) == [("k1", ("f1:L1", "R1"), 4)]


def test_fk_inner_join_delete_after_null_fk_update_emits_nothing() -> None:
    records = [_right("f1", "R1", 0), _left("k1", "f1:L1", 1), _left("k1", ":L2", 2), _left("k1", None, 3)]
    assert _run("inner", records) == [("k1", ("f1:L1", "R1"), 1)]


def test_fk_left_join_delete_of_null_fk_row_emits_one_tombstone_from_3_7() -> None:
    assert _run("left", [_left("k1", ":L1", 1), _left("k1", None, 2)], "3.9") == [
        ("k1", (":L1", None), 1),
        ("k1", None, 2),
    ]


# --- right-side updates ------------------------------------------------------------------------------------


def test_fk_right_update_fans_out_in_primary_key_byte_order() -> None:
    keys = ["b", "é", "aa", "B", "a"]
    records = [_left(key, f"f1:{key}", i) for i, key in enumerate(keys)] + [_right("f1", "R1", 9)]
    assert [row[0] for row in _run("inner", records)] == ["B", "a", "aa", "b", "é"]


def test_fk_right_update_orders_integer_keys_by_serialized_bytes() -> None:
    records = [_left(-1, "f1:L1", 0), _left(2, "f1:L2", 1), _left(1, "f1:L3", 2), _right("f1", "R1", 3)]
    assert [row[0] for row in _run("inner", records)] == [1, 2, -1]


def test_fk_right_triggered_result_carries_right_ts() -> None:
    records = [_left("k1", "f1:L1", 10), _right("f1", "R1", 3)]
    assert _run("inner", records) == [("k1", ("f1:L1", "R1"), 3)]


@pytest.mark.parametrize(("right_ts", "expected_ts"), [(3, 10), (12, 12)])
def test_fk_left_triggered_result_carries_max_of_left_and_right_ts(right_ts: int, expected_ts: int) -> None:
    records = [_right("f1", "R1", right_ts), _left("k1", "f1:L1", 10)]
    assert _run("inner", records) == [("k1", ("f1:L1", "R1"), expected_ts)]


@pytest.mark.parametrize(("variant", "expected"), [("inner", None), ("left", ("f1:L1", None))])
def test_fk_right_tombstone_of_absent_key_still_answers_subscribers(variant: Variant, expected: Any) -> None:
    records = [_left("k1", "f1:L1", 1), _right("f1", None, 2)]
    assert _run(variant, records, "3.5")[-1] == ("k1", expected, 2)


def test_fk_right_update_with_unchanged_value_still_emits() -> None:
    records = [_left("k1", "f1:L1", 1), _right("f1", "R1", 2), _right("f1", "R1", 3)]
    assert _run("inner", records) == [("k1", ("f1:L1", "R1"), 2), ("k1", ("f1:L1", "R1"), 3)]


def test_fk_right_update_without_subscribers_emits_nothing() -> None:
    assert _run("left", [_left("k1", "f1:L1", 1), _right("f2", "R1", 2)]) == [("k1", ("f1:L1", None), 1)]


@pytest.mark.parametrize("side", ["left", "right"])
def test_fk_join_drops_null_keys(side: Side) -> None:
    records = [_left("k1", "f1:L1", 1), Record(side, None, "f1:L2" if side == "left" else "R1", 2)]
    assert _run("left", records) == [("k1", ("f1:L1", None), 1)]


def test_fk_join_pipe_suffix_extractor_takes_text_after_last_pipe() -> None:
    records = [_right("rhs1", "rhsValue1", 0), _left("lhs1", "lhsValue1|rhs1", 3)]
    assert _run("inner", records, extractor="pipe-suffix") == [("lhs1", ("lhsValue1|rhs1", "rhsValue1"), 3)]


# --- versioned sides (3.5+, spec FK-11) --------------------------------------------------------------


def test_fk_versioned_left_drops_out_of_order_update() -> None:
    records = [_right("f1", "R1", 0), _left("k1", "f1:L1", 5), _left("k1", "f1:L0", 2), _right("f1", "R2", 6)]
    versioned = Versioning(left=True, history_ms=100)
    assert _run("inner", records, versioned=versioned) == [
        ("k1", ("f1:L1", "R1"), 5),
        ("k1", ("f1:L1", "R2"), 6),
    ]


def test_fk_unversioned_left_applies_out_of_order_update() -> None:
    records = [_right("f1", "R1", 0), _left("k1", "f1:L1", 5), _left("k1", "f1:L0", 2)]
    assert _run("inner", records) == [("k1", ("f1:L1", "R1"), 5), ("k1", ("f1:L0", "R1"), 2)]


def test_fk_versioned_right_drops_out_of_order_update_and_keeps_latest_for_lookups() -> None:
    records = [_right("f1", "R1", 5), _left("k1", "f1:L1", 6), _right("f1", "R0", 2), _left("k2", "f1:L2", 7)]
    versioned = Versioning(right=True, history_ms=100)
    assert _run("inner", records, versioned=versioned) == [
        ("k1", ("f1:L1", "R1"), 6),
        ("k2", ("f1:L2", "R1"), 7),
    ]


def test_fk_versioned_right_update_older_than_history_is_not_stored() -> None:
    records = [_right("f2", "R9", 50), _right("f1", "R1", 5), _left("k1", "f1:L1", 60)]
    versioned = Versioning(right=True, history_ms=10)
    assert _run("left", records, "3.5", versioned=versioned) == [("k1", ("f1:L1", None), 60)]


def test_fk_versioned_left_update_older_than_history_is_not_forwarded() -> None:
    records = [
        _right("f1", "R1", 0),
        _left("k2", "f1:L9", 50),
        _left("k1", "f1:L1", 5),
        _right("f1", "R2", 51),
    ]
    versioned = Versioning(left=True, history_ms=10)
    assert _run("inner", records, versioned=versioned) == [
        ("k2", ("f1:L9", "R1"), 50),
        ("k2", ("f1:L9", "R2"), 51),
    ]


# --- state -------------------------------------------------------------------------------------------------


def test_fk_snapshot_lists_subscriptions_in_scan_order_with_their_hashes() -> None:
    processor = processor_for(JoinSpec("fk", "left"), behaviour_for("3.9"))
    for index, record in enumerate(
        [_left("k2", "f1:L1", 1), _left("k1", "f1:L2", 2), _left("k3", "f2:L3", 3)]
    ):
        processor.process(index, record)
    assert processor.snapshot()["subscriptions"] == {
        "f1": [["k1", "f1:L2"], ["k2", "f1:L1"]],
        "f2": [["k3", "f2:L3"]],
    }


# --- golden traces: KAFKA-16394 ----------------------------------------------------------------------------


def _golden(version: str) -> dict[str, dict[str, Any]]:
    lines = (GOLDEN / f"{version}.jsonl").read_text(encoding="utf-8").splitlines()
    return {trace["id"]: trace for trace in map(json.loads, filter(str.strip, lines))}


_GOLDEN_FIXED = _golden("3.9.2")
_KAFKA_16394 = [
    trace
    for version in ("3.7", "3.9")
    for trace in _golden(version).values()
    if trace.get("known_bug") == "KAFKA-16394"
]


def test_fk_golden_kafka_16394_lines_are_all_left_fk_joins() -> None:
    assert len(_KAFKA_16394) == 80
    assert {(trace["join"], trace["variant"]) for trace in _KAFKA_16394} == {("fk", "left")}


@pytest.mark.parametrize("trace", _KAFKA_16394, ids=[f"{t['id']}@{t['kafka']}" for t in _KAFKA_16394])
def test_fk_left_join_kafka_16394_intended_matches_the_fixed_release_and_actual_matches_trace(
    trace: dict[str, Any],
) -> None:
    """``intended`` is the behaviour Kafka shipped when it fixed the bug: the same inputs traced on 3.9.2."""
    scenario = case_from_json(trace, f"golden/{trace['kafka']}.jsonl")
    before = _GOLDEN_FIXED[trace["id"]]
    assert case_from_json(before, "golden/3.9.2.jsonl").records == scenario.records
    intended = run(scenario.spec, scenario.records, behaviour_for(scenario.kafka, intended=True))
    actual = run(scenario.spec, scenario.records, behaviour_for(scenario.kafka))
    assert [output_to_json(output) for output in intended] == before["expected"]
    assert [output_to_json(output) for output in actual] == trace["expected"]
