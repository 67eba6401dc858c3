"""Oracle-internal checks of the stream-stream join (spec SS-n) that no scenario file can state.

Every behaviour with observable outputs is a scenario file under ``scenarios/stream_stream/`` (one behaviour
per file, run by ``kjoin check`` and by every candidate). What stays here is not a scenario's outputs:

* integer keys and the outer store's byte-order helper (the TOML tables have string keys only);
* joins the oracle must refuse (``UnsupportedJoinError``): a scenario its own Kafka version cannot run is an
  input error by design, so these cannot be scenario files;
* a processor's internal state (``snapshot``).
"""

from __future__ import annotations

import pytest

from kjoin.oracle import UnsupportedJoinError, behaviour_for, run
from kjoin.oracle.engine import processor_for
from kjoin.oracle.outer_store import outer_store_key_bytes
from kjoin.oracle.records import JoinSpec, Key, Record, Value, Window


def _left(key: Key, value: Value, ts: int) -> Record:
    return Record("left", key, value, ts)


def _right(key: Key, value: Value, ts: int) -> Record:
    return Record("right", key, value, ts)


def test_stream_stream_int_keys_are_held_in_twos_complement_byte_order() -> None:
    """Spec SS-21 with integer keys (serialized as big-endian two's complement), which a TOML scenario cannot
    write; the string-key order is ``scenarios/stream_stream/held-records-store-order.toml``."""
    records = [_left(-1, "Lm", 0), _left(10, "L10", 0), _left(2, "L2", 0), _right(7, "R7", 1)]
    spec = JoinSpec(join="stream-stream", variant="left", window=Window(0, 0, 0), stores="memory")
    assert [o.key for o in run(spec, records, behaviour_for("3.9"))] == [2, 10, -1]
    assert outer_store_key_bytes(-1) > outer_store_key_bytes(2**40) > outer_store_key_bytes(10)


def test_stream_stream_0_10_0_left_join_fails_on_null_left_key() -> None:
    processor = processor_for(
        JoinSpec(join="stream-stream", variant="left", window=Window(10, 10, None)), behaviour_for("0.10.0")
    )
    assert processor.process(0, _right(None, "a", 0)) == []
    with pytest.raises(UnsupportedJoinError, match="null key"):
        processor.process(1, _left(None, "A", 0))


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


def test_stream_stream_snapshot_keeps_a_record_at_the_first_live_timestamp() -> None:
    """Spec SS-7: an in-memory store keeps a record while ``ts > observed - retention``. Retention 10 + 10 + 0
    = 20 and observed time 24: B@5 is still live (5 > 4) and A@4 is not. The snapshot lists what a fetch can
    still return (a probe of ``k`` over 5 - 10 to 5 + 10 finds B only), so B at the boundary is in it."""
    processor = processor_for(
        JoinSpec(join="stream-stream", variant="inner", window=Window(10, 10, 0), stores="memory"),
        behaviour_for("3.9"),
    )
    for index, record in enumerate([_left("k", "A", 4), _left("k", "B", 5), _left("k2", "C", 24)]):
        assert processor.process(index, record) == []
    live = [["k", 5, "B"], ["k2", 24, "C"]]
    assert processor.snapshot()["left_store"] == {"observed_time": 24, "records": live}
    assert [o.value for o in processor.process(3, _right("k", "R", 5))] == [("B", "R")]
