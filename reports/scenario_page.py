"""One page per scenario: its cases (one per variant) grouped by the Kafka version they were run as.

The page leads with the versions that were checked (the ones that need attention first), each with: the
verdict per variant, the seed-shaped table (``# | ts | left | right | one column per variant``) with
Kafka's outputs and the candidate's differences merged in, the first divergence with why Kafka emits what
it emits and the oracle's state there as tables, the timeline, and the list of divergences. Versions the
candidate does not claim fold away at the bottom. Then what the scenario says about itself: its source
(with a link) and the errata next to the rows they concern. Rendering only: every fact comes from the
results document.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from kjoin.conformance.documents.vocabulary import FAILING, OutcomeStatus
from kjoin.conformance.notation import show_output_json, show_record_json
from kjoin.reports.diff_table import render_diff_table, unified_column
from kjoin.reports.html import element, safe_name, status_badge, table, text
from kjoin.reports.model import VARIANT_ORDER, kafka_order
from kjoin.reports.rules import rule_reference
from kjoin.reports.timeline import micro_batch_starts, render_timeline

__all__ = [
    "LEGEND",
    "describe_spec",
    "first_marker",
    "group_anchor",
    "render_scenario_page",
    "scenario_file",
    "split_of",
]

Case = Mapping[str, Any]
_DIVERGENCES_SHOWN = 200
_UNCHECKED: frozenset[OutcomeStatus] = frozenset({"not-claimed", "not-applicable"})

LEGEND = (
    '<p class="legend"><span class="m-missing">\u2212 missing: Kafka emits it, the candidate does not</span>'
    '<span class="m-unexpected">+ unexpected: the candidate emits it, Kafka does not</span>'
    '<span class="m-order">~ same output, another input or order</span>'
    "\u25b6 first divergence</p>"
)


def scenario_file(scenario: str) -> str:
    """The page of ``scenario``, relative to the report's folder."""
    return f"s/{safe_name(scenario)}.html"


def group_anchor(kafka: str, intended: bool, split: str = "") -> str:
    """The fragment of the section for cases run as ``kafka`` (``intended``: documented semantics;
    ``split``: under that micro-batch split, ``--steps-per-batch``)."""
    suffix = ("-intended" if intended else "") + (f"-mb-{split}" if split else "")
    return "as-" + safe_name(kafka + suffix, limit=40 if split else 20)


def describe_spec(spec: Mapping[str, Any] | None) -> str:
    """The join's settings in words, with the header that fits the join kind."""
    if not spec:
        return "inputs not recorded in the results file"
    join = spec.get("join")
    parts = [f"{join} join"]
    window = spec.get("window")
    if window and join == "stream-stream":
        grace = window.get("grace")
        if grace is None:
            api = "JoinWindows.of (legacy, no grace given)"
        elif window.get("legacy"):
            api = f"JoinWindows.of().grace({grace}) (legacy)"
        else:
            api = f"grace {grace}"
        parts.append(f"window before {window.get('before')} after {window.get('after')}, {api}")
    elif window:
        parts.append(f"grace {window.get('grace')} (KIP-923 stream-side buffer)")
    parts.append(f"{spec.get('stores')} stores")
    versioned = spec.get("versioned")
    if versioned:
        sides = "+".join(side for side in ("left", "right") if versioned.get(side)) or "none"
        parts.append(f"versioned {sides} (history {versioned.get('history_ms')} ms)")
    if join == "fk":
        parts.append(f"foreign key extractor {spec.get('fk_extractor')}")
    if spec.get("self"):
        parts.append("self-join (one stream joined with itself)")
    if spec.get("optimization", "none") != "none":
        parts.append(f"topology.optimization {spec.get('optimization')}")
    if join == "stream-globaltable":
        parts.append(f"key mapper {spec.get('key_mapper', 'key')}")
    return ", ".join(parts)


def _status_line(case: Case) -> str:
    parts = [f"<b>{text(case.get('variant'))}</b> {status_badge(str(case.get('status')))}"]
    first = case.get("first_divergence")
    if first:
        parts.append(f'<span class="kind">{text(first.get("kind"))}</span>')
    if case.get("mode"):
        parts.append(f'<span class="muted">compared as {text(case.get("mode"))}</span>')
    commits = case.get("commit_points")
    if commits is not None and case.get("status") in ("pass", "unexpected-pass"):
        parts.append(text(explained_by(commits)))
    declared = case.get("declared")
    if declared:
        parts.append(f"declared difference: {text(declared.get('reason'))}")
    elif case.get("reason"):
        parts.append(text(case.get("reason")))
    return "<li>" + " ".join(parts) + "</li>"


