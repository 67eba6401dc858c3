"""Era comparison pages from the oracle alone: what changes between two Kafka versions, for any scenario.

``kjoin diff-versions A B`` runs every scenario (the bundled catalogue or given files) as Kafka A and as
Kafka B and shows KIP-77's "current vs suggested" tables: per variant an A column and a B column, outputs
only A emits on a red background (removed), outputs only B emits on green (added). The comparison is the
checker's (``exact``: same outputs, same emitting input, same order), so "differs" means what a
candidate check would mean by it.
"""

from __future__ import annotations

import fnmatch
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from kjoin.conformance.checker import Divergence, Emitted, check
from kjoin.conformance.harness.cases import Case, load_cases
from kjoin.oracle.behaviour import UnknownVersionError, behaviour_for
from kjoin.oracle.engine import run
from kjoin.oracle.errors import OracleError
from kjoin.oracle.records import JOIN_KINDS, VARIANTS, JoinSpec, Output, Record
from kjoin.reports.diff_table import Column, era_columns, render_diff_table
from kjoin.reports.html import page, text
from kjoin.reports.scenario_page import describe_spec, scenario_file
from kjoin.reports.write import write_pages

__all__ = [
    "EraDiffError",
    "EraDiffRun",
    "ScenarioDiff",
    "VariantDiff",
    "era_diffs",
    "render_era_pages",
    "write_era_diff",
]

DiffStatus = Literal["same", "differs", "not-applicable"]
_STATUS_CLASS: dict[DiffStatus, str] = {
    "same": "st-pass", "differs": "st-fail", "not-applicable": "st-not-applicable",
}


class EraDiffError(ValueError):
    """Unknown versions or unreadable scenario files; the message says which."""


@dataclass(frozen=True, slots=True)
class VariantDiff:
    """One variant of a scenario as two versions: their outputs (or why that version has no such join)
    and the checker's divergences between them."""

    variant: str
    intended: bool
    older: tuple[Output, ...] | str
    newer: tuple[Output, ...] | str
    divergences: tuple[Divergence, ...]

    @property
    def status(self) -> DiffStatus:
        if isinstance(self.older, str) and isinstance(self.newer, str):
            return "not-applicable"
        if isinstance(self.older, str) or isinstance(self.newer, str):
            return "differs"
        return "differs" if self.divergences else "same"

    @property
    def label(self) -> str:
        return self.variant + (" (intended)" if self.intended else "")


@dataclass(frozen=True, slots=True)
class ScenarioDiff:
    """A scenario's variants compared between two versions."""

    scenario: str
    join: str
    source: str
    spec: JoinSpec
    records: tuple[Record, ...]
    variants: tuple[VariantDiff, ...]

    @property
    def differs(self) -> bool:
        return any(variant.status == "differs" for variant in self.variants)


def _outputs(case: Case, version: str) -> tuple[Output, ...] | str:
    try:
        return tuple(run(case.spec, case.records, behaviour_for(version, intended=case.intended)))
    except OracleError as error:
        return f"Kafka {version} has no such join: {error}"


def _variant_diff(case: Case, older: str, newer: str) -> VariantDiff:
    before, after = _outputs(case, older), _outputs(case, newer)
    divergences: tuple[Divergence, ...] = ()
    if not isinstance(before, str) and not isinstance(after, str):
        divergences = check(before, Emitted(after, causes_known=True), "exact").divergences
    return VariantDiff(case.variant, case.intended, before, after, divergences)


def era_diffs(cases: Sequence[Case], older: str, newer: str) -> list[ScenarioDiff]:
    """Every scenario of ``cases`` (one case per scenario x variant x intended is used) as both versions."""
    for version in (older, newer):
        try:
            behaviour_for(version)
        except UnknownVersionError as error:
            raise EraDiffError(str(error)) from error
    chosen: dict[str, dict[tuple[str, bool], Case]] = defaultdict(dict)
    for case in cases:
        chosen[case.scenario].setdefault((case.variant, case.intended), case)
    diffs = []
    for scenario in sorted(chosen):
        variants = chosen[scenario]
        order = sorted(variants, key=lambda key: (_label_order(key[0]), key[1]))
        first = variants[order[0]]
        diffs.append(ScenarioDiff(
            scenario, first.join, first.source, first.spec, first.records,
            tuple(_variant_diff(variants[key], older, newer) for key in order),
        ))
    return diffs


def _empty_if_missing(outputs: tuple[Output, ...] | str) -> tuple[Output, ...]:
    return () if isinstance(outputs, str) else outputs


def _legend(older: str, newer: str) -> str:
    old, new = text(older), text(newer)
    return (f'<p class="legend"><span class="m-missing">\u2212 removed: Kafka {old} emits it, Kafka {new} '
            f'does not</span><span class="m-unexpected">+ added: only Kafka {new} emits it</span>'
            '<span class="m-order">~ same output, another input or order</span></p>')


def _counted(variant: VariantDiff) -> str:
    """``differs (2 removed, 1 added)``: outputs only the older / only the newer version emits."""
    if variant.status != "differs" or not variant.divergences:
        return variant.status
    moved = sum(1 for d in variant.divergences if d.kind == "out-of-order")
    removed = sum(1 for d in variant.divergences if d.expected is not None and d.kind != "out-of-order")
    added = sum(1 for d in variant.divergences if d.actual is not None and d.kind != "out-of-order")
    counts = [f"{removed} removed", f"{added} added"] + ([f"{moved} in another order"] if moved else [])
    return f"differs ({', '.join(counts)})"


