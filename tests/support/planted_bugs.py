"""Candidates with planted bugs: test fixtures for the differential tests ONLY, never products.

Each one is a thin Spark candidate: inside one Spark job (``mapInPandas`` over a single partition) it
groups the input records by scenario and runs the oracle with a perturbed specification or ``Behaviour``
(or drops some of its outputs). So it agrees with Kafka everywhere except where its bug shows, and answers
in one Spark job per call, like a real candidate. Each claims the join kinds where its bug lives, for
Kafka 3.9, and reports ``idx``. The bugs are the ones real ports of Kafka Streams joins get wrong:

* ``window-off-by-one``: stream-stream windows reach one millisecond past ``after``;
* ``grace-ignored``: held left/outer records close without waiting for the grace period
  (``ofTimeDifferenceAndGrace(d, g)`` treated as ``ofTimeDifferenceWithNoGrace(d)``);
* ``tombstone-dropped``: table joins never emit tombstones (deletes are lost downstream);
* ``trigger-ts``: joined results carry the triggering record's ts instead of ``max`` of both (pre-2.3 rule);
* ``null-keys-dropped``: left/outer joins drop null-key records instead of forwarding them (pre-KIP-962);
* ``versioned-latest``: a stream-table join looks up the table's latest value instead of the version as of
  the stream record's ts (KIP-914 ignored).

Not fuzzed (not in ``PLANTED``), for the report's tests and measurements: ``deletes-ignored``, table joins
that ignore every delete of a table side (``deletes_ignored``): no tombstone where Kafka forwards one, and
later records still join the deleted value (issue 24's example candidate).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from kjoin.conformance.protocol import Claim, DeclaredDifference
from kjoin.oracle import Behaviour, JoinSpec, Output, Record, Versioning, Window, behaviour_for, run

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "PLANTED",
    "PlantedBug",
    "bugged_run",
    "deletes_ignored",
    "null_keys_dropped",
    "planted",
    "trigger_ts",
]

_OUTPUT = "scenario_id string, key string, left string, right string, tombstone boolean, ts long, idx long"
_COLUMNS = ["scenario_id", "key", "left", "right", "tombstone", "ts", "idx"]

Perturbation = Callable[[JoinSpec, Behaviour], tuple[JoinSpec, Behaviour]]


def _window_off_by_one(spec: JoinSpec, behaviour: Behaviour) -> tuple[JoinSpec, Behaviour]:
    window = spec.window
    if spec.join != "stream-stream" or window is None:
        return spec, behaviour
    return replace(spec, window=replace(window, after=window.after + 1)), behaviour


def _grace_ignored(spec: JoinSpec, behaviour: Behaviour) -> tuple[JoinSpec, Behaviour]:
    window = spec.window
    if spec.join != "stream-stream" or window is None or window.grace is None or window.legacy:
        return spec, behaviour
    return replace(spec, window=replace(window, grace=0)), behaviour


def _trigger_ts(spec: JoinSpec, behaviour: Behaviour) -> tuple[JoinSpec, Behaviour]:
    wrong = replace(behaviour, stream_join_ts_is_max_of_inputs=False, table_join_ts_is_max_of_inputs=False)
    return spec, wrong


def _null_keys_dropped(spec: JoinSpec, behaviour: Behaviour) -> tuple[JoinSpec, Behaviour]:
    return spec, replace(behaviour, left_joins_forward_null_keys=False)


def _versioned_latest(spec: JoinSpec, behaviour: Behaviour) -> tuple[JoinSpec, Behaviour]:
    return replace(spec, versioned=None), behaviour


def _unchanged(spec: JoinSpec, behaviour: Behaviour) -> tuple[JoinSpec, Behaviour]:
    return spec, behaviour


_PERTURBATIONS: dict[str, Perturbation] = {
    "window-off-by-one": _window_off_by_one,
    "grace-ignored": _grace_ignored,
    "tombstone-dropped": _unchanged,
    "trigger-ts": _trigger_ts,
    "null-keys-dropped": _null_keys_dropped,
    "versioned-latest": _versioned_latest,
    "deletes-ignored": _unchanged,
}


def _claim(*joins: str, grace: bool = True) -> Claim:
    return Claim(
        joins=frozenset(joins),
        variants=frozenset({"inner", "left", "outer"}),
        kafka=("3.9",),
        versioned=True,
        stream_table_grace=grace,
    )


@dataclass(frozen=True)
class PlantedBug:
    """A candidate that is the oracle with one bug (see the module docstring)."""

    name: str
    bug: str
    claim: Claim
    declared_differences: tuple[DeclaredDifference, ...] = ()

    def run(self, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
        # one partition, no shuffle: a fixture's batches are small, and one task keeps its Spark job short
        rows = inputs.join(specs, "scenario_id").coalesce(1)
        return rows.mapInPandas(partial(_planted_batches, self.bug), _OUTPUT)


PLANTED: dict[str, PlantedBug] = {
    bug.name: bug
    for bug in (
        PlantedBug("window-off-by-one", "window-off-by-one", _claim("stream-stream")),
        PlantedBug("grace-ignored", "grace-ignored", _claim("stream-stream")),
        PlantedBug("tombstone-dropped", "tombstone-dropped", _claim("table-table", "fk")),
        PlantedBug("trigger-ts", "trigger-ts", _claim("stream-stream", "table-table")),
        PlantedBug("null-keys-dropped", "null-keys-dropped", _claim("stream-stream", "stream-table")),
        PlantedBug("versioned-latest", "versioned-latest", _claim("stream-table", grace=False)),
    )
}
"""The planted-bug candidates by name."""


def bugged_run(bug: str, spec: JoinSpec, records: Sequence[Record], behaviour: Behaviour) -> list[Output]:
    """What the candidate with the planted ``bug`` emits: the oracle under the bug's perturbation."""
    spec, behaviour = _PERTURBATIONS[bug](spec, behaviour)
    if bug == "deletes-ignored":
        kept = [i for i, r in enumerate(records) if not (r.value is None and _is_table_side(spec, r))]
        outputs = run(spec, [records[i] for i in kept], behaviour)
        return [output._replace(cause=kept[output.cause]) for output in outputs]
    outputs = run(spec, records, behaviour)
    if bug == "tombstone-dropped":
        outputs = [output for output in outputs if output.value is not None]
    return outputs