def explained_by(commits: Sequence[int]) -> str:
    """``explained by commits after inputs #1, #3 (the last: the end of the input)``: the commit points of
    level ``commit-points`` (spec CP-4)."""
    if not commits:
        return "explained with no input (no commit)"
    points = ", ".join(f"#{index}" for index in commits)
    return f"explained by commits after inputs {points} (the last: the end of the input)"


def first_marker(case: Case) -> tuple[int, str] | None:
    """Where the ▶ of a case's first divergence goes, with its hint: on the input whose effect first
    differs (``first_divergence.cause``, docs/results-format.md) when that comes before the input where it
    shows, else on that input."""
    first = case.get("first_divergence")
    if not isinstance(first, Mapping) or not isinstance(first.get("at"), int):
        return None
    label = f"first divergence of {case.get('variant')}"
    cause = first.get("cause")
    if isinstance(cause, Mapping) and isinstance(cause.get("index"), int):
        return cause["index"], f"{label}: it starts here and shows at input #{first['at']}"
    return first["at"], label


def _first(case: Case) -> str:
    first = case.get("first_divergence")
    if not first or first.get("kind") == "candidate-error":
        return ""
    at = first.get("at")
    where = "an input the candidate did not name"
    records = case.get("records") or []
    if isinstance(at, int) and 0 <= at < len(records):
        where = f"input {show_record_json(records[at], at)}"
    words = [f"{case.get('variant')}: first divergence at {where}: {first.get('kind')}"]
    if first.get("detail"):
        words.append(str(first.get("detail")))
    html = f"<p>{text('; '.join(words))}</p>"
    cause = first.get("cause")
    if isinstance(cause, Mapping) and cause.get("text"):
        html += f'<p class="cause">\u25b6 Where it starts: {text(cause["text"])}.</p>'

    explanation = case.get("explanation")
    if explanation:
        html += _why(explanation.get("why"))
        html += _state(explanation)
    return html


def _why(why: object) -> str:
    """The explanation's ``why``: its sentence and the spec rule it applies (a plain sentence in documents
    written before the rule was recorded)."""
    if isinstance(why, str):
        return f'<p class="why">Why: {text(why)}</p>' if why else ""
    if not isinstance(why, Mapping) or not why.get("text"):
        return ""
    rule = why.get("rule")
    cited = f" ({rule_reference(rule)})" if isinstance(rule, Mapping) else ""
    return f'<p class="why">Why: {text(why.get("text"))}{cited}</p>'


def _state_table(state: Mapping[str, Any]) -> str:
    title = text(state.get("title"))
    note = f' <span class="muted">({text(state.get("note"))})</span>' if state.get("note") else ""
    rows = [[text(cell) for cell in row] for row in state.get("rows") or []]
    body = table(state.get("columns") or [], rows) if rows else '<p class="muted">empty</p>'
    return f"<div><b>{title}</b>{note}{body}</div>"


def _state(explanation: Mapping[str, Any]) -> str:
    at = explanation.get("at")
    emitted = "; ".join(show_output_json(o) for o in explanation.get("emitted") or []) or "nothing"
    before = (
        "".join(_state_table(t) for t in explanation.get("before") or [])
        or '<p class="muted">nothing yet</p>'
    )
    after = "".join(_state_table(t) for t in explanation.get("after") or [])
    summary = f"<summary>Kafka's state around input #{text(at)} (it emits: {text(emitted)})</summary>"
    content = (
        f'<h4>before input #{text(at)}</h4><div class="state">{before}</div>'
        f'<h4>after input #{text(at)}</h4><div class="state">{after}</div>'
    )
    return element("details", summary + content, {"open": "open"})


def _divergence_table(case: Case) -> str:
    divergences = [d for d in case.get("divergences") or [] if d.get("kind") != "candidate-error"]
    if not divergences:
        return ""
    rows = [
        [
            text(d.get("kind")),
            text("" if d.get("at") is None else d.get("at")),
            text("" if d.get("expected") is None else show_output_json(d["expected"])),
            text("" if d.get("actual") is None else show_output_json(d["actual"])),
            text(d.get("detail") or ""),
        ]
        for d in divergences[:_DIVERGENCES_SHOWN]
    ]
    total = int(case.get("divergences_total") or len(divergences))
    more = f'<p class="muted">{total - len(rows)} more not shown</p>' if total > len(rows) else ""
    title = f"<h4>Divergences of {text(case.get('variant'))} (compared as {text(case.get('mode'))})</h4>"
    return title + table(["kind", "input", "Kafka emits", "candidate emits", "detail"], rows) + more


