"""The version matrix: ``kjoin verify`` for every Kafka Streams line from 2.4 to the newest, one table.

    python tools/verify_matrix.py [--lines 2.4 ... 4.3] [--examples 150] [--profile ci] [--seed S]
                                  [--joins stream-globaltable ...] [--self-joins] [--shrink N]
                                  [--write docs/kafka-matrix.md]
    python tools/verify_matrix.py --production --lines 3.7 [--examples 230] [--write docs/kafka-matrix.md]

For each minor line its newest patch release (``NEWEST_PATCHES``; a full release such as ``3.9.0`` runs as
written) runs the same generated scenarios (the strategies keep what the release offers) through real Kafka
Streams and through the oracle as that release. Prints version x join kind as "agreeing / compared" (``both
refuse`` cases, where neither has the join, are not compared). Exits 1 when any line disagrees anywhere. The
first run builds each release's driver (Maven downloads its jars).

With ``--write`` the page is updated after each line, so a long run loses nothing when it stops:

* every join kind (no ``--joins``): the page's first table is written anew, with how it was made; the page
  from its ``## Self-joins`` section on is kept;
* ``--joins`` (some kinds): only those columns of the lines run change in the page's first table (the other
  columns, ``all`` and ``time``, belong to the run of every kind and stay);
* ``--self-joins`` (stream-stream self-joins, optimization ``none`` and ``all``, as ``kjoin verify
  --self-joins``): the lines run are written into the table of the ``## Self-joins`` section, other rows kept;
* ``--production`` (production-like settings and wall clocks, ``kjoin verify --production``): the table adds,
  per line, how many ran a table join with the record cache on, a left/outer stream-stream join with the emit
  throttle on, and how many the settings changed; the rows of the lines run go into the page's "Production
  settings" section (other rows and sections kept).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

import hypothesis
from tabulate import tabulate

from kjoin.conformance.differential.profiles import PROFILES, profile_named
from kjoin.conformance.kafka.verify import VerifyReport, settings_effect, verify
from kjoin.oracle.behaviour import NEWEST_PATCHES, behaviour_for, parse_version, release_of
from kjoin.oracle.records import JOIN_KINDS

LINES = tuple(NEWEST_PATCHES)

KEPT_SECTION = "\n## Self-joins"
"""The page's section made by self-join runs, kept when the first table is rewritten."""

SELF_JOIN_HEADERS = (
    "Kafka", "oracle era", "rewrite with `all`", "optimization none", "optimization all", "all", "time",
)  # fmt: skip
"""The columns of the ``## Self-joins`` table."""

NOT_RUN = "not run"
"""A cell of a column whose join kind was not run on that line."""


def _cell(counts: Counter[str]) -> str:
    compared = counts["pass"] + counts["fail"]
    if not compared:
        return "n/a"
    mark = "" if counts["fail"] == 0 else " \u2717"
    return f"{counts['pass']}/{compared}{mark}"


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


# --- Markdown tables: read one, change rows, write it back ------------------------------------------------


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def table_span(lines: Sequence[str], start: int = 0) -> tuple[int, int]:
    """The first Markdown table at or after line ``start``: its header line's index and the index past its
    last row. ``ValueError`` when there is none."""
    for at in range(start, len(lines) - 1):
        if lines[at].lstrip().startswith("|") and set(lines[at + 1].replace("|", "").strip()) <= set("-: "):
            end = at + 2
            while end < len(lines) and lines[end].lstrip().startswith("|"):
                end += 1
            return at, end
    raise ValueError(f"no Markdown table after line {start + 1}")


def merge_rows(
    lines: list[str], start: int, rows: Mapping[str, Mapping[str, str]], headers: Sequence[str]
) -> list[str]:
    """``lines`` with the first table at or after ``start`` changed: each of ``rows`` (Kafka release ->
    column -> cell) sets those cells of its release's row, a release without a row gets one (other cells
    ``NOT_RUN``); rows sorted by release. A table without it gets a column of ``headers``."""
    head, end = table_span(lines, start)
    columns = _cells(lines[head])
    for name in headers:
        if name not in columns:
            columns.append(name)
    table: dict[str, dict[str, str]] = {}
    for line in lines[head + 2 : end]:
        cells = _cells(line)
        table[cells[0]] = dict(zip(columns, cells, strict=False))
    for release, changed in rows.items():
        row = table.setdefault(release, {"Kafka": release})
        row.update(changed)
    ordered = sorted(table, key=parse_version)
    body = [[table[release].get(column, NOT_RUN) for column in columns] for release in ordered]
    rendered = tabulate(body, headers=columns, tablefmt="github", disable_numparse=True).splitlines()
    return [*lines[:head], *rendered, *lines[end:]]


def _section_start(lines: Sequence[str], heading: str) -> int:
    for at, line in enumerate(lines):
        if line.strip() == heading:
            return at
    raise ValueError(f"the page has no {heading!r} section")


