"""Hypothesis strategies for join inputs: small pieces that compose and shrink (STYLE.md §2).

Each strategy is a few lines, validates its arguments when it is built (``InvalidArgument`` naming the
argument and its value), and says in its docstring what it shrinks towards. Histories grow one record at
a time (``while draw(_ANOTHER_RECORD)``), so the shrinker can delete any single record.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from oracle.records import (
    JOIN_KINDS,
    SIDES,
    STORE_KINDS,
    VARIANTS,
    JoinKind,
    JoinSpec,
    Key,
    Record,
    Side,
    StoreKind,
    Value,
    Variant,
    Window,
)

__all__ = ["histories", "join_specs", "keys", "records", "timestamps", "values", "windows"]


_ANOTHER_RECORD = st.integers(min_value=0, max_value=7).map(bool)
"""Whether a history grows by one more record: true for 7 of the 8 values, so generated histories are
mostly long (a few records to ``max_size``); shrinks towards 0 = ``False`` (stop), cutting histories short."""


def _check_non_negative(name: str, value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InvalidArgument(f"{name}={value!r} must be a non-negative integer")


def _check_interval(min_name: str, min_value: int, max_name: str, max_value: int) -> None:
    _check_non_negative(min_name, min_value)
    _check_non_negative(max_name, max_value)
    if min_value > max_value:
        raise InvalidArgument(f"{min_name}={min_value!r} must not exceed {max_name}={max_value!r}")


def _check_positive(name: str, value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise InvalidArgument(f"{name}={value!r} must be a positive integer")


def _check_choices(name: str, chosen: Sequence[str], allowed: Sequence[str]) -> None:
    if not chosen or any(item not in allowed for item in chosen):
        raise InvalidArgument(f"{name}={chosen!r} must be a non-empty selection of {list(allowed)}")


def keys(*, max_keys: int = 3, null_keys: bool = False) -> st.SearchStrategy[Key]:
    """Record keys ``k1 .. k<max_keys>``, plus the null key if ``null_keys``.

    Shrinks towards ``k1`` (a single shared key makes every record a join partner of every other).
    """
    _check_positive("max_keys", max_keys)
    named = [f"k{n}" for n in range(1, max_keys + 1)]
    return st.sampled_from([*named, None] if null_keys else named)


def timestamps(*, min_value: int = 0, max_value: int = 100) -> st.SearchStrategy[int]:
    """Record timestamps in ``[min_value, max_value]`` (Kafka rejects negative ones).

    Shrinks towards ``min_value``.
    """
    _check_interval("min_value", min_value, "max_value", max_value)
    return st.integers(min_value=min_value, max_value=max_value)


def values(side: Side, *, max_values: int = 5, null_values: bool = True) -> st.SearchStrategy[Value]:
    """Record values naming their side (``L0``.. left, ``R0``.. right), plus null if ``null_values``.

    Shrinks towards ``L0`` / ``R0``; null (a tombstone for a table) is the last choice, so a shrunk
    counterexample keeps a null only when the failure needs it.
    """
    if side not in SIDES:
        raise InvalidArgument(f"side={side!r} must be one of {list(SIDES)}")
    _check_positive("max_values", max_values)
    named = [f"{side[0].upper()}{n}" for n in range(max_values)]
    return st.sampled_from([*named, None] if null_values else named)


def records(
    *,
    ts: int,
    sides: Sequence[Side] = SIDES,
    max_keys: int = 3,
    null_keys: bool = False,
    null_values: bool = True,
) -> st.SearchStrategy[Record]:
    """One input record at timestamp ``ts`` on one of ``sides``.

    Shrinks towards a left record with key ``k1`` and value ``L0``.
    """
    _check_non_negative("ts", ts)
    _check_choices("sides", sides, SIDES)

    @st.composite
    def _record(draw: st.DrawFn) -> Record:
        side = draw(st.sampled_from(list(sides)))
        key = draw(keys(max_keys=max_keys, null_keys=null_keys))
        return Record(side=side, key=key, value=draw(values(side, null_values=null_values)), ts=ts)

    return _record()


def histories(
    *,
    max_size: int = 12,
    in_order: bool = False,
    max_step: int = 5,
    max_ts: int = 100,
    sides: Sequence[Side] = SIDES,
    max_keys: int = 3,
    null_keys: bool = False,
    null_values: bool = True,
) -> st.SearchStrategy[tuple[Record, ...]]:
    """Input histories of at most ``max_size`` records, in processing order.

    With ``in_order`` timestamps never decrease (each record adds ``0 .. max_step`` to the previous one,
    starting from 0); otherwise each timestamp is drawn from ``[0, max_ts]`` on its own.
    Shrinks towards the empty history, then towards fewer, smaller records with equal timestamps.
    """
    _check_positive("max_size", max_size)
    _check_non_negative("max_step", max_step)
    _check_non_negative("max_ts", max_ts)
    _check_choices("sides", sides, SIDES)
    _check_positive("max_keys", max_keys)

    @st.composite
    def _grow(draw: st.DrawFn) -> tuple[Record, ...]:
        history: list[Record] = []
        last_ts = 0
        while len(history) < max_size and draw(_ANOTHER_RECORD):
            if in_order:
                last_ts += draw(st.integers(min_value=0, max_value=max_step))
                ts = last_ts
            else:
                ts = draw(timestamps(max_value=max_ts))
            record = draw(
                records(ts=ts, sides=sides, max_keys=max_keys, null_keys=null_keys, null_values=null_values)
            )
            history.append(record)
        return tuple(history)

    return _grow()


def windows(*, max_difference: int = 20, grace: int | None = None) -> st.SearchStrategy[Window]:
    """Stream-stream join windows with ``before``/``after`` in ``[0, max_difference]`` and the given ``grace``
    (``None`` = the legacy ``JoinWindows.of`` API).

    Shrinks towards the zero-width window ``before = after = 0``.
    """
    _check_non_negative("max_difference", max_difference)
    if grace is not None:
        _check_non_negative("grace", grace)
    sizes = st.integers(min_value=0, max_value=max_difference)
    return st.builds(Window, before=sizes, after=sizes, grace=st.just(grace))


def join_specs(
    join: JoinKind,
    *,
    variants: Sequence[Variant] = VARIANTS,
    stores: Sequence[StoreKind] = STORE_KINDS,
    max_difference: int = 20,
    grace: int | None = None,
) -> st.SearchStrategy[JoinSpec]:
    """Join specifications of kind ``join``; stream-stream ones get a window from ``windows``.

    Shrinks towards the first of ``variants`` and of ``stores`` (and, for stream-stream, the zero-width
    window).
    """
    if join not in JOIN_KINDS:
        raise InvalidArgument(f"join={join!r} must be one of {list(JOIN_KINDS)}")
    _check_choices("variants", variants, VARIANTS)
    _check_choices("stores", stores, STORE_KINDS)
    window = windows(max_difference=max_difference, grace=grace) if join == "stream-stream" else st.none()
    return st.builds(
        JoinSpec,
        join=st.just(join),
        variant=st.sampled_from(list(variants)),
        window=window,
        stores=st.sampled_from(list(stores)),
    )
