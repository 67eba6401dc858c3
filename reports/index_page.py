"""The report's index page, in the order a reader needs it: is the run whole, what fails and how (join kind
x divergence kind, each count a link to the filtered matrix), which Kafka semantics the candidate
matches (verdicts), the calls that went wrong, then the scenario x variant matrix with filters, and what
the candidate claims and declares.

The matrix stays light for thousands of scenarios: one short row per scenario x Kafka version, statuses
as classed cells (with the first divergence's kind written in, and its detail as a hover hint), and a
small script that only toggles ``hidden`` on rows (``reports.assets``).
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence, Set
from typing import Any

from kjoin.conformance.documents.vocabulary import FAILING, KIND_ORDER, STATUS_ORDER
from kjoin.reports.html import attr, element, page, status_badge, table, text
from kjoin.reports.model import JOIN_ORDER, VARIANT_ORDER, kafka_order, ordered
from kjoin.reports.rules import rule_reference
from kjoin.reports.scenario_page import group_anchor, scenario_file, split_of

__all__ = ["filter_link", "render_index_page"]

Document = Mapping[str, Any]
Case = Mapping[str, Any]
_SPACES = re.compile(r"\s+")
_HINT_LIMIT = 300


def _token(value: object) -> str:
    """A filter token (no spaces: the script splits attribute values on spaces)."""
    return _SPACES.sub("_", str(value))


def filter_link(label: str, **wanted: str) -> str:
    """A link to the matrix filtered by ``wanted`` (``j`` join, ``k`` Kafka, ``s`` status, ``d`` kind,
    ``c`` cause shape)."""
    fragment = ",".join(f"{name}={_token(value)}" for name, value in wanted.items())
    return element("a", label, {"href": f"#filter:{fragment}"})


def _kind_of(case: Case) -> str:
    first = case.get("first_divergence")
    return str(first.get("kind")) if isinstance(first, Mapping) else ""


def _kafka_label(case: Case) -> str:
    return str(case.get("kafka")) + (" intended" if case.get("intended") else "")


# --- the top: identity, completeness, the headline --------------------------------------------------------


def _headline(document: Document, cases: Sequence[Case]) -> str:
    counts = Counter(str(case.get("status")) for case in cases)
    failing = sum(counts[status] for status in FAILING)
    statuses = ordered(counts, STATUS_ORDER)
    parts = [f"{counts[status]} {status_badge(status, '#filter:s=' + _token(status))}" for status in statuses]
    verdict = (
        f'<p class="verdict-line"><span class="st st-fail">{failing} cases fail</span> of {len(cases)}</p>'
        if failing
        else f'<p class="verdict-line"><span class="st st-pass">no case fails</span> ({len(cases)} cases)</p>'
    )
    meanings = document.get("statuses") or {}
    legend = "".join(
        f"<li>{status_badge(status)} {text(meanings.get(status, ''))}</li>" for status in statuses
    )
    return (
        verdict
        + f"<p>{', '.join(parts)}</p>"
        + f"<details><summary>what the statuses mean</summary><ul>{legend}</ul></details>"
    )


def _ran_as(document: Document) -> str:
    """Which Kafka releases each claimed era ran as (the summary's ``ran_as``, docs/results-format.md)."""
    summary = document.get("summary")
    entries = summary.get("ran_as") if isinstance(summary, Mapping) else None
    items = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, Mapping):
            continue
        releases = entry.get("releases")
        counts = releases.items() if isinstance(releases, Mapping) else []
        ran = ", ".join(
            f"{text(release)} ({text(count)} case{'' if count == 1 else 's'})" for release, count in counts
        )
        claimed = ", ".join(str(version) for version in entry.get("claimed") or [])
        label = f"claimed {text(claimed)}" if claimed else "a release of the same semantics as a claimed one"
        items.append(f"<li>{label} (era {text(entry.get('era'))}): ran as {ran or 'no claimed case'}</li>")
    if not items:
        return ""
    return f'<p>Kafka releases run, per claimed era:</p><ul class="ran-as">{"".join(items)}</ul>'


def _incomplete(document: Document) -> str:
    if document.get("complete", True):
        return ""
    reason = document.get("incomplete_reason") or "the run did not finish"
    return (
        '<div class="incomplete" role="alert"><b>Incomplete run:</b> '
        f"{text(reason)}. Only the cases that finished are shown; the others were never checked.</div>"
    )


