"""The report's index page: run and candidate, counts, the verdict per join kind, and the matrix of
scenarios x variants (one row per Kafka version a scenario was run as) with filters and links.

The matrix stays light for thousands of scenarios: one short row per scenario x version, statuses as
classed cells, and a small script that only toggles ``hidden`` on rows (``reports.assets``).
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kjoin.oracle.records import JOIN_KINDS, VARIANTS
from kjoin.reports.document import CaseResult, Results, kafka_order
from kjoin.reports.html import page, status_badge, table, text
from kjoin.reports.scenario_page import group_anchor, scenario_file
from kjoin.reports.verdict import ERA_VERSIONS, JoinVerdict

__all__ = ["STATUS_ORDER", "render_index_page", "status_order"]

STATUS_ORDER = ("pass", "fail", "declared", "unexpected-pass", "unknown", "not-claimed", "not-applicable")
"""The harness's outcome statuses (``conformance.harness.outcomes``), in display order."""

_SPACES = re.compile(r"\s+")


def status_order(statuses: Iterable[str]) -> list[str]:
    """Distinct statuses in display order (statuses this report does not know go last, sorted)."""
    found = set(statuses)
    return [s for s in STATUS_ORDER if s in found] + sorted(found - set(STATUS_ORDER))


def _ordered(items: Iterable[str], known: Sequence[str]) -> list[str]:
    found = set(items)
    return [item for item in known if item in found] + sorted(found - set(known))


def _token(value: str) -> str:
    """A filter token (no spaces: the script splits attribute values on spaces)."""
    return _SPACES.sub("_", value)


def _value(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(item) for item in value)
    if isinstance(value, Mapping):
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    return "null" if value is None else str(value)


def _runs_section(results: Results) -> str:
    keys: list[str] = []
    for _, run in results.runs:
        keys += [key for key in run if key not in keys]
    rows = [[text(label), *(text(_value(run.get(key))) for key in keys)] for label, run in results.runs]
    return "<h2>Runs</h2>" + table(["results file", *keys], rows)


def _candidate_section(candidate: Mapping[str, Any]) -> str:
    claim = candidate.get("claim")
    parts = [f"<h2>Candidate {text(candidate.get('name'))}</h2>"]
    if isinstance(claim, Mapping):
        rows = [[text(key), text(_value(value))] for key, value in claim.items()]
        parts.append(table(["claims", "value"], rows))
    declared = candidate.get("declared_differences")
    if isinstance(declared, list) and declared:
        headers = ["scenario", "reason", "joins", "variants", "kafka", "strict"]
        rows = [[text(_value(item.get(name))) for name in headers] for item in declared
                if isinstance(item, Mapping)]
        parts.append("<h3>Declared differences</h3>" + table(headers, rows))
    return "\n".join(parts)


def _counts_section(cases: Sequence[CaseResult]) -> str:
    statuses = status_order(case.status for case in cases)
    total = Counter(case.status for case in cases)
    per_join: dict[str, Counter[str]] = defaultdict(Counter)
    for case in cases:
        per_join[case.join][case.status] += 1
    line = ", ".join(f"{total[s]} {status_badge(s)}" for s in statuses)
    rows = [[text(join), *(text(per_join[join][s]) for s in statuses), text(sum(per_join[join].values()))]
            for join in _ordered(per_join, JOIN_KINDS)]
    rows.append(["<b>total</b>", *(f"<b>{total[s]}</b>" for s in statuses), f"<b>{len(cases)}</b>"])
    return (f"<h2>Counts</h2><p>{len(cases)} cases: {line}</p>"
            + table(["join", *statuses, "cases"], rows))


