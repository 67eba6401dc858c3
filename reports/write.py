"""Write a static HTML report from results files: ``index.html`` and one page per scenario under ``s/``.

The same results file gives byte-identical pages (STYLE.md rule 15): pages are built from sorted data,
verdicts are recomputed from the cases with the oracle (deterministic), and nothing reads the clock.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from kjoin.reports.document import CaseResult, Results, load_results, merge_results
from kjoin.reports.index_page import render_index_page
from kjoin.reports.scenario_page import render_scenario_page, scenario_file
from kjoin.reports.verdict import verdicts

__all__ = ["render_report", "write_pages", "write_report"]


def render_report(results: Results) -> dict[str, str]:
    """Every page of the report: path relative to the report folder -> HTML."""
    by_scenario: dict[str, list[CaseResult]] = defaultdict(list)
    for case in results.cases:
        by_scenario[case.scenario].append(case)
    pages = {"index.html": render_index_page(results, verdicts(results.cases))}
    for scenario in sorted(by_scenario):
        pages[scenario_file(scenario)] = render_scenario_page(scenario, by_scenario[scenario])
    return pages


def write_pages(pages: dict[str, str], out_dir: Path) -> Path:
    """Write ``pages`` below ``out_dir`` (UTF-8, ``\\n`` line ends); returns the index page's path."""
    for relative, content in pages.items():
        path = out_dir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8", newline="\n")
    return out_dir / "index.html"


def write_report(results_paths: Path | Sequence[Path], out_dir: Path) -> Path:
    """Read one or more results files (of one candidate) and write their report into ``out_dir``.

    Returns the path of ``index.html``. Raises ``ReportInputError`` naming the file and field when a
    results file cannot be read or does not follow the schema."""
    paths = [results_paths] if isinstance(results_paths, Path) else list(results_paths)
    results = merge_results([load_results(path) for path in paths])
    return write_pages(render_report(results), out_dir)
