"""What changes between two Kafka versions, from the oracle alone (KIP-77's "current vs suggested" tables for
any scenario): the ``kjoin-version-diff`` document (docs/results-format.md).

Every scenario x variant (x intended) of the given cases runs as Kafka A and as Kafka B; the two outputs
are compared by the project's checker at the exact level (same outputs, same emitting input, same order),
so "differs" means what a candidate check would mean by it.
"""

from __future__ import annotations

import fnmatch
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from kjoin.conformance.catalogue import Case
from kjoin.conformance.catalogue.vocabulary import DOCUMENTS
from kjoin.conformance.checker import Emitted, check
from kjoin.conformance.documents.flag_notes import ERAS_DOC, flag_note, jira_url, kip_url
from kjoin.conformance.documents.results import about_json, output_json, spec_json
from kjoin.oracle.behaviour import Behaviour, behaviour_for, flag_names
from kjoin.oracle.engine import run
from kjoin.oracle.errors import OracleError
from kjoin.oracle.records import VARIANTS, Output

__all__ = ["SCHEMA", "VERSION", "version_diff"]

SCHEMA = "kjoin-version-diff"
VERSION = 1


def _outputs(case: Case, version: str) -> tuple[Output, ...] | str:
    try:
        return tuple(run(case.spec, case.records, behaviour_for(version, intended=case.intended)))
    except OracleError as error:
        return f"Kafka {version} has no such join: {error}"


def _variant(case: Case, older: str, newer: str) -> dict[str, Any]:
    before, after = _outputs(case, older), _outputs(case, newer)
    if isinstance(before, str) and isinstance(after, str):
        status, reason = "not-applicable", before
    elif isinstance(before, str) or isinstance(after, str):
        status, reason = "differs", before if isinstance(before, str) else str(after)
    else:
        verdict = check(
            Emitted(before, True), Emitted(after, True), "exact", names=(f"Kafka {older}", f"Kafka {newer}")
        )
        status, reason = ("differs" if verdict.divergences else "same"), ""
    return {
        "variant": case.variant,
        "label": case.variant + (" (intended)" if case.intended else ""),
        "intended": case.intended,
        "status": status,
        "reason": reason,
        "older": None if isinstance(before, str) else [output_json(o) for o in before],
        "newer": None if isinstance(after, str) else [output_json(o) for o in after],
    }


def _changed_flags(before: Behaviour, after: Behaviour) -> list[str]:
    return [name for name in flag_names() if getattr(before, name) != getattr(after, name)]


def _flag_notes(before: Behaviour, after: Behaviour) -> list[dict[str, Any]]:
    """Each changed flag in words: its documentation, the evidence it cites, its value in each version."""
    notes = []
    for flag in _changed_flags(before, after):
        note = flag_note(flag)
        notes.append(
            {
                "flag": flag,
                "older": getattr(before, flag),
                "newer": getattr(after, flag),
                "text": note.text,
                "tickets": list(note.tickets),
                "kips": list(note.kips),
                "rules": list(note.rules),
                "links": [{"label": t, "url": jira_url(t)} for t in note.tickets]
                + [{"label": k, "url": kip_url(k)} for k in note.kips],
                "see": ERAS_DOC,
            }
        )
    return notes


def provenance_rank(entry: dict[str, Any]) -> int:
    """Documented tables first: 0 a scenario transcribing a public document's table (a KIP, Kafka's
    documentation), 1 another hand-written scenario, 2 Kafka's own join tests, 3 captured traces and
    generated counterexamples."""
    source = str(entry.get("source"))
    if "regressions" in source or "golden" in source:
        return 3
    if "kafka_tests" in source:
        return 2
    reference = (entry.get("about") or {}).get("reference") or {}
    cited = DOCUMENTS.get(str(reference.get("document")))
    return 0 if cited is not None and cited.tables else 1


def _rank(entry: dict[str, Any]) -> tuple[int, str]:
    return provenance_rank(entry), str(entry["scenario"])


def version_diff(
    cases: Sequence[Case],
    older: str,
    newer: str,
    *,
    ids: Sequence[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """The version-diff document of every scenario of ``cases`` (whose id matches one of the globs ``ids``)
    run as Kafka ``older`` and ``newer``; versions must be known to the oracle (``UnknownVersionError``)."""
    old_behaviour, new_behaviour = behaviour_for(older), behaviour_for(newer)
    chosen: dict[str, dict[tuple[str, bool], Case]] = defaultdict(dict)
    for case in cases:
        if ids and not any(fnmatch.fnmatchcase(case.scenario, pattern) for pattern in ids):
            continue
        chosen[case.scenario].setdefault((case.variant, case.intended), case)
    scenarios: list[dict[str, Any]] = []
    variant_lists: list[list[dict[str, Any]]] = []
    for done, scenario in enumerate(sorted(chosen), start=1):
        variants = chosen[scenario]
        order = sorted(variants, key=lambda key: (VARIANTS.index(key[0]), key[1]))
        first = variants[order[0]]
        variant_lists.append([_variant(variants[key], older, newer) for key in order])
        scenarios.append(
            {
                "scenario": scenario,
                "source": first.source,
                "join": first.join,
                "about": about_json(first),
                "spec": spec_json(first.spec),
                "records": [
                    {"side": r.side, "key": r.key, "value": r.value, "ts": r.ts} for r in first.records
                ],
                "variants": variant_lists[-1],
            }
        )
        if progress is not None:
            progress(done, len(chosen))
    ranked = sorted(zip(scenarios, variant_lists, strict=True), key=lambda pair: _rank(pair[0]))
    scenarios, variant_lists = [entry for entry, _ in ranked], [found for _, found in ranked]
    per_scenario = [[variant["status"] for variant in diff] for diff in variant_lists]
    statuses = [status for found in per_scenario for status in found]
    differ = sum(1 for found in per_scenario if "differs" in found)
    same = sum(1 for found in per_scenario if all(status == "same" for status in found))
    return {
        "schema": SCHEMA,
        "version": VERSION,
        "older": older,
        "newer": newer,
        "older_era": old_behaviour.era,
        "newer_era": new_behaviour.era,
        "changed_flags": _changed_flags(old_behaviour, new_behaviour),
        "flag_notes": _flag_notes(old_behaviour, new_behaviour),
        "counts": {
            "scenarios": len(scenarios),
            "differ": differ,
            "same": same,
            "not-applicable": len(scenarios) - differ - same,
            "variants": len(statuses),
        },
        "scenarios": scenarios,
    }
