"""Compare join outputs with what a seed table states, and explain the differences (STYLE.md §3).

Only what the table states is compared: the key (always stated: written, or the key of the emitting input
row), the value, and the timestamp when the block gives one. Emission order and attribution are exact: an
output must be emitted while processing the input row it is listed under (``Output.cause``), in the listed
order. ``compare_outputs`` returns typed ``Divergence`` data; ``render_comparison`` only renders it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from tabulate import tabulate

from kjoin.conformance.scenario_tables import ExpectedItem, format_item
from kjoin.oracle.records import Output, Record

__all__ = [
    "DIVERGENCE_KINDS",
    "Comparison",
    "Divergence",
    "DivergenceKind",
    "compare_outputs",
    "render_comparison",
]

DivergenceKind = Literal[
    "missing-output", "unexpected-output", "wrong-value", "wrong-timestamp", "wrong-trigger", "out-of-order"
]
DIVERGENCE_KINDS: Mapping[DivergenceKind, str] = MappingProxyType(
    {
        "missing-output": "an expected output was not emitted at all",
        "unexpected-output": "an output was emitted that the table does not list",
        "wrong-value": "at this position of the row another key or value was emitted",
        "wrong-timestamp": "the right key and value were emitted at the right row, with another timestamp",
        "wrong-trigger": "the output was emitted, but while processing another input row",
        "out-of-order": "the row's outputs were all emitted, in another order (or rows came out of order)",
    }
)
"""The closed list of ways outputs can differ from a seed table, each with its meaning."""


@dataclass(frozen=True, slots=True)
class Divergence:
    """One difference. ``row`` is the input row the table lists the output under (for an unexpected
    output: the row that emitted it); ``position`` is its index among that row's outputs."""

    kind: DivergenceKind
    row: int
    position: int
    expected: ExpectedItem | None
    actual: Output | None


@dataclass(frozen=True, slots=True)
class Comparison:
    """The expected ``(row, item)`` list, the actual outputs and their differences (empty when they agree)."""

    expected: tuple[tuple[int, ExpectedItem], ...]
    actual: tuple[Output, ...]
    divergences: tuple[Divergence, ...]

    @property
    def ok(self) -> bool:
        """True when the outputs agree with everything the table states."""
        return not self.divergences


def _matches(expected: ExpectedItem, actual: Output) -> bool:
    """Equal on everything the table states: key, value, and ts when given."""
    return (
        expected.key == actual.key
        and expected.value == actual.value
        and (expected.ts is None or expected.ts == actual.ts)
    )


def _same_result(expected: ExpectedItem, actual: Output) -> bool:
    return expected.key == actual.key and expected.value == actual.value


def _is_permutation(expected: list[ExpectedItem], actual: list[Output]) -> bool:
    """Whether ``actual`` is ``expected`` in another order (greedy matching suffices: equality is exact
    except for unstated timestamps, which match anything)."""
    free = list(actual)
    for item in sorted(expected, key=lambda e: e.ts is None):
        found = next((i for i, output in enumerate(free) if _matches(item, output)), None)
        if found is None:
            return False
        free.pop(found)
    return not free


