"""Check the specification citations of the code and scenarios against docs/semantics/.

Every rule of the specification is a level-3 heading whose first token is its id (``### SS-22 ...``).
Code, scenarios and tests cite rules as ``spec SS-22`` or ``spec SS-22, ST-4`` (a citation may continue on
the next line). This script scans the given folders (default: ``kjoin``, ``oracle``, ``scenarios``,
``conformance``) and reports, as ``file:line: problem``:

* a cited id that is not a heading in ``docs/semantics/*.md``;
* a citation of the retired external specification (``SEMANTICS.md §1.7``, ``SEMANTICS 1.4``, or a bare
  ``§3a`` section reference);
* a citation of ``STYLE.md``, a style guide the project does not ship: cite the docs/ page that holds the
  rule, or state the rule where it applies.

Exit status: 0 when clean, 1 when a problem was found, 2 on a usage error. Standard library only.

    python tools/check_spec_citations.py                 # kjoin/, oracle/, scenarios/, conformance/
    python tools/check_spec_citations.py oracle scenarios
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "semantics"
DEFAULT_PATHS = ("kjoin", "oracle", "scenarios", "conformance")
SCANNED_SUFFIXES = frozenset({".py", ".toml", ".md", ".jsonl", ".json", ".txt", ".cfg", ".ini"})
SKIPPED_DIRS = frozenset({"__pycache__", ".git", ".venv", "node_modules"})

_ID = r"(?:SS|ST|TT|VS|FK|ER|TK|PR|SJ|CP|GT)-\d+"
HEADING = re.compile(rf"^###\s+({_ID})\b", re.MULTILINE)
"""A rule heading: its first token is the rule id."""

_CITED = r"[A-Z]{2}-\d+"
"""What a citation may name; an unknown prefix (a typo such as ``spec SX-3``) is reported, not ignored."""
_SEPARATOR = r"(?:[\s#]*(?:,|\band\b|\bto\b)[\s#]*)"
CITATION = re.compile(rf"\bspec\s+({_CITED}(?:{_SEPARATOR}{_CITED})*)")
"""``spec SS-7`` or ``spec SS-7, ST-2`` (separators may span a line break and a comment marker)."""

CITED_ID = re.compile(_CITED)

OLD_CITATION = re.compile(r"SEMANTICS(?:\.md)?\b|§\s?\d")
"""The retired external specification, by name or by a bare section sign (``§1.7``)."""

UNSHIPPED = re.compile(r"STYLE\.md")
"""A document the project does not ship (the style guide): a reader cannot follow the citation."""


def rule_ids(docs: Path) -> dict[str, str]:
    """Every rule id defined in ``docs`` -> the file that defines it; duplicates are an error."""
    found: dict[str, str] = {}
    for path in sorted(docs.glob("*.md")):
        for match in HEADING.finditer(path.read_text(encoding="utf-8")):
            rule = match.group(1)
            if rule in found:
                raise SystemExit(f"{path}: rule {rule} is also defined in {found[rule]}")
            found[rule] = path.name
    return found


def files_under(path: Path) -> Iterator[Path]:
    """The text files below ``path`` (or ``path`` itself), in a stable order."""
    if path.is_file():
        yield path
        return
    for candidate in sorted(path.rglob("*")):
        if (
            candidate.is_file()
            and candidate.suffix in SCANNED_SUFFIXES
            and not SKIPPED_DIRS.intersection(candidate.relative_to(path).parts)
        ):
            yield candidate


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def problems_in(path: Path, known: dict[str, str]) -> Iterator[tuple[int, str]]:
    """``(line, problem)`` for every bad citation in one file."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return
    for match in CITATION.finditer(text):
        for rule in CITED_ID.finditer(match.group(1)):
            if rule.group(0) not in known:
                offset = match.start(1) + rule.start()
                yield _line_of(text, offset), f"spec {rule.group(0)} is not a rule heading in docs/semantics/"
    lines = text.splitlines()
    reported: set[int] = set()
    for match in OLD_CITATION.finditer(text):
        line = _line_of(text, match.start())
        if line in reported:
            continue
        reported.add(line)
        context = lines[line - 1].strip()
        if len(context) > 100:
            context = context[:97] + "..."
        yield line, f"citation of the retired SEMANTICS.md (use a spec rule id): {context}"
    for match in UNSHIPPED.finditer(text):
        context = lines[_line_of(text, match.start()) - 1].strip()[:100]
        yield (
            _line_of(text, match.start()),
            f"citation of STYLE.md, which the project does not ship (cite a docs/ page): {context}",
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "paths", nargs="*", help=f"folders or files to scan (default: {' '.join(DEFAULT_PATHS)})"
    )
    parser.add_argument(
        "--docs", type=Path, default=DOCS, help="the specification folder (default: docs/semantics)"
    )
    args = parser.parse_args(argv)
    if not args.docs.is_dir():
        print(f"no specification folder at {args.docs}", file=sys.stderr)
        return 2
    known = rule_ids(args.docs)
    paths = [Path(p) if Path(p).is_absolute() else ROOT / p for p in (args.paths or DEFAULT_PATHS)]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        print(f"no such path: {', '.join(missing)}", file=sys.stderr)
        return 2
    count = 0
    for root in paths:
        for path in files_under(root):
            for line, problem in problems_in(path, known):
                shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                print(f"{shown}:{line}: {problem}")
                count += 1
    print(f"{len(known)} rules in {args.docs.name}/; {count} problem(s)", file=sys.stderr)
    return 1 if count else 0


if __name__ == "__main__":
    sys.exit(main())
