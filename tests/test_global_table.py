"""Oracle-internal checks of the KStream-GlobalKTable join that no scenario file can state (spec GT-n).

Every behaviour with observable outputs is a scenario file under ``scenarios/stream_globaltable/`` (one
behaviour per file, stated per era, run by ``kjoin check`` and checked on real Kafka). What stays here: the
key mappers as functions (Java's ``String#split`` corner cases), the joins the oracle must refuse, the era
table's placement of the GT flags, and the processor's snapshot.
"""

from __future__ import annotations

import pytest

from kjoin.oracle import JoinSpec, Record, UnsupportedJoinError, Versioning, Window, behaviour_for, run
from kjoin.oracle.engine import processor_for
from kjoin.oracle.records import mapped_key_of


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("X0,FKey0", "FKey0"),
        ("X0", None),
        ("X0,", None),  # Java drops trailing empty fields: ["X0"]
        (",", None),  # ... all of them: []
        ("", None),
        (",a", "a"),  # a leading empty field stays: ["", "a"]
        ("a,,b", ""),  # an empty second field is an empty key, not a null one
        ("a,b,c", "b"),
        ("a,b,,", "b"),
    ],
)
def test_comma_second_splits_as_java_string_split(value: str, expected: str | None) -> None:
    """Spec GT-2: ``KStreamGlobalKTableJoinTest``'s mapper, ``value.split(",")`` then ``tokens[1]``."""
    assert mapped_key_of(7, value, "comma-second") == expected


def test_mappers_pick_the_table_key() -> None:
    """Spec GT-2: the stream key, the colon prefix (empty is null), nothing; a null value maps to null."""
    assert mapped_key_of("k", "f1:L0", "key") == "k"
    assert mapped_key_of(None, "f1:L0", "key") is None
    assert mapped_key_of(3, None, "key") == 3
    assert mapped_key_of("k", "f1:L0", "colon-prefix") == "f1"
    assert mapped_key_of("k", "f1", "colon-prefix") == "f1"
    assert mapped_key_of("k", ":L0", "colon-prefix") is None
    assert mapped_key_of("k", "f1:L0", "always-null") is None
    for mapper in ("colon-prefix", "comma-second", "always-null"):
        assert mapped_key_of("k", None, mapper) is None  # type: ignore[arg-type]


def _spec(variant: str = "inner", **fields: object) -> JoinSpec:
    return JoinSpec(join="stream-globaltable", variant=variant, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("spec", "kafka", "message"),
    [
        (_spec(), "0.10.1", "0.10.2+"),
        (_spec("outer"), "3.9", "no outer join"),
        (_spec(window=Window(grace=3)), "3.9", "no window"),
        (_spec(versioned=Versioning(right=True, history_ms=5)), "3.9", "cannot be versioned"),
        (_spec(versioned=Versioning(right=True, history_ms=5)), "3.4", "3.5+"),
    ],
)
def test_refuses_what_kafka_cannot_build(spec: JoinSpec, kafka: str, message: str) -> None:
    """Spec GT-1: no GlobalKTable before 0.10.2, no outer join, no window or grace, no versioned table."""
    with pytest.raises(UnsupportedJoinError, match=message):
        processor_for(spec, behaviour_for(kafka))


@pytest.mark.parametrize("variant", ["inner", "left"])
def test_null_mapped_key_fails_before_1_0_1(variant: str) -> None:
    """Spec GT-4: before KAFKA-6378 the global store is asked for a null key and the thread dies; from 1.0.1
    the same input runs (its outputs are stated in scenarios/stream_globaltable/)."""
    records = [Record("right", "f1", "R0", 0), Record("left", "k", ":L1", 1)]
    spec = _spec(variant, key_mapper="colon-prefix")
    with pytest.raises(UnsupportedJoinError, match="KAFKA-6378"):
        run(spec, records, behaviour_for("1.0.0"))
    assert len(run(spec, records, behaviour_for("1.0.1"))) == (variant == "left")


def test_eras_of_the_gt_flags() -> None:
    """docs/semantics/eras.md: each GT flag changes at the release its ticket first shipped in; 4.0.0 and
    3.9.x lack KAFKA-19208, which 4.0.1 has."""
    assert not behaviour_for("0.10.1").has_global_table_joins
    assert behaviour_for("0.10.2").has_global_table_joins
    assert behaviour_for("1.0.0").null_mapped_key_fails_global_join
    assert not behaviour_for("1.0.1").null_mapped_key_fails_global_join
    assert not behaviour_for("2.6").global_join_drops_by_mapped_key
    assert behaviour_for("2.7").global_join_drops_by_mapped_key
    keeps = {version: behaviour_for(version).global_left_join_keeps_null_mapped_keys for version in
             ("3.9.2", "4.0.0", "4.0.1", "4.1", "4.4")}  # fmt: skip
    assert keeps == {"3.9.2": False, "4.0.0": False, "4.0.1": True, "4.1": True, "4.4": True}


def test_snapshot_is_the_global_table() -> None:
    """Spec GT-3: the state is the table alone; a null-key table record is skipped, a tombstone deletes."""
    processor = processor_for(_spec(key_mapper="key"), behaviour_for("3.9"))
    for index, record in enumerate(
        [Record("right", "a", "A", 5), Record("right", None, "X", 6), Record("right", "b", "B", 7),
         Record("right", "a", None, 8)]
    ):  # fmt: skip
        assert processor.process(index, record) == []
    assert processor.snapshot() == {"table": {"'b'": {"value": "B", "ts": 7}}}


def test_explain_shows_the_global_table() -> None:
    """A divergence's explanation shows the global table, the join's only state (spec GT-3)."""
    from kjoin.conformance.documents.explain import state_tables

    processor = processor_for(_spec(key_mapper="key"), behaviour_for("3.9"))
    processor.process(0, Record("right", "a", "A", 5))
    [table] = state_tables("stream-globaltable", processor.snapshot())
    assert table["title"] == "global table (right side)" and table["rows"] == [["'a'", "A", 5]]