def _scenario_page(diff: ScenarioDiff, older: str, newer: str) -> str:
    headers: list[str] = []
    columns: list[Column] = []
    notes: list[str] = []
    for variant in diff.variants:
        old_column, new_column = era_columns(
            _empty_if_missing(variant.older), _empty_if_missing(variant.newer), variant.divergences)
        headers += [f"{variant.label} ({older})", f"{variant.label} ({newer})"]
        columns += [old_column, new_column]
        for outputs in (variant.older, variant.newer):
            if isinstance(outputs, str):
                notes.append(f"{variant.label}: {outputs}")
        notes.append(f"{variant.label}: {_counted(variant)}")
    body = [
        '<p><a href="../index.html">\u2190 index</a></p>',
        f"<h1>{text(diff.scenario)}: Kafka {text(older)} vs {text(newer)}</h1>",
        f"<p>{text(describe_spec(diff.spec))}; from {text(diff.source or 'unknown source')}</p>",
        _legend(older, newer),
        "<ul>" + "".join(f"<li>{text(note)}</li>" for note in notes) + "</ul>",
        render_diff_table(diff.records, headers, columns),
    ]
    return page(f"{diff.scenario}: Kafka {older} vs {newer}", "\n".join(body))


def _label_order(label: str) -> tuple[int, str]:
    variant = label.split()[0]
    return (VARIANTS.index(variant) if variant in VARIANTS else len(VARIANTS), label)


def _index_page(diffs: Sequence[ScenarioDiff], older: str, newer: str) -> str:
    labels = sorted({v.label for d in diffs for v in d.variants}, key=_label_order)
    rows = []
    for diff in diffs:
        by_label = {variant.label: variant for variant in diff.variants}
        cells = [f'<td><a href="{text(scenario_file(diff.scenario))}">{text(diff.scenario)}</a></td>',
                 f"<td>{text(diff.join)}</td>"]
        for label in labels:
            variant = by_label.get(label)
            if variant is None:
                cells.append("<td></td>")
            else:
                cells.append(f'<td class="{_STATUS_CLASS[variant.status]}">{text(variant.status)}</td>')
        statuses = " ".join(sorted({variant.status for variant in diff.variants}))
        rows.append(f'<tr data-j="{text(diff.join)}" data-s="{text(statuses)}">{"".join(cells)}</tr>')
    joins = [join for join in JOIN_KINDS if any(diff.join == join for diff in diffs)]
    differing = sum(1 for diff in diffs if diff.differs)
    options = "".join(f'<option value="{text(join)}">{text(join)}</option>' for join in joins)
    statuses = "".join(f'<option value="{s}">{s}</option>' for s in ("differs", "same", "not-applicable"))
    head = "".join(f"<th>{text(h)}</th>" for h in ["scenario", "join", *labels])
    body = [
        f"<h1>Kafka {text(older)} vs Kafka {text(newer)}</h1>",
        f"<p>{len(diffs)} scenarios, {differing} with different outputs (the oracle's, compared exactly: "
        "outputs, emitting input and order).</p>",
        '<div class="controls"><input id="q" type="search" placeholder="filter scenarios" '
        'aria-label="filter scenarios">'
        f'<select data-filter="j" aria-label="join"><option value="">join: all</option>{options}</select>'
        '<select data-filter="s" aria-label="status"><option value="">status: all</option>'
        f"{statuses}</select>"
        '<span id="shown" class="muted"></span></div>',
        f'<table id="rows"><thead><tr>{head}</tr></thead><tbody>\n' + "\n".join(rows) + "\n</tbody></table>",
    ]
    return page(f"Kafka {older} vs {newer}", "\n".join(body), script=True)


def render_era_pages(diffs: Sequence[ScenarioDiff], older: str, newer: str) -> dict[str, str]:
    """The comparison's pages: path relative to the output folder -> HTML."""
    pages = {"index.html": _index_page(diffs, older, newer)}
    for diff in diffs:
        pages[scenario_file(diff.scenario)] = _scenario_page(diff, older, newer)
    return pages


@dataclass(frozen=True, slots=True)
class EraDiffRun:
    """What ``write_era_diff`` did: the index page, the comparisons, and scenario load errors (the
    scenarios that loaded are still compared)."""

    index: Path
    diffs: tuple[ScenarioDiff, ...]
    errors: tuple[str, ...]


def write_era_diff(
    older: str, newer: str, out_dir: Path, *, paths: Sequence[Path] | None = None,
    ids: Sequence[str] | None = None,
) -> EraDiffRun:
    """Compare two versions over the scenarios of ``paths`` (default: the bundled catalogue) whose ids
    match one of the ``ids`` globs (default: all) and write the pages.
    Raises ``EraDiffError`` for unknown versions or when no scenario loads or matches."""
    for version in (older, newer):
        try:
            behaviour_for(version)
        except UnknownVersionError as error:
            raise EraDiffError(str(error)) from error
    case_set = load_cases(list(paths) if paths else None, kafka=older)
    cases = [case for case in case_set.cases
             if not ids or any(fnmatch.fnmatchcase(case.scenario, pattern) for pattern in ids)]
    if not cases:
        problems = "; ".join(case_set.errors)
        raise EraDiffError("no scenario matches" + (f" {', '.join(ids)}" if ids else "")
                           + (f" ({problems})" if problems else ""))
    diffs = era_diffs(cases, older, newer)
    index = write_pages(render_era_pages(diffs, older, newer), out_dir)
    return EraDiffRun(index, tuple(diffs), case_set.errors)
