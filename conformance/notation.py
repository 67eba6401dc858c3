"""The project's notation for records and outputs, as the seed tables write them.

``k1: L1 - R1 @5`` is a joined output (``null`` for a missing side), ``k1: null @7`` a tombstone, and
``left k1: L1 @5`` an input record. Every message and text table of the harness and the command line uses
these functions, so a user reads one notation everywhere.
"""

from __future__ import annotations

from kjoin.oracle.records import Key, Output, Record, Value

__all__ = ["NULL", "show_key", "show_output", "show_record", "show_value"]

NULL = "null"


def show_key(key: Key) -> str:
    """A key (``null`` for a null key)."""
    return NULL if key is None else str(key)


def show_operand(value: Value) -> str:
    """One side of a join result, or a record's value (``null`` when absent)."""
    return NULL if value is None else value


def show_value(value: tuple[Value, Value] | None) -> str:
    """``L - R`` (``null`` for a missing side), or ``null`` for a tombstone."""
    return NULL if value is None else f"{show_operand(value[0])} - {show_operand(value[1])}"


def show_output(output: Output | None, *, with_key: bool = True, with_ts: bool = True) -> str:
    """``k1: L1 - R1 @5``; ``k1: null @7`` is a tombstone; an absent output is empty text."""
    if output is None:
        return ""
    text = show_value(output.value) + (f" @{output.ts}" if with_ts else "")
    return f"{show_key(output.key)}: {text}" if with_key else text


def show_record(record: Record, index: int | None = None) -> str:
    """``#3 left k1: L1 @5`` (the input index when given)."""
    prefix = "" if index is None else f"#{index} "
    return f"{prefix}{record.side} {show_key(record.key)}: {show_operand(record.value)} @{record.ts}"
