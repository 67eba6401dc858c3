"""Self-joins (issue 25, docs/semantics/self-join.md): the ``self`` and ``optimization`` fields in both
scenario formats, their input errors, and the oracle's two topologies (spec SJ-1 to SJ-6)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kjoin.conformance.catalogue import ScenarioError, load_file
from kjoin.conformance.catalogue.portable import case_from_json, case_json
from kjoin.conformance.catalogue.seed_tables import load_seed_table
from kjoin.conformance.codec import spec_from_results
from kjoin.conformance.documents.results import spec_json
from kjoin.conformance.harness.claims import unclaimed_because
from kjoin.conformance.protocol import load_candidate
from kjoin.oracle.behaviour import behaviour_for, flags_in_force
from kjoin.oracle.engine import run
from kjoin.oracle.errors import UnsupportedJoinError
from kjoin.oracle.records import JoinSpec, Output, Record, StoreKind, Variant, Window
from kjoin.oracle.self_join import RewrittenSelfJoin, UnrewrittenSelfJoin, self_join_for

RECORDS = [
    {"side": "left", "key": "k", "value": "A", "ts": 1},
    {"side": "left", "key": "k", "value": "B", "ts": 2},
]
LINE: dict[str, Any] = {
    "id": "s1", "kafka": "3.9", "join": "stream-stream", "variant": "left", "self": True,
    "optimization": "all", "window": {"before": 5, "grace": 0}, "records": RECORDS,
}  # fmt: skip


def _jsonl(tmp_path: Path, *lines: object) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _spec(variant: Variant, optimization: str, window: Window, stores: StoreKind = "memory") -> JoinSpec:
    return JoinSpec("stream-stream", variant, window, stores, self_join=True, optimization=optimization)  # type: ignore[arg-type]


def _left(*rows: tuple[object, str | None, int]) -> list[Record]:
    return [Record("left", key, value, ts) for key, value, ts in rows]  # type: ignore[arg-type]


def _seen(outputs: list[Output]) -> list[tuple[object, object, int, int]]:
    return [(o.key, o.value, o.ts, o.cause) for o in outputs]


# --- the formats -------------------------------------------------------------------------------------------


def test_portable_self_and_optimization_decode_and_round_trip(tmp_path: Path) -> None:
    (case,) = load_file(_jsonl(tmp_path, LINE)).cases
    assert case.spec.self_join and case.spec.optimization == "all"
    line = case_json(case)
    assert line["self"] is True and line["optimization"] == "all"
    again = case_from_json(json.loads(json.dumps(line)), "again")
    assert again.spec == case.spec and again.records == case.records
    assert spec_from_results(spec_json(case.spec)) == case.spec


def test_a_scenario_without_the_fields_is_written_as_before(tmp_path: Path) -> None:
    plain = {key: value for key, value in LINE.items() if key not in ("self", "optimization")}
    (case,) = load_file(_jsonl(tmp_path, plain)).cases
    assert not case.spec.self_join and case.spec.optimization == "none"
    assert "self" not in case_json(case) and "optimization" not in case_json(case)
    assert "self" not in spec_json(case.spec) and "optimization" not in spec_json(case.spec)


@pytest.mark.parametrize(
    ("change", "field", "value", "problem"),
    [
        (
            {"records": [RECORDS[0], dict(RECORDS[1], side="right")]},
            "records[1].side",
            "right",
            "must be left",
        ),
        ({"join": "table-table", "window": None}, "self", True, "only allowed for a stream-stream join"),
        ({"self": False, "join": "fk", "window": None}, "optimization", "all", "only allowed for a stream"),
        ({"optimization": "some"}, "optimization", "some", "is not one of none, all"),
        ({"self": "yes"}, "self", "yes", "must be true or false"),
    ],
    ids=["right-record", "self-on-table-join", "optimization-on-fk", "unknown-optimization", "self-not-bool"],
)
def test_portable_bad_self_join_fields_name_line_scenario_and_field(
    tmp_path: Path, change: dict[str, Any], field: str, value: object, problem: str
) -> None:
    bad = {key: item for key, item in (LINE | change).items() if item is not None}
    loaded = load_file(_jsonl(tmp_path, LINE | {"id": "s0"}, bad, LINE | {"id": "s2"}))
    assert [case.scenario for case in loaded.cases] == ["s0", "s2"]
    (error,) = loaded.errors
    assert (error.line, error.scenario_id, error.field, error.value) == (2, "s1", field, value), str(error)
    assert problem in str(error)


TOML = """\
id = "ss-self"
description = "a stream joined with itself"
join = "stream-stream"
variants = ["inner", "left"]
features = []
window = { before = 5, grace = 0 }
self = true
optimization = "all"

input = '''
#  | ts | side  | key | value
0  |  1 | left  | k   | A
1  |  2 | left  | k   | B
'''

[source]
document = "kjoin-spec"
section = "SJ-5"

