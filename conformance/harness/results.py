"""The results file of a harness run: versioned JSON that reports (a later issue's HTML) are built from.

Schema ``kjoin-results`` version 1::

    {"schema": "kjoin-results", "version": 1,
     "run": {"tool_version", "pyspark_version", "python_version", "spark_master", "kafka", "equivalence",
             "scenarios"},
     "candidate": {"name", "claim": {...}, "declared_differences": [{...}]},
     "summary": {"<status>": count, ...},
     "verdicts": [{"join", "variant", "kafka": [versions asked], "intended", "cases", "best": [eras],
                   "eras": [{"era", "matched", "divergences", "applicable"}],
                   "ranges": [{"eras", "best", "matched", "flags"}], "summary"}],
     "cases": [{"id", "scenario", "variant", "kafka", "intended", "join", "source", "timestamps",
                "status", "mode", "reason", "declared": {...} | null,
                "expected": [output] | null, "actual": [output] | null, "candidate_error": str | null,
                "divergences": [{"kind", "at", "expected", "actual", "detail"}],
                "first_divergence": {... + "input": {"index", "side", "key", "value", "ts"}} | null,
                "spec": {"join", "variant", "stores", "fk_extractor", "window", "versioned"},
                "records": [{"side", "key", "value", "ts"}]}]}

An output is ``{"key", "value": [left, right] | null, "ts", "cause"}`` (``cause`` null when unknown). Cases
are sorted by id and nothing depends on wall time, so the same run gives a byte-identical file
(STYLE.md rule 15). ``spec`` and ``records`` are the case's inputs in the portable format
(``oracle/portable.py``), so reports can show them and re-run the oracle; ``verdicts`` says which Kafka
era's semantics the candidate's outputs match best per join kind and variant (``reports.verdict``).
"""

from __future__ import annotations

import json
import platform
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from kjoin.conformance.candidate import Candidate, DeclaredDifference
from kjoin.conformance.checker import UNKNOWN_CAUSE, CandidateFailure, Divergence, Emitted
from kjoin.conformance.harness.outcomes import CaseOutcome
from kjoin.oracle.records import JoinSpec, Output
from kjoin.reports.document import case_from_json
from kjoin.reports.verdict import verdicts

__all__ = ["SCHEMA", "VERSION", "case_result", "results_document", "run_metadata", "write_results"]

SCHEMA = "kjoin-results"
VERSION = 1


def _output(output: Output | None) -> dict[str, Any] | None:
    if output is None:
        return None
    value = None if output.value is None else [output.value[0], output.value[1]]
    cause = None if output.cause == UNKNOWN_CAUSE else output.cause
    return {"key": output.key, "value": value, "ts": output.ts, "cause": cause}


def _divergence(divergence: Divergence) -> dict[str, Any]:
    return {
        "kind": divergence.kind,
        "at": divergence.at,
        "expected": _output(divergence.expected),
        "actual": _output(divergence.actual),
        "detail": divergence.detail,
    }


def _spec(spec: JoinSpec) -> dict[str, Any]:
    """The join spec in the portable format's fields."""
    window, versioned = spec.window, spec.versioned
    return {
        "join": spec.join,
        "variant": spec.variant,
        "stores": spec.stores,
        "fk_extractor": spec.fk_extractor,
        "window": None if window is None else
        {"before": window.before, "after": window.after, "grace": window.grace, "legacy": window.legacy},
        "versioned": None if versioned is None else
        {"left": versioned.left, "right": versioned.right, "history_ms": versioned.history_ms},
    }


def _declared(declared: DeclaredDifference) -> dict[str, Any]:
    data = asdict(declared)
    for name in ("joins", "variants"):
        data[name] = None if data[name] is None else sorted(data[name])
    data["kafka"] = None if declared.kafka is None else list(declared.kafka)
    return data


def case_result(outcome: CaseOutcome) -> dict[str, Any]:
    """One case as plain JSON data (also what pytest-xdist workers send to the controller)."""
    case, verdict, answer = outcome.case, outcome.verdict, outcome.answer
    divergences = [] if verdict is None else [_divergence(d) for d in verdict.divergences]
    first = None
    if verdict is not None and verdict.first is not None:
        first = _divergence(verdict.first)
        at = verdict.first.at
        if at is not None and 0 <= at < len(case.records):
            record = case.records[at]
            first["input"] = {"index": at, "side": record.side, "key": record.key, "value": record.value,
                              "ts": record.ts}
    return {
        "id": case.id,
        "scenario": case.scenario,
        "variant": case.variant,
        "kafka": case.kafka,
        "intended": case.intended,
        "join": case.join,
        "source": case.source,
        "timestamps": case.timestamps,
        "status": outcome.status,
        "mode": outcome.mode,
        "reason": outcome.reason,
        "declared": None if outcome.declared is None else _declared(outcome.declared),
        "expected": None if outcome.expected is None else [_output(o) for o in outcome.expected],
        "actual": [_output(o) for o in answer.outputs] if isinstance(answer, Emitted) else None,
        "candidate_error": f"{answer.message}\n{answer.traceback}".strip()
        if isinstance(answer, CandidateFailure) else None,
        "divergences": divergences,
        "first_divergence": first,
        "spec": _spec(case.spec),
        "records": [{"side": r.side, "key": r.key, "value": r.value, "ts": r.ts} for r in case.records],
    }


def run_metadata(
    *, master: str, kafka: str | None, equivalence: str, scenarios: Iterable[str]
) -> dict[str, Any]:
    """What a run was asked to do and with which software (no wall time: results stay reproducible)."""
    return {
        "tool_version": _version("kjoin-conformance"),
        "pyspark_version": _version("pyspark"),
        "python_version": platform.python_version(),
        "spark_master": master,
        "kafka": kafka,
        "equivalence": equivalence,
        "scenarios": list(scenarios),
    }


def _version(package: str) -> str | None:
    try:
        return version(package)
    except PackageNotFoundError:
        return None


def results_document(
    run: Mapping[str, Any], candidate: Candidate, cases: Iterable[Mapping[str, Any]]
) -> dict[str, Any]:
    """The whole results file as plain data; ``cases`` are ``case_result`` dicts."""
    ordered = sorted(cases, key=lambda case: (str(case["id"]), str(case["source"])))
    claim = candidate.claim
    return {
        "schema": SCHEMA,
        "version": VERSION,
        "run": dict(run),
        "candidate": {
            "name": candidate.name,
            "claim": {
                "joins": sorted(claim.joins),
                "variants": sorted(claim.variants),
                "kafka": list(claim.kafka),
                "stores": sorted(claim.stores),
                "versioned": claim.versioned,
                "stream_table_grace": claim.stream_table_grace,
            },
            "declared_differences": [_declared(d) for d in candidate.declared_differences],
        },
        "summary": dict(sorted(Counter(str(case["status"]) for case in ordered).items())),
        "verdicts": [v.to_json() for v in verdicts(case_from_json(case) for case in ordered)],
        "cases": ordered,
    }


def write_results(path: Path, document: Mapping[str, Any]) -> None:
    """Write ``document`` as stable, indented JSON."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(document, indent=1, ensure_ascii=False)
    path.write_text(text + "\n", encoding="utf-8")
