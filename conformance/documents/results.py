"""The results document of a harness run: written as the run goes, finalised atomically, read back checked.

Schema ``kjoin-results`` version 3 (docs/results-format.md; version 2 files still read). Everything a
report shows is computed here, once: each case's divergences, the oracle's state at the first divergence and
why (``explain``), the stream time for the timeline, the summary, and the verdicts (which Kafka era the
candidate matches best).

Writing survives faults (issue: nothing finished is ever lost): ``ResultsJournal`` appends one JSON line per
finished case to ``<results>.partial`` and flushes it; ``finish`` writes the whole document (compact, a line
per case) to a temporary file and renames it over ``<results>`` (atomic), then removes the journal. A run
that stops early (an exception, a timeout, SIGINT or SIGTERM) is finished with ``complete: false`` and the
reason; a run that was killed outright leaves the journal, which ``load_results`` reads as an incomplete
document. The same inputs give a byte-identical file (no wall time in it; cases sorted by id).
"""

from __future__ import annotations

import itertools
import json
import os
import platform
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from msgspec import structs

from kjoin.conformance.catalogue import Case
from kjoin.conformance.catalogue.batches import STORE_SHAPES
from kjoin.conformance.catalogue.vocabulary import DOCUMENTS
from kjoin.conformance.checker import (
    MODES,
    UNKNOWN_CAUSE,
    CandidateFailure,
    Divergence,
    Emitted,
)
from kjoin.conformance.codec import (
    output_json as codec_output_json,
)
from kjoin.conformance.codec import (
    outputs_from_results,
    record_json,
    records_from_results,
    results_spec_json,
    spec_from_results,
)
from kjoin.conformance.documents.causes import causing_input
from kjoin.conformance.documents.diagnosis import diagnose, roll_up
from kjoin.conformance.documents.explain import explain, stream_times
from kjoin.conformance.documents.outcomes import CaseOutcome
from kjoin.conformance.documents.verdicts import (
    ERA_VERSIONS,
    CaseScores,
    Score,
    Scored,
    era_scores,
    verdicts_of_scores,
)
from kjoin.conformance.documents.vocabulary import DIVERGENCE_KINDS, STATUS_MEANINGS
from kjoin.conformance.notation import show_record
from kjoin.conformance.protocol import Candidate, DeclaredDifference, ran_as
from kjoin.errors import KjoinError
from kjoin.oracle.behaviour import era_of
from kjoin.oracle.records import Output

__all__ = [
    "SCHEMA",
    "VERSION",
    "ResultsError",
    "ResultsJournal",
    "about_json",
    "candidate_json",
    "case_result",
    "expand_case",
    "load_results",
    "merge_documents",
    "output_json",
    "results_document",
    "run_metadata",
    "spec_json",
    "write_json_atomically",
    "write_results_atomically",
]

SCHEMA = "kjoin-results"
VERSION = 3
READABLE_VERSIONS = (2, 3)
"""Versions ``load_results`` reads: 3 writes shared values once (``POOLED``); 2 wrote every case in full."""
POOLED: dict[str, str] = {"records": "records", "expected": "outputs", "actual": "outputs", "spec": "spec"}
"""Case fields a version-3 file writes once in its ``pools`` (field -> pool), the case holding the index:
the cases of a scenario share its records and spec across variants and releases, and a passing case's
outputs are Kafka's (a green catalogue run: 8,488 cases, 531 record lists, 993 output lists)."""
DIVERGENCES_KEPT = 200
"""Divergences kept per case (``divergences_total`` has the full count)."""
JOURNAL_SUFFIX = ".partial"


class ResultsError(KjoinError, ValueError):
    """A results file that cannot be read or breaks the schema; the message names file, case and field."""


# --- one case as JSON ---------------------------------------------------------------------------------------


def output_json(output: Output | None) -> dict[str, Any] | None:
    """An output with its ``cause`` (``null`` when unknown), or ``None``."""
    return None if output is None else codec_output_json(output, cause=True)