def _aligned(expected: list[ExpectedItem], actual: list[Output]) -> set[tuple[int, int]]:
    """Longest common subsequence of the two emission sequences under ``_matches``."""
    n, m = len(expected), len(actual)
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            if _matches(expected[i], actual[j]):
                best[i][j] = best[i + 1][j + 1] + 1
            else:
                best[i][j] = max(best[i + 1][j], best[i][j + 1])
    pairs: set[tuple[int, int]] = set()
    i = j = 0
    while i < n and j < m:
        if _matches(expected[i], actual[j]) and best[i][j] == best[i + 1][j + 1] + 1:
            pairs.add((i, j))
            i, j = i + 1, j + 1
        elif best[i + 1][j] >= best[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def _by_row(
    expected: Sequence[tuple[int, ExpectedItem]], actual: Sequence[Output]
) -> tuple[dict[int, list[ExpectedItem]], dict[int, list[Output]]]:
    wanted: dict[int, list[ExpectedItem]] = {}
    for row, item in expected:
        wanted.setdefault(row, []).append(item)
    emitted: dict[int, list[Output]] = {}
    for output in actual:
        emitted.setdefault(output.cause, []).append(output)
    return wanted, emitted


def compare_outputs(expected: Sequence[tuple[int, ExpectedItem]], actual: Sequence[Output]) -> Comparison:
    """Divergences between the table's ``(row, item)`` list and the outputs (with ``cause``) of a join."""
    wanted, emitted = _by_row(expected, actual)
    found: list[Divergence] = []
    for position in range(1, len(actual)):
        if actual[position].cause < actual[position - 1].cause:
            found.append(Divergence("out-of-order", actual[position].cause, position, None, actual[position]))
    missing: list[tuple[int, int, ExpectedItem]] = []
    extra: list[tuple[int, int, Output]] = []
    for row in sorted(set(wanted) | set(emitted)):
        exp, act = wanted.get(row, []), emitted.get(row, [])
        if len(exp) == len(act) and all(_matches(e, a) for e, a in zip(exp, act, strict=True)):
            continue
        if len(exp) == len(act) and _is_permutation(exp, act):
            first = next(i for i, (e, a) in enumerate(zip(exp, act, strict=True)) if not _matches(e, a))
            found.append(Divergence("out-of-order", row, first, exp[first], act[first]))
            continue
        pairs = _aligned(exp, act)
        used_e, used_a = {i for i, _ in pairs}, {j for _, j in pairs}
        row_missing = [(i, e) for i, e in enumerate(exp) if i not in used_e]
        row_extra = [(j, a) for j, a in enumerate(act) if j not in used_a]
        for i, item in row_missing:
            twin = next((k for k, (_, a) in enumerate(row_extra) if _same_result(item, a)), None)
            if twin is None:
                missing.append((row, i, item))
            else:
                found.append(Divergence("wrong-timestamp", row, i, item, row_extra.pop(twin)[1]))
        extra.extend((row, j, a) for j, a in row_extra)
    found.extend(_pair_leftovers(missing, extra))
    found.sort(key=lambda d: (d.row, d.position, d.kind))
    return Comparison(expected=tuple(expected), actual=tuple(actual), divergences=tuple(found))


def _pair_leftovers(
    missing: list[tuple[int, int, ExpectedItem]], extra: list[tuple[int, int, Output]]
) -> list[Divergence]:
    """Missing and extra outputs that are one output listed under the wrong row (``wrong-trigger``) or one
    wrong value in a row (``wrong-value``); the rest stay missing or unexpected."""
    found: list[Divergence] = []
    still_missing: list[tuple[int, int, ExpectedItem]] = []
    for row, position, item in missing:
        twin = next((k for k, (r, _, a) in enumerate(extra) if r != row and _matches(item, a)), None)
        if twin is None:
            still_missing.append((row, position, item))
        else:
            found.append(Divergence("wrong-trigger", row, position, item, extra.pop(twin)[2]))
    for row, position, item in still_missing:
        twin = next((k for k, (r, _, _) in enumerate(extra) if r == row), None)
        if twin is None:
            found.append(Divergence("missing-output", row, position, item, None))
        else:
            found.append(Divergence("wrong-value", row, position, item, extra.pop(twin)[2]))
    found.extend(
        Divergence("unexpected-output", row, position, None, output) for row, position, output in extra
    )
    return found


def _show_expected(item: ExpectedItem) -> str:
    return format_item(item.key, item.value, item.ts)


def _show_actual(output: Output) -> str:
    return format_item(output.key, output.value, output.ts)


def _show_record(record: Record) -> str:
    key = "null" if record.key is None else record.key
    value = "null" if record.value is None else record.value
    return f"{record.side} {key}: {value} @{record.ts}"


def _sentence(divergence: Divergence) -> str:
    exp = "" if divergence.expected is None else _show_expected(divergence.expected)
    act = "" if divergence.actual is None else _show_actual(divergence.actual)
    where = f"row {divergence.row}"
    if divergence.kind == "missing-output":
        return f"{where}: expected {exp}, nothing was emitted for it"
    if divergence.kind == "unexpected-output":
        return f"{where}: emitted {act}, which the table does not list"
    if divergence.kind == "wrong-trigger":
        cause = divergence.actual.cause if divergence.actual is not None else "?"
        return f"{where}: expected {exp} here, it was emitted while processing row {cause}"
    if divergence.kind == "out-of-order":
        at = f"position {divergence.position}"
        return f"{where}: outputs emitted in another order ({at}: expected {exp or '-'}, got {act})"
    return f"{where}: expected {exp}, got {act}"


def render_comparison(comparison: Comparison, records: Sequence[Record], title: str = "") -> str:
    """A terminal table of the rows with outputs (input, expected, emitted) and one line per divergence."""
    wanted, emitted = _by_row(comparison.expected, comparison.actual)
    bad_rows = {d.row for d in comparison.divergences} | {
        d.actual.cause for d in comparison.divergences if d.actual is not None
    }
    table = [
        [
            "x" if row in bad_rows else "",
            row,
            _show_record(records[row]) if 0 <= row < len(records) else "?",
            "\n".join(_show_expected(item) for item in wanted.get(row, [])),
            "\n".join(_show_actual(output) for output in emitted.get(row, [])),
        ]
        for row in sorted(set(wanted) | set(emitted) | bad_rows)
    ]
    lines = [title] if title else []
    lines.append(
        tabulate(table, headers=["", "#", "input", "expected (seed table)", "emitted"], tablefmt="simple")
    )
    if comparison.divergences:
        lines.append(f"{len(comparison.divergences)} divergence(s):")
        lines.extend(f"  {d.kind}: {_sentence(d)}" for d in comparison.divergences)
    else:
        lines.append("no divergence")
    return "\n".join(lines)
