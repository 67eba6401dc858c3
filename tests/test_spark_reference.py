"""The bundled spark-reference candidate reproduces real Kafka Streams exactly on local Spark.

Every golden trace of Kafka 3.9 and 3.0 (random scenarios and the documentation examples) of every join kind
goes through ``candidate.run`` on a real local SparkSession, one call per join kind (as the harness calls it),
and the outputs must equal the captured ones: keys, values, tombstones, timestamps, and the exact emission
order given by sorting on ``(idx, seq)``.

The default tier's real-Spark check of spark-reference is the stream-stream traces (and the registration);
the other join kinds' traces and the focused runs are system tests (``support.tiers``).
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import TYPE_CHECKING, Any

import pytest

from kjoin.conformance.candidates.spark_reference import candidate
from kjoin.conformance.catalogue.portable import case_from_json
from kjoin.conformance.protocol import INPUT_SCHEMA, SPEC_SCHEMA, Candidate, load_candidate
from kjoin.oracle.behaviour import ERAS, era_of
from kjoin.scenarios import CATALOGUE_ROOT
from support.tiers import default_tier_keeps, spark_group

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

pytestmark = spark_group("spark")  # the spark-reference group: golden traces, catalogue, fuzzing

GOLDEN = CATALOGUE_ROOT / "golden"
VERSIONS = ("3.9", "3.0")
JOIN_KINDS = ("stream-stream", "stream-table", "table-table", "fk")

Row = tuple[str | None, str | None, str | None, bool, int]
"""(key, left, right, tombstone, ts) of one output record."""


def _golden_traces() -> list[dict[str, Any]]:
    """The golden lines of the checked versions, from the version files and docs.jsonl."""
    traces = []
    for path in [GOLDEN / f"{version}.jsonl" for version in VERSIONS] + [GOLDEN / "docs.jsonl"]:
        for line in path.read_text().splitlines():
            trace = json.loads(line) if line.strip() else None
            if trace is not None and trace["kafka"] in VERSIONS:
                traces.append(trace)
    return traces


TRACES = _golden_traces()


def _scenario_id(trace: dict[str, Any]) -> str:
    return f"{trace['id']}@{trace['kafka']}"


def _protocol_rows(traces: list[dict[str, Any]]) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """INPUT_SCHEMA and SPEC_SCHEMA rows (keys as text) for the traces."""
    inputs, specs = [], []
    for trace in traces:
        scenario, sid = case_from_json(trace, _scenario_id(trace)), _scenario_id(trace)
        spec, window, versioned = scenario.spec, scenario.spec.window, scenario.spec.versioned
        for index, record in enumerate(scenario.records):
            key = None if record.key is None else str(record.key)
            inputs.append((sid, index, record.side, key, record.value, record.ts))
        windowed = window is not None and spec.join == "stream-stream"
        specs.append(
            (
                sid,
                scenario.kafka,
                spec.join,
                spec.variant,
                window.before if windowed else None,
                window.after if windowed else None,
                window.grace if window is not None else None,
                spec.stores,
                bool(versioned and versioned.left),
                bool(versioned and versioned.right),
                versioned.history_ms if versioned else None,
                spec.fk_extractor,
                scenario.intended,
                bool(window is not None and window.legacy),
                spec.self_join,
                spec.optimization,
                spec.key_mapper,
            )
        )
    return inputs, specs


def _expected(trace: dict[str, Any]) -> list[Row]:
    rows: list[Row] = []
    for output in trace["expected"]:
        key = None if output["key"] is None else str(output["key"])
        if output["value"] is None:
            rows.append((key, None, None, True, output["ts"]))
        else:
            rows.append((key, output["value"][0], output["value"][1], False, output["ts"]))
    return rows


def _emitted_with_index(
    spark: SparkSession, traces: list[dict[str, Any]]
) -> dict[str, list[tuple[int, Row]]]:
    """One ``run`` call; per scenario the ``(idx, output)`` pairs in emission order."""
    inputs, specs = _protocol_rows(traces)
    result = candidate.run(
        spark, spark.createDataFrame(inputs, INPUT_SCHEMA), spark.createDataFrame(specs, SPEC_SCHEMA)
    )
    emitted: dict[str, list[tuple[int, int, Row]]] = defaultdict(list)
    for row in result.collect():
        emitted[row.scenario_id].append(
            (row.idx, row.seq, (row.key, row.left, row.right, row.tombstone, row.ts))
        )
    return {sid: [(idx, out) for idx, _, out in sorted(rows)] for sid, rows in emitted.items()}


@pytest.mark.parametrize("join", default_tier_keeps(JOIN_KINDS, keep={"stream-stream"}))
def test_spark_reference_reproduces_golden_traces_of_3_9_and_3_0(spark: SparkSession, join: str) -> None:
    traces = [trace for trace in TRACES if trace["join"] == join]
    assert traces, f"no golden {join} traces for {VERSIONS}"
    got = {sid: [out for _, out in emitted] for sid, emitted in _emitted_with_index(spark, traces).items()}
    mismatching = [_scenario_id(t) for t in traces if got.get(_scenario_id(t), []) != _expected(t)]
    assert not mismatching, (
        f"{len(mismatching)} of {len(traces)} {join} traces differ: {', '.join(mismatching)}"
    )


@pytest.mark.system
def test_spark_reference_numbers_outputs_densely_within_each_input_index(spark: SparkSession) -> None:
    traces = [t for t in TRACES if t["join"] == "stream-stream" and t["kafka"] == "3.9"][:40]
    inputs, specs = _protocol_rows(traces)
    result = candidate.run(
        spark, spark.createDataFrame(inputs, INPUT_SCHEMA), spark.createDataFrame(specs, SPEC_SCHEMA)
    )
    seqs: dict[tuple[str, int], list[int]] = defaultdict(list)
    for row in result.select("scenario_id", "idx", "seq").collect():
        seqs[(row.scenario_id, row.idx)].append(row.seq)
    assert seqs, "the traces produce outputs"
    assert all(sorted(numbers) == list(range(len(numbers))) for numbers in seqs.values())


def test_spark_reference_is_a_registered_candidate_claiming_3_9_and_3_0() -> None:
    loaded = load_candidate("spark-reference")
    assert isinstance(loaded, Candidate)
    assert loaded.name == "spark-reference"
    assert set(JOIN_KINDS) <= loaded.claim.joins
    # the claim names each era by its first release (the version registry): 3.9 is claimed through the 3.8 era
    assert {era_of(version) for version in VERSIONS} <= {era_of(version) for version in loaded.claim.kafka}
    # every era but 0.10.0, whose failing left join a DataFrame of outputs cannot express
    claimed_eras = {era_of(version) for version in loaded.claim.kafka}
    assert claimed_eras == {era.era for era in ERAS.values()} - {"0.10.0"}


def _records(*rows: tuple[str, str, str, int]) -> list[dict[str, Any]]:
    return [{"side": side, "key": key, "value": value, "ts": ts} for side, key, value, ts in rows]


@pytest.mark.system
def test_spark_reference_emits_held_left_results_one_trigger_later_with_stale_min_time_on_3_8(
    spark: SparkSession,
) -> None:
    # spec SS-24: left join, window 10, grace 0; B@105 closes at stream time 116, but
    # 3.8+ remembers minTime 108 (the last entry visited) and waits for R@119; 3.1-3.7 emit it at R@116
    records = _records(
        ("left", "k1", "A", 100),
        ("left", "k2", "B", 105),
        ("left", "k3", "C", 108),
        ("right", "k9", "x", 111),
        ("right", "k9", "y", 116),
        ("right", "k9", "z", 119),
    )
    window = {"before": 10, "after": 10, "grace": 0}
    traces = [
        {
            "id": f"stale-min-time-{kafka}",
            "kafka": kafka,
            "join": "stream-stream",
            "variant": "left",
            "stores": "memory",
            "window": window,
            "records": records,
        }
        for kafka in ("3.9", "3.7")
    ]
    got = _emitted_with_index(spark, traces)
    a, b, c = ("k1", "A", None, False, 100), ("k2", "B", None, False, 105), ("k3", "C", None, False, 108)
    assert got["stale-min-time-3.9@3.9"] == [(3, a), (5, b), (5, c)]
    assert got["stale-min-time-3.7@3.7"] == [(3, a), (4, b), (5, c)]


@pytest.mark.system
def test_spark_reference_joins_buffered_stream_records_when_grace_has_passed(spark: SparkSession) -> None:
    # spec ST-8 (KIP-923, 3.6+): X0@0 is buffered until the buffer time reaches 0 + 2 (at X2@2) and
    # is then looked up in the versioned table as of its own ts, seeing the update Y2@0 made meanwhile
    records = _records(
        ("right", "k", "Y1", 0),
        ("left", "k", "X0", 0),
        ("right", "k", "Y2", 0),
        ("left", "k", "X1", 1),
        ("left", "k", "X2", 2),
    )
    trace = {
        "id": "grace-buffer",
        "kafka": "3.9",
        "join": "stream-table",
        "variant": "inner",
        "stores": "memory",
        "window": {"grace": 2},
        "versioned": {"left": False, "right": True, "history_ms": 100},
        "records": records,
    }
    assert _emitted_with_index(spark, [trace])["grace-buffer@3.9"] == [(4, ("k", "X0", "Y2", False, 0))]
