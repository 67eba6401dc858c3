"""The oracle's outputs against the candidate's, diffed inside Spark: counts per task and kind, and a
bounded sample (the first divergence of a few tasks with the inputs around it). Only those reach the driver.

Outputs compare as multisets per task on ``key, left, right, tombstone, ts`` (the n-th equal output of one
side pairs with the n-th of the other, in emission order); when the candidate reports ``idx``, a paired
output emitted while processing another input is ``wrong-input``, as the checker calls it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kjoin.conformance.codec import UNKNOWN_CAUSE, output_json, record_json
from kjoin.conformance.documents.vocabulary import DivergenceKind
from kjoin.oracle.records import Output, Record

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

__all__ = ["CONTENT", "Diff", "diff"]

CONTENT = ("scenario_id", "key", "left", "right", "tombstone", "ts")
_CONTEXT_BEFORE, _CONTEXT_AFTER, _ROWS_PER_KIND = 5, 2, 5
_MISSING: DivergenceKind = "missing-output"
_UNEXPECTED: DivergenceKind = "unexpected-output"
_WRONG_INPUT: DivergenceKind = "wrong-input"
"""The checker's names of the three kinds a multiset comparison finds (the types pin them to its list)."""


@dataclass(frozen=True, slots=True)
class Diff:
    """Per task: ``{task, records, expected, actual, missing, unexpected, wrong_input, first_at}``; totals
    over all tasks; samples for the ``sample_tasks`` tasks whose first divergence comes earliest."""

    tasks: list[dict[str, Any]]
    totals: dict[str, int]
    samples: list[dict[str, Any]]


def _numbered(frame: DataFrame, has_idx: bool) -> DataFrame:
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    order = [F.col("idx"), F.col("seq")] if has_idx else [F.lit(0)]
    return frame.withColumn("n", F.row_number().over(Window.partitionBy(*CONTENT).orderBy(*order)))


def _same(a: DataFrame, b: DataFrame, columns: tuple[str, ...]) -> Column:
    condition = a[columns[0]].eqNullSafe(b[columns[0]])
    for name in columns[1:]:
        condition = condition & a[name].eqNullSafe(b[name])
    return condition


def diff(
    ordered: DataFrame, expected: DataFrame, actual: DataFrame, has_idx: bool, sample_tasks: int = 10
) -> Diff:
    """``ordered``: the inputs (``ORDERED_SCHEMA``); ``expected``: the oracle's outputs (``EXPECTED_SCHEMA``);
    ``actual``: the candidate's (``scenario_id, key, left, right, tombstone, ts`` and maybe ``idx, seq``)."""
    from pyspark.sql import functions as F

    if has_idx and "seq" not in actual.columns:
        actual = actual.withColumn("seq", F.lit(0).cast("long"))
    if not has_idx:
        actual = actual.withColumn("idx", F.lit(None).cast("long")).withColumn(
            "seq", F.lit(None).cast("long")
        )
    keys = (*CONTENT, "n")
    exp = _numbered(expected, True).alias("e")
    act = _numbered(actual.select(*CONTENT, "idx", "seq"), has_idx).alias("a")
    missing = exp.join(act, _same(exp, act, keys), "left_anti").select(
        *CONTENT, "idx", F.lit(_MISSING).alias("kind")
    )
    unexpected = act.join(exp, _same(act, exp, keys), "left_anti").select(
        *CONTENT, "idx", F.lit(_UNEXPECTED).alias("kind")
    )
    divergences = missing.unionByName(unexpected)
    if has_idx:
        paired = exp.join(act, _same(exp, act, keys), "inner").filter(F.col("e.idx") != F.col("a.idx"))
        moved = paired.select(
            *(F.col(f"e.{name}").alias(name) for name in CONTENT),
            F.least(F.col("e.idx"), F.col("a.idx")).alias("idx"),
            F.lit(_WRONG_INPUT).alias("kind"),
        )
        divergences = divergences.unionByName(moved)
    divergences = divergences.cache()
    per_kind = divergences.groupBy("scenario_id").agg(
        F.sum(F.when(F.col("kind") == _MISSING, 1).otherwise(0)).alias("missing"),
        F.sum(F.when(F.col("kind") == _UNEXPECTED, 1).otherwise(0)).alias("unexpected"),
        F.sum(F.when(F.col("kind") == _WRONG_INPUT, 1).otherwise(0)).alias("wrong_input"),
        F.min("idx").alias("first_at"),
    )
    # a task's partition is its number (task-<partition>): a stream-globaltable task also holds the
    # replicated records of every partition of the global table
    sizes = (
        ordered.groupBy("scenario_id")
        .agg(F.count(F.lit(1)).alias("records"))
        .withColumn("partition", F.regexp_extract("scenario_id", r"(\d+)$", 1).cast("int"))
        .join(expected.groupBy("scenario_id").agg(F.count(F.lit(1)).alias("expected")), "scenario_id", "left")
        .join(actual.groupBy("scenario_id").agg(F.count(F.lit(1)).alias("actual")), "scenario_id", "full")
        .join(per_kind, "scenario_id", "left")
    )
    tasks = []
    for row in sizes.orderBy("scenario_id").collect():
        item = row.asDict()
        for name in ("records", "expected", "actual", "missing", "unexpected", "wrong_input"):
            item[name] = int(item[name] or 0)
        tasks.append(item)
    totals = {
        name: sum(task[name] for task in tasks)
        for name in ("records", "expected", "actual", "missing", "unexpected", "wrong_input")
    }
    totals["tasks"] = len(tasks)
    totals["unknown_tasks"] = sum(1 for task in tasks if task["partition"] is None)
    samples = _samples(ordered, divergences, tasks, sample_tasks)
    divergences.unpersist()
    return Diff(tasks, totals, samples)


