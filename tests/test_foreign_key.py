"""Oracle-internal checks of the foreign-key join (spec FK-n) that no scenario file can state.

Every behaviour with observable outputs is a scenario file under ``scenarios/foreign_key/`` (one behaviour per
file, run by ``kjoin check`` and by every candidate; the ``pipe-suffix`` extractor is exercised by Kafka's own
tests in ``scenarios/kafka_tests/fk.jsonl``). What stays here is not a scenario's outputs:

* joins the oracle must refuse (``UnsupportedJoinError``): a scenario its own Kafka version cannot run is an
  input error by design, so these cannot be scenario files;
* primary keys the TOML tables cannot write (non-ASCII text, integers) in the right-side fan-out order;
* a processor's internal state (``snapshot``);
* a property of the golden traces across versions (KAFKA-16394: the intended 3.7/3.9 output equals 3.5's).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from kjoin.conformance.catalogue.portable import case_from_json, output_to_json
from kjoin.oracle import JoinSpec, Record, UnsupportedJoinError, behaviour_for, processor_for, run
from kjoin.oracle.records import Key, Value
from kjoin.scenarios import CATALOGUE_ROOT

GOLDEN = CATALOGUE_ROOT / "golden"


def _left(key: Key, value: Value, ts: int) -> Record:
    return Record("left", key, value, ts)


def _right(key: Key, value: Value, ts: int) -> Record:
    return Record("right", key, value, ts)


def _output_keys(records: list[Record]) -> list[Key]:
    """The keys of an inner foreign-key join's outputs on Kafka 3.9, in emission order."""
    return [output.key for output in run(JoinSpec("fk", "inner"), records, behaviour_for("3.9"))]


# --- eras and variants --------------------------------------------------------------------------------


def test_fk_join_raises_unsupported_before_kip_213() -> None:
    with pytest.raises(UnsupportedJoinError, match=r"2\.4"):
        processor_for(JoinSpec("fk", "inner"), behaviour_for("2.3"))


def test_fk_join_raises_unsupported_for_outer_variant() -> None:
    with pytest.raises(UnsupportedJoinError, match="outer"):
        processor_for(JoinSpec("fk", "outer"), behaviour_for("3.9"))


# --- right-side fan-out order for keys a TOML scenario cannot write (spec FK-8) ---------------------------


def test_fk_right_update_fans_out_in_primary_key_byte_order() -> None:
    """A non-ASCII key (UTF-8 bytes); the ASCII keys alone are
    scenarios/foreign_key/right-update-fans-out-in-primary-key-byte-order.toml."""
    keys = ["b", "é", "aa", "B", "a"]
    records = [_left(key, f"f1:{key}", i) for i, key in enumerate(keys)] + [_right("f1", "R1", 9)]
    assert _output_keys(records) == ["B", "a", "aa", "b", "é"]


def test_fk_right_update_orders_integer_keys_by_serialized_bytes() -> None:
    records = [_left(-1, "f1:L1", 0), _left(2, "f1:L2", 1), _left(1, "f1:L3", 2), _right("f1", "R1", 3)]
    assert _output_keys(records) == [1, 2, -1]


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


def test_fk_snapshot_names_each_table_by_its_side() -> None:
    processor = processor_for(JoinSpec("fk", "left"), behaviour_for("3.9"))
    processor.process(0, _left("k2", "f1:L1", 1))
    processor.process(1, _right("f1", "R1", 2))
    snapshot = processor.snapshot()
    assert snapshot["left"] == {"'k2'": {"value": "f1:L1", "ts": 1}}
    assert snapshot["right"] == {"'f1'": {"value": "R1", "ts": 2}}


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
    scenario = case_from_json(trace, "golden")
    before = _GOLDEN_FIXED[trace["id"]]
    assert case_from_json(before, "golden").records == scenario.records
    intended = run(scenario.spec, scenario.records, behaviour_for(scenario.kafka, intended=True))
    actual = run(scenario.spec, scenario.records, behaviour_for(scenario.kafka))
    assert [output_to_json(output) for output in intended] == before["expected"]
    assert [output_to_json(output) for output in actual] == trace["expected"]