_RELEASE_FIELDS = frozenset({"id", "kafka", "era", "source", "line"})
"""What differs between the blocks of one scenario run as several releases, where nothing else does: the
release, and where its case is stated (a golden trace per release; the page's header lists every source)."""


def _same_block(cases: Sequence[Case]) -> str:
    """What a block of cases shows, without the release it was run as: blocks of several releases that
    are equal are shown once."""
    shown = [{k: v for k, v in case.items() if k not in _RELEASE_FIELDS} for case in cases]
    return json.dumps(shown, sort_keys=True, default=str)


def _micro_batch_words(micro_batches: Mapping[str, Any], count: int) -> str:
    starts = [int(start) for start in micro_batches.get("starts") or []]
    where = ", ".join(f"#{start}" for start in starts) or "none (one micro-batch)"
    return (
        f"Fed to the candidate in {len(starts) + 1} micro-batch{'es' if starts else ''} of {count} inputs "
        f"(split {micro_batches.get('split')}); micro-batch boundaries before input {where}."
    )


def _group_section(
    kafka: str,
    intended: bool,
    cases: Sequence[Case],
    also: Sequence[tuple[str, str | None]] = (),
    split: str = "",
) -> str:
    """One block: the cases run as ``kafka`` (under the micro-batch ``split``, when a run asked for
    several), and as the releases ``also`` (release, era) that gave the very same block."""
    era = next((case.get("era") for case in cases if case.get("era")), None)
    releases = [(kafka, era), *also]
    eras = list(dict.fromkeys(str(e) for _, e in releases if e))
    named = ", ".join(release for release, _ in releases)
    label = (
        f"as Kafka {named}"
        + (f" (era{'s' if len(eras) > 1 else ''} {', '.join(eras)})" if eras else "")
        + (", intended semantics" if intended else "")
        + (f", micro-batch split {split}" if split else "")
    )
    spec = next((case.get("spec") for case in cases if case.get("spec")), None)
    anchors = "".join(
        element("span", "", {"id": group_anchor(release, intended, split)}) for release, _ in also
    )
    same = (
        f'<p class="muted">The same for these {len(releases)} releases: inputs, outputs and verdicts are '
        "identical, so they are shown once.</p>"
        if also
        else ""
    )
    parts = [
        element("h2", text(label), {"id": group_anchor(kafka, intended, split)}) + anchors + same,
        f"<p>{text(describe_spec(spec))}</p>",
        "<ul>" + "".join(_status_line(case) for case in cases) + "</ul>",
    ]
    checked = [case for case in cases if case.get("expected") is not None]
    records = next((case.get("records") for case in cases if case.get("records")), None) or []
    if checked:
        first = dict(marker for case in reversed(checked) if (marker := first_marker(case)) is not None)
        headers = [f"{case.get('variant')}: Kafka vs candidate" for case in checked]
        columns = [
            unified_column(case.get("expected") or [], case.get("divergences") or []) for case in checked
        ]
        starts = micro_batch_starts(checked[0])
        if checked[0].get("micro_batches"):
            parts.append(f"<p>{text(_micro_batch_words(checked[0]['micro_batches'], len(records)))}</p>")
        join = (spec or {}).get("join")
        parts.append(render_diff_table(records, headers, columns, first=first, boundaries=starts, join=join))
        drawn = next((case for case in checked if case.get("status") in FAILING), checked[0])
        timeline = render_timeline(drawn)
        if timeline:
            caption = f"<summary>Timeline of {text(drawn.get('variant'))}</summary>"
            parts.append(element("details", caption + timeline, {"open": "open"}))
    for case in cases:
        if case.get("candidate_error"):
            parts.append(
                f"<h4>Candidate error ({text(case.get('variant'))})</h4>"
                f"<pre>{text(case.get('candidate_error'))}</pre>"
            )
        parts += [_first(case), _divergence_table(case)]
    return "\n".join(part for part in parts if part)


