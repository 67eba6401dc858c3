"""The version matrix: ``kjoin verify`` for every Kafka Streams line from 2.4 to the newest, one table.

    python tools/verify_matrix.py [--lines 2.4 ... 4.3] [--examples 150] [--profile ci] [--seed S]
                                  [--joins stream-globaltable ...] [--write docs/kafka-matrix.md]
    python tools/verify_matrix.py --production --lines 3.7 [--examples 230] [--write docs/kafka-matrix.md]

For each minor line its newest patch release (``NEWEST_PATCHES``) runs the same generated scenarios (the
strategies keep what the release offers) through real Kafka Streams and through the oracle as that release.
Prints version x join kind as "agreeing / compared" (``both refuse`` cases, where neither has the join,
are not compared) and, with ``--write``, writes the table and how it was made into a Markdown page. Exits 1
when any line disagrees anywhere. The first run builds each release's driver (Maven downloads its jars).

With ``--production`` the scenarios carry production-like settings and wall clocks (``kjoin verify
--production``) and the table adds, per line, how many ran a table join with the record cache on, a
left/outer stream-stream join with the emit throttle on, and how many the settings changed; ``--write``
then updates only the rows of the lines run in the page's "Production settings" section (the other rows
and sections are kept), so the lines can be run one at a time.
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
from kjoin.conformance.kafka.verify import VerifyReport, settings_effect, verify
from kjoin.oracle.behaviour import NEWEST_PATCHES, behaviour_for, parse_version, release_of
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


PRODUCTION_SECTION = "\n## Production settings\n"
"""The page's section made by ``--production`` runs, whose rows each run updates."""

PRODUCTION_BEFORE = "\n## Application mode"
"""A new production section goes before this one (or at the end of the page)."""

PRODUCTION_HEADERS = [
    "Kafka", "oracle era", "run", "cache on", "throttle on", "changed by the settings",
    *JOIN_KINDS, "all", "time",
]  # fmt: skip

PRODUCTION_TEXT = """\
The same join kinds drawn under production-like settings (`kjoin verify --kafka V --production`,
docs/semantics/production.md): the 10 MiB record cache on three times in four (every line here models it,
2.3+), the 1000 ms emit throttle of left/outer stream-stream joins on three times in four where the line
holds their non-joined results (3.1+; before, the setting is 0), a commit after every record (what
TopologyTestDriver does), and a wall clock per record that stays put, moves by less than the interval, by
the interval, or by a mix that includes more. *Cache on*: compared table joins (every kind but
stream-stream) with the cache on; *throttle on*: compared left/outer stream-stream joins with the throttle
on; *changed by the settings*: compared scenarios whose output (keys, values, timestamps, order) the
oracle says differs from the same input under the test driver's settings (no cache, no throttle, no wall
clock), i.e. where the comparison checks the production rules (spec PR-1 to PR-9). Cells as above.

Each row made with `python tools/verify_matrix.py --production --lines L --examples N --seed S --write
docs/kafka-matrix.md` (profile ci, hypothesis {hypothesis}), one line at a time on a machine shared with
other work (hence the times); *run* gives N and S. A line without a row has not been run this way yet.
TopologyTestDriver commits after every record, so merges between commits are not shown here: see the
application mode below.
"""


def _production_rows(text: str) -> dict[str, str]:
    """The table rows of the page's production section, by release."""
    at = text.find(PRODUCTION_SECTION)
    if at < 0:
        return {}
    end = text.find("\n## ", at + len(PRODUCTION_SECTION))
    rows = {}
    for line in text[at : len(text) if end < 0 else end].splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells and cells[0] in NEWEST_PATCHES.values():
            rows[cells[0]] = line
    return rows


def _markdown_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def write_production_section(page: Path, rows: dict[str, list[str]]) -> None:
    """Put ``rows`` (by release) into the page's production section, keeping its other rows and the rest of
    the page; the section is added before the application mode's when the page has none."""
    text = page.read_text(encoding="utf-8") if page.exists() else ""
    kept = _production_rows(text)
    kept.update({release: _markdown_row(cells) for release, cells in rows.items()})
    table = [
        _markdown_row(PRODUCTION_HEADERS),
        _markdown_row(["---"] * len(PRODUCTION_HEADERS)),
        *(kept[release] for release in sorted(kept, key=parse_version)),
    ]
    text_part = PRODUCTION_TEXT.format(hypothesis=hypothesis.__version__)
    section = PRODUCTION_SECTION + "\n" + text_part + "\n" + "\n".join(table) + "\n"
    at = text.find(PRODUCTION_SECTION)
    if at >= 0:
        end = text.find("\n## ", at + len(PRODUCTION_SECTION))
        before, after = text[:at], "" if end < 0 else text[end:]
    else:
        end = text.find(PRODUCTION_BEFORE)
        before, after = (text, "") if end < 0 else (text[:end], text[end:])
    page.write_text(before.rstrip("\n") + "\n" + section + after, encoding="utf-8")


def production_row(report: VerifyReport, examples: int, seed: int) -> list[str]:
    """One line's row of the production section."""
    per_join: dict[str, Counter[str]] = {join: Counter() for join in JOIN_KINDS}
    for outcome in report.outcomes:
        per_join[outcome.case.join][outcome.status] += 1
    effect = settings_effect(report.outcomes)
    changed = ", ".join(f"{count} {join}" for join, count in effect.changed.items())
    return [
        report.release,
        behaviour_for(report.release).era,
        f"--examples {examples} --seed {seed}",
        str(effect.cached),
        str(effect.throttled),
        f"{effect.changed_total}" + (f" ({changed})" if changed else ""),
        *(_cell(per_join[join]) for join in JOIN_KINDS),
        _cell(sum(per_join.values(), Counter())),
        f"{report.seconds:.0f} s",
    ]


def _production(args: argparse.Namespace, seed: int) -> int:
    """``--production``: each line under production-like settings; ``--write`` updates its rows."""
    profile = profile_named(args.profile)
    rows: dict[str, list[str]] = {}
    disagreements = 0
    for line in args.lines:
        release = release_of(line)
        print(f"verifying Kafka Streams {release} under production settings ...", file=sys.stderr, flush=True)
        report = verify(release, profile=profile, seed=seed, examples=args.examples, production=True)
        disagreements += len(report.disagreements)
        rows[release] = production_row(report, args.examples, seed)
        print(tabulate([rows[release]], headers=PRODUCTION_HEADERS, tablefmt="simple"), flush=True)
        if args.write is not None:
            write_production_section(args.write, {release: rows[release]})
            print(f"wrote {args.write}", file=sys.stderr)
    print(f"{disagreements} disagreements", file=sys.stderr)
    return 1 if disagreements else 0


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
    parser.add_argument(
        "--production",
        action="store_true",
        help="production-like settings and wall clocks (kjoin verify --production); --write updates only "
        "the rows of the lines run, in the page's production section",
    )
    args = parser.parse_args(argv)
    profile = profile_named(args.profile)
    if args.production:
        if args.joins is not None:
            parser.error("--production runs every join kind; leave out --joins")
        return _production(args, profile.seed if args.seed is None else args.seed)
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
