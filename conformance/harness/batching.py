"""Hand many cases to a candidate in one call, validate what comes back, and split it per case.

Emission order: the rows of a case in the order collected, sorted (stably) by ``idx`` when the candidate
reports it, and within one ``idx`` by ``seq`` when it reports that too (an optional ``seq long`` column:
the position of the row among the outputs of that input, 0, 1, ...).

The harness calls a candidate once per join kind with every case of that kind (``INPUT_SCHEMA`` and
``SPEC_SCHEMA`` DataFrames, candidate protocol), so a run costs a few Spark jobs, never one per scenario.
The answer is collected once. What comes back is validated with a clear error: missing columns and
wrong types fail the whole call (every case of the batch gets a ``candidate-error``); a null where none is
allowed, a tombstone carrying values or an ``idx`` outside the scenario fail only the case it belongs to.

Keys cross the boundary as text: the harness writes integer keys as decimal text and turns the candidate's
keys back into the scenario's own key values.
"""

from __future__ import annotations

import traceback
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kjoin.conformance.catalogue import Case
from kjoin.conformance.checker import UNKNOWN_CAUSE, CandidateFailure, Emitted
from kjoin.conformance.documents.outcomes import Answer
from kjoin.conformance.harness.micro_batches import micro_batched
from kjoin.conformance.harness.system_failures import SystemFailure
from kjoin.conformance.protocol import INPUT_SCHEMA, OUTPUT_SCHEMA, SPEC_SCHEMA, Candidate
from kjoin.errors import KjoinError
from kjoin.oracle.records import Key, Output

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "CallFailed",
    "OutputSchemaError",
    "Stop",
    "input_rows",
    "run_batch",
    "spec_rows",
    "validated_output",
]

"""What the harness got back for one case."""

_REQUIRED = {
    "scenario_id": "string",
    "key": "string",
    "left": "string",
    "right": "string",
    "tombstone": "boolean",
    "ts": "integral",
}
_INTEGRAL = ("tinyint", "smallint", "int", "bigint")
_PROBLEMS_SHOWN = 5


class OutputSchemaError(KjoinError, ValueError):
    """The candidate's DataFrame does not have ``OUTPUT_SCHEMA``; the message names the column."""


@dataclass(frozen=True, slots=True)
class _Row:
    scenario_id: str | None
    key: str | None
    left: str | None
    right: str | None
    tombstone: bool | None
    ts: int | None
    idx: int | None = None
    seq: int | None = None


def _key_text(key: Key) -> str | None:
    return None if key is None else str(key)


def input_rows(cases: Sequence[Case]) -> list[tuple[Any, ...]]:
    """``INPUT_SCHEMA`` rows: every record of every case, keys as text."""
    return [
        (case.id, index, record.side, _key_text(record.key), record.value, record.ts)
        for case in cases
        for index, record in enumerate(case.records)
    ]


def spec_rows(cases: Sequence[Case]) -> list[tuple[Any, ...]]:
    """``SPEC_SCHEMA`` rows, one per case. Window columns are null without a window; a stream-table window
    only has ``grace`` (KIP-923); ``grace`` null or ``legacy`` true is the legacy ``JoinWindows.of`` API."""
    rows = []
    for case in cases:
        spec, window, versioned = case.spec, case.spec.window, case.spec.versioned
        before = after = grace = None
        if window is not None:
            grace = window.grace
            if spec.join == "stream-stream":
                before, after = window.before, window.after
        rows.append(
            (
                case.id,
                case.kafka,
                spec.join,
                spec.variant,
                before,
                after,
                grace,
                spec.stores,
                bool(versioned and versioned.left),
                bool(versioned and versioned.right),
                versioned.history_ms if versioned else None,
                spec.fk_extractor,
                case.intended,
                bool(window is not None and window.legacy),
                spec.self_join,
                spec.optimization,
                spec.key_mapper,
            )
        )
    return rows


def validated_output(result: Any) -> tuple[DataFrame, bool]:
    """The candidate's answer reduced to the protocol's columns (integral types widened to long), and
    whether it reports ``idx`` (then also ``seq``, the order within one ``idx``, if given). Raises
    ``OutputSchemaError`` naming the first missing or mistyped column."""
    from pyspark.sql import DataFrame, functions

    if not isinstance(result, DataFrame):
        raise OutputSchemaError(f"run() must return a pyspark DataFrame, got {type(result).__name__}")
    types = {field.name: field.dataType.simpleString() for field in result.schema.fields}
    missing = [name for name in _REQUIRED if name not in types]
    if missing:
        raise OutputSchemaError(
            f"output lacks column(s) {', '.join(missing)}; expected {OUTPUT_SCHEMA} (+ optional idx long)"
        )
    optional = [name for name in ("idx", "seq") if name in types and (name == "idx" or "idx" in types)]
    wanted = dict(_REQUIRED, **dict.fromkeys(optional, "integral"))
    for name, kind in wanted.items():
        actual = types[name]
        if actual != kind and not (kind == "integral" and actual in _INTEGRAL):
            expected = "long" if kind == "integral" else kind
            raise OutputSchemaError(f"output column {name!r} has type {actual}, expected {expected}")
    columns = [
        functions.col(name).cast("long") if kind == "integral" else functions.col(name)
        for name, kind in wanted.items()
    ]
    return result.select(*columns), "idx" in types


