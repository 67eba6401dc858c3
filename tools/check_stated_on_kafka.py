"""Every output the catalogue states for a Kafka version, checked on that real release.

    python tools/check_stated_on_kafka.py [PATH ...]      # default: scenarios/

Seed tables and edge cases state outputs per Kafka version (``[[expected]] kafka = "3.5"``), portable
scenarios (JSON Lines: Kafka's own tests transcribed in ``scenarios/kafka_tests/``, saved regressions) for
the version in their ``kafka`` field. Each stated version with a TopologyTestDriver (2.4 and later) runs its
cases through the project's Kafka driver of a release of that line (``"3.9"`` means 3.9.0, the oracle's 3.9;
a line otherwise its newest patch) and the outputs must be exactly the stated ones. Prints every difference;
exits 1 if there is one. The oracle is not involved: this checks the files against Kafka (``kjoin check``
checks the oracle against the files).

A folder gives its ``.toml`` and ``.jsonl`` files, except the golden traces below it (``golden/``: captured
from real releases, what they state is what a release emitted); name a golden file or folder to replay it.

A case with a record cache under a commit interval is not checked: the test driver commits after every
record whatever the interval, so it cannot show what a cache merges between commits (docs/kafka.md;
spec PR-7, PR-8); a real application can.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

from kjoin.conformance.catalogue import Case, load_cases
from kjoin.conformance.catalogue.load import SUFFIXES
from kjoin.conformance.catalogue.portable import case_json
from kjoin.conformance.kafka.driver import KafkaDriver
from kjoin.oracle.behaviour import NEWEST_PATCHES
from kjoin.scenarios import CATALOGUE_ROOT

GOLDEN = "golden"
"""The folder of the golden traces (``scenarios/golden``), left out of a folder's files."""
EXACT = {"3.9": "3.9.0"}
"""Stated versions whose meaning in the oracle is not the line's newest patch."""


def release_for(stated: str) -> str | None:
    """The release that a stated version is checked on, or ``None`` before TopologyTestDriver ran joins."""
    if tuple(int(part) for part in stated.split(".")[:2]) < (2, 4):
        return None
    if stated in EXACT:
        return EXACT[stated]
    return stated if stated.count(".") == 2 else NEWEST_PATCHES.get(stated)


def _stated(case: Case) -> list[dict[str, object]]:
    assert case.expected is not None
    return [
        {
            "key": o.key,
            "value": None if o.value is None else list(o.value),
            "ts": o.ts if case.expected.timestamps else None,
        }
        for o in case.expected.outputs
    ]


def _stating_files(folder: Path) -> list[Path]:
    """The ``.toml`` and ``.jsonl`` files below ``folder``, without the golden traces under it."""
    return [
        path
        for path in folder.rglob("*")
        if path.suffix in SUFFIXES and path.is_file() and GOLDEN not in path.relative_to(folder).parts[:-1]
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python tools/check_stated_on_kafka.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "paths", nargs="*", type=Path, metavar="PATH", help="scenario files (.toml, .jsonl) or folders"
    )
    paths = parser.parse_args(argv).paths or [CATALOGUE_ROOT]
    missing = [str(path) for path in paths if not path.exists()]
    if missing:
        parser.error(f"no such file or folder: {', '.join(missing)}")
    files = sorted(f for p in paths for f in ([p] if p.is_file() else _stating_files(p)))
    if not files:
        parser.error(f"no TOML or JSON Lines scenario files in {' '.join(map(str, paths))}")
    by_release: dict[str, list[Case]] = defaultdict(list)
    skipped = needs_application = 0
    for case in load_cases(files).cases:
        if case.intended or case.expected is None:
            continue
        release = release_for(case.kafka)
        if release is None:
            skipped += 1
        elif case.spec.settings.merges_between_commits:
            needs_application += 1
        else:
            by_release[release].append(case)
    checked = differ = 0
    for release, cases in sorted(by_release.items()):
        lines = [json.dumps(dict(case_json(case), id=case.id, kafka=release)) for case in cases]
        with KafkaDriver(release) as driver:
            answers = list(driver.answers(lines))
        for case, answer in zip(cases, answers, strict=True):
            checked += 1
            kafka = answer.get("outputs", answer.get("error"))
            if isinstance(kafka, list) and not case.expected.timestamps:  # type: ignore[union-attr]
                kafka = [dict(o, ts=None) for o in kafka]
            if kafka != _stated(case):
                differ += 1
                print(f"{case.id} ({case.source}) on Kafka {release}:")
                print(f"  Kafka  {kafka}\n  stated {_stated(case)}")
        print(f"Kafka {release}: {len(cases)} stated cases", file=sys.stderr)
    print(
        f"{checked} stated cases checked on real Kafka, {differ} differ; {skipped} before 2.4 not checkable; "
        f"{needs_application} with a record cache under a commit interval need a real application"
    )
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
