"""Seed-shaped tables: ``# | ts | left | right | outputs...``, each input row followed by the outputs it
emitted, one line per output (the KIP-77 and documentation tables' own shape).

Output lines carry a mark located from the document's divergences: ``missing`` (Kafka, or the older
version, emits it; red, a minus sign), ``unexpected`` (only the candidate, or the newer version, emits it;
green, a plus sign), ``order`` (the same output at another place or in another order; amber, a tilde) or
``same``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from kjoin.conformance.documents.vocabulary import DivergenceKind
from kjoin.conformance.notation import show_key, show_operand, show_output_json
from kjoin.reports.html import text

__all__ = ["Column", "Item", "Mark", "era_columns", "render_diff_table", "side_names", "unified_column"]

Mark = Literal["same", "missing", "unexpected", "order"]
Output = Mapping[str, Any]

_GLYPH: dict[Mark, str] = {"same": "", "missing": "\u2212 ", "unexpected": "+ ", "order": "~ "}
_ORDER_KINDS: frozenset[DivergenceKind] = frozenset({"out-of-order", "wrong-input"})
_UNKNOWN = -1
"""Row of outputs whose emitting input is unknown (the candidate reported no ``idx``)."""


@dataclass(frozen=True, slots=True)
class Item:
    """One output line of a column, with its mark and the divergence that explains it."""

    output: Output
    mark: Mark = "same"
    note: str = ""


Column = Mapping[int, Sequence[Item]]
"""Input index (-1: unknown) -> the output lines shown next to that input, in emission order."""


def _note(divergence: Mapping[str, Any]) -> str:
    detail = divergence.get("detail") or ""
    return str(divergence.get("kind")) + (f": {detail}" if detail else "")


def _marks(
    outputs: Sequence[Output], divergences: Sequence[Mapping[str, Any]], side: str
) -> list[tuple[Mark, str]]:
    """Each output's mark: the divergences naming it on ``side`` (latest equal output first, as the checker
    reports surplus occurrences)."""
    marks: list[tuple[Mark, str]] = [("same", "")] * len(outputs)
    for divergence in divergences:
        named = divergence.get(side)
        if named is None:
            continue
        mark: Mark = (
            "order"
            if divergence.get("kind") in _ORDER_KINDS
            else ("missing" if side == "expected" else "unexpected")
        )
        for position in range(len(outputs) - 1, -1, -1):
            if outputs[position] == named and marks[position][0] == "same":
                marks[position] = (mark, _note(divergence))
                break
    return marks


def _row(output: Output, fallback: int | None = None) -> int:
    cause = output.get("cause")
    if isinstance(cause, int):
        return cause
    return fallback if fallback is not None else _UNKNOWN


def _column(outputs: Sequence[Output], marks: Sequence[tuple[Mark, str]]) -> dict[int, list[Item]]:
    column: dict[int, list[Item]] = defaultdict(list)
    for output, (mark, note) in zip(outputs, marks, strict=True):
        column[_row(output)].append(Item(output, mark, note))
    return column


def unified_column(expected: Sequence[Output], divergences: Sequence[Mapping[str, Any]]) -> Column:
    """Kafka's outputs with the candidate's differences merged in: missing ones marked red, the candidate's
    unexpected ones added in green next to the input that emitted them (or the divergence's input)."""
    column = _column(expected, _marks(expected, divergences, "expected"))
    for divergence in divergences:
        got = divergence.get("actual")
        if got is None:
            continue
        if divergence.get("kind") in _ORDER_KINDS:
            wanted = divergence.get("expected") or {}
            if _row(got) not in (_UNKNOWN, wanted.get("cause")):
                column[_row(got)].append(
                    Item(got, "order", "the candidate emits it here; " + _note(divergence))
                )
            continue
        at = divergence.get("at")
        column[_row(got, at if isinstance(at, int) else None)].append(
            Item(got, "unexpected", _note(divergence))
        )
    return column


def era_columns(older: Sequence[Output], newer: Sequence[Output]) -> tuple[Column, Column]:
    """Two versions side by side (KIP-77's "current vs suggested"): outputs only the older one emits are
    red in its column, outputs only the newer one emits green in its column, and an output both emit but
    while processing different inputs is amber (``order``) in both; matched by content and emitting input
    first, then by content alone."""

    def content(output: Output) -> tuple[Any, ...]:
        value = output.get("value")
        return (output.get("key"), None if value is None else tuple(value), output.get("ts"))

    def exact(output: Output) -> tuple[Any, ...]:
        return (*content(output), output.get("cause"))

    older_marks: list[tuple[Mark, str]] = [("missing", "only the older version emits it")] * len(older)
    newer_marks: list[tuple[Mark, str]] = [("unexpected", "only the newer version emits it")] * len(newer)
    for key in (exact, content):
        waiting: dict[tuple[Any, ...], list[int]] = defaultdict(list)
        for position, output in enumerate(newer):
            if newer_marks[position][0] == "unexpected":
                waiting[key(output)].append(position)
        for position, output in enumerate(older):
            if older_marks[position][0] != "missing" or not waiting[key(output)]:
                continue
            other = waiting[key(output)].pop(0)
            if key is exact:
                older_marks[position] = newer_marks[other] = ("same", "")
            else:
                older_marks[position] = (
                    "order",
                    f"the newer version emits it at input #{newer[other].get('cause')}",
                )
                newer_marks[other] = ("order", f"the older version emits it at input #{output.get('cause')}")
    return _column(older, older_marks), _column(newer, newer_marks)


def _item_cell(item: Item | None, input_key: object) -> str:
    if item is None:
        return "<td></td>"
    title = f' title="{text(item.note)}"' if item.note else ""
    css = "" if item.mark == "same" else f' class="m-{item.mark}"'
    return (
        f"<td{css}{title}>{text(_GLYPH[item.mark] + show_output_json(item.output, input_key=input_key))}</td>"
    )


def _input_cells(index: int, record: Mapping[str, Any] | None, show_keys: bool, marker: str) -> str:
    if record is None:
        return (
            f'<td class="idx">{text(marker + str(index))}</td><td class="in"></td><td class="in"></td>'
            '<td class="in"></td>'
        )
    value = show_operand(record.get("value"))
    shown = f"{show_key(record.get('key'))}: {value}" if show_keys else value
    left, right = (shown, "") if record.get("side") == "left" else ("", shown)
    return (
        f'<td class="idx">{text(marker + str(index))}</td><td class="in">{text(record.get("ts"))}</td>'
        f'<td class="in">{text(left)}</td><td class="in">{text(right)}</td>'
    )


def side_names(join: object) -> tuple[str, str]:
    """What a join's left and right inputs are called: a stream-GlobalKTable join's are the stream and the
    global table's topic (docs/semantics/global-table.md), every other join's the left and right side."""
    return ("stream", "global table") if join == "stream-globaltable" else ("left", "right")


def render_diff_table(
    records: Sequence[Mapping[str, Any]],
    headers: Sequence[str],
    columns: Sequence[Column],
    *,
    first: Mapping[int, str] | None = None,
    boundaries: Sequence[int] = (),
    join: object = None,
) -> str:
    """The table: inputs with each column's lines. ``first`` maps input indexes to a note (e.g. "first
    divergence of left"): those rows are highlighted. ``boundaries``: the inputs that begin a micro-batch
    (a row saying so goes before each). Lines whose input is unknown go to a last row ``?``. The input
    columns are named for ``join`` (``side_names``)."""
    first = first or {}
    count = len(records)
    indexes: set[int] = set(range(count))
    for column in columns:
        indexes.update(column)
    known = sorted(index for index in indexes if index >= 0)
    show_keys = len({show_key(record.get("key")) for record in records}) > 1
    head = "".join(f"<th>{text(h)}</th>" for h in ["#", "ts", *side_names(join), *headers])
    lines = [f'<table class="diff"><thead><tr>{head}</tr></thead><tbody>']
    for index in [*known, *([_UNKNOWN] if _UNKNOWN in indexes else [])]:
        record = records[index] if 0 <= index < count else None
        items = [list(column.get(index, ())) for column in columns]
        input_key = record.get("key") if record is not None else ...
        marked = index in first
        title = f' title="{text(first[index])}"' if marked else ""
        if index in boundaries:
            number = sorted(boundaries).index(index) + 1
            width = 4 + len(columns)
            lines.append(
                f'<tr class="mb-boundary"><td colspan="{width}">micro-batch {number} begins '
                f"(the candidate's state carries over from here)</td></tr>"
            )
        for line in range(max([1, *(len(column) for column in items)])):
            classes = " ".join((["first"] if marked else []) + (["cont"] if line else []))
            if line == 0 and index == _UNKNOWN:
                cells = '<td class="idx">?</td><td class="in" colspan="3">emitting input unknown</td>'
            elif line == 0:
                cells = _input_cells(index, record, show_keys, "\u25b6 " if marked else "")
            else:
                cells = '<td class="idx"></td><td class="in"></td><td class="in"></td><td class="in"></td>'
            cells += "".join(
                _item_cell(column[line] if line < len(column) else None, input_key) for column in items
            )
            attrs = (f' class="{classes}"' if classes else "") + (title if line == 0 else "")
            lines.append(f"<tr{attrs}>{cells}</tr>")
    lines.append("</tbody></table>")
    return "\n".join(lines)
