"""The first divergence explained from Kafka's state: the sentence says which rule decides the output."""

from __future__ import annotations

import json
from typing import Any

from kjoin.conformance.catalogue import Case, load_cases
from kjoin.conformance.checker import Divergence
from kjoin.conformance.documents.explain import explain, stream_times
from kjoin.oracle.behaviour import behaviour_for
from kjoin.oracle.engine import run, run_traced
from kjoin.oracle.records import Output
from kjoin.scenarios import CATALOGUE_ROOT

REGRESSION = CATALOGUE_ROOT / "regressions" / "regression-spark-reference-ss-outer-100011.jsonl"


def test_a_closed_record_kept_by_the_stale_min_time_is_explained_by_the_gate() -> None:
    [case] = load_cases([REGRESSION]).cases
    extra = Output("k2", (None, "R2"), 11, 15)
    first = Divergence("unexpected-output", None, extra, 15, "")
    found = explain(case, first)
    assert found is not None
    assert found["why"]["text"] == (
        "Kafka still holds k2: null - R2 @11 although its window closed at 21 (stream time 23): no emission "
        "pass runs, because minTime 17 (3.8+ as released: the ts of the last record the previous pass read) "
        "+ 1 + 7 = 25 is not below stream time 23 (spec SS-24)."
    )
    # the same as a structured value: the rule with its link into the spec, and the numbers the text uses
    assert found["why"]["rule"]["id"] == "SS-24"
    assert found["why"]["rule"]["link"] == (
        "docs/semantics/stream-stream.md#ss-24-emission-pass-38-as-released-stale-mintime"
    )
    numbers = found["why"]["numbers"]
    assert (numbers["closes_at"], numbers["stream_time"], numbers["min_time"], numbers["gate"]) == (
        21,
        23,
        17,
        25,
    )
    held = next(t for t in found["after"] if t["title"].startswith("held non-joined records"))
    assert ["right", "k2", "R2", 11] in held["rows"]
    json.dumps(found, default=str)  # plain data, for the results document


def test_a_record_still_inside_its_window_is_explained_by_its_closing_time() -> None:
    [case] = load_cases([REGRESSION]).cases
    first = Divergence("unexpected-output", None, Output("k3", ("L10", None), 23, 15), 15, "")
    found = explain(case, first)
    assert found is not None
    assert (
        found["why"]["text"]
        == "Kafka still holds k3: L10 - null @23: it closes when stream time passes 31; stream time is 23."
    )


def test_a_table_behind_a_record_cache_is_shown_with_its_dirty_entries() -> None:
    """A failing case of a scenario with a record cache (spec PR-6) is explained, not a crash of the run."""
    source = CATALOGUE_ROOT / "table_table" / "record-cache-merged-insert-and-delete-emits-nothing.toml"
    case = next(c for c in load_cases([source]).cases if c.spec.settings is not None)
    first = Divergence("unexpected-output", None, Output("k", ("A", None), 1, 0), 0, "")
    found = explain(case, first)
    assert found is not None
    left = next(t for t in found["after"] if t["title"] == "left table")
    assert left["columns"] == ["key", "value", "ts", "where"]
    assert left["note"] == "behind a record cache: dirty entries are forwarded when it flushes"
    assert left["rows"] and all(row[3] in ("flushed", "in the record cache") for row in left["rows"])


# --- every join kind and every divergence kind names its rule and the state that decides it ----------


def _first_case(path: str) -> Case:
    return next(iter(load_cases([CATALOGUE_ROOT / path]).cases))


def _kafka_outputs(case: Case) -> list[Output]:
    return run(case.spec, case.records, behaviour_for(case.kafka, intended=case.intended))


def _why(case: Case, first: Divergence) -> dict[str, Any]:
    found = explain(case, first)
    assert found is not None
    why: dict[str, Any] = found["why"]
    return why


def test_a_stream_table_result_names_the_table_row_the_lookup_found() -> None:
    case = _first_case("stream_table/docs-kip77.toml")
    last = _kafka_outputs(case)[-1]
    why = _why(case, Divergence("missing-output", last, None, last.cause, ""))
    assert why["rule"]["id"] == "ST-3"
    assert "when stream record k@15 is looked up, the table holds k = d (ts 14)" in why["text"]


def test_a_record_held_by_the_grace_buffer_names_when_it_leaves() -> None:
    case = _first_case("stream_table/grace-buffered-records-and-late-record.toml")
    steps = run_traced(case.spec, case.records, behaviour_for(case.kafka, intended=case.intended))
    at, held = next(
        (index, state["buffer"]["held"][0])
        for index, (_, state) in enumerate(steps)
        if state["buffer"]["held"]
    )
    early = Output(held["key"], (held["value"], None), held["ts"], at)
    why = _why(case, Divergence("unexpected-output", None, early, at, ""))
    assert why["rule"]["id"] == "ST-8"
    grace = case.spec.window.grace if case.spec.window else None
    assert why["numbers"]["releases_at"] == held["ts"] + why["numbers"]["grace"]
    assert grace is None or why["numbers"]["grace"] == grace
    assert "Kafka still holds stream record" in why["text"]


def test_a_foreign_key_right_update_names_its_subscribers() -> None:
    case = _first_case("foreign_key/docs-lhs-workflow.toml")
    last = _kafka_outputs(case)[-1]
    why = _why(case, Divergence("missing-output", last, None, last.cause, ""))
    assert why["rule"]["id"] == "FK-8"
    assert why["text"].endswith("reaches the left keys subscribed to foreign key 10: q.")