def write_rows(
    page: Path, rows: Mapping[str, Mapping[str, str]], headers: Sequence[str], section: str
) -> None:
    """Merge ``rows`` into ``page``'s first table (``section`` empty) or the first table of the section headed
    ``section`` (``merge_rows``)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    start = _section_start(lines, section) if section else 0
    page.write_text("\n".join(merge_rows(lines, start, rows, headers)) + "\n", encoding="utf-8")


# --- the runs ---------------------------------------------------------------------------------------------


def join_row(report: VerifyReport, joins: Sequence[str] | None) -> dict[str, str]:
    """One line's cells of the first table: each join kind run, and with every kind the total and time."""
    per_join: dict[str, Counter[str]] = {join: Counter() for join in JOIN_KINDS}
    for outcome in report.outcomes:
        per_join[outcome.case.join][outcome.status] += 1
    row = {"Kafka": report.release, "oracle era": behaviour_for(report.release).era}
    row.update({join: _cell(per_join[join]) for join in JOIN_KINDS if joins is None or join in joins})
    if joins is None:
        row["all"] = _cell(sum(per_join.values(), Counter()))
        row["time"] = f"{report.seconds:.0f} s"
    return row


def self_join_row(report: VerifyReport) -> dict[str, str]:
    """One line's cells of the ``## Self-joins`` table (``SELF_JOIN_HEADERS``)."""
    per_optimization: dict[str, Counter[str]] = {"none": Counter(), "all": Counter()}
    for outcome in report.outcomes:
        per_optimization[outcome.case.spec.optimization][outcome.status] += 1
    behaviour = behaviour_for(report.release)
    return dict(
        zip(
            SELF_JOIN_HEADERS,
            (
                report.release,
                behaviour.era,
                "yes" if behaviour.self_join_is_rewritten_by_optimization else "no",
                _cell(per_optimization["none"]),
                _cell(per_optimization["all"]),
                _cell(per_optimization["none"] + per_optimization["all"]),
                f"{report.seconds:.0f} s",
            ),
            strict=True,
        )
    )


def _page_header(command: str) -> list[str]:
    return [
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
    ]


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
    parser.add_argument(
        "--self-joins", action="store_true", help="stream-stream self-joins (the page's Self-joins section)"
    )
    parser.add_argument("--shrink", type=int, metavar="N", help="disagreements to shrink (default: profile)")
    parser.add_argument("--write", type=Path, metavar="FILE", help="also write the table as Markdown")
    parser.add_argument(
        "--production",
        action="store_true",
        help="production-like settings and wall clocks (kjoin verify --production); --write updates only "
        "the rows of the lines run, in the page's production section",
    )
    args = parser.parse_args(argv)
    if args.production:
        if args.joins is not None or args.self_joins:
            parser.error("--production runs every join kind; leave out --joins and --self-joins")
        return _production(args, profile_named(args.profile).seed if args.seed is None else args.seed)
    if args.self_joins and args.joins is not None:
        parser.error("--self-joins draws stream-stream self-joins; leave out --joins")
    if args.write is not None and (args.self_joins or args.joins is not None) and not args.write.exists():
        parser.error(f"{args.write}: --self-joins and --joins update the tables of an existing page")
    profile = profile_named(args.profile)
    seed = profile.seed if args.seed is None else args.seed
    rows: list[dict[str, str]] = []
    disagreements = 0
    started = time.perf_counter()
    for line in args.lines:
        release = release_of(line)
        print(f"verifying Kafka Streams {release} ...", file=sys.stderr, flush=True)
        report = verify(
            release,
            profile=profile,
            seed=seed,
            examples=args.examples,
            joins=args.joins,
            shrink_failures=args.shrink,
            self_joins=args.self_joins,
        )
        disagreements += len(report.disagreements)
        row = self_join_row(report) if args.self_joins else join_row(report, args.joins)
        rows.append(row)
        print(f"{release}: " + ", ".join(f"{name} {cell}" for name, cell in row.items()), file=sys.stderr)
        if args.write is not None:
            _write(args, rows, seed)
            print(f"wrote {args.write}", file=sys.stderr, flush=True)
    headers = list(rows[0]) if rows else []
    print(tabulate([list(row.values()) for row in rows], headers=headers, tablefmt="simple"))
    minutes = (time.perf_counter() - started) / 60
    print(f"{disagreements} disagreements; {minutes:.0f} min", file=sys.stderr)
    return 1 if disagreements else 0


def _write(args: argparse.Namespace, rows: Sequence[dict[str, str]], seed: int) -> None:
    """The page with the lines run so far (the module's docstring says which part each mode writes)."""
    page: Path = args.write
    by_release = {row["Kafka"]: row for row in rows}
    if args.self_joins:
        write_rows(page, by_release, SELF_JOIN_HEADERS, KEPT_SECTION.strip())
        return
    if args.joins is not None:
        write_rows(page, by_release, ["Kafka", "oracle era", *args.joins], "")
        return
    command = (
        f"python tools/verify_matrix.py --examples {args.examples} --profile {args.profile} --seed {seed}"
    )
    headers = list(rows[0])
    table = tabulate([list(row.values()) for row in rows], headers=headers, tablefmt="github")
    text = "\n".join([*_page_header(command), table, ""])
    page.write_text(text + _kept_sections(page), encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
