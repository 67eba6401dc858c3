"""The version matrix: ``kjoin verify`` for every Kafka Streams line from 2.4 to the newest, one table.

    python tools/verify_matrix.py [--lines 2.4 ... 4.3] [--examples 150] [--profile ci] [--seed S]
                                  [--joins stream-globaltable ...] [--write docs/kafka-matrix.md]

For each minor line its newest patch release (``NEWEST_PATCHES``) runs the same generated scenarios (the
strategies keep what the release offers) through real Kafka Streams and through the oracle as that release.
Prints version x join kind as "agreeing / compared" (``both refuse`` cases, where neither has the join,
are not compared) and, with ``--write``, writes the table and how it was made into a Markdown page. Exits 1
when any line disagrees anywhere. The first run builds each release's driver (Maven downloads its jars).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import hypothesis
from tabulate import tabulate

from kjoin.conformance.differential.profiles import PROFILES, profile_named
from kjoin.conformance.kafka.verify import verify
from kjoin.oracle.behaviour import NEWEST_PATCHES, behaviour_for, release_of
from kjoin.oracle.records import JOIN_KINDS

LINES = tuple(NEWEST_PATCHES)


def _cell(counts: Counter[str]) -> str:
    compared = counts["pass"] + counts["fail"]
    if not compared:
        return "n/a"
    mark = "" if counts["fail"] == 0 else " \u2717"
    return f"{counts['pass']}/{compared}{mark}"


KEPT_SECTION = "\n## Self-joins"
"""The page's section made by other runs (``kjoin verify --self-joins``), kept when the table is rewritten."""


def _kept_sections(page: Path) -> str:
    """The part of an existing page from ``KEPT_SECTION`` on (empty when there is none)."""
    if not page.exists():
        return ""
    text = page.read_text(encoding="utf-8")
    at = text.find(KEPT_SECTION)
    return "" if at < 0 else text[at:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lines", nargs="+", default=list(LINES), metavar="LINE")
    parser.add_argument("--examples", type=int, default=150, help="scenarios per join kind (default 150)")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="ci")
    parser.add_argument("--seed", type=int, help="seed (default: the profile's)")
    parser.add_argument(
        "--joins", nargs="+", choices=JOIN_KINDS, metavar="KIND", help="only these join kinds (default: all)"
    )
    parser.add_argument("--write", type=Path, metavar="FILE", help="also write the table as Markdown")
    args = parser.parse_args(argv)
    profile = profile_named(args.profile)
    rows = []
    disagreements = 0
    started = time.perf_counter()
    seed = profile.seed if args.seed is None else args.seed
    for line in args.lines:
        release = release_of(line)
        print(f"verifying Kafka Streams {release} ...", file=sys.stderr, flush=True)
        report = verify(release, profile=profile, seed=seed, examples=args.examples, joins=args.joins)
        per_join: dict[str, Counter[str]] = {join: Counter() for join in JOIN_KINDS}
        for outcome in report.outcomes:
            per_join[outcome.case.join][outcome.status] += 1
        total = sum((c for c in per_join.values()), Counter())
        disagreements += total["fail"]
        rows.append(
            [
                release,
                behaviour_for(release).era,
                *(_cell(per_join[join]) for join in JOIN_KINDS if args.joins is None or join in args.joins),
                _cell(total),
                f"{report.seconds:.0f} s",
            ]
        )
    kinds = [join for join in JOIN_KINDS if args.joins is None or join in args.joins]
    headers = ["Kafka", "oracle era", *kinds, "all", "time"]
    print(tabulate(rows, headers=headers, tablefmt="simple"))
    minutes = (time.perf_counter() - started) / 60
    print(f"{disagreements} disagreements; {minutes:.0f} min", file=sys.stderr)
    if args.write is not None:
        command = (
            f"python tools/verify_matrix.py --examples {args.examples} --profile {args.profile} --seed {seed}"
        )
        if args.joins is not None:
            command += f" --joins {' '.join(args.joins)}"
        page = [
            "# The oracle against real Kafka Streams, line by line",
            "",
            "Each row is the newest patch release of a Kafka Streams line, run through TopologyTestDriver",
            "by the project's driver (`kjoin kafka`) on scenarios generated for that release, against the",
            "oracle as that release (`kjoin verify`). A cell is *scenarios where both emitted exactly the",
            "same outputs in the same order / scenarios compared*; `n/a`: neither has that join. A \u2717",
            "marks a disagreement.",
            "",
            f"Made with `{command}` (hypothesis {hypothesis.__version__}); regenerate with",
            "`nox -s verify_kafka`. The scenarios differ by release: each draws only what that release",
            "offers (versioned stores from 3.5, stream-table grace from 3.6).",
            "",
            tabulate(rows, headers=headers, tablefmt="github"),
            "",
        ]
        args.write.write_text("\n".join(page) + _kept_sections(args.write), encoding="utf-8")
        print(f"wrote {args.write}", file=sys.stderr)
    return 1 if disagreements else 0


if __name__ == "__main__":
    raise SystemExit(main())