def _about(cases: Sequence[Case]) -> str:
    about = next((case.get("about") for case in cases if case.get("about")), None)
    if not about:
        return ""
    parts = ["<h2>About this scenario</h2>"]
    if about.get("features"):
        parts.append(f"<p>features: {text(', '.join(about['features']))}</p>")
    reference = about.get("reference")
    if reference:
        link = element("a", text(reference.get("title")), {"href": reference.get("url")})
        parts.append(f"<p>source: {link}, {text(reference.get('section'))}</p>")
        if reference.get("info"):
            parts.append(
                f"<details><summary>the table as the source shows it</summary>"
                f"<pre>{text(reference['info'])}</pre></details>"
            )
    errata = about.get("errata") or []
    if errata:
        rows = [
            [
                text("" if e.get("row") is None else e["row"]),
                text(e.get("variant") or "all"),
                text(e.get("kafka") or "all"),
                text(e.get("seed_shows")),
                text(e.get("kafka_does")),
                text(e.get("evidence")),
            ]
            for e in errata
        ]
        parts.append(
            "<h3>Errata: where the source is wrong</h3>"
            + table(["input row", "variant", "kafka", "the source shows", "Kafka does", "evidence"], rows)
        )
    return "\n".join(parts)


def split_of(case: Case) -> str:
    """The micro-batch split a case ran under when the run asked for several (its id ends in
    ``@<split>``), else ``""`` (one section per version, as without splits)."""
    micro_batches = case.get("micro_batches") or {}
    split = str(micro_batches.get("split") or "")
    return split if split and str(case.get("id", "")).endswith(f"@{split}") else ""


def _variant_order(case: Case) -> tuple[int, str]:
    variant = str(case.get("variant"))
    return (VARIANT_ORDER.index(variant) if variant in VARIANT_ORDER else len(VARIANT_ORDER), variant)


def render_scenario_page(scenario: str, cases: Sequence[Case], *, banner: str = "") -> str:
    """The page of one scenario: the checked versions first (failing before passing, newest first), then
    the versions not checked, folded."""
    from kjoin.reports.html import page

    groups: dict[tuple[str, bool, str], list[Case]] = defaultdict(list)
    for case in cases:
        groups[(str(case.get("kafka")), bool(case.get("intended")), split_of(case))].append(case)
    versions = kafka_order(kafka for kafka, _, _ in groups)

    def priority(key: tuple[str, bool, str]) -> tuple[int, int, int]:
        statuses = {case.get("status") for case in groups[key]}
        unchecked = statuses <= _UNCHECKED
        return (1 if unchecked else 0, 0 if statuses & FAILING else 1, -versions.index(key[0]))

    order = sorted(groups, key=priority)
    about = next((case.get("about") for case in cases if case.get("about")), None) or {}
    sources = sorted({str(case.get("source")) for case in cases if case.get("source")})
    joins = sorted({str(case.get("join")) for case in cases})
    body = ['<p><a href="../index.html">\u2190 index</a></p>', f"<h1>{text(scenario)}</h1>"]
    if about.get("description"):
        body.append(f"<p><b>{text(about['description'])}</b></p>")
    body += [
        f"<p>{text(', '.join(joins))} join; from {text(', '.join(sources) or 'an unknown source')}</p>",
        LEGEND,
    ]
    merged: dict[tuple[bool, str, str], list[tuple[str, bool, str]]] = {}
    for key in order:
        block = _same_block(sorted(groups[key], key=_variant_order))
        merged.setdefault((key[1], key[2], block), []).append(key)
    folded = []
    unchecked = 0
    for keys in merged.values():
        key = keys[0]
        also = [
            (kafka, next((c.get("era") for c in groups[(kafka, i, split)] if c.get("era")), None))
            for kafka, i, split in keys[1:]
        ]
        cases_of = sorted(groups[key], key=_variant_order)
        section = _group_section(key[0], key[1], cases_of, also, key[2])
        statuses = {case.get("status") for case in groups[key]}
        if statuses <= _UNCHECKED:
            folded.append(section)
            unchecked += len(keys)
        else:
            body.append(section)
    if folded:
        summary = f"<summary>{unchecked} Kafka versions not checked (not claimed or not applicable)</summary>"
        body.append(element("details", summary + "\n".join(folded)))
    body.append(_about(cases))
    return page(f"{scenario} \u2014 kjoin report", "\n".join(part for part in body if part), banner=banner)
