"""What the catalogue and the generators reach: behaviour flags per era, and the oracle's branches.

    python tools/reach.py [--profile ci|deep] [--seed S] [--versions V ...] [--no-coverage]
                          [--markdown FILE]

For every era a candidate can claim (default: ``spark-reference``'s claim), it prints the flags in force
there (``oracle.behaviour.flags_in_force``) and, for the bundled catalogue and for the profile's generated
scenarios (all join kinds, the 3.8+ ``minTime`` scenarios of ``generate_min_time_cases`` and the 3.5+
versioned-gap scenarios of ``generate_versioned_gap_cases``), which of
them some scenario makes decisive (``conformance.differential.reach``)
and which none does. With coverage.py (a dev dependency) it also measures the branch coverage of each
``oracle`` module while the oracle runs the catalogue and while it runs the generated scenarios, and lists
the lines the generated scenarios never reach. The nox session ``reach`` runs it; it needs no Spark.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import pickle
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import coverage
from tabulate import tabulate

from kjoin.conformance.catalogue import Case, load_cases
from kjoin.conformance.differential.corners import CORNERS, corners_of
from kjoin.conformance.differential.generate import (
    generate_cases,
    generate_min_time_cases,
    generate_versioned_gap_cases,
)
from kjoin.conformance.differential.profiles import PROFILES
from kjoin.conformance.differential.reach import FlagReach, flag_reach
from kjoin.conformance.protocol import load_candidate
from kjoin.oracle.behaviour import UnknownVersionError, behaviour_for, era_of
from kjoin.oracle.engine import run
from kjoin.oracle.errors import OracleError
from kjoin.oracle.records import JOIN_KINDS

ORACLE_DIR = Path(__file__).resolve().parents[1] / "oracle"


def _generated(versions: Sequence[str], profile: str, seed: int) -> list[Case]:
    claim = load_candidate("spark-reference").claim
    chosen = PROFILES[profile]
    cases: list[Case] = []
    for version in versions:
        for join in JOIN_KINDS:
            cases.extend(generate_cases(join, version, profile=chosen, seed=seed, claim=claim).cases)
        cases.extend(generate_min_time_cases(version, profile=chosen, seed=seed, claim=claim).cases)
        cases.extend(generate_versioned_gap_cases(version, profile=chosen, seed=seed, claim=claim).cases)
        print(f"  generated {version}: {len(cases)} scenarios so far", file=sys.stderr, flush=True)
    return cases


def _run_all(cases: Sequence[tuple[Any, Any, str, bool]]) -> None:
    for spec, records, kafka, intended in cases:
        with contextlib.suppress(OracleError, UnknownVersionError):
            run(spec, records, behaviour_for(kafka, intended=intended))


def _measure(scenarios: Path, report: Path) -> None:
    """Child process: coverage starts before the oracle is imported (so its module-level lines count),
    then the oracle runs the pickled scenarios."""
    measured = coverage.Coverage(branch=True, include=[str(ORACLE_DIR / "*.py")], data_file=None)
    measured.start()
    for module in sorted(ORACLE_DIR.glob("*.py")):
        importlib.reload(importlib.import_module(f"kjoin.oracle.{module.stem}"))
    with scenarios.open("rb") as stream:
        _run_all(pickle.load(stream))  # our own file, written by the parent process
    measured.stop()
    measured.json_report(outfile=str(report))


def _branch_coverage(cases: Sequence[Case]) -> tuple[list[list[Any]], dict[str, list[int]]]:
    """Per oracle module: statements, branches, branch coverage while the oracle runs ``cases`` (in a child
    process, see ``_measure``); and the lines never run."""
    with tempfile.TemporaryDirectory() as folder:
        scenarios, report = Path(folder) / "scenarios.pickle", Path(folder) / "coverage.json"
        with scenarios.open("wb") as stream:
            pickle.dump([(case.spec, case.records, case.kafka, case.intended) for case in cases], stream)
        subprocess.run(
            [sys.executable, __file__, "--measure-coverage", str(scenarios), str(report)], check=True
        )
        files = json.loads(report.read_text(encoding="utf-8"))["files"]
    rows: list[list[Any]] = []
    missing: dict[str, list[int]] = {}
    for name, data in sorted(files.items(), key=lambda item: Path(item[0]).name):
        summary = data["summary"]
        module = Path(name).name
        rows.append(
            [
                module,
                summary["num_statements"],
                summary["missing_lines"],
                summary.get("num_branches", 0),
                summary.get("missing_branches", 0),
                f"{summary['percent_covered']:.1f}%",
            ]
        )
        missing[module] = sorted(data["missing_lines"])
    return rows, missing


def _reach_rows(
    versions: Sequence[str], catalogue: Sequence[Case], generated: Sequence[Case]
) -> list[list[Any]]:
    rows: list[list[Any]] = []
    for version in versions:
        from_catalogue: FlagReach = flag_reach(version, catalogue)
        from_generation: FlagReach = flag_reach(version, generated)
        in_force = set(from_catalogue.in_force) | set(from_generation.in_force)
        rows.append(
            [
                version,
                from_generation.era,
                len(in_force),
                f"{len(from_catalogue.witnesses)} ({from_catalogue.scenarios} cases)",
                f"{len(from_generation.witnesses)} ({from_generation.scenarios} cases)",
                ", ".join(from_generation.missed) or "-",
                ", ".join(name for name in from_catalogue.missed if name in from_generation.witnesses) or "-",
            ]
        )
    return rows


def _corner_rows(versions: Sequence[str], generated: Sequence[Case]) -> list[list[Any]]:
    """Per claimed version: how many generated scenarios of its era reach each corner the era offers
    (``conformance.differential.corners``), out of the scenarios of the corner's join kind; ``-`` where
    the era lacks what the corner needs."""
    rows: list[list[Any]] = []
    for version in versions:
        behaviour = behaviour_for(version)
        mine = [case for case in generated if not case.intended and era_of(case.kafka) == behaviour.era]
        reached = corners_of(mine, behaviour)
        counts = Counter(case.join for case in mine)
        rows.append(
            [version, behaviour.era]
            + [
                f"{reached[corner.name]}/{counts[corner.join]}" if corner.name in reached else "-"
                for corner in CORNERS
            ]
        )
    return rows


def _timed(label: str, work: Callable[[], Any]) -> Any:
    started = time.monotonic()
    print(f"{label} ...", file=sys.stderr, flush=True)
    result = work()
    print(f"{label}: {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--profile", choices=sorted(PROFILES), default="ci")
    parser.add_argument("--seed", type=int, default=None, help="default: the profile's")
    parser.add_argument("--versions", nargs="+", default=None, help="default: spark-reference's claim")
    parser.add_argument("--no-coverage", action="store_true", help="skip the oracle's branch coverage")
    parser.add_argument("--markdown", type=Path, default=None, help="also write the tables to FILE")
    parser.add_argument("--measure-coverage", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure_coverage:
        _measure(*args.measure_coverage)
        return 0
    versions = args.versions or list(load_candidate("spark-reference").claim.kafka)
    seed = PROFILES[args.profile].seed if args.seed is None else args.seed

    catalogue = _timed("catalogue", lambda: load_cases().cases)
    generated = _timed(
        f"generation ({args.profile}, seed {seed})", lambda: _generated(versions, args.profile, seed)
    )
    reach = _timed("flag reach", lambda: _reach_rows(versions, catalogue, generated))
    headers = [
        "claimed",
        "era",
        "flags in force",
        "catalogue reaches",
        "generation reaches",
        "generation misses",
        "only generation reaches",
    ]
    corners = _timed("corners", lambda: _corner_rows(versions, generated))
    sections = [
        f"## Behaviour flags reached ({args.profile} profile, seed {seed})\n",
        tabulate(reach, headers=headers, tablefmt="github"),
        f"\n## Corners reached ({args.profile} profile, seed {seed})\n",
        "Generated scenarios of each era that reach each corner (`conformance/differential/corners.py`), "
        "out of that era's generated scenarios of the corner's join kind; `-`: the era lacks it.\n",
        tabulate(corners, headers=["claimed", "era", *(c.name for c in CORNERS)], tablefmt="github"),
    ]
    if not args.no_coverage:
        coverage_headers = ["module", "statements", "missed", "branches", "branches missed", "covered"]
        for label, cases in (("catalogue", catalogue), (f"{args.profile} generation", generated)):
            rows, missing = _timed(f"branch coverage, {label}", lambda cases=cases: _branch_coverage(cases))
            sections += [
                f"\n## Oracle branch coverage: {label}\n",
                tabulate(rows, headers=coverage_headers, tablefmt="github"),
            ]
        never = [
            f"* `{module}`: lines {', '.join(map(str, lines))}" for module, lines in missing.items() if lines
        ]
        sections += [
            f"\n## Oracle lines the {args.profile} generation never runs\n",
            "\n".join(never) or "none",
        ]
    text = "\n".join(sections) + "\n"
    print(text)
    if args.markdown is not None:
        args.markdown.write_text(text, encoding="utf-8")
        print(f"written: {args.markdown}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