def _divergence(divergence: Divergence) -> dict[str, Any]:
    return {
        "kind": divergence.kind,
        "at": divergence.at,
        "expected": output_json(divergence.expected),
        "actual": output_json(divergence.actual),
        "detail": divergence.detail,
    }


spec_json = results_spec_json


def _declared(declared: DeclaredDifference) -> dict[str, Any]:
    data = asdict(declared)
    for name in ("joins", "variants"):
        data[name] = None if data[name] is None else sorted(data[name])
    data["kafka"] = None if declared.kafka is None else list(declared.kafka)
    return data


def about_json(case: Case) -> dict[str, Any] | None:
    about = case.about
    if about is None:
        return None
    reference = None
    if about.reference is not None:
        document = DOCUMENTS[about.reference.document]
        reference = {
            "document": about.reference.document,
            "title": document.title,
            "url": document.url,
            "section": about.reference.section,
            "info": about.reference.info,
        }
    return {
        "description": about.description,
        "features": list(about.features),
        "reference": reference,
        "errata": [structs.asdict(erratum) for erratum in about.errata],
    }


def _cause(outcome: CaseOutcome, first: Divergence) -> dict[str, Any] | None:
    """The input whose effect first differs, when it comes before the one where the first divergence shows
    (``causes.causing_input``): the input and a sentence saying so."""
    answer, expected = outcome.answer, outcome.expected
    if first.kind == "candidate-error" or not isinstance(answer, Emitted) or expected is None:
        return None
    index = causing_input(outcome.case, expected, answer, first)
    if index is None or first.at is None or index >= first.at:
        return None
    record = outcome.case.records[index]
    what = " (a delete)" if record.value is None else ""
    text = (
        f"up to input #{first.at}, the candidate emits what Kafka would had it never seen input "
        f"{show_record(record, index)}{what}: the difference starts at input #{index}, whose effect "
        f"shows at #{first.at}"
    )
    return {
        "index": index,
        "side": record.side,
        "key": record.key,
        "value": record.value,
        "ts": record.ts,
        "text": text,
    }


def case_result(outcome: CaseOutcome) -> dict[str, Any]:
    """One case as plain JSON data (also what pytest-xdist workers send to the controller)."""
    case, verdict, answer = outcome.case, outcome.verdict, outcome.answer
    divergences = () if verdict is None else verdict.divergences
    first = None if verdict is None else verdict.first
    first_json = None
    explanation = None
    if first is not None:
        first_json = _divergence(first)
        if first.at is not None and 0 <= first.at < len(case.records):
            record = case.records[first.at]
            first_json["input"] = {
                "index": first.at,
                "side": record.side,
                "key": record.key,
                "value": record.value,
                "ts": record.ts,
            }
        cause = _cause(outcome, first)
        if cause is not None:
            first_json["cause"] = cause
        # an unexplained-output is about commit points, which the test driver's state at one input cannot
        # explain: its detail names them
        if first.kind not in ("candidate-error", "unexplained-output"):
            found = explain(case, first)
            if found is not None:
                explanation = dict(found, emitted=[output_json(o) for o in found["emitted"]])
    times = stream_times(case) if outcome.expected is not None else None
    diagnosis = None
    if outcome.expected is not None and divergences and isinstance(answer, Emitted):
        diagnosis = diagnose(case, outcome.expected.outputs, divergences)
    result: dict[str, Any] = {
        "id": case.id,
        "scenario": case.scenario,
        "variant": case.variant,
        "kafka": case.kafka,
        "era": era_of(case.kafka),
        "intended": case.intended,
        "join": case.join,
        "source": case.source,
        "line": case.line,
        "status": outcome.status,
        "mode": outcome.mode,
        "reason": outcome.reason,
        "declared": None if outcome.declared is None else _declared(outcome.declared),
        "about": about_json(case),
        "spec": spec_json(case.spec),
        "records": [record_json(record) for record in case.records],
        "expected": None if outcome.expected is None else [output_json(o) for o in outcome.expected.outputs],
        "actual": [output_json(o) for o in answer.outputs] if isinstance(answer, Emitted) else None,
        "candidate_error": f"{answer.message}\n{answer.traceback}".strip()
        if isinstance(answer, CandidateFailure)
        else None,
        "divergences": [_divergence(d) for d in divergences[:DIVERGENCES_KEPT]],
        "divergences_total": len(divergences),
        "commit_points": None
        if verdict is None or verdict.commit_points is None
        else [*verdict.commit_points],
        "first_divergence": first_json,
        "explanation": explanation,
        "timeline": None if times is None else {"stream_time": times},
        "diagnosis": diagnosis,
        "micro_batches": None
        if case.micro_batches is None
        else {"split": case.micro_batches.split, "starts": list(case.micro_batches.starts)},
    }
    scored = _scored(result)
    if scored is not None:
        result["era_scores"] = _runs_json(era_scores(scored))
    return result