def _verdict_section(verdicts: Sequence[JoinVerdict]) -> str:
    intro = ("<h2>Verdict: which Kafka semantics the candidate matches</h2><p>For each join kind and "
             "variant, the oracle runs the same inputs as every era of Kafka (named by its first version) "
             "and the candidate's outputs are scored against each: cases matched / cases that era can run. "
             "Best eras are highlighted.</p>")
    if not verdicts:
        return intro + '<p class="muted">No case carries both the candidate\'s outputs and its inputs.</p>'
    eras = [era for era, _ in ERA_VERSIONS]
    headers = ["join", "variant", "run as", "cases", "matches", "does not match", *eras]
    head = "".join(f"<th>{text(h)}</th>" for h in headers)
    rows = []
    for verdict in verdicts:
        asked = ", ".join(verdict.asked) + (" (intended)" if verdict.intended else "")
        cells = [f"<td>{text(value)}</td>" for value in (verdict.join, verdict.variant, asked, verdict.cases)]
        best = [r for r in verdict.ranges if r.best]
        cells.append("<td><b>" + text(" and ".join(r.label for r in best)) + "</b>"
                     + text(f" ({best[0].matched}/{verdict.cases})") + "</td>")
        rejected = "<br>".join(
            text(f"{r.label} ({r.matched}/{verdict.cases})")
            + (f' <span class="muted">{text(", ".join(r.flags))}</span>' if r.flags else "")
            for r in verdict.ranges if not r.best)
        cells.append(f"<td>{rejected}</td>")
        for score in verdict.scores:
            if score.applicable == 0:
                cells.append('<td class="na">\u2013</td>')
            else:
                css = ' class="best"' if score.era in verdict.best else ""
                cells.append(f"<td{css}>{score.matched}/{score.applicable}</td>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    body = "\n".join(rows)
    return intro + f'<table class="verdicts"><thead><tr>{head}</tr></thead><tbody>\n{body}\n</tbody></table>'


def _matrix_rows(cases: Sequence[CaseResult], variants: Sequence[str]) -> list[str]:
    groups: dict[tuple[str, str, bool], dict[str, CaseResult]] = defaultdict(dict)
    for case in cases:
        groups[(case.scenario, case.kafka, case.intended)][case.variant] = case
    versions = kafka_order(kafka for _, kafka, _ in groups)
    rows = []
    for scenario, kafka, intended in sorted(groups, key=lambda k: (k[0], versions.index(k[1]), k[2])):
        by_variant = groups[(scenario, kafka, intended)]
        href = scenario_file(scenario)
        label = kafka + (" intended" if intended else "")
        joins = sorted({case.join for case in by_variant.values()})
        statuses = status_order(case.status for case in by_variant.values())
        cells = [
            f'<td><a href="{text(href)}">{text(scenario)}</a></td>',
            f"<td>{text(', '.join(joins))}</td>",
            f'<td><a href="{text(href)}#{group_anchor(kafka, intended)}">{text(label)}</a></td>',
        ]
        for variant in variants:
            case = by_variant.get(variant)
            if case is None:
                cells.append("<td></td>")
            else:
                css = "st-" + re.sub(r"[^A-Za-z0-9_-]", "_", case.status)
                cells.append(f'<td class="{css}">{text(case.status)}</td>')
        attrs = (f' data-j="{text(" ".join(_token(j) for j in joins))}"'
                 f' data-k="{text(_token(label))}" data-s="{text(" ".join(_token(s) for s in statuses))}"')
        rows.append(f"<tr{attrs}>{''.join(cells)}</tr>")
    return rows


def _select(name: str, label: str, values: Sequence[str]) -> str:
    options = [f'<option value="">{text(label)}: all</option>']
    options += [f'<option value="{text(_token(v))}">{text(v)}</option>' for v in values]
    return f'<select data-filter="{name}" aria-label="{text(label)}">{"".join(options)}</select>'


def _matrix_section(cases: Sequence[CaseResult]) -> str:
    variants = _ordered((case.variant for case in cases), VARIANTS)
    versions = kafka_order(case.kafka for case in cases)
    runs_as = sorted({(c.kafka, c.intended) for c in cases}, key=lambda run: (versions.index(run[0]), run[1]))
    kafka_labels = [kafka + (" intended" if intended else "") for kafka, intended in runs_as]
    controls = (
        '<div class="controls"><input id="q" type="search" placeholder="filter scenarios" '
        'aria-label="filter scenarios">'
        + _select("j", "join", _ordered((c.join for c in cases), JOIN_KINDS))
        + _select("k", "kafka", kafka_labels)
        + _select("s", "status", status_order(c.status for c in cases))
        + '<span id="shown" class="muted"></span></div>'
    )
    head = "".join(f"<th>{text(h)}</th>" for h in ["scenario", "join", "run as Kafka", *variants])
    rows = "\n".join(_matrix_rows(cases, variants))
    matrix = f'<table id="rows"><thead><tr>{head}</tr></thead><tbody>\n{rows}\n</tbody></table>'
    return f"<h2>Scenarios \u00d7 variants</h2>{controls}{matrix}"


def render_index_page(results: Results, verdicts: Sequence[JoinVerdict]) -> str:
    """The index page of a report."""
    name = str(results.candidate.get("name"))
    notes = "".join(f"<li>{text(note)}</li>" for note in results.notes)
    body = [
        f"<h1>kjoin report: {text(name)}</h1>",
        _counts_section(results.cases),
        _verdict_section(verdicts),
        _matrix_section(results.cases),
        _candidate_section(results.candidate),
        _runs_section(results),
        f"<h2>Notes</h2><ul>{notes}</ul>" if notes else "",
    ]
    return page(f"kjoin report: {name}", "\n".join(part for part in body if part), script=True)