# --- failures by join kind x divergence kind --------------------------------------------------------------


def _failures_section(document: Document, cases: Sequence[Case]) -> str:
    """Failing cases counted by join kind and by the kind of their first divergence."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for case in cases:
        if case.get("status") in FAILING:
            counts[str(case.get("join"))][_kind_of(case) or "unexpected-pass"] += 1
    if not counts:
        return ""
    joins = ordered(counts, JOIN_ORDER)
    kinds = ordered((kind for join in counts.values() for kind in join), KIND_ORDER)
    meanings = document.get("divergence_kinds") or {}
    header = ["join", *kinds, "all failing"]
    head = "".join(
        f"<th{attr('title', meanings.get(h, ''))}>{text(h)}</th>" if h in kinds else f"<th>{text(h)}</th>"
        for h in header
    )
    rows = []
    for join in joins:
        cells = [f"<td>{text(join)}</td>"]
        for kind in kinds:
            count = counts[join][kind]
            cell = filter_link(str(count), j=join, d=kind) if count else "0"
            cells.append(f'<td class="n{"" if count else " zero"}">{cell}</td>')
        total = sum(counts[join].values())
        cells.append(f'<td class="n"><b>{filter_link(str(total), j=join, s="failing")}</b></td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    explained = "".join(
        f"<li><b>{text(kind)}</b>: {text(meanings.get(kind, ''))}</li>" for kind in kinds if kind in meanings
    )
    return (
        "<h2>What fails</h2><p>Failing cases by join kind and by the kind of their first divergence "
        "(each count opens the matrix filtered to those cases).</p>"
        f'<table class="summary"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
        f'<ul class="muted">{explained}</ul>'
    )


def _shapes_of(case: Case) -> list[str]:
    diagnosis = case.get("diagnosis")
    shapes = diagnosis.get("shapes") if isinstance(diagnosis, Mapping) else None
    return sorted(str(shape) for shape in shapes) if isinstance(shapes, Mapping) else []


def _diagnosis_section(document: Document) -> str:
    """The failing cases' divergences grouped by cause shape (the summary's ``diagnosis``), each with the
    spec rules it concerns and a link to the matrix filtered to its cases."""
    summary = document.get("summary")
    entries = summary.get("diagnosis") if isinstance(summary, Mapping) else None
    items = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, Mapping):
            continue
        rules = "; ".join(rule_reference(r) for r in entry.get("rules") or [] if isinstance(r, Mapping))
        cases = filter_link("show the cases", c=str(entry.get("shape")))
        items.append(f"<li>{text(entry.get('text'))}" + (f": {rules}" if rules else "") + f" ({cases})</li>")
    if not items:
        return ""
    return (
        "<h2>What the divergences have in common</h2><p>The failing cases' divergences grouped by cause "
        "shape, each with the rule of the specification it concerns: usually one rule to fix, not many "
        f'bugs.</p><ul class="diagnosis">{"".join(items)}</ul>'
    )


def _status_section(cases: Sequence[Case]) -> str:
    per_join: dict[str, Counter[str]] = defaultdict(Counter)
    for case in cases:
        per_join[str(case.get("join"))][str(case.get("status"))] += 1
    statuses = ordered((s for join in per_join.values() for s in join), STATUS_ORDER)
    rows = []
    for join in ordered(per_join, JOIN_ORDER):
        cells = [text(join)]
        for status in statuses:
            count = per_join[join][status]
            cells.append(
                filter_link(str(count), j=join, s=status) if count else '<span class="zero">0</span>'
            )
        cells.append(text(sum(per_join[join].values())))
        rows.append(cells)
    totals = Counter(str(case.get("status")) for case in cases)
    rows.append(["<b>total</b>", *(f"<b>{totals[s]}</b>" for s in statuses), f"<b>{len(cases)}</b>"])
    return "<h2>Cases by join kind</h2>" + table(
        ["join", *statuses, "cases"], rows, attrs={"class": "summary"}
    )


# --- verdicts ---------------------------------------------------------------------------------------------


def _verdict_row(verdict: Mapping[str, Any], eras: Sequence[str]) -> str:
    run_as = ", ".join(str(k) for k in verdict.get("kafka") or []) + (
        " (intended)" if verdict.get("intended") else ""
    )
    best = set(verdict.get("best") or [])
    css_best = "best" if verdict.get("exact") else "close"
    ranges = verdict.get("ranges") or []
    others = "<br>".join(
        text(f"{r.get('eras')} ({r.get('matched')}/{verdict.get('cases')})")
        + (f' <span class="muted">{text(", ".join(r.get("flags") or []))}</span>' if r.get("flags") else "")
        for r in ranges
        if not r.get("best")
    )
    matched = next((r for r in ranges if r.get("best")), None)
    best_label = " and ".join(str(r.get("eras")) for r in ranges if r.get("best")) or "none"
    quality = "matches" if verdict.get("exact") else "closest"
    score = f" ({matched.get('matched')}/{verdict.get('cases')})" if matched else ""
    cells = [
        text(verdict.get("join")),
        text(verdict.get("variant")),
        text(run_as),
        text(verdict.get("cases")),
        f'<span class="{css_best}-text">{text(quality)}</span> <b>{text(best_label)}</b>{text(score)}',
        others,
    ]
    scores = {str(e.get("era")): e for e in verdict.get("eras") or []}
    for era in eras:
        entry = scores.get(era)
        if entry is None or not entry.get("applicable"):
            cells.append('<span class="na">\u2013</span>')
            continue
        label = f"{entry.get('matched')}/{entry.get('applicable')}"
        label = f'<span class="{css_best}">{text(label)}</span>' if era in best else text(label)
        cells.append(label)
    row_title = attr("title", verdict.get("summary") or "")
    return f"<tr{row_title}>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>"


def _verdict_section(document: Document) -> str:
    """Which Kafka semantics the candidate's joins behave like, said only where it helps (a join that
    behaves like another release than the one it was run as, with what that release does differently);
    the scores per era stay folded underneath."""
    verdicts = [v for v in document.get("verdicts") or [] if isinstance(v, Mapping)]
    heading = "<h2>Which Kafka semantics the candidate matches</h2>"
    if not verdicts:
        return heading + '<p class="muted">No case carries both the candidate\'s outputs and its inputs.</p>'
    helping = [v for v in verdicts if v.get("helps") and v.get("said")]
    if helping:
        said = "<ul>" + "".join(f"<li>{text(v.get('said'))}</li>" for v in helping) + "</ul>"
    else:
        said = (
            '<p class="muted">Nothing to learn here: no join behaves like another Kafka release than the one '
            "it was run as (where it differs, the divergences are its own).</p>"
        )
    eras = kafka_order(str(e.get("era")) for v in verdicts for e in v.get("eras") or [])
    headers = ["join", "variant", "run as", "cases", "verdict", "other eras", *eras]
    head = "".join(f"<th>{text(h)}</th>" for h in headers)
    rows = "\n".join(_verdict_row(verdict, eras) for verdict in verdicts)
    summaries = "".join(f"<li>{text(v.get('summary'))}</li>" for v in verdicts if v.get("summary"))
    explained = (
        "<p>For each join kind and variant, the candidate's outputs scored against every era of Kafka (an "
        "era is named by its first version): cases matched / cases that era can run. <b>matches</b> means "
        "a best era agrees with every case; <b>closest</b> that no era does. The flags beside the other "
        "eras are the behaviours that set them apart.</p>"
    )
    return (
        heading
        + said
        + "<details><summary>scores per era</summary>"
        + explained
        + f"<ul>{summaries}</ul>"
        + f'<div class="wide"><table class="verdicts"><thead><tr>{head}</tr></thead><tbody>\n{rows}\n'
        + "</tbody></table></div></details>"
    )


# --- candidate calls --------------------------------------------------------------------------------------


def _calls_section(document: Document) -> str:
    calls = [c for c in document.get("calls") or [] if isinstance(c, Mapping)]
    troubled = [c for c in calls if c.get("status") != "ok" or c.get("stderr")]
    if not calls:
        return ""
    rows = []
    for call in calls:
        output = ""
        for stream in ("stdout", "stderr"):
            if call.get(stream):
                output += f"<details><summary>{stream}</summary><pre>{text(call[stream])}</pre></details>"
        status = str(call.get("status"))
        batch = call.get("batch")  # a store shape's batch; null for the joint one, absent in older documents
        rows.append(
            [
                text(call.get("join")) + ("" if batch is None else text(f" ({batch} batch)")),
                text(call.get("cases")),
                f'<span class="st st-{"pass" if status == "ok" else "error"}">{text(status)}</span>',
                text(call.get("message") or ""),
                output,
            ]
        )
    title = "Candidate calls" + (f" ({len(troubled)} need a look)" if troubled else "")
    body = table(["join", "cases", "status", "message", "what it printed"], rows)
    return element(
        "details", f"<summary><b>{text(title)}</b></summary>{body}", {"open": "open"} if troubled else None
    )


# --- the matrix -------------------------------------------------------------------------------------------


def _hint(case: Case) -> str:
    first = case.get("first_divergence")
    if isinstance(first, Mapping):
        detail = str(first.get("detail") or first.get("kind"))
    else:
        detail = str(case.get("reason") or "")
    return detail if len(detail) <= _HINT_LIMIT else detail[: _HINT_LIMIT - 1] + "\u2026"


def _matrix_cell(case: Case | None) -> str:
    if case is None:
        return "<td></td>"
    status = str(case.get("status"))
    kind = _kind_of(case) if status in ("fail", "declared") else ""
    label = text(status) + (f' <span class="kind">{text(kind)}</span>' if kind else "")
    hint = _hint(case)
    css = "st-" + re.sub(r"[^A-Za-z0-9_-]", "_", status)
    return f'<td class="{css}"{attr("title", hint) if hint else ""}>{label}</td>'


def _matrix_rows(cases: Sequence[Case], variants: Sequence[str], paged: Set[str] | None) -> list[str]:
    groups: dict[tuple[str, str, bool, str], dict[str, Case]] = defaultdict(dict)
    for case in cases:
        key = (str(case.get("scenario")), str(case.get("kafka")), bool(case.get("intended")), split_of(case))
        groups[key][str(case.get("variant"))] = case
    versions = kafka_order(kafka for _, kafka, _, _ in groups)

    def failing_first(key: tuple[str, str, bool, str]) -> tuple[int, str, int, bool, str]:
        statuses = {case.get("status") for case in groups[key].values()}
        return (0 if statuses & FAILING else 1, key[0], versions.index(key[1]), key[2], key[3])

    rows = []
    for key in sorted(groups, key=failing_first):
        scenario, kafka, intended, split = key
        by_variant = groups[key]
        href = scenario_file(scenario)
        label = kafka + (" intended" if intended else "") + (f" micro-batch split {split}" if split else "")
        joins = sorted({str(case.get("join")) for case in by_variant.values()})
        statuses = {str(case.get("status")) for case in by_variant.values()}
        if statuses & FAILING:
            statuses.add("failing")
        kinds = {_kind_of(case) for case in by_variant.values() if _kind_of(case)}
        shapes = {shape for case in by_variant.values() for shape in _shapes_of(case)}
        name = text(scenario)
        if paged is None or scenario in paged:
            name = f'<a href="{text(href)}#{group_anchor(kafka, intended, split)}">{name}</a>'
        cells = [
            f"<td>{name}</td>",
            f"<td>{text(', '.join(joins))}</td>",
            f"<td>{text(label)}</td>",
            *(_matrix_cell(by_variant.get(variant)) for variant in variants),
        ]
        attrs = (
            attr("data-j", " ".join(_token(j) for j in joins))
            + attr("data-k", _token(label))
            + attr("data-s", " ".join(sorted(_token(s) for s in statuses)))
            + attr("data-d", " ".join(sorted(_token(k) for k in kinds)))
            + attr("data-c", " ".join(sorted(_token(c) for c in shapes)))
        )
        rows.append(f"<tr{attrs}>{''.join(cells)}</tr>")
    return rows


def _select(name: str, label: str, values: Iterable[str]) -> str:
    options = [f'<option value="">{text(label)}: all</option>']
    options += [f'<option value="{text(_token(v))}">{text(v)}</option>' for v in values]
    return f'<select data-filter="{name}" aria-label="{text(label)}">{"".join(options)}</select>'


def _cause_select(cases: Sequence[Case]) -> str:
    shapes = sorted({shape for case in cases for shape in _shapes_of(case)})
    return _select("c", "cause", shapes) if shapes else ""


def _matrix_section(cases: Sequence[Case], paged: Set[str] | None) -> str:
    variants = ordered((str(case.get("variant")) for case in cases), VARIANT_ORDER)
    versions = kafka_order(str(case.get("kafka")) for case in cases)
    runs_as = sorted(
        {(str(c.get("kafka")), bool(c.get("intended"))) for c in cases},
        key=lambda run: (versions.index(run[0]), run[1]),
    )
    statuses = ordered((str(c.get("status")) for c in cases), STATUS_ORDER)
    if any(status in FAILING for status in statuses):
        statuses = ["failing", *statuses]
    controls = (
        '<div class="controls"><input id="q" type="search" placeholder="filter scenarios" '
        'aria-label="filter scenarios">'
        + _select("j", "join", ordered((str(c.get("join")) for c in cases), JOIN_ORDER))
        + _select("k", "kafka", [kafka + (" intended" if intended else "") for kafka, intended in runs_as])
        + _select("s", "status", statuses)
        + _select("d", "divergence", ordered((_kind_of(c) for c in cases if _kind_of(c)), KIND_ORDER))
        + _cause_select(cases)
        + '<span id="shown" class="muted"></span></div>'
    )
    head = "".join(f"<th>{text(h)}</th>" for h in ["scenario", "join", "run as Kafka", *variants])
    rows = "\n".join(_matrix_rows(cases, variants, paged))
    matrix = (
        f'<table id="rows" class="matrix"><thead><tr>{head}</tr></thead><tbody>\n{rows}\n</tbody></table>'
    )
    unpaged = paged is not None and any(str(case.get("scenario")) not in paged for case in cases)
    unlinked = (
        ""
        if not unpaged
        else " Scenarios whose cases all pass have no page of their own (<code>kjoin report RESULTS --out "
        "DIR --all-pages</code> writes them)."
    )
    return (
        '<h2 id="matrix">Scenarios \u00d7 variants</h2><p class="muted">Failing rows first; hover a cell for '
        f"its first divergence, open a scenario for the whole story.{unlinked}</p>" + controls + matrix
    )


# --- what the candidate claims, and the run ---------------------------------------------------------------


def _value(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(item) for item in value)
    if isinstance(value, Mapping):
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    return "null" if value is None else str(value)


def _candidate_section(document: Document) -> str:
    candidate = document.get("candidate") or {}
    parts = [f"<h2>Candidate {text(candidate.get('name'))}</h2>"]
    claim = candidate.get("claim")
    if isinstance(claim, Mapping):
        parts.append(table(["claims", "value"], [[text(k), text(_value(v))] for k, v in claim.items()]))
    declared = candidate.get("declared_differences")
    if isinstance(declared, list) and declared:
        headers = ["scenario", "reason", "joins", "variants", "kafka", "strict"]
        rows = [
            [text(_value(item.get(h))) for h in headers] for item in declared if isinstance(item, Mapping)
        ]
        parts.append("<h3>Declared differences</h3>" + table(headers, rows))
    run = document.get("run") or {}
    if isinstance(run, Mapping) and run:
        parts.append(
            "<h3>Run</h3>" + table(["setting", "value"], [[text(k), text(_value(v))] for k, v in run.items()])
        )
    return "\n".join(parts)


def render_index_page(document: Document, *, banner: str = "", paged: Set[str] | None = None) -> str:
    """The index page of the report of one results ``document``; ``paged``: the scenarios that have a page
    (``None``: every one)."""
    cases = [case for case in document.get("cases") or [] if isinstance(case, Mapping)]
    name = str((document.get("candidate") or {}).get("name"))
    body = [
        f"<h1>kjoin report: {text(name)}</h1>",
        _incomplete(document),
        _headline(document, cases),
        _ran_as(document),
        _failures_section(document, cases),
        _diagnosis_section(document),
        _verdict_section(document),
        _calls_section(document),
        _status_section(cases),
        _matrix_section(cases, paged),
        _candidate_section(document),
    ]
    return page(f"kjoin report: {name}", "\n".join(part for part in body if part), script=True, banner=banner)
