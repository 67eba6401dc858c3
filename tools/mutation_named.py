"""Named mutants and kill thickness for ``tools/mutation.py`` (issue 23: thin kills made thick).

*Named mutants* (``tools/mutation-named.toml``) are hand-written realistic mistakes of spark-reference,
each one or more exact text replacements in one module, which the tool's operators cannot write. *Kill
thickness*: how many catalogue scenario files kill a mutant (every file is run, the tool does not stop at
the first kill); a kill that rests on one file is thin, one edited or deleted scenario away from an escape.

No Spark here: loading, applying and reporting only; ``tools/mutation.py`` runs the mutants.
"""

from __future__ import annotations

import itertools
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

NAMED = Path(__file__).with_name("mutation-named.toml")
FIRST_NUMBER = 9001
"""Named mutants are numbered from here (``mutant-9001`` ...), apart from the operators' mutants."""
THIN = 1
"""A kill by at most this many files is thin."""


@dataclass(frozen=True)
class NamedMutant:
    """One hand-written mistake as a single replacement of ``source[start:end]`` of ``module`` (the span
    from its first hunk to its last, so the tool writes it as it writes any mutant)."""

    name: str
    module: str
    mistake: str
    joins: tuple[str, ...]
    line: int
    start: int
    end: int
    original: str
    replacement: str


def _field(entry: dict[str, Any], key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value:
        raise ValueError(f"{where}: field {key!r} must be a non-empty string")
    return value


def load(
    package: Path, path: Path = NAMED, serves: dict[str, tuple[str, ...]] | None = None
) -> list[NamedMutant]:
    """The named mutants of ``path`` applied to the modules under ``package``. Raises ``ValueError`` naming
    the file, mutant and field when an entry is malformed or a hunk's ``find`` does not occur exactly once
    (the module changed since the mutant was written)."""
    document = tomllib.loads(path.read_text(encoding="utf-8"))
    found: list[NamedMutant] = []
    names: set[str] = set()
    for number, entry in enumerate(document.get("named", []), start=1):
        where = f"{path.name}: named mutant #{number}"
        name = _field(entry, "name", where)
        where = f"{path.name}: named mutant {name!r}"
        if name in names:
            raise ValueError(f"{where}: the name is used twice")
        names.add(name)
        module = _field(entry, "module", where)
        if not (package / f"{module}.py").exists():
            raise ValueError(f"{where}: field 'module': no {module}.py under {package}")
        joins = tuple(entry.get("joins", serves.get(module, ()) if serves else ()))
        if serves is not None and not set(joins) <= set(serves.get(module, ())):
            raise ValueError(f"{where}: field 'joins': {module} serves only {list(serves.get(module, ()))}")
        source = (package / f"{module}.py").read_text(encoding="utf-8")
        found.append(_applied(name, module, _field(entry, "mistake", where), joins, source, entry, where))
    return found


def _applied(
    name: str,
    module: str,
    mistake: str,
    joins: tuple[str, ...],
    source: str,
    entry: dict[str, Any],
    where: str,
) -> NamedMutant:
    """The mutant's hunks applied to ``source``, as one replacement spanning them all."""
    hunks = entry.get("replace")
    if not isinstance(hunks, list) or not hunks:
        raise ValueError(f"{where}: needs at least one [[named.replace]] hunk")
    spans = []
    for index, hunk in enumerate(hunks, start=1):
        find = _field(hunk, "find", f"{where}, hunk {index}")
        replacement = hunk.get("with")
        if not isinstance(replacement, str):
            raise ValueError(f"{where}, hunk {index}: field 'with' must be a string")
        count = source.count(find)
        if count != 1:
            raise ValueError(
                f"{where}, hunk {index}: 'find' occurs {count} times in {module}.py (must be exactly once)"
            )
        start = source.index(find)
        spans.append((start, start + len(find), replacement))
    spans.sort()
    for (_, end, _), (start, _, _) in itertools.pairwise(spans):
        if start < end:
            raise ValueError(f"{where}: two hunks overlap")
    start, end = spans[0][0], spans[-1][1]
    mutated, position = [], start
    for hunk_start, hunk_end, replacement in spans:
        mutated += [source[position:hunk_start], replacement]
        position = hunk_end
    line = source.count("\n", 0, start) + 1 + (source[start] == "\n")
    return NamedMutant(name, module, mistake, joins, line, start, end, source[start:end], "".join(mutated))


def chosen(mutants: Sequence[NamedMutant], wanted: Sequence[str]) -> list[NamedMutant]:
    """The mutants named in ``wanted`` (all when it is empty); an unknown name is a ``ValueError``."""
    if not wanted:
        return list(mutants)
    known = {mutant.name: mutant for mutant in mutants}
    unknown = [name for name in wanted if name not in known]
    if unknown:
        raise ValueError(f"--named: no such named mutant {', '.join(unknown)} (known: {', '.join(known)})")
    return [known[name] for name in wanted]


def killing_files(outcomes: Sequence[Any]) -> dict[str, set[str]]:
    """Each catalogue file with a failing or erroring case among ``outcomes``: its failing scenarios."""
    files: dict[str, set[str]] = {}
    for outcome in outcomes:
        if outcome.status in ("fail", "error"):
            files.setdefault(outcome.case.source, set()).add(outcome.case.scenario)
    return files


def render(results: Sequence[Any]) -> str:
    """The report section on kill thickness (Markdown): every named mutant with its killing files, then the
    operators' mutants killed by exactly one file. ``results`` are ``tools/mutation.py`` results; those
    without a thickness (``kill_files`` None) are left out."""
    measured = [r for r in results if r.kill_files is not None]
    if not measured:
        return ""
    named = [r for r in measured if r.mutation.name]
    lines = ["## Kill thickness", ""]
    if named:
        lines += [
            "| named mutant | module | files | scenarios | killing files |",
            "|---|---|---|---|---|",
        ]
        for r in named:
            scenarios = sum(len(s) for s in r.kill_files.values())
            files = ", ".join(f"`{_short(f)}` ({len(s)})" for f, s in sorted(r.kill_files.items())) or "none"
            thin = " (thin)" if 0 < len(r.kill_files) <= THIN else ""
            lines.append(
                f"| {r.mutation.name} | {r.mutation.module} | {len(r.kill_files)}{thin} | {scenarios} | "
                f"{files} |"
            )
        lines.append("")
    operators = [r for r in measured if not r.mutation.name]
    if operators:
        thin = [r for r in operators if 0 < len(r.kill_files) <= THIN]
        lines += [f"{len(thin)} of {len(operators)} operator mutants are killed by exactly one file:", ""]
        lines += [
            f"* mutant-{r.number:04d} {r.mutation.module}.py:{r.mutation.line} [{r.mutation.operator}] "
            f"`{r.mutation.change}`: `{_short(next(iter(r.kill_files)))}`"
            for r in thin
        ]
        lines.append("")
    return "\n".join(lines)


def _short(source: str) -> str:
    return source.removeprefix("scenarios/")
