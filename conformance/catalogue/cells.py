"""The small text tables inside a seed-table file: ``input`` and ``outputs`` (docs/scenario-format.md).

Cells are separated by ``|``; the first non-blank line is the header and starts with ``#``. Keys and values
are ASCII words, so a Cyrillic look-alike copied from the KIP-77 text (U+0410 for ``A``) is an error here
and never a silently different value. Errors are ``CellError`` (location, field, value, problem); the loader
adds the file and scenario id (``ScenarioError``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from kjoin.conformance.catalogue.fields import MAX_TS
from kjoin.conformance.notation import NULL
from kjoin.errors import KjoinError
from kjoin.oracle.records import SIDES, Key, Record, Value

__all__ = [
    "CellError",
    "ExpectedItem",
    "TableRow",
    "parse_input",
    "parse_output_cell",
    "split_table",
]

INPUT_COLUMNS = ("#", "ts", "side", "key", "value")
OPTIONAL_INPUT_COLUMNS = ("wall_clock", "commit")
"""Optional trailing input columns (production settings): the record's wall-clock time, an explicit commit."""

_WORD = re.compile(r"^[A-Za-z0-9_.,()+\-]+$")
_FK_WORD = re.compile(r"^[A-Za-z0-9_.,()+\-:]+$")
_INDEX = re.compile(r"^(0|[1-9][0-9]*)$")
_KEY_PREFIX = re.compile(r"^(\S+?):\s+(.*)$")
_PAIR = re.compile(r"\s+-\s+")

# Letters of other scripts that render like ASCII letters (Unicode confusables) -> the letter they imitate.
_LOOK_ALIKES = dict(
    zip(
        "\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0425"  # Cyrillic capitals
        "\u0430\u0432\u0435\u043e\u0440\u0441\u0443\u0445\u0456\u0458\u0455"  # Cyrillic small letters
        "\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7\u03bf",  # Greek
        "ABEKMHOPCTXaBeopcyxijsABEZHIKMNOPTYXo",
        strict=True,
    )
)


class CellError(KjoinError, ValueError):
    """One bad cell: ``location`` (``input row 3``), ``field`` (the column), the cell text and the problem."""

    def __init__(self, location: str, field: str, value: object, problem: str) -> None:
        super().__init__(f"{location}, field {field}: {value!r} {problem}")
        self.location = location
        self.field = field
        self.value = value
        self.problem = problem


@dataclass(frozen=True, slots=True)
class TableRow:
    """One row of a text table: its line number inside the string and its stripped cells."""

    line: int
    cells: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ExpectedItem:
    """One expected output as the seed table states it.

    ``value`` is the ``(left, right)`` pair handed to the joiner (``None`` for a missing side) or ``None``
    for a tombstone. ``key`` is always known after loading: written as ``key:`` or, when omitted, the key of
    the input row that emitted it (``key_given`` tells which). ``ts`` is ``None`` when the block states no
    timestamps (``timestamps = false``).
    """

    key: Key
    value: tuple[Value, Value] | None
    ts: int | None
    key_given: bool = False


def split_table(text: str, location: str, field: str) -> tuple[tuple[str, ...], list[TableRow]]:
    """Header cells and data rows of a ``|``-separated table (docs/scenario-format.md, "Tables")."""
    header: tuple[str, ...] | None = None
    rows: list[TableRow] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        cells = tuple(cell.strip() for cell in line.split("|"))
        if line.startswith("#"):
            if header is not None or rows:
                raise CellError(f"{location} line {number}", field, raw, "is a second header line")
            header = cells
            continue
        if header is None:
            raise CellError(f"{location} line {number}", field, raw, "comes before the '#' header line")
        rows.append(TableRow(line=number, cells=cells))
    if header is None:
        raise CellError(location, field, text, "has no header line starting with '#'")
    return header, rows


def _check_word(text: str, location: str, field: str, *, allow_colon: bool = False) -> str:
    """``text`` if it is an ASCII word; names the first non-ASCII look-alike letter otherwise."""
    for char in text:
        if ord(char) > 127:
            name = unicodedata.name(char, "unnamed character")
            if char in _LOOK_ALIKES:
                problem = (
                    f"contains non-ASCII look-alike letter U+{ord(char):04X} {name} "
                    f"(looks like Latin {_LOOK_ALIKES[char]!r})"
                )
            else:
                problem = f"contains non-ASCII character U+{ord(char):04X} {name}"
            raise CellError(location, field, text, problem)
    pattern = _FK_WORD if allow_colon else _WORD
    if not pattern.match(text):
        allowed = "[A-Za-z0-9_.,()+-:]" if allow_colon else "[A-Za-z0-9_.,()+-]"
        raise CellError(location, field, text, f"is not an ASCII word (characters {allowed}, no spaces)")
    return text


def _key(text: str, location: str, field: str) -> Key:
    return None if text == NULL else _check_word(text, location, field)


def _value(text: str, location: str, field: str, *, allow_colon: bool) -> Value:
    return None if text == NULL else _check_word(text, location, field, allow_colon=allow_colon)


def _index(text: str, location: str, field: str) -> int:
    if not _INDEX.match(text):
        raise CellError(location, field, text, "is not a row index (a whole number without sign)")
    return int(text)


