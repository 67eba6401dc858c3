"""The first divergence explained from Kafka's state: the sentence says which rule decides the output."""

from __future__ import annotations

import json

from kjoin.conformance.catalogue import load_cases
from kjoin.conformance.checker import Divergence
from kjoin.conformance.documents.explain import explain
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