class Stop(BaseException):
    """The run must stop now (SIGTERM arrived): never taken for a candidate failure."""


class CallFailed(KjoinError):
    """The candidate's call as a whole failed: it raised (anything, ``SystemExit`` included) or returned
    something unusable. ``failure`` says why, for every case of the call."""

    def __init__(self, failure: CandidateFailure) -> None:
        super().__init__(failure.message)
        self.failure = failure


def run_batch(spark: SparkSession, candidate: Candidate, cases: Sequence[Case]) -> dict[str, Answer]:
    """Run ``candidate`` once over ``cases`` (one join kind) and return its answer per case id; raises
    ``CallFailed`` when the call as a whole fails (the caller decides whether to isolate the culprit)."""
    try:
        inputs = spark.createDataFrame(input_rows(cases), INPUT_SCHEMA)
        specs = spark.createDataFrame(spec_rows(cases), SPEC_SCHEMA)
        fed = micro_batched(candidate, cases)  # a streaming candidate: each case's micro-batch split
        output, has_idx = validated_output(fed.run(spark, inputs, specs))
        rows = [_Row(*row) for row in output.collect()]
    except BaseException as error:  # the candidate boundary: sys.exit() and Ctrl-C inside it included
        if isinstance(error, KeyboardInterrupt | Stop | SystemFailure):
            raise
        name = type(error).__name__
        message = (
            f"{name}: {error}"
            if not isinstance(error, SystemExit)
            else f"the candidate called sys.exit({error.code!r})"
        )
        raise CallFailed(CandidateFailure(message, traceback.format_exc())) from None
    return _split(rows, cases, has_idx)


def _split(rows: list[_Row], cases: Sequence[Case], has_idx: bool) -> dict[str, Answer]:
    by_case: dict[str | None, list[_Row]] = defaultdict(list)
    for row in rows:
        by_case[row.scenario_id].append(row)
    known = {case.id for case in cases}
    strays = sorted(str(name) for name in by_case if name not in known)
    if strays:
        shown = ", ".join(strays[:_PROBLEMS_SHOWN]) + (" ..." if len(strays) > _PROBLEMS_SHOWN else "")
        raise CallFailed(
            CandidateFailure(f"output has rows for scenario_id(s) the harness did not send: {shown}")
        )
    return {case.id: _answer(case, by_case.get(case.id, []), has_idx) for case in cases}


def _answer(case: Case, rows: list[_Row], has_idx: bool) -> Answer:
    """One case's outputs in emission order (by ``idx`` when given, stable), or why they are unusable."""
    problems = [p for number, row in enumerate(rows) for p in _row_problems(number, row, case, has_idx)]
    if problems:
        more = f" (and {len(problems) - _PROBLEMS_SHOWN} more)" if len(problems) > _PROBLEMS_SHOWN else ""
        return CandidateFailure("invalid output rows: " + "; ".join(problems[:_PROBLEMS_SHOWN]) + more)
    keys = {_key_text(record.key): record.key for record in case.records}
    if has_idx:
        rows = sorted(rows, key=lambda row: (row.idx, row.seq if row.seq is not None else 0))
    outputs = [
        Output(
            key=keys.get(row.key, row.key),
            value=None if row.tombstone else (row.left, row.right),
            ts=row.ts if row.ts is not None else 0,
            cause=row.idx if row.idx is not None else UNKNOWN_CAUSE,
        )
        for row in rows
    ]
    return Emitted(tuple(outputs), causes_known=has_idx)


def _row_problems(number: int, row: _Row, case: Case, has_idx: bool) -> list[str]:
    where = f"row {number} of {case.id}"
    problems = []
    if row.tombstone is None:
        problems.append(f"{where}: tombstone is null (not allowed)")
    elif row.tombstone and (row.left is not None or row.right is not None):
        problems.append(f"{where}: a tombstone needs null left and right, got {row.left!r}, {row.right!r}")
    if row.ts is None:
        problems.append(f"{where}: ts is null (not allowed)")
    if has_idx and (row.idx is None or not 0 <= row.idx < len(case.records)):
        problems.append(f"{where}: idx {row.idx!r} is not an input index (0..{len(case.records) - 1})")
    return problems