def _samples(
    ordered: DataFrame, divergences: DataFrame, tasks: list[dict[str, Any]], sample_tasks: int
) -> list[dict[str, Any]]:
    """The first divergences of the tasks that diverge earliest, with the inputs around them."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    failing = [t for t in tasks if t["missing"] or t["unexpected"] or t["wrong_input"]]
    chosen = sorted(failing, key=lambda t: (t["first_at"] is None, t["first_at"] or 0, t["scenario_id"]))
    chosen = chosen[:sample_tasks]
    if not chosen:
        return []
    ids = [t["scenario_id"] for t in chosen]
    firsts = {t["scenario_id"]: t["first_at"] for t in chosen}
    within = Window.partitionBy("scenario_id", "kind").orderBy(F.col("idx").asc_nulls_last(), "key", "ts")
    rows = (
        divergences.filter(F.col("scenario_id").isin(ids))
        .withColumn("r", F.row_number().over(within))
        .filter(F.col("r") <= _ROWS_PER_KIND)
        .drop("r")
        .collect()
    )
    ranges = None
    for scenario, first in firsts.items():
        at = 0 if first is None else first
        condition = (F.col("scenario_id") == scenario) & F.col("idx").between(
            at - _CONTEXT_BEFORE, at + _CONTEXT_AFTER
        )
        ranges = condition if ranges is None else ranges | condition
    context = ordered.filter(ranges).orderBy("scenario_id", "idx").collect() if ranges is not None else []
    samples = []
    for task in chosen:
        scenario = task["scenario_id"]
        samples.append(
            {
                "task": scenario,
                "partition": task["partition"],
                "first_at": task["first_at"],
                "divergences": [
                    {
                        "kind": row["kind"],
                        "at": row["idx"],
                        "output": output_json(
                            Output(
                                row["key"],
                                None if row["tombstone"] else (row["left"], row["right"]),
                                row["ts"],
                                UNKNOWN_CAUSE,
                            )
                        ),
                    }
                    for row in sorted(
                        (r for r in rows if r["scenario_id"] == scenario),
                        key=lambda r: (r["idx"] is None, r["idx"] or 0, r["kind"]),
                    )
                ],
                "context": [
                    {
                        "index": row["idx"],
                        **record_json(Record(row["side"], row["key"], row["value"], row["ts"])),
                        "offset": row["offset"],
                    }
                    for row in context
                    if row["scenario_id"] == scenario
                ],
            }
        )
    return samples
