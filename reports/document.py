"""Read results files (schema ``kjoin-results``, see ``conformance/harness/results.py``) into typed data.

A results file is data from a run, and possibly hand-edited or from another tool: everything the report
uses is validated here, and a problem raises ``ReportInputError`` naming the file, the case and the field.
Outputs and divergences come back as the checker's own types (``Output``, ``Divergence``), so pages render
the checker's evidence and never recompute it (STYLE.md §3, rule 9).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kjoin.conformance.checker import DIVERGENCE_KINDS, UNKNOWN_CAUSE, Divergence
from kjoin.oracle.behaviour import UnknownVersionError, parse_version
from kjoin.oracle.portable import PortableFormatError, parse_scenario
from kjoin.oracle.records import JoinSpec, Output, Record

__all__ = [
    "SCHEMA",
    "SUPPORTED_VERSIONS",
    "CaseResult",
    "ReportInputError",
    "Results",
    "case_from_json",
    "kafka_order",
    "load_results",
    "merge_results",
    "results_from_json",
]

SCHEMA = "kjoin-results"
SUPPORTED_VERSIONS = (1,)


class ReportInputError(ValueError):
    """A results file that cannot be read or does not follow the schema; the message says where."""


@dataclass(frozen=True, slots=True)
class CaseResult:
    """One case of a results file. ``spec`` and ``records`` are ``None`` when the file does not carry the
    inputs (then no input table, oracle state or verdict can be shown for it)."""

    id: str
    scenario: str
    variant: str
    kafka: str
    intended: bool
    join: str
    source: str
    status: str
    mode: str | None
    reason: str
    declared_reason: str | None
    expected: tuple[Output, ...] | None
    actual: tuple[Output, ...] | None
    candidate_error: str | None
    divergences: tuple[Divergence, ...]
    first: Divergence | None
    timestamps: bool = True
    spec: JoinSpec | None = None
    records: tuple[Record, ...] | None = None


@dataclass(frozen=True, slots=True)
class Results:
    """One or more results files of one candidate. ``runs`` holds each file's label and run metadata."""

    candidate: Mapping[str, Any]
    runs: tuple[tuple[str, Mapping[str, Any]], ...]
    cases: tuple[CaseResult, ...]
    notes: tuple[str, ...] = ()


def kafka_order(versions: Iterable[str]) -> list[str]:
    """Distinct Kafka versions, oldest first (text that is not a version last, alphabetically)."""

    def key(version: str) -> tuple[int, tuple[int, ...], str]:
        try:
            return (0, parse_version(version), version)
        except UnknownVersionError:
            return (1, (), version)

    return sorted(set(versions), key=key)


def _field(obj: Mapping[str, Any], name: str, types: type | tuple[type, ...], where: str,
           *, optional: bool = False, default: Any = None) -> Any:
    if name not in obj or obj[name] is None:
        if optional:
            return default
        raise ReportInputError(f"{where}: missing field {name!r}")
    value = obj[name]
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in _as_tuple(types)):
        raise ReportInputError(f"{where}.{name}: unexpected value {value!r}")
    return value


def _as_tuple(types: type | tuple[type, ...]) -> tuple[type, ...]:
    return types if isinstance(types, tuple) else (types,)


def _output(obj: Any, where: str) -> Output:
    if not isinstance(obj, Mapping):
        raise ReportInputError(f"{where}: expected an output object, got {obj!r}")
    key = obj.get("key")
    if key is not None and (isinstance(key, bool) or not isinstance(key, str | int)):
        raise ReportInputError(f"{where}.key: expected a string, integer or null, got {key!r}")
    value = obj.get("value")
    if value is not None:
        pair = isinstance(value, list) and len(value) == 2
        if not pair or not all(v is None or isinstance(v, str) for v in value):
            raise ReportInputError(f"{where}.value: expected [left, right] or null, got {value!r}")
        value = (value[0], value[1])
    ts = _field(obj, "ts", int, where)
    cause = _field(obj, "cause", int, where, optional=True, default=UNKNOWN_CAUSE)
    return Output(key, value, ts, cause)


def _outputs(obj: Mapping[str, Any], name: str, where: str) -> tuple[Output, ...] | None:
    items = _field(obj, name, list, where, optional=True)
    if items is None:
        return None
    return tuple(_output(item, f"{where}.{name}[{i}]") for i, item in enumerate(items))


def _divergence(obj: Any, where: str) -> Divergence:
    if not isinstance(obj, Mapping):
        raise ReportInputError(f"{where}: expected a divergence object, got {obj!r}")
    kind = obj.get("kind")
    if kind not in DIVERGENCE_KINDS:
        raise ReportInputError(f"{where}.kind: {kind!r} is not one of {', '.join(DIVERGENCE_KINDS)}")
    expected = None if obj.get("expected") is None else _output(obj["expected"], f"{where}.expected")
    actual = None if obj.get("actual") is None else _output(obj["actual"], f"{where}.actual")
    at = _field(obj, "at", int, where, optional=True)
    detail = _field(obj, "detail", str, where, optional=True, default="")
    return Divergence(kind, expected, actual, at, detail)


