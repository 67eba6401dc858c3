"""Write reports to disk: the report of a results document (``index.html`` and one page per scenario
under ``s/``), the page of a comparison, the pages of a version diff.

A scenario whose cases all pass (or were not checked) gets no page unless asked for (``all_pages``): a
green run of the whole catalogue is an index page, not a thousand pages (docs/reports.md). The same
document gives byte-identical files (nothing reads the clock). A folder written before is
updated in place: a ``.kjoin-pages`` manifest lists the pages the last write made, and pages of scenarios
that are gone are removed (only those: nothing else in the folder is touched).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from kjoin.reports.compare_page import render_compare_page
from kjoin.reports.html import text
from kjoin.reports.index_page import render_index_page
from kjoin.reports.scale_page import render_scale_page
from kjoin.reports.scenario_page import render_scenario_page, scenario_file
from kjoin.reports.version_diff_page import diff_page_file, render_diff_index, render_diff_scenario_page

__all__ = [
    "MANIFEST",
    "banner_of",
    "render_report",
    "write_comparison",
    "write_pages",
    "write_report",
    "write_scale_report",
    "write_version_diff",
]

MANIFEST = ".kjoin-pages"
Progress = Callable[[int, int], None]
"""Called with (pages written, pages in all)."""


def banner_of(document: Mapping[str, Any]) -> str:
    """The line on top of every page: candidate, tool and Spark versions, completeness."""
    candidate = document.get("candidate") or {}
    run = document.get("run") or {}
    parts = [f"candidate <b>{text(candidate.get('name'))}</b>"]
    if run.get("kafka"):
        parts.append(f"run as Kafka {text(run.get('kafka'))}")
    parts.append(f"kjoin {text(run.get('tool_version') or 'unknown')}")
    if run.get("pyspark_version"):
        parts.append(f"PySpark {text(run.get('pyspark_version'))}")
    if run.get("spark_master"):
        parts.append(f"master {text(run.get('spark_master'))}")
    if not document.get("complete", True):
        parts.append('<span class="st st-unknown">incomplete run</span>')
    return " \u00b7 ".join(parts)


QUIET: frozenset[str] = frozenset({"pass", "not-claimed", "not-applicable"})
"""Statuses that need no page of their own: a scenario whose cases all have one gets a page only on
demand (``all_pages``); the index lists it with its statuses and hints."""


def needs_page(cases: Iterable[Mapping[str, Any]]) -> bool:
    """Whether a scenario's cases need a page: one of them fails, errs, is declared or undecided."""
    return any(str(case.get("status")) not in QUIET for case in cases)


def render_report(document: Mapping[str, Any], *, all_pages: bool = False) -> dict[str, str]:
    """The pages of a results document's report: path relative to the report folder -> HTML. A page per
    scenario that needs attention (``needs_page``); with ``all_pages``, a page per scenario."""
    banner = banner_of(document)
    by_scenario: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for case in document.get("cases") or []:
        by_scenario[str(case.get("scenario"))].append(case)
    paged = {s for s, cases in by_scenario.items() if all_pages or needs_page(cases)}
    pages = {"index.html": render_index_page(document, banner=banner, paged=paged)}
    for scenario in sorted(paged):
        pages[scenario_file(scenario)] = render_scenario_page(scenario, by_scenario[scenario], banner=banner)
    return pages


def write_pages(pages: Mapping[str, str], out_dir: Path, *, progress: Progress | None = None) -> Path:
    """Write ``pages`` below ``out_dir`` (UTF-8, ``\\n`` line ends), remove the pages of an earlier write
    that are not among them; returns the index page's path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    manifest = out_dir / MANIFEST
    earlier = set(manifest.read_text(encoding="utf-8").split("\n")) if manifest.is_file() else set()
    for done, (relative, content) in enumerate(sorted(pages.items()), start=1):
        path = out_dir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8", newline="\n")
        if progress is not None:
            progress(done, len(pages))
    for stale in sorted(earlier - set(pages)):
        target = out_dir / stale
        if stale and target.is_file() and target.resolve().is_relative_to(out_dir.resolve()):
            target.unlink()
    manifest.write_text("\n".join(sorted(pages)) + "\n", encoding="utf-8", newline="\n")
    return out_dir / "index.html"


def write_report(
    document: Mapping[str, Any], out_dir: Path, *, progress: Progress | None = None, all_pages: bool = False
) -> Path:
    """Write the report of a results ``document`` (docs/results-format.md) into ``out_dir``; returns
    the path of ``index.html``. ``progress`` is called as pages are written; ``all_pages``: a page for
    every scenario, the passing ones too."""
    return write_pages(render_report(document, all_pages=all_pages), out_dir, progress=progress)


def write_comparison(comparison: Mapping[str, Any], out_dir: Path) -> Path:
    """Write ``compare.html`` (a ``kjoin-comparison`` document) into ``out_dir``; returns its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "compare.html"
    path.write_text(render_compare_page(comparison), encoding="utf-8", newline="\n")
    return path


def write_version_diff(diff: Mapping[str, Any], out_dir: Path, *, progress: Progress | None = None) -> Path:
    """Write the pages of a ``kjoin-version-diff`` document into ``out_dir``; returns ``index.html``."""
    banner = f"kjoin version diff: Kafka {text(diff.get('older'))} vs {text(diff.get('newer'))}"
    pages = {"index.html": render_diff_index(diff, banner=banner)}
    for entry in diff.get("scenarios") or []:
        pages[diff_page_file(str(entry.get("scenario")))] = render_diff_scenario_page(
            diff, entry, banner=banner
        )
    return write_pages(pages, out_dir, progress=progress)


def write_scale_report(document: Mapping[str, Any], out_dir: Path) -> Path:
    """Write the page of a ``kjoin-scale`` document as ``index.html`` in ``out_dir``; returns its path."""
    return write_pages({"index.html": render_scale_page(document, banner=banner_of(document))}, out_dir)
