"""Reports: static HTML from results files, era comparisons from the oracle, verdicts, run comparisons.

Rendering only: the checker's divergences are shown as they are, and semantics come from the oracle
(era comparisons and verdicts). Pages are offline (inline style and script), escape every value, and
the same inputs give byte-identical files.
"""

from kjoin.reports.compare import Comparison, compare_results
from kjoin.reports.document import ReportInputError, load_results
from kjoin.reports.era_diff import write_era_diff
from kjoin.reports.verdict import JoinVerdict, verdicts
from kjoin.reports.write import render_report, write_report

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