def _inputs(obj: Mapping[str, Any], where: str) -> tuple[JoinSpec | None, tuple[Record, ...] | None]:
    """The case's join spec and input records, read with the portable format's own validation."""
    spec, records = obj.get("spec"), obj.get("records")
    if spec is None or records is None:
        return None, None
    if not isinstance(spec, Mapping):
        raise ReportInputError(f"{where}.spec: expected an object, got {spec!r}")
    portable = {**spec, "id": obj["scenario"], "kafka": obj["kafka"], "records": records}
    try:
        scenario = parse_scenario(portable, f"{where}.spec/records")
    except PortableFormatError as error:
        raise ReportInputError(str(error)) from error
    return scenario.spec, scenario.records


def case_from_json(obj: Any, where: str = "case") -> CaseResult:
    """One ``cases[]`` entry of a results file (or a ``case_result`` dict) as a ``CaseResult``."""
    if not isinstance(obj, Mapping):
        raise ReportInputError(f"{where}: expected an object, got {type(obj).__name__}")
    case_id = _field(obj, "id", str, where)
    where = f"{where} {case_id!r}"
    divergences = _field(obj, "divergences", list, where, optional=True, default=[])
    declared = _field(obj, "declared", Mapping, where, optional=True)
    spec, records = _inputs(obj, where)
    first = obj.get("first_divergence")
    return CaseResult(
        id=case_id,
        scenario=_field(obj, "scenario", str, where),
        variant=_field(obj, "variant", str, where),
        kafka=_field(obj, "kafka", str, where),
        intended=_field(obj, "intended", bool, where, optional=True, default=False),
        join=_field(obj, "join", str, where),
        source=_field(obj, "source", str, where, optional=True, default=""),
        status=_field(obj, "status", str, where),
        mode=_field(obj, "mode", str, where, optional=True),
        reason=_field(obj, "reason", str, where, optional=True, default=""),
        declared_reason=None if declared is None else str(declared.get("reason", "")),
        expected=_outputs(obj, "expected", where),
        actual=_outputs(obj, "actual", where),
        candidate_error=_field(obj, "candidate_error", str, where, optional=True),
        divergences=tuple(_divergence(d, f"{where}.divergences[{i}]") for i, d in enumerate(divergences)),
        first=None if first is None else _divergence(first, f"{where}.first_divergence"),
        timestamps=_field(obj, "timestamps", bool, where, optional=True, default=True),
        spec=spec,
        records=records,
    )


def results_from_json(document: Any, label: str) -> Results:
    """A decoded results document (``label`` names it in messages) as ``Results``."""
    if not isinstance(document, Mapping):
        raise ReportInputError(f"{label}: expected a JSON object, got {type(document).__name__}")
    if document.get("schema") != SCHEMA:
        raise ReportInputError(f"{label}: schema: expected {SCHEMA!r}, got {document.get('schema')!r}")
    if document.get("version") not in SUPPORTED_VERSIONS:
        supported = ", ".join(map(str, SUPPORTED_VERSIONS))
        found = document.get("version")
        raise ReportInputError(f"{label}: version: {found!r} is not supported (supported: {supported})")
    run = _field(document, "run", Mapping, label, optional=True, default={})
    candidate = _field(document, "candidate", Mapping, label)
    _field(candidate, "name", str, f"{label}.candidate")
    cases = _field(document, "cases", list, label)
    parsed = tuple(case_from_json(case, f"{label}: cases[{i}]") for i, case in enumerate(cases))
    return Results(candidate=candidate, runs=((label, run),), cases=parsed)


def load_results(path: Path) -> Results:
    """Read and validate one results file."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise ReportInputError(f"{path}: cannot read: {error}") from error
    except json.JSONDecodeError as error:
        raise ReportInputError(f"{path}: not valid JSON ({error.msg} at line {error.lineno})") from error
    return results_from_json(document, str(path))


def merge_results(parts: Sequence[Results]) -> Results:
    """Several results files of one candidate (e.g. runs as different Kafka versions) as one.

    A case id present in more than one file keeps the last file's result; the report notes it."""
    if not parts:
        raise ReportInputError("no results files given")
    names = sorted({str(part.candidate["name"]) for part in parts})
    if len(names) > 1:
        raise ReportInputError(f"results of different candidates ({', '.join(names)}): "
                               "report them separately, or compare two runs with 'kjoin compare'")
    cases: dict[str, CaseResult] = {}
    notes: list[str] = []
    for part in parts:
        label = part.runs[0][0]
        for case in part.cases:
            if case.id in cases:
                notes.append(f"case {case.id} appears again in {label}; that result is shown")
            cases[case.id] = case
    ordered = tuple(sorted(cases.values(), key=lambda case: case.id))
    runs = tuple(run for part in parts for run in part.runs)
    return Results(candidate=parts[-1].candidate, runs=runs, cases=ordered, notes=tuple(notes))