def parse_input(text: str, *, allow_colon: bool, location: str = "input") -> tuple[Record, ...]:
    """The input records, in processing order; ``#`` must count 0, 1, 2, ... with no gaps. Optional
    trailing columns ``wall_clock`` and ``commit`` (docs/scenario-format.md, "Production settings")."""
    header, rows = split_table(text, location, "header")
    extra = header[len(INPUT_COLUMNS) :]
    if header[: len(INPUT_COLUMNS)] != INPUT_COLUMNS or extra not in _EXTRA_HEADERS:
        raise CellError(
            location,
            "header",
            " | ".join(header),
            f"must be {' | '.join(INPUT_COLUMNS)}, optionally followed by "
            f"{' | '.join(OPTIONAL_INPUT_COLUMNS)} (either or both, in that order)",
        )
    records: list[Record] = []
    clock = 0
    for row in rows:
        where = f"{location} line {row.line}"
        if len(row.cells) != len(header):
            raise CellError(
                where, "cells", " | ".join(row.cells), f"has {len(row.cells)} cells, expected {len(header)}"
            )
        number, ts_text, side, key_text, value_text = row.cells[: len(INPUT_COLUMNS)]
        index = _index(number, where, "#")
        if index != len(records):
            raise CellError(where, "#", number, f"breaks the row numbering: expected row {len(records)}")
        where = f"{location} row {index}"
        if not _INDEX.match(ts_text) or int(ts_text) > MAX_TS:
            raise CellError(where, "ts", ts_text, f"is not a timestamp (a whole number from 0 to {MAX_TS})")
        if side not in SIDES:
            raise CellError(where, "side", side, "is not left or right")
        key = _key(key_text, where, "key")
        value = _value(value_text, where, "value", allow_colon=allow_colon)
        cells = dict(zip(extra, row.cells[len(INPUT_COLUMNS) :], strict=True))
        wall_clock = _wall_clock(cells.get("wall_clock", ""), where)
        if wall_clock is not None:
            if wall_clock < clock:
                problem = f"goes back in time (an earlier row's wall clock is {clock}; it never decreases)"
                raise CellError(where, "wall_clock", wall_clock, problem)
            clock = wall_clock
        commit = _commit(cells.get("commit", ""), where)
        records.append(
            Record(side=side, key=key, value=value, ts=int(ts_text), wall_clock=wall_clock, commit=commit)
        )
    if not records:
        raise CellError(location, "rows", text, "has no input rows")
    return tuple(records)


_EXTRA_HEADERS = ((), ("wall_clock",), ("commit",), ("wall_clock", "commit"))


def _wall_clock(text: str, where: str) -> int | None:
    """An empty cell: no wall-clock advance since the record before."""
    if not text:
        return None
    if not _INDEX.match(text) or int(text) > MAX_TS:
        problem = f"is not a wall-clock time (a whole number from 0 to {MAX_TS})"
        raise CellError(where, "wall_clock", text, problem)
    return int(text)


def _commit(text: str, where: str) -> bool:
    """``commit`` (an explicit commit after this record) or an empty cell."""
    if text not in ("", "commit"):
        raise CellError(where, "commit", text, "must be 'commit' or empty")
    return text == "commit"


def parse_output_cell(
    cell: str, *, default_key: Key, timestamps: bool, allow_colon: bool, location: str, field: str
) -> tuple[ExpectedItem, ...]:
    """The items of one ``outputs`` cell, in emission order (``;``-separated; empty cell = nothing)."""
    if not cell:
        return ()
    return tuple(
        _parse_item(
            item.strip(),
            default_key=default_key,
            timestamps=timestamps,
            allow_colon=allow_colon,
            location=location,
            field=field,
        )
        for item in cell.split(";")
    )


def _parse_item(
    item: str, *, default_key: Key, timestamps: bool, allow_colon: bool, location: str, field: str
) -> ExpectedItem:
    """``[key: ] LEFT - RIGHT [@ts]`` or ``[key: ] null [@ts]`` (docs/scenario-format.md)."""
    if not item:
        raise CellError(location, field, item, "is an empty output item (stray ';')")
    body, ts = item, None
    if "@" in item:
        body, _, ts_text = item.rpartition("@")
        body = body.strip()
        if "@" in body or not _INDEX.match(ts_text.strip()):
            raise CellError(location, field, item, "has a malformed '@ts' (expected '@' and a whole number)")
        ts = int(ts_text.strip())
    if timestamps and ts is None:
        raise CellError(location, field, item, "has no '@ts' but the block says timestamps = true")
    if not timestamps and ts is not None:
        raise CellError(location, field, item, "has an '@ts' but the block says timestamps = false")
    key, key_given = default_key, False
    prefix = _KEY_PREFIX.match(body)
    if prefix is not None:
        key, key_given, body = _key(prefix.group(1), location, field), True, prefix.group(2).strip()
    if body == NULL:
        return ExpectedItem(key=key, value=None, ts=ts, key_given=key_given)
    parts = _PAIR.split(body)
    if len(parts) != 2 or not all(parts):
        raise CellError(
            location, field, item, "is not 'LEFT - RIGHT' or 'null' (with optional 'key: ' and '@ts')"
        )
    left = _value(parts[0], location, field, allow_colon=allow_colon)
    right = _value(parts[1], location, field, allow_colon=False)
    return ExpectedItem(key=key, value=(left, right), ts=ts, key_given=key_given)