SCORE_ERAS: list[str] = [era for era, _ in ERA_VERSIONS]
"""The eras a case's ``era_scores`` run over, oldest first (the document's ``score_eras``)."""


def _runs_json(scores: Sequence[Score]) -> list[list[int]]:
    """Scores per era as runs of equal scores, oldest era first: ``[count, matched, divergences]``, or
    ``[count]`` for eras without the join (a green case is mostly one or two runs)."""
    runs: list[list[int]] = []
    for score in scores:
        item = [] if score is None else [int(score[0]), score[1]]
        if runs and runs[-1][1:] == item:
            runs[-1][0] += 1
        else:
            runs.append([1, *item])
    return runs


def _scores_of_runs(runs: Sequence[Sequence[int]]) -> tuple[Score, ...] | None:
    """``_runs_json`` read back; ``None`` when the runs do not cover ``SCORE_ERAS`` exactly."""
    scores: list[Score] = []
    for run in runs:
        scores += [None if len(run) == 1 else (bool(run[1]), int(run[2]))] * int(run[0])
    return tuple(scores) if len(scores) == len(SCORE_ERAS) else None


# --- the whole document -------------------------------------------------------------------------------------


def run_metadata(
    *,
    master: str,
    kafka: str | None,
    equivalence: str,
    scenarios: Iterable[str],
    timeout_s: float | None = None,
    through_kafka: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """What a run was asked to do and with which software (no wall time: results stay reproducible);
    ``through_kafka``: the broker, connector and feed of an end-to-end run (docs/end-to-end.md)."""
    metadata: dict[str, Any] = {
        "tool_version": _version("kjoin-conformance"),
        "pyspark_version": _version("pyspark"),
        "python_version": platform.python_version(),
        "spark_master": master,
        "kafka": kafka,
        "equivalence": equivalence,
        "scenarios": list(scenarios),
        "timeout_s": timeout_s,
    }
    if through_kafka is not None:
        metadata["through_kafka"] = dict(through_kafka)
    return metadata


def _version(package: str) -> str | None:
    try:
        return version(package)
    except PackageNotFoundError:
        return None


def candidate_json(candidate: Candidate) -> dict[str, Any]:
    claim = candidate.claim
    return {
        "name": candidate.name,
        "claim": {
            "joins": sorted(claim.joins),
            "variants": sorted(claim.variants),
            "kafka": list(claim.kafka),
            "stores": sorted(claim.stores),
            "versioned": claim.versioned,
            "stream_table_grace": claim.stream_table_grace,
            **({"production_settings": True} if claim.production_settings else {}),
            **({"self_joins": True} if claim.self_joins else {}),
            **({"commit_points": True} if claim.commit_points else {}),
            **({"record_caches": True} if claim.record_caches else {}),
        },
        "declared_differences": [_declared(d) for d in candidate.declared_differences],
    }


def _summary(cases: Sequence[Mapping[str, Any]], claimed: Sequence[str]) -> dict[str, Any]:
    by_join: dict[str, Counter[str]] = defaultdict(Counter)
    kinds: dict[str, Counter[str]] = defaultdict(Counter)
    for case in cases:
        by_join[case["join"]][case["status"]] += 1
        if case["status"] in ("fail", "error", "declared") and case["first_divergence"] is not None:
            kinds[case["join"]][case["first_divergence"]["kind"]] += 1
    return {
        "total": len(cases),
        "by_status": dict(sorted(Counter(case["status"] for case in cases).items())),
        "by_join": {join: dict(sorted(counts.items())) for join, counts in sorted(by_join.items())},
        "failures_by_kind": {join: dict(sorted(counts.items())) for join, counts in sorted(kinds.items())},
        "ran_as": ran_as(claimed, [str(case["kafka"]) for case in cases if case["status"] != "not-claimed"]),
        "diagnosis": roll_up(cases),
    }


def results_document(
    run: Mapping[str, Any],
    candidate: Mapping[str, Any],
    cases: Iterable[Mapping[str, Any]],
    *,
    calls: Sequence[Mapping[str, Any]] = (),
    complete: bool = True,
    incomplete_reason: str | None = None,
) -> dict[str, Any]:
    """The whole results document; ``cases`` are ``case_result`` dicts (any order; sorted here)."""
    ordered = sorted(cases, key=lambda case: (str(case["id"]), str(case["source"])))
    scored = [item for item in map(_case_scores, ordered) if item is not None]
    return {
        "schema": SCHEMA,
        "version": VERSION,
        "complete": complete,
        "incomplete_reason": None if complete else incomplete_reason or "the run did not finish",
        "run": dict(run),
        "candidate": dict(candidate),
        "divergence_kinds": dict(DIVERGENCE_KINDS),
        "statuses": dict(STATUS_MEANINGS),
        "summary": _summary(ordered, (candidate.get("claim") or {}).get("kafka") or ()),
        "calls": [dict(call) for call in calls],
        "verdicts": [verdict.to_json() for verdict in verdicts_of_scores(scored)],
        "score_eras": list(SCORE_ERAS),
        "cases": ordered,
    }


_SCORED = frozenset({"pass", "fail", "declared", "unexpected-pass", "unknown"})


def _case_scores(case: Mapping[str, Any]) -> CaseScores | None:
    """A checked case's scores against every era for the verdicts: those kept in the case (``era_scores``,
    computed when its result was made), else computed now from its JSON (a document of an earlier kjoin)."""
    if case["status"] not in _SCORED or case["actual"] is None or case["mode"] not in MODES:
        return None
    kept = case.get("era_scores")
    scores = None if kept is None else _scores_of_runs(kept)
    if scores is None:
        scored = _scored(case)
        if scored is None:
            return None
        return CaseScores.of(scored)
    return CaseScores(case["join"], case["variant"], case["kafka"], case["intended"], scores)


def _scored(case: Mapping[str, Any]) -> Scored | None:
    """A checked case with the candidate's outputs, rebuilt from its JSON for the verdicts."""
    if case["status"] not in _SCORED or case["actual"] is None or case["mode"] not in MODES:
        return None
    spec = spec_from_results(case["spec"])
    records = records_from_results(case["records"])
    actual = outputs_from_results(case["actual"])
    known = all(output.cause != UNKNOWN_CAUSE for output in actual)
    rebuilt = Case(case["id"], case["scenario"], case["kafka"], case["intended"], spec, records)
    return Scored(rebuilt, Emitted(actual, causes_known=known), case["mode"])


# --- writing: a journal while the run goes, one atomic rename at the end ------------------------------------


def _dumps(value: Any, indent: int | None = None) -> str:
    """JSON text with every non-ASCII character escaped: a candidate's output may carry text that is not
    valid UTF-8 (a lone surrogate from a Java string), and results must be writable whatever it returns."""
    return json.dumps(value, indent=indent, ensure_ascii=True, separators=None if indent else (",", ":"))


def write_json_atomically(path: Path, document: Any) -> None:
    """Write ``document`` as stable, indented JSON: to a temporary file beside ``path``, then rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with temporary.open("w", encoding="utf-8") as handle:
        handle.write(_dumps(document, indent=1) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def write_results_atomically(path: Path, document: Mapping[str, Any]) -> None:
    """Write a results document as compact JSON (version 3), streamed: one line per top-level field, one
    line per case, then the ``pools`` a line per entry (a run's cases diff line by line and the file is
    written without one giant string); to a temporary file beside ``path``, then renamed. Still one JSON
    document (``json.load`` reads it; ``load_results`` puts the pooled values back in the cases)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    pools: dict[str, dict[str, int]] = {name: {} for name in dict.fromkeys(POOLED.values())}
    with temporary.open("w", encoding="utf-8") as handle:
        handle.write("{")
        for name, value in document.items():
            if name not in ("cases", "pools"):  # the pools make it a version-3 file whatever it was read as
                handle.write(f"{_dumps(name)}:{_dumps(VERSION if name == 'version' else value)},\n")
        handle.write('"cases":[')
        for number, case in enumerate(document.get("cases") or []):
            handle.write(("\n" if number == 0 else ",\n") + _dumps(_pooled(case, pools)))
        handle.write('\n],\n"pools":{')
        for number, (name, entries) in enumerate(pools.items()):
            handle.write(("" if number == 0 else ",") + f"\n{_dumps(name)}:[")
            handle.write(",".join(f"\n{text}" for text in entries))
            handle.write("\n]")
        handle.write("}}\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def _pooled(case: Mapping[str, Any], pools: dict[str, dict[str, int]]) -> dict[str, Any]:
    """``case`` with each ``POOLED`` field replaced by its index in the pool (added there when new)."""
    packed = dict(case)
    for field, pool in POOLED.items():
        value = case.get(field)
        if value is not None and not isinstance(value, int):
            entries = pools[pool]
            packed[field] = entries.setdefault(_dumps(value), len(entries))
    return packed


def expand_case(case: dict[str, Any], pools: Mapping[str, Sequence[Any]], where: str) -> None:
    """Put the values of a version-3 file's ``pools`` back into ``case`` (in place); ``ResultsError`` names
    the case and field of an index that is not in its pool."""
    for field, pool in POOLED.items():
        value = case.get(field)
        if isinstance(value, int) and not isinstance(value, bool):
            entries = pools.get(pool)
            if not isinstance(entries, list) or not 0 <= value < len(entries):
                raise ResultsError(
                    f"{where}: case {case.get('id')!r} field {field!r}: {value} is not an entry of "
                    f"pools.{pool}"
                )
            case[field] = entries[value]


class ResultsJournal:
    """The results of one run, kept on disk as they arrive.

    ``add`` appends a finished case to ``<path>.partial`` (one JSON line, flushed); ``finish`` writes the
    final document atomically and removes the journal. The journal's first line is the run's header. As in
    the final file, a ``POOLED`` value is written once: a ``{"pool": NAME, "entry": VALUE}`` line before the
    first case that uses it, the case holding its index (issue 24: the three variants of one 1M-record
    scenario wrote their records and outputs three times, a 204 MB journal).
    """

    def __init__(self, path: Path, run: Mapping[str, Any], candidate: Mapping[str, Any]) -> None:
        self.path = path
        self.journal = path.with_name(path.name + JOURNAL_SUFFIX)
        self.run = dict(run)
        self.candidate = dict(candidate)
        self.cases: dict[str, dict[str, Any]] = {}
        self.calls: list[dict[str, Any]] = []
        self.finished = False
        self._pools: dict[str, dict[str, int]] = {name: {} for name in dict.fromkeys(POOLED.values())}
        path.parent.mkdir(parents=True, exist_ok=True)
        self._handle = self.journal.open("w", encoding="utf-8")
        self._append(
            {
                "schema": SCHEMA,
                "version": VERSION,
                "journal": True,
                "run": self.run,
                "candidate": self.candidate,
                "score_eras": SCORE_ERAS,
            }
        )

    def _append(self, entry: Mapping[str, Any]) -> None:
        self._handle.write(_dumps(entry) + "\n")
        self._handle.flush()

    def add(self, case: Mapping[str, Any]) -> None:
        """Keep one finished case (a later result for the same id replaces it)."""
        self.cases[str(case["id"])] = dict(case)
        known = {pool: len(entries) for pool, entries in self._pools.items()}
        packed = _pooled(case, self._pools)
        for pool, entries in self._pools.items():  # the entries this case added, in the order it added them
            for text in itertools.islice(entries, known[pool], None):
                self._handle.write(f'{{"pool":{_dumps(pool)},"entry":{text}}}\n')
        self._append({"case": packed})

    def add_call(self, call: Mapping[str, Any]) -> None:
        """Keep the record of one candidate call (status, captured output)."""
        self.calls.append(dict(call))
        self._append({"call": call})

    def finish(self, *, complete: bool = True, reason: str | None = None) -> dict[str, Any]:
        """Write the final document (atomically) and remove the journal; returns the document."""
        document = results_document(
            self.run,
            self.candidate,
            self.cases.values(),
            calls=self.calls,
            complete=complete,
            incomplete_reason=reason,
        )
        write_results_atomically(self.path, document)
        self._handle.close()
        self.journal.unlink(missing_ok=True)
        self.finished = True
        return document


# --- reading ------------------------------------------------------------------------------------------------


def load_results(path: Path) -> dict[str, Any]:
    """A results document, checked against the schema; a journal left by a killed run (``<path>.partial``,
    read when ``path`` is missing or is the journal itself) becomes an incomplete document."""
    journal = path if path.name.endswith(JOURNAL_SUFFIX) else path.with_name(path.name + JOURNAL_SUFFIX)
    if path == journal or (not path.exists() and journal.exists()):
        return _from_journal(journal)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ResultsError(f"{path}: cannot read: {error}") from error
    try:
        document = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as error:
        raise ResultsError(f"{path}: not a JSON document ({error})") from error
    _expand(document, str(path))
    check_document(document, str(path))
    _forget_other_scores(document, document.get("score_eras"))
    return dict(document)


def _expand(document: Any, where: str) -> None:
    """A version-3 document's cases with their pooled values back in place, ``pools`` dropped."""
    if not isinstance(document, dict) or "pools" not in document:
        return
    pools = document.pop("pools")
    if not isinstance(pools, dict):
        raise ResultsError(f"{where}: field 'pools' must be an object")
    for case in document.get("cases") or []:
        if isinstance(case, dict):
            expand_case(case, pools, where)


def _forget_other_scores(document: Mapping[str, Any], eras: object) -> None:
    """Drop the cases' ``era_scores`` when they run over other eras than this kjoin's (a file of another
    version): the verdicts of a merge then score those cases again."""
    if eras != SCORE_ERAS:
        for case in document["cases"]:
            case.pop("era_scores", None)


def _from_journal(journal: Path) -> dict[str, Any]:
    try:
        lines = journal.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise ResultsError(f"{journal}: cannot read: {error}") from error
    entries = []
    for number, line in enumerate(lines, start=1):
        try:
            entries.append(json.loads(line))
        except json.JSONDecodeError:
            if number == len(lines):  # the last line may have been cut off when the run was killed
                break
            raise ResultsError(f"{journal}:{number}: not a JSON line") from None
    if not entries or not isinstance(entries[0], dict) or not entries[0].get("journal"):
        raise ResultsError(f"{journal}: not a kjoin results journal (no header line)")
    header = entries[0]
    pools: dict[str, list[Any]] = {}
    cases: dict[str, dict[str, Any]] = {}
    for entry in entries[1:]:
        if isinstance(entry, dict) and "pool" in entry:
            pools.setdefault(str(entry["pool"]), []).append(entry.get("entry"))
        elif isinstance(entry, dict) and isinstance(entry.get("case"), dict):
            expand_case(entry["case"], pools, str(journal))
            cases[str(entry["case"]["id"])] = entry["case"]
    calls = [e["call"] for e in entries[1:] if isinstance(e, dict) and "call" in e]
    _forget_other_scores({"cases": list(cases.values())}, header.get("score_eras"))
    reason = "the run was stopped before it could write its results; these are the cases it finished"
    document = results_document(
        header["run"],
        header["candidate"],
        cases.values(),
        calls=calls,
        complete=False,
        incomplete_reason=reason,
    )
    check_document(document, str(journal))
    return document


_DOCUMENT_FIELDS: dict[str, type] = {
    "complete": bool,
    "run": dict,
    "candidate": dict,
    "summary": dict,
    "verdicts": list,
    "cases": list,
    "calls": list,
}
_CASE_FIELDS: dict[str, type] = {
    "id": str,
    "scenario": str,
    "variant": str,
    "kafka": str,
    "intended": bool,
    "join": str,
    "source": str,
    "status": str,
    "records": list,
    "divergences": list,
    "spec": dict,
}


def check_document(document: Any, where: str) -> None:
    """Raise ``ResultsError`` naming the first field that does not follow the schema (version 2 or 3,
    pooled values put back)."""
    if not isinstance(document, dict) or document.get("schema") != SCHEMA:
        raise ResultsError(f"{where}: not a kjoin results document (schema must be {SCHEMA!r})")
    if document.get("version") not in READABLE_VERSIONS:
        readable = " and ".join(map(str, READABLE_VERSIONS))
        raise ResultsError(
            f"{where}: results version {document.get('version')!r} is not supported (this kjoin reads "
            f"versions {readable}; re-run the candidate to get a current file)"
        )
    for name, kind in _DOCUMENT_FIELDS.items():
        if not isinstance(document.get(name), kind):
            raise ResultsError(f"{where}: field {name!r} must be a {kind.__name__}")
    statuses = set(STATUS_MEANINGS)
    for index, case in enumerate(document["cases"]):
        if not isinstance(case, dict):
            raise ResultsError(f"{where}: cases[{index}] must be an object")
        for name, kind in _CASE_FIELDS.items():
            if not isinstance(case.get(name), kind):
                raise ResultsError(
                    f"{where}: cases[{index}] ({case.get('id')!r}) field {name!r} must be a {kind.__name__}"
                )
        if case["status"] not in statuses:
            raise ResultsError(
                f"{where}: case {case['id']!r} field 'status': {case['status']!r} is not one of "
                f"{', '.join(sorted(statuses))}"
            )
        for number, divergence in enumerate(case["divergences"]):
            if not isinstance(divergence, dict) or divergence.get("kind") not in DIVERGENCE_KINDS:
                raise ResultsError(f"{where}: case {case['id']!r} divergences[{number}]: unknown kind")
    for index, call in enumerate(document["calls"]):
        batch = call.get("batch") if isinstance(call, dict) else None  # absent before calls carried it
        if batch is not None and batch not in STORE_SHAPES:
            shapes = ", ".join(STORE_SHAPES)
            raise ResultsError(
                f"{where}: calls[{index}] field 'batch': {batch!r} is not null or one of {shapes}"
            )


def merge_documents(documents: Sequence[Mapping[str, Any]], labels: Sequence[str]) -> dict[str, Any]:
    """One document from several results documents of one candidate (e.g. one per Kafka version); a single
    document comes back as it is. Verdicts and summary are computed again over all cases."""
    if len(documents) == 1:
        return dict(documents[0])
    names = {str(document["candidate"]["name"]) for document in documents}
    if len(names) > 1:
        raise ResultsError(
            f"{', '.join(labels)}: results of different candidates ({', '.join(sorted(names))})"
        )
    seen: dict[str, str] = {}
    cases: list[Mapping[str, Any]] = []
    for document, label in zip(documents, labels, strict=True):
        for case in document["cases"]:
            if case["id"] in seen:
                raise ResultsError(f"{label}: case {case['id']!r} is also in {seen[case['id']]}")
            seen[case["id"]] = label
            cases.append(case)
    incomplete = [
        f"{label}: {document['incomplete_reason']}"
        for document, label in zip(documents, labels, strict=True)
        if not document["complete"]
    ]
    run = dict(documents[0]["run"], merged_from=list(labels))
    calls = [call for document in documents for call in document["calls"]]
    return results_document(
        run,
        documents[0]["candidate"],
        cases,
        calls=calls,
        complete=not incomplete,
        incomplete_reason="; ".join(incomplete),
    )