def _is_table_side(spec: JoinSpec, record: Record) -> bool:
    """Whether ``record`` updates a table (not a stream-table join's stream, nor a stream-stream side)."""
    return spec.join in ("table-table", "fk") or (spec.join == "stream-table" and record.side == "right")


def deletes_ignored() -> PlantedBug:
    """Zero-argument factory: table joins that ignore every delete (``--candidate
    support.planted_bugs:deletes_ignored`` from tests/)."""
    return PlantedBug("deletes-ignored", "deletes-ignored", _claim("stream-table", "table-table", "fk"))


def planted(name: str) -> PlantedBug:
    """The planted-bug candidate called ``name``."""
    return PLANTED[name]


def null_keys_dropped() -> PlantedBug:
    """Zero-argument factory: ``--candidate support.planted_bugs:null_keys_dropped``."""
    return PLANTED["null-keys-dropped"]


def trigger_ts() -> PlantedBug:
    """Zero-argument factory (see ``null_keys_dropped``)."""
    return PLANTED["trigger-ts"]


def _text(value: Any) -> str | None:
    import pandas as pd

    return None if value is None or pd.isna(value) else str(value)


def _number(value: Any) -> int | None:
    import pandas as pd

    return None if value is None or pd.isna(value) else int(value)


def _spec(row: Any) -> JoinSpec:
    """The scenario's ``JoinSpec`` from its ``SPEC_SCHEMA`` columns."""
    before, after, grace = _number(row["before"]), _number(row["after"]), _number(row["grace"])
    window = None
    if row["join"] == "stream-stream":
        window = Window(before=before or 0, after=after or 0, grace=grace, legacy=bool(row["legacy"]))
    elif grace is not None:
        window = Window(grace=grace)
    versioned = None
    if row["left_versioned"] or row["right_versioned"]:
        versioned = Versioning(
            left=bool(row["left_versioned"]),
            right=bool(row["right_versioned"]),
            history_ms=_number(row["history_ms"]) or 0,
        )
    return JoinSpec(
        join=row["join"],
        variant=row["variant"],
        window=window,
        stores=row["stores"],
        versioned=versioned,
        fk_extractor=row["fk_extractor"],
    )


def _planted_batches(bug: str, batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    """All scenarios of the partition (runs on a Spark worker), one output frame per scenario."""
    import pandas as pd

    frame = pd.concat(list(batches), ignore_index=True)
    for _, scenario in frame.groupby("scenario_id", sort=True):
        yield _planted_outputs(bug, scenario)


def _planted_outputs(bug: str, frame: pd.DataFrame) -> pd.DataFrame:
    """One scenario's outputs (runs on a Spark worker): the oracle under the bug's perturbation."""
    import pandas as pd

    ordered = frame.sort_values("idx")
    first = ordered.iloc[0]
    behaviour = behaviour_for(str(first["kafka"]), intended=bool(first["intended"]))
    records = [
        Record(side=row["side"], key=_text(row["key"]), value=_text(row["value"]), ts=int(row["ts"]))
        for _, row in ordered.iterrows()
    ]
    outputs = bugged_run(bug, _spec(first), records, behaviour)
    scenario = str(first["scenario_id"])
    rows = [
        (
            scenario,
            None if o.key is None else str(o.key),
            *(o.value or (None, None)),
            o.value is None,
            o.ts,
            o.cause,
        )
        for o in outputs
    ]
    return pd.DataFrame(rows, columns=_COLUMNS).astype({"tombstone": bool, "ts": "int64", "idx": "int64"})
