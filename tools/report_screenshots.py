"""Screenshots of the report for the documentation (docs/reports.md), taken in headless Chromium.

    python tools/report_screenshots.py [--out docs/images]

The report shown is a real one, made without Spark: the catalogue's stream-stream and foreign-key scenarios
run as Kafka 3.9 and answered by a stand-in candidate that is the oracle as Kafka 3.0 (so the eager
left/outer results of 3.0 and the missing foreign-key join show as divergences). Also a version diff of
3.0 against 3.1. Needs Chromium, chromedriver and Selenium (``pip install -e '.[dev]'``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from kjoin.conformance.catalogue import load_cases  # noqa: E402
from kjoin.conformance.documents.version_diff import version_diff  # noqa: E402
from kjoin.reports import write_report, write_version_diff  # noqa: E402
from kjoin.reports.scenario_page import scenario_file  # noqa: E402
from kjoin.reports.version_diff_page import diff_page_file  # noqa: E402
from kjoin.scenarios import CATALOGUE_ROOT  # noqa: E402
from support.browser import headless_chromium  # noqa: E402
from support.report_documents import answered_by_version, document_of, outcome_of  # noqa: E402

SHOTS = {
    "report-index.png": ("report", "index.html", 1400, 1500),
    "report-scenario.png": ("report", scenario_file("ss-docs-grace5"), 1400, 1900),
    "report-version-diff.png": ("diff", diff_page_file("ss-docs-grace5"), 1400, 1300),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="kjoin-shots-"))
    seeds = [
        *(CATALOGUE_ROOT / "stream_stream").glob("docs-*.toml"),
        *(CATALOGUE_ROOT / "stream_stream").glob("kip77-*.toml"),
    ]
    fk_seeds = [
        *(CATALOGUE_ROOT / "foreign_key").glob("docs-*.toml"),
        *(CATALOGUE_ROOT / "foreign_key").glob("kip213-*.toml"),
    ]
    cases = load_cases(sorted(seeds) + sorted(fk_seeds), kafka="3.9").cases
    answer = answered_by_version("3.0")
    write_report(document_of(outcome_of(case, answer(case)) for case in cases), work / "report")
    grace = load_cases(sorted(seeds), kafka="3.0").cases
    write_version_diff(version_diff(grace, "3.0", "3.1"), work / "diff")
    args.out.mkdir(parents=True, exist_ok=True)
    with headless_chromium(work) as browser:
        for name, (folder, page, width, height) in SHOTS.items():
            browser.set_window_size(width, height)
            browser.get((work / folder / page).as_uri())
            browser.save_screenshot(str(args.out / name))
            print(f"wrote {args.out / name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
