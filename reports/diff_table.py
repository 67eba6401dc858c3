"""Seed-shaped tables: ``# | ts | left | right | outputs...``, each input row followed by the outputs it
emitted, one line per output (the KIP-77 and documentation tables' own shape).

Output lines carry a mark taken from the checker's divergences, never recomputed: ``missing`` (Kafka, or
the older version, emits it; red background), ``unexpected`` (only the candidate, or the newer version,
emits it; green background), ``order`` (the same output at another place; amber) or ``same``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from kjoin.conformance.checker import UNKNOWN_CAUSE, Divergence
from kjoin.oracle.records import Key, Output, Record
from kjoin.reports.html import text

__all__ = ["Column", "Item", "Mark", "era_columns", "render_diff_table", "show_output", "unified_column"]

Mark = Literal["same", "missing", "unexpected", "order"]
Side = Literal["expected", "actual"]

_GLYPH: dict[Mark, str] = {"same": "", "missing": "\u2212 ", "unexpected": "+ ", "order": "~ "}

UNKNOWN_ROW = None
"""Column row of outputs whose emitting input is unknown (the candidate reported no ``idx``)."""

_NO_KEY = object()
"""The input key of a row without an input record: every output shows its key."""


@dataclass(frozen=True, slots=True)
class Item:
    """One output line of a column, with its mark and the divergence that explains it."""

    output: Output
    mark: Mark = "same"
    note: str = ""


Column = Mapping[int | None, Sequence[Item]]
"""Input index (``None``: unknown) -> the output lines shown next to that input, in emission order."""


def _note(divergence: Divergence) -> str:
    return divergence.kind + (f": {divergence.detail}" if divergence.detail else "")


def _marks(
    outputs: Sequence[Output], divergences: Sequence[Divergence], side: Side
) -> list[tuple[Mark, str]]:
    """Each output's mark: the divergences naming it on ``side`` (latest equal output first, as the checker
    reports the surplus occurrences)."""
    marks: list[tuple[Mark, str]] = [("same", "")] * len(outputs)
    for divergence in divergences:
        named = divergence.expected if side == "expected" else divergence.actual
        if named is None:
            continue
        mark: Mark = "order" if divergence.kind == "out-of-order" else (
            "missing" if side == "expected" else "unexpected")
        for position in range(len(outputs) - 1, -1, -1):
            if outputs[position] == named and marks[position][0] == "same":
                marks[position] = (mark, _note(divergence))
                break
    return marks


def _row(output: Output, fallback: int | None) -> int | None:
    return output.cause if output.cause != UNKNOWN_CAUSE else fallback


def _column(outputs: Sequence[Output], marks: Sequence[tuple[Mark, str]]) -> dict[int | None, list[Item]]:
    column: dict[int | None, list[Item]] = defaultdict(list)
    for output, (mark, note) in zip(outputs, marks, strict=True):
        column[_row(output, UNKNOWN_ROW)].append(Item(output, mark, note))
    return column


def unified_column(expected: Sequence[Output], divergences: Sequence[Divergence]) -> Column:
    """Kafka's outputs with the candidate's differences merged in: missing ones marked red, the candidate's
    unexpected ones added in green next to the input that emitted them (or the divergence's input)."""
    column = _column(expected, _marks(expected, divergences, "expected"))
    for divergence in divergences:
        got = divergence.actual
        if got is None:
            continue
        if divergence.kind == "out-of-order":
            shown_at = divergence.expected.cause if divergence.expected is not None else None
            if got.cause != UNKNOWN_CAUSE and got.cause != shown_at:
                note = "the candidate emits it here; " + _note(divergence)
                column[got.cause].append(Item(got, "order", note))
            continue
        column[_row(got, divergence.at)].append(Item(got, "unexpected", _note(divergence)))
    return column


def era_columns(older: Sequence[Output], newer: Sequence[Output],
                divergences: Sequence[Divergence]) -> tuple[Column, Column]:
    """Two versions side by side (KIP-77's "current vs suggested"): outputs only the older one emits are
    red in its column, outputs only the newer one emits green in its column."""
    return (_column(older, _marks(older, divergences, "expected")),
            _column(newer, _marks(newer, divergences, "actual")))


def _key(key: Key) -> str:
    return "null" if key is None else str(key)


def show_output(output: Output, input_key: object = _NO_KEY) -> str:
    """``A - a @4`` (``null`` for a missing side, ``(tombstone)`` for a delete), with ``key: `` in front
    when the key differs from ``input_key`` (the key of the input row it is shown next to)."""
    value = "(tombstone)" if output.value is None else " - ".join(
        "null" if side is None else side for side in output.value)
    prefix = "" if output.key == input_key else f"{_key(output.key)}: "
    return f"{prefix}{value} @{output.ts}"


def _item_cell(item: Item | None, input_key: object) -> str:
    if item is None:
        return "<td></td>"
    title = f' title="{text(item.note)}"' if item.note else ""
    css = "" if item.mark == "same" else f' class="m-{item.mark}"'
    shown = text(_GLYPH[item.mark] + show_output(item.output, input_key))
    return f"<td{css}{title}>{shown}</td>"


def _input_cells(index: int, record: Record | None, show_keys: bool, marker: str) -> str:
    if record is None:
        return f'<td class="idx">{text(marker + str(index))}</td><td class="in"></td><td class="in"></td>' \
               '<td class="in"></td>'
    value = "null" if record.value is None else record.value
    shown = f"{_key(record.key)}: {value}" if show_keys else value
    left, right = (shown, "") if record.side == "left" else ("", shown)
    return (f'<td class="idx">{text(marker + str(index))}</td><td class="in">{text(record.ts)}</td>'
            f'<td class="in">{text(left)}</td><td class="in">{text(right)}</td>')


def render_diff_table(
    records: Sequence[Record] | None,
    headers: Sequence[str],
    columns: Sequence[Column],
    *,
    first: Mapping[int, str] | None = None,
) -> str:
    """The table: inputs (or only their indexes when ``records`` is ``None``) with each column's lines.

    ``first`` maps input indexes to a note (e.g. "first divergence of left"): those rows are highlighted.
    Lines whose input is unknown or out of range go to a last row marked ``?``."""
    first = first or {}
    count = len(records) if records is not None else 0
    indexes: set[int | None] = set(range(count))
    for column in columns:
        indexes.update(index for index in column if index is None or index >= 0)
    known = sorted(index for index in indexes if index is not None and index < count)
    extra = sorted(index for index in indexes if index is not None and index >= count)
    show_keys = records is not None and len({record.key for record in records}) > 1
    head = "".join(f"<th>{text(h)}</th>" for h in ["#", "ts", "left", "right", *headers])
    lines = [f'<table class="diff"><thead><tr>{head}</tr></thead><tbody>']
    for index in [*known, *extra, *([UNKNOWN_ROW] if UNKNOWN_ROW in indexes else [])]:
        record = records[index] if records is not None and index is not None and index < count else None
        items = [list(column.get(index, ())) for column in columns]
        input_key = record.key if record is not None else _NO_KEY
        classes = ["first"] if index in first else []
        title = f' title="{text(first[index])}"' if index in first else ""  # type: ignore[index]
        marker = "\u25b6 " if index in first else ""
        for line in range(max([1, *(len(column) for column in items)])):
            row_classes = " ".join(classes + (["cont"] if line else []))
            cells = ""
            if line == 0 and index is None:
                cells = '<td class="idx">?</td><td class="in" colspan="3">emitting input unknown</td>'
            elif line == 0:
                cells = _input_cells(index, record, show_keys, marker)
            else:
                cells = '<td class="idx"></td><td class="in"></td><td class="in"></td><td class="in"></td>'
            cells += "".join(_item_cell(column[line] if line < len(column) else None, input_key)
                             for column in items)
            attrs = (f' class="{row_classes}"' if row_classes else "") + (title if line == 0 else "")
            lines.append(f"<tr{attrs}>{cells}</tr>")
    lines.append("</tbody></table>")
    return "\n".join(lines)