def test_a_foreign_key_left_change_names_the_old_and_new_foreign_keys() -> None:
    case = _first_case("foreign_key/inner-fk-change-unsubscribes-old-key.toml")
    outputs = _kafka_outputs(case)
    moved = next(o for o in outputs if o.value is None)
    why = _why(case, Divergence("missing-output", moved, None, moved.cause, ""))
    assert why["rule"]["id"] == "FK-4"
    assert "moves left k1 from foreign key f1 to f2" in why["text"]
    assert "the right table holds no f2" in why["text"]


def test_a_global_table_lookup_names_the_mapped_key_and_the_row() -> None:
    case = _first_case("stream_globaltable/enrichment-by-value.toml")
    last = _kafka_outputs(case)[-1]
    why = _why(case, Divergence("missing-output", last, None, last.cause, ""))
    assert why["rule"]["id"] == "GT-7"
    assert "maps the stream record left o4=c1:ink@7 to table key c1" in why["text"]
    assert "the global table holds c1 = Anne (ts 6)" in why["text"]


def test_a_table_update_waiting_in_the_record_cache_is_named() -> None:
    source = CATALOGUE_ROOT / "table_table" / "record-cache-merged-insert-and-delete-emits-nothing.toml"
    case = next(c for c in load_cases([source]).cases if c.spec.settings is not None)
    why = _why(case, Divergence("unexpected-output", None, Output("k", ("A", None), 1, 0), 0, ""))
    assert why["rule"]["id"] == "PR-6"
    assert "waits in the left table's record cache" in why["text"]


def test_a_wrong_timestamp_names_the_timestamp_rule_of_the_release() -> None:
    case = _first_case("table_table/docs-kip77.toml")
    last = _kafka_outputs(case)[-1]
    late = last._replace(ts=last.ts + 5)
    why = _why(case, Divergence("wrong-timestamp", last, late, last.cause, ""))
    assert why["rule"]["id"] == "TT-8"
    assert (why["numbers"]["kafka_ts"], why["numbers"]["candidate_ts"]) == (last.ts, last.ts + 5)
    max_era = behaviour_for(case.kafka).table_join_ts_is_max_of_inputs
    era_rule = "larger of" if max_era else "update's timestamp"
    assert era_rule in why["text"]


def test_a_wrong_input_names_both_emitting_inputs() -> None:
    case = _first_case("stream_table/docs-kip77.toml")
    last = _kafka_outputs(case)[-1]
    elsewhere = last._replace(cause=last.cause - 1)
    why = _why(case, Divergence("wrong-input", last, elsewhere, last.cause, ""))
    assert why["rule"]["id"] == "ST-1"
    assert (why["numbers"]["kafka_input"], why["numbers"]["candidate_input"]) == (last.cause, last.cause - 1)


def test_every_divergence_kind_of_every_join_names_a_rule() -> None:
    """Issue 23 item 5: for each kind, in each join, the first divergence cites the spec rule it breaks."""
    paths = {
        "stream-stream": "stream_stream/docs-kip77.toml",
        "stream-table": "stream_table/docs-kip77.toml",
        "table-table": "table_table/docs-kip77.toml",
        "fk": "foreign_key/docs-lhs-workflow.toml",
        "stream-globaltable": "stream_globaltable/enrichment-by-value.toml",
    }
    for join, path in paths.items():
        case = _first_case(path)
        assert case.join == join
        outputs = _kafka_outputs(case)
        first, last = outputs[0], outputs[-1]
        divergences = [
            Divergence("missing-output", last, None, last.cause, ""),
            Divergence("unexpected-output", None, last._replace(value=("X", None)), last.cause, ""),
            Divergence("wrong-value", last, last._replace(value=("X", "Y")), last.cause, ""),
            Divergence("wrong-timestamp", last, last._replace(ts=last.ts + 1), last.cause, ""),
            Divergence("wrong-input", last, last._replace(cause=first.cause), last.cause, ""),
            Divergence("out-of-order", first, last, first.cause, ""),
        ]
        for divergence in divergences:
            why = _why(case, divergence)
            assert why["rule"] is not None, (join, divergence.kind, why["text"])
            assert why["text"], (join, divergence.kind)


def test_a_rewritten_self_join_shows_its_one_store_and_its_processors_stream_time() -> None:
    """The 3.4+ single-store self-join (spec SJ-3) snapshots one store and its own stream time: the results
    document's stream times and the explanation read them (both raised KeyError 'left_store')."""
    source = CATALOGUE_ROOT / "stream_stream" / "self-join-kafka-integration-test.toml"
    case = next(
        c
        for c in load_cases([source]).cases
        if c.spec.optimization == "all" and behaviour_for(c.kafka).self_join_is_rewritten_by_optimization
    )
    steps = run_traced(case.spec, case.records, behaviour_for(case.kafka, intended=case.intended))
    processor_times = [None if state["stream_time"] == -1 else state["stream_time"] for _, state in steps]
    assert stream_times(case) == processor_times
    assert any(time is not None for time in processor_times)
    last = _kafka_outputs(case)[-1]
    found = explain(case, Divergence("missing-output", last, None, last.cause, ""))
    assert found is not None
    [store] = found["after"]
    assert store["title"] == "the self-join's window store (one store, spec SJ-3)"
    assert [last.key, last.ts, last.value[1]] in store["rows"]
    assert f"processor's stream time {processor_times[last.cause]}" in store["note"]
