"""Reports: static HTML from results files, era comparisons from the oracle, verdicts, run comparisons.

Rendering only: the checker's divergences are shown as they are, and semantics come from the oracle
(era comparisons and verdicts). Pages are offline (inline style and script), escape every value, and
the same inputs give byte-identical files.
"""

from reports.compare import Comparison, compare_results
from reports.document import ReportInputError, load_results
from reports.era_diff import write_era_diff
from reports.verdict import JoinVerdict, verdicts
from reports.write import render_report, write_report

__all__ = [
    "Comparison",
    "JoinVerdict",
    "ReportInputError",
    "compare_results",
    "load_results",
    "render_report",
    "verdicts",
    "write_era_diff",
    "write_report",
]
