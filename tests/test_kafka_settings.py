"""Production settings in the real Kafka Streams driver (issue 26): the scenario's ``settings`` and each
record's ``wall_clock`` reach TopologyTestDriver of 3.7.2 (whose test driver keeps Kafka's 1000 ms emit
interval) and of 4.4.0 (whose test driver sets it to 0).

Only what is plainly true of Kafka is asserted, never an output list: the emit throttle of left/outer
stream-stream joins delays or withholds non-joined results but changes no value or timestamp, and with a
wall-clock step at least the interval per input the output is the throttle-off output; a 10 MiB record
cache makes a table-table join lose records (a delete of a key whose result is already gone, a repeat)
and nothing else. How the oracle models these is compared with the driver elsewhere.

These tests need Java 17 and Maven and reach Maven Central on the first build of a release (CI has both).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from kjoin.conformance.kafka.driver import KafkaDriver

pytestmark = [pytest.mark.system, pytest.mark.kafka, pytest.mark.xdist_group("kafka")]

RELEASES = ("3.7.2", "4.4.0")
EMIT_INTERVAL_MS = 1000
CACHE_MAX_BYTES = 10 * 1024 * 1024
Out = tuple[Any, tuple[Any, Any] | None, int]


def _outputs(answer: dict[str, Any]) -> list[Out]:
    assert "error" not in answer, answer["error"]
    return [(o["key"], None if o["value"] is None else tuple(o["value"]), o["ts"]) for o in answer["outputs"]]


def _stream_stream(release: str, *, emit_interval_ms: int | None, step_ms: int | None) -> dict[str, Any]:
    """A left join of 12 inputs 100 ms of event time apart: every third is a right record joining the left
    record before it; the other left records find no partner and are held until their window closes."""
    records = []
    for i in range(12):
        if i % 3 == 2:
            record = {"side": "right", "key": f"k{i - 1}", "value": f"R{i}", "ts": 100 * (i - 1) + 20}
        else:
            record = {"side": "left", "key": f"k{i}", "value": f"L{i}", "ts": 100 * i}
        if step_ms is not None:
            record["wall_clock"] = step_ms * i
        records.append(record)
    line: dict[str, Any] = {
        "id": f"stream-stream-emit-{emit_interval_ms}-step-{step_ms}",
        "kafka": release,
        "join": "stream-stream",
        "variant": "left",
        "window": {"before": 50, "after": 50, "grace": 0},
        "records": records,
    }
    if emit_interval_ms is not None:
        line["settings"] = {"emit_interval_ms": emit_interval_ms}
    return line


def _answers(release: str, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    with KafkaDriver(release) as driver:
        return list(driver.answers(json.dumps(line) for line in lines))


def _is_subsequence(part: list[Out], whole: list[Out]) -> bool:
    rest = iter(whole)
    return all(any(item == other for other in rest) for item in part)


@pytest.mark.parametrize("release", RELEASES)
def test_the_emit_throttle_delays_or_withholds_non_joined_results_and_changes_nothing_else(
    release: str,
) -> None:
    lines = [_stream_stream(release, emit_interval_ms=None, step_ms=None)]
    lines += [_stream_stream(release, emit_interval_ms=EMIT_INTERVAL_MS, step_ms=s) for s in (0, 100, 1000)]
    off, still, slow, interval = (_outputs(a) for a in _answers(release, lines))

    def joined(outputs: list[Out]) -> list[Out]:
        return [o for o in outputs if o[1] is not None and None not in o[1]]

    assert len(joined(off)) == 4 and len(off) > len(joined(off))
    assert interval == off, "a wall-clock step of the whole interval per input lets every pass run"
    assert len(still) < len(off), "with the wall clock standing still, held results stay held"
    for throttled in (still, slow):
        assert joined(throttled) == joined(off), "joined results are emitted at once, throttle or not"
        assert len(set(throttled)) == len(throttled), "nothing is emitted twice"
        assert set(throttled) <= set(off), "values and timestamps are never changed, only held back"


def test_an_emit_interval_is_refused_where_the_release_has_none() -> None:
    line = _stream_stream("2.4.1", emit_interval_ms=EMIT_INTERVAL_MS, step_ms=1000)
    [answer] = _answers("2.4.1", [line])
    assert answer["id"] == line["id"]
    assert "has no emit interval" in answer["error"] and "KAFKA-10847" in answer["error"]


TABLE_RECORDS = [
    ("left", "a", "A1", 1), ("right", "a", "a1", 2), ("left", "b", None, 3), ("left", "a", None, 5),
    ("left", "a", None, 6), ("right", "a", None, 7), ("left", "d", "D1", 8), ("right", "d", "d1", 9),
    ("right", "d", None, 10), ("right", "d", None, 11),
]  # fmt: skip
"""Deletes of keys that are already absent on one side, or were never there."""


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("variant", ["inner", "left", "outer"])
def test_a_record_cache_loses_table_table_results_and_changes_nothing_else(
    release: str, variant: str
) -> None:
    records = [{"side": s, "key": k, "value": v, "ts": ts} for s, k, v, ts in TABLE_RECORDS]
    base = {"kafka": release, "join": "table-table", "variant": variant, "records": records}
    lines = [
        dict(base, id="cache-off"),
        dict(base, id="cache-0", settings={"cache_max_bytes": 0}),
        dict(base, id="cache-10MiB", settings={"cache_max_bytes": CACHE_MAX_BYTES}),
    ]
    off, zero, cached = (_outputs(a) for a in _answers(release, lines))
    assert zero == off, "cache_max_bytes 0 is the default"
    assert len(cached) < len(off) and _is_subsequence(cached, off)
    lost = list(off)
    for output in cached:
        lost.remove(output)
    for key, value, ts in lost:
        before = [o[1] for o in off if o[0] == key and o[2] < ts]
        assert value is None or (before and before[-1] == value), (
            f"{key}@{ts}: what the cache drops is a tombstone or a repeat of the key's previous result"
        )


@pytest.mark.parametrize(
    ("settings", "record", "error"),
    [
        ({"cache_max_byte": 1}, {}, ".settings: unknown setting 'cache_max_byte'"),
        ({"commit_interval_ms": -1}, {}, ".settings.commit_interval_ms: expected a non-negative integer"),
        ({"emit_interval_ms": "1000"}, {}, ".settings.emit_interval_ms: expected a non-negative integer"),
        ({}, {"wall_clock": 5}, ".records[1].wall_clock: 5 is before the previous record's 10"),
        ({}, {"commit": 1}, ".records[1].commit: expected true or false"),
    ],
)
def test_bad_settings_and_wall_clocks_are_error_lines_naming_the_field(
    settings: dict[str, Any], record: dict[str, Any], error: str
) -> None:
    records = [
        {"side": "left", "key": "k", "value": "A", "ts": 1, "wall_clock": 10},
        dict({"side": "right", "key": "k", "value": "a", "ts": 2}, **record),
    ]
    line = {"id": "bad", "kafka": "4.4", "join": "table-table", "variant": "inner",
            "settings": settings, "records": records}  # fmt: skip
    good = dict(line, id="good", settings={}, records=records[:1])
    bad_answer, good_answer = _answers("4.4.0", [line, good])
    assert bad_answer["id"] == "bad" and bad_answer["error"].startswith("line 1 'bad'" + error)
    assert good_answer == {"id": "good", "outputs": []}