[[expected]]
kafka = "3.9"
describes = "3.4+"
timestamps = true
outputs = '''
# | ts | inner | left
0 |  1 | A - A @1 | A - A @1
1 |  2 | B - A @2; A - B @2; B - B @2 | B - A @2; A - B @2; B - B @2
'''
"""


def _toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "x.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_toml_self_join_decodes_like_the_portable_line(tmp_path: Path) -> None:
    cases = load_seed_table(_toml(tmp_path, TOML))
    (portable,) = load_file(_jsonl(tmp_path, LINE)).cases
    left = next(case for case in cases if case.spec.variant == "left")
    assert left.spec == portable.spec and left.records == portable.records


@pytest.mark.parametrize(
    ("old", "new", "location", "field", "value"),
    [
        ("1  |  2 | left ", "1  |  2 | right", "input row 1", "side", "right"),
        ('optimization = "all"', 'optimization = "on"', "", "optimization", "on"),
        ("self = true", "self = 1", "", "self", 1),
        ('join = "stream-stream"\nvariants = ["inner", "left"]', 'join = "table-table"\nvariants = ["inner"]',
         "", "self", True),
    ],
    ids=["right-record", "unknown-optimization", "self-not-bool", "self-on-table-join"],
)  # fmt: skip
def test_toml_bad_self_join_fields_name_scenario_and_field(
    tmp_path: Path, old: str, new: str, location: str, field: str, value: object
) -> None:
    assert old in TOML
    text = TOML.replace(old, new, 1)
    if "table-table" in new:
        text = text.replace("window = { before = 5, grace = 0 }\n", "")
    with pytest.raises(ScenarioError) as caught:
        load_seed_table(_toml(tmp_path, text))
    error = caught.value
    assert (error.scenario_id, error.location, error.field, error.value) == (
        "ss-self",
        location,
        field,
        value,
    )


# --- the oracle --------------------------------------------------------------------------------------------


def test_the_rewrite_needs_optimization_all_and_kafka_3_4() -> None:
    window = Window(5, 5, 0)
    assert isinstance(self_join_for(_spec("left", "all", window), behaviour_for("3.4")), RewrittenSelfJoin)
    assert isinstance(self_join_for(_spec("outer", "all", window), behaviour_for("4.4")), RewrittenSelfJoin)
    assert isinstance(self_join_for(_spec("inner", "all", window), behaviour_for("3.3")), UnrewrittenSelfJoin)
    assert isinstance(
        self_join_for(_spec("inner", "none", window), behaviour_for("3.9")), UnrewrittenSelfJoin
    )


def test_the_spec_example_of_sj_5() -> None:
    records = _left(("k", "A", 1), ("k", "B", 2), ("k", "C", 0))
    for variant in ("inner", "left", "outer"):
        outputs = run(_spec(variant, "all", Window(5, 5, 0)), records, behaviour_for("3.9"))
        assert _seen(outputs) == [
            ("k", ("A", "A"), 1, 0),
            ("k", ("B", "A"), 2, 1), ("k", ("A", "B"), 2, 1), ("k", ("B", "B"), 2, 1),
            ("k", ("C", "A"), 1, 2), ("k", ("C", "B"), 2, 2), ("k", ("C", "C"), 0, 2),
            ("k", ("A", "C"), 1, 2), ("k", ("B", "C"), 2, 2),
        ]  # fmt: skip


def test_unrewritten_legacy_left_self_join_emits_a_record_without_earlier_partner_eagerly() -> None:
    """Spec SJ-2 step 1: the left processor finds no earlier record, emits ``A - null`` at once, and the
    right processor then pairs ``A`` with itself."""
    outputs = run(_spec("left", "none", Window(5, 5, None)), _left(("k", "A", 1)), behaviour_for("3.9"))
    assert _seen(outputs) == [("k", ("A", None), 1, 0), ("k", ("A", "A"), 1, 0)]
    rewritten = run(_spec("left", "all", Window(5, 5, None)), _left(("k", "A", 1)), behaviour_for("3.9"))
    assert _seen(rewritten) == [("k", ("A", "A"), 1, 0)]


def test_the_self_pair_bound_is_one_stricter_than_the_store() -> None:
    """Spec SJ-5: retention 5 + 5 + 0 = 10; at stream time 20 a record at 11 is still stored (11 > 10) but
    not paired with itself by the rewritten join (11 > 20 - 10 + 1 is false)."""
    records = _left(("k", "A", 20), ("k", "B", 11))
    behaviour = behaviour_for("3.9")
    unrewritten = run(_spec("inner", "none", Window(5, 5, 0)), records, behaviour)
    rewritten = run(_spec("inner", "all", Window(5, 5, 0)), records, behaviour)
    assert ("k", ("B", "B"), 11, 1) in _seen(unrewritten)
    assert ("k", ("B", "B"), 11, 1) not in _seen(rewritten)


def test_rewritten_self_join_skips_null_keys_and_values_in_every_variant() -> None:
    records = _left((None, "A", 1), ("k", None, 2), ("k", "B", 3))
    for variant in ("inner", "left", "outer"):
        outputs = run(_spec(variant, "all", Window(5, 5, 0)), records, behaviour_for("3.9"))
        assert _seen(outputs) == [("k", ("B", "B"), 3, 2)]


def test_a_right_record_in_a_self_join_is_refused() -> None:
    with pytest.raises(UnsupportedJoinError, match="every record is a left record"):
        run(_spec("inner", "none", Window(5, 5, 0)), [Record("right", "k", "a", 1)], behaviour_for("3.9"))


def test_the_rewrite_flag_is_in_force_only_for_self_joins() -> None:
    name = "self_join_is_rewritten_by_optimization"
    assert name not in flags_in_force("stream-stream", behaviour_for("3.9"))
    assert name in flags_in_force("stream-stream", behaviour_for("3.9"), self_join=True)
    assert name in flags_in_force("stream-stream", behaviour_for("3.3"), self_join=True)


_ROWS = st.lists(
    st.tuples(st.sampled_from(["k1", "k2"]), st.sampled_from(["A", "B", "C", None]), st.integers(0, 40)),
    max_size=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=_ROWS, before=st.integers(0, 6), after=st.integers(0, 6), grace=st.integers(0, 6))
def test_rewritten_left_and_outer_self_joins_emit_the_inner_results(
    rows: list[tuple[str, str | None, int]], before: int, after: int, grace: int
) -> None:
    """Spec SJ-1, SJ-3: the rewritten processor has no left/outer logic."""
    records = _left(*rows)
    window = Window(before, after, grace)
    inner = run(_spec("inner", "all", window), records, behaviour_for("4.4"))
    for variant in ("left", "outer"):
        assert run(_spec(variant, "all", window), records, behaviour_for("4.4")) == inner


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=_ROWS, before=st.integers(0, 6), after=st.integers(0, 6))
def test_inner_self_join_is_the_same_rewritten_or_not_while_nothing_expires(
    rows: list[tuple[str, str | None, int]], before: int, after: int
) -> None:
    """Spec SJ-5: same results, same order, when no record nears the end of retention (a grace longer than
    any timestamp)."""
    records = _left(*rows)
    window = Window(before, after, 100)
    for stores in ("memory", "rocksdb"):
        unrewritten = run(_spec("inner", "none", window, stores), records, behaviour_for("3.9"))
        assert run(_spec("inner", "all", window, stores), records, behaviour_for("3.9")) == unrewritten


@pytest.mark.parametrize("name", ["spark-reference", "spark-stateful", "spark-native"])
def test_a_self_join_is_claimed_only_by_a_claim_with_self_joins(tmp_path: Path, name: str) -> None:
    """Issue 25: a candidate that implements the two-sided join is not thereby a self-join; a bundled
    candidate's claim covers self-joins exactly when it says so (spark-reference does, spark-native with its
    declared differences)."""
    (case,) = load_file(_jsonl(tmp_path, LINE)).cases
    claim = replace(load_candidate(name).claim, variants=frozenset({"left"}), kafka=("3.9",))
    without = replace(claim, self_joins=False)
    assert unclaimed_because(without, case) == "not claimed: self-joins (a stream joined with itself)"
    assert unclaimed_because(replace(claim, self_joins=True), case) is None
    assert (unclaimed_because(claim, case) is None) == claim.self_joins
    if name in ("spark-reference", "spark-native"):
        assert claim.self_joins


def test_generated_self_joins_have_one_stream_and_both_optimizations() -> None:
    from kjoin.conformance.differential.generate import generate_cases
    from kjoin.conformance.differential.profiles import PROFILES
    from kjoin.conformance.kafka.verify import EVERYTHING

    drawn = generate_cases(
        "stream-stream", "3.9", profile=PROFILES["ci"], seed=7, claim=EVERYTHING, examples=40, self_join=True
    )
    assert len(drawn.cases) > 20
    assert all(case.spec.self_join and case.scenario.startswith("fuzz-sj-") for case in drawn.cases)
    assert all(record.side == "left" for case in drawn.cases for record in case.records)
    assert {case.spec.optimization for case in drawn.cases} == {"none", "all"}
    assert {case.spec.variant for case in drawn.cases} == {"inner", "left", "outer"}


def test_texts_and_report_pages_name_the_self_join_and_its_optimization(tmp_path: Path) -> None:
    from kjoin.conformance.harness.text import describe_case
    from kjoin.reports.scenario_page import describe_spec

    (case,) = load_file(_jsonl(tmp_path, LINE)).cases
    for described in (describe_case(case), describe_spec(spec_json(case.spec))):
        assert "self-join (one stream joined with itself)" in described
        assert "topology.optimization all" in described
