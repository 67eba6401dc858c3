"""Reports: static HTML from the harness's documents (docs/results-format.md).

Rendering only: the results, comparison and version-diff documents carry everything computed (outputs,
divergences, explanations, verdicts); nothing here runs the oracle or the checker. Pages are offline
(inline style and script), escape every value, and the same document gives byte-identical files.
"""

from kjoin.reports.write import (
    banner_of,
    render_report,
    write_comparison,
    write_pages,
    write_report,
    write_scale_report,
    write_version_diff,
)

__all__ = [
    "banner_of",
    "render_report",
    "write_comparison",
    "write_pages",
    "write_report",
    "write_scale_report",
    "write_version_diff",
]
