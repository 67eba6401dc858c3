"""Hypothesis strategies for join inputs: small pieces that compose and shrink (STYLE.md §2).

Each strategy is a few lines, validates its arguments when it is built (``InvalidArgument`` naming the
argument and its value), and says in its docstring what it shrinks towards. Histories grow one record at
a time (``while draw(_ANOTHER_RECORD)``), so the shrinker can delete any single record.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from kjoin.oracle.behaviour import Behaviour
from kjoin.oracle.records import (
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
    Versioning,
    Window,
)

__all__ = [
    "JOIN_VARIANTS",
    "emission_pass_scenarios",
    "histories",
    "join_histories",
    "join_scenarios",
    "join_specs",
    "join_windows",
    "keys",
    "records",
    "timestamps",
    "ts_offsets",
    "values",
    "versionings",
    "windows",
]


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


def keys(*, max_keys: int = 3, null_keys: bool = False, prefix: str = "k") -> st.SearchStrategy[Key]:
    """Record keys ``<prefix>1 .. <prefix><max_keys>`` (``k1``, ...), plus the null key if ``null_keys``.

    Shrinks towards ``k1`` (a single shared key makes every record a join partner of every other).
    """
    _check_positive("max_keys", max_keys)
    if not isinstance(prefix, str) or not prefix.isascii() or not prefix.isalpha():
        raise InvalidArgument(f"prefix={prefix!r} must be a non-empty ASCII word")
    named = [f"{prefix}{n}" for n in range(1, max_keys + 1)]
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
    min_size: int = 0,
    max_size: int = 12,
    in_order: bool = False,
    max_step: int = 5,
    max_ts: int = 100,
    sides: Sequence[Side] = SIDES,
    max_keys: int = 3,
    null_keys: bool = False,
    null_values: bool = True,
) -> st.SearchStrategy[tuple[Record, ...]]:
    """Input histories of ``min_size`` to ``max_size`` records, in processing order.

    With ``in_order`` timestamps never decrease (each record adds ``0 .. max_step`` to the previous one,
    starting from 0); otherwise each timestamp is drawn from ``[0, max_ts]`` on its own.
    Shrinks towards the shortest history, then towards smaller records with equal timestamps.
    """
    _check_positive("max_size", max_size)
    _check_non_negative("min_size", min_size)
    if min_size > max_size:
        raise InvalidArgument(f"min_size={min_size} must be at most max_size={max_size}")
    _check_non_negative("max_step", max_step)
    _check_non_negative("max_ts", max_ts)
    _check_choices("sides", sides, SIDES)
    _check_positive("max_keys", max_keys)

    @st.composite
    def _grow(draw: st.DrawFn) -> tuple[Record, ...]:
        history: list[Record] = []
        last_ts = 0
        while len(history) < max_size and (len(history) < min_size or draw(_ANOTHER_RECORD)):
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


# --- whole scenarios for generative differential testing (conformance.differential) --------------------

JOIN_VARIANTS: dict[JoinKind, tuple[Variant, ...]] = {
    "stream-stream": VARIANTS,
    "stream-table": ("inner", "left"),
    "table-table": VARIANTS,
    "fk": ("inner", "left"),
}
"""The variants Kafka offers per join kind (no outer stream-table or foreign-key join)."""

_RARELY = st.integers(min_value=0, max_value=4).map(lambda n: n == 4)
"""Whether a record gets a null value (or a null key): true for 1 of the 5 values; shrinks towards
0 = ``False`` (a value)."""

_ONE_IN_THREE = st.integers(min_value=0, max_value=2).map(lambda n: n == 2)
"""True for 1 of the 3 values; shrinks towards 0 = ``False``."""

_WINDOW_APIS = ("time-difference", "legacy-of", "legacy-of-grace")


def ts_offsets(*, max_step: int = 3, max_back: int = 5, max_jump: int = 30) -> st.SearchStrategy[int]:
    """How far a record's ts lies from the stream time so far (the largest ts before it): ``0`` (an equal
    ts), a step forward of at most ``max_step``, a step back of at most ``max_back`` (an out-of-order
    record), or a jump of at most ``max_jump`` (far enough to close windows and expire grace).

    Shrinks towards ``0``: equal timestamps.
    """
    _check_non_negative("max_step", max_step)
    _check_non_negative("max_back", max_back)
    _check_interval("max_step", max_step, "max_jump", max_jump)
    parts: list[st.SearchStrategy[int]] = [st.just(0)]
    if max_step:
        parts.append(st.integers(min_value=1, max_value=max_step))
    if max_back:
        parts.append(st.integers(min_value=-max_back, max_value=-1))
    if max_jump > max_step:
        parts.append(st.integers(min_value=max_step + 1, max_value=max_jump))
    return st.one_of(parts)


def join_windows(
    *, max_difference: int = 10, max_grace: int = 10, with_grace: bool = True
) -> st.SearchStrategy[Window]:
    """Stream-stream join windows, asymmetric ones included (``before`` and ``after`` drawn apart, each in
    ``[0, max_difference]``), through each API: ``ofTimeDifferenceAndGrace`` (a grace in ``[0, max_grace]``),
    the legacy ``JoinWindows.of`` (no grace) and the deprecated ``of(...).grace(...)`` (a grace, ``legacy``).
    Without ``with_grace`` (Kafka before 2.1, KIP-328) only ``JoinWindows.of`` windows.

    Shrinks towards the zero-width ``ofTimeDifferenceAndGrace`` window with grace 0 (or the zero-width
    ``of`` window).
    """
    _check_non_negative("max_difference", max_difference)
    _check_non_negative("max_grace", max_grace)
    sizes = st.integers(min_value=0, max_value=max_difference)
    if not with_grace:
        return st.builds(Window, before=sizes, after=sizes)

    @st.composite
    def _window(draw: st.DrawFn) -> Window:
        before, after = draw(sizes), draw(sizes)
        api = draw(st.sampled_from(_WINDOW_APIS))
        if api == "legacy-of":
            return Window(before=before, after=after)
        grace = draw(st.integers(min_value=0, max_value=max_grace))
        return Window(before=before, after=after, grace=grace, legacy=api == "legacy-of-grace")

    return _window()


def versionings(
    sides: Sequence[Side] = SIDES, *, max_history: int = 20
) -> st.SearchStrategy[Versioning | None]:
    """Unversioned tables (``None``) or versioned stores (KIP-889/914, 3.5+) on a non-empty subset of
    ``sides``, with a history retention in ``[0, max_history]``: small, so that updates fall out of it.

    Shrinks towards ``None``, then towards the first of ``sides`` alone with history 0.
    """
    _check_choices("sides", sides, SIDES)
    _check_non_negative("max_history", max_history)
    subsets = [(side,) for side in sides] + ([tuple(sides)] if len(set(sides)) > 1 else [])
    versioned = st.builds(
        lambda chosen, history: Versioning("left" in chosen, "right" in chosen, history),
        st.sampled_from(subsets),
        st.integers(min_value=0, max_value=max_history),
    )
    return st.one_of(st.none(), versioned)


def _key_prefix(join: JoinKind, side: Side) -> str:
    """Key names: ``k1..`` on both sides; a foreign-key join keys its left rows ``p1..`` (primary keys)
    and its right rows ``f1..`` (the foreign keys the left values point to)."""
    if join != "fk":
        return "k"
    return "p" if side == "left" else "f"


def join_histories(
    join: JoinKind,
    *,
    min_size: int = 0,
    max_size: int = 8,
    max_keys: int = 2,
    null_keys: bool = False,
    null_values: bool = True,
    null_foreign_keys: bool = True,
    max_step: int = 3,
    max_back: int = 5,
    max_jump: int = 30,
) -> st.SearchStrategy[tuple[Record, ...]]:
    """Input histories of ``min_size`` to ``max_size`` records for a ``join``, with unique, labelled values.

    Record number ``i`` carries the value ``L<i>`` (left) or ``R<i>`` (right), so every output names the
    records it was computed from; a foreign-key join's left value is ``<fk>:L<i>`` with a foreign key
    ``f1..`` (or an empty one, a null foreign key, if ``null_foreign_keys``). 1 in 5 values is null if
    ``null_values`` (a tombstone for a table), and 1 in 5 keys if ``null_keys``. Each ts lies ``ts_offsets``
    away from the largest ts so far (never below 0): equal timestamps, out-of-order records and jumps that
    close windows. The history is a list of independent steps (``st.lists`` grows it one step at a time),
    folded into records afterwards, so the shrinker can delete any record.

    Shrinks towards the shortest history, then towards left records with key ``k1``, non-null values and
    equal timestamps.
    """
    if join not in JOIN_KINDS:
        raise InvalidArgument(f"join={join!r} must be one of {list(JOIN_KINDS)}")
    _check_interval("min_size", min_size, "max_size", max_size)
    _check_positive("max_keys", max_keys)
    offsets = ts_offsets(max_step=max_step, max_back=max_back, max_jump=max_jump)
    sides = st.sampled_from(SIDES)
    side_keys = {side: keys(max_keys=max_keys, prefix=_key_prefix(join, side)) for side in SIDES}
    foreign_keys = keys(max_keys=max_keys, null_keys=null_foreign_keys, prefix="f")

    @st.composite
    def _step(draw: st.DrawFn) -> _Step:
        side = draw(sides)
        key = None if null_keys and draw(_RARELY) else draw(side_keys[side])
        is_null = null_values and draw(_RARELY)
        foreign = draw(foreign_keys) if join == "fk" and side == "left" and not is_null else None
        return _Step(side, key, is_null, "" if foreign is None else str(foreign), draw(offsets))

    return st.lists(_step(), min_size=min_size, max_size=max_size).map(lambda steps: _fold(join, steps))


class _Step(NamedTuple):
    """One drawn record before labelling: its side, key, whether its value is null, its foreign key
    (foreign-key joins' left records; empty for a null one) and its ts offset."""

    side: Side
    key: Key
    is_null: bool
    foreign_key: str
    offset: int


def _fold(join: JoinKind, steps: Sequence[_Step]) -> tuple[Record, ...]:
    """Label the values (``L<i>``/``R<i>``, ``<fk>:L<i>``) and turn offsets into timestamps."""
    history: list[Record] = []
    stream_time = 0
    for index, step in enumerate(steps):
        label = f"{step.side[0].upper()}{index}"
        value: Value = None if step.is_null else label
        if value is not None and join == "fk" and step.side == "left":
            value = f"{step.foreign_key}:{label}"
        ts = max(0, stream_time + step.offset)
        stream_time = max(stream_time, ts)
        history.append(Record(side=step.side, key=step.key, value=value, ts=ts))
    return tuple(history)


def emission_pass_scenarios(
    *, stores: Sequence[StoreKind] = STORE_KINDS, min_size: int = 16, max_size: int = 24, max_keys: int = 4
) -> st.SearchStrategy[tuple[JoinSpec, tuple[Record, ...]]]:
    """Stream-stream outer joins shaped for the deferred emission passes of the spurious-free joins
    (3.1+, spec SS-16 to SS-20): an ``ofTimeDifferenceAndGrace`` window at most 2 ms wide on each side with a
    grace of 1 to 15 ms, and ``min_size`` to ``max_size`` records over ``max_keys`` keys (null keys and
    values included) whose stream time advances in small steps (at most 3 ms ahead, 2 back, jumps of 5).

    So both sides hold several unjoined records at once, passes run and stop among them, and out-of-order
    and null records land between passes: where 3.8+'s ``minTime`` decides which pass emits what. The
    general strategy's jumps close every window at once and almost never get there (a reference that left
    ``minTime`` one record early passed 2,000 of its stream-stream scenarios; about one in twelve of these
    tells them apart).

    Shrinks towards shorter histories and the zero-width window with grace 1.
    """
    _check_interval("min_size", min_size, "max_size", max_size)
    _check_positive("max_keys", max_keys)
    _check_choices("stores", stores, STORE_KINDS)
    narrow = st.integers(min_value=0, max_value=2)
    window = st.builds(Window, before=narrow, after=narrow, grace=st.integers(min_value=1, max_value=15))
    history = join_histories(
        "stream-stream",
        min_size=min_size,
        max_size=max_size,
        max_keys=max_keys,
        null_keys=True,
        max_step=3,
        max_back=2,
        max_jump=5,
    )
    spec = st.builds(
        JoinSpec,
        join=st.just("stream-stream"),
        variant=st.just("outer"),
        window=window,
        stores=st.sampled_from(list(stores)),
    )
    return st.tuples(spec, history)


def join_scenarios(
    join: JoinKind,
    behaviour: Behaviour,
    *,
    variants: Sequence[Variant] = VARIANTS,
    min_size: int = 0,
    max_size: int = 8,
    max_keys: int = 2,
    max_difference: int = 10,
    max_grace: int = 10,
    max_history: int = 20,
    stores: Sequence[StoreKind] = STORE_KINDS,
    versioned: bool = True,
    stream_table_grace: bool = True,
) -> st.SearchStrategy[tuple[JoinSpec, tuple[Record, ...]]]:
    """A ``join`` specification that ``behaviour``'s Kafka era offers, with a history for it.

    ``stores`` are the stream-stream store kinds to draw from (table joins use Kafka's default, RocksDB),
    ``versioned`` whether versioned tables may be drawn, ``stream_table_grace`` whether KIP-923 grace may.

    Reads the era's flags: windows with grace from 2.1, in-memory stream-stream stores from 2.4, versioned
    tables from 3.5 (the left side of a stream-table join is a stream), stream-table grace from 3.6 (over a
    versioned table, at most its history). Null keys only where Kafka does not fail on them (not a left
    stream-stream join in 0.10.0, a table-table join in 0.10.x, or a stream-table left join with grace).
    Histories come from ``join_histories`` (``min_size`` to ``max_size`` records over ``max_keys`` keys per
    side); time jumps, forward and back, reach one past the widest window plus grace, so windows close,
    records expire and late records land anywhere before the stream time.

    Stream-stream outer joins with grace come, one draw in three, from ``emission_pass_scenarios``
    (longer histories in slow stream time, where the deferred emission passes decide the output).

    Shrinks towards the first offered variant, a zero-width window and unversioned tables, with the
    history shrinking as in ``join_histories``.
    """
    if join not in JOIN_KINDS:
        raise InvalidArgument(f"join={join!r} must be one of {list(JOIN_KINDS)}")
    offered = [variant for variant in variants if variant in JOIN_VARIANTS[join]]
    if not offered:
        raise InvalidArgument(f"variants={list(variants)!r} offers no variant of a {join} join")
    _check_non_negative("max_difference", max_difference)
    _check_non_negative("max_grace", max_grace)
    _check_non_negative("max_history", max_history)
    _check_choices("stores", stores, STORE_KINDS)
    max_jump = max(2 * max_difference + max_grace + 1, 3)
    with_null_keys = {
        flag: join_histories(
            join,
            min_size=min_size,
            max_size=max_size,
            max_keys=max_keys,
            null_keys=flag,
            max_back=max_jump,
            max_jump=max_jump,
        )
        for flag in (False, True)
    }
    join_window = join_windows(
        max_difference=max_difference, max_grace=max_grace, with_grace=behaviour.join_windows_have_grace
    )
    kinds = [kind for kind in stores if kind == "rocksdb" or behaviour.stream_joins_can_use_in_memory_stores]
    store_kinds = st.sampled_from(kinds or list(stores))
    versioned_sides: tuple[Side, ...] = ("right",) if join == "stream-table" else SIDES
    versioning_strategy = versionings(versioned_sides, max_history=max_history)
    draws_versioning = join != "stream-stream" and versioned and behaviour.has_versioned_stores
    draws_grace = join == "stream-table" and stream_table_grace and behaviour.has_stream_table_grace
    passes = (
        emission_pass_scenarios(stores=kinds or list(stores))
        if join == "stream-stream" and "outer" in offered and behaviour.join_windows_have_grace
        else None
    )

    @st.composite
    def _scenario(draw: st.DrawFn) -> tuple[JoinSpec, tuple[Record, ...]]:
        if passes is not None and draw(_ONE_IN_THREE):
            return draw(passes)
        variant = draw(st.sampled_from(offered))
        window: Window | None = None
        versioning: Versioning | None = None
        store: StoreKind = "rocksdb"
        null_keys = True
        if join == "stream-stream":
            window = draw(join_window)
            store = draw(store_kinds)
            null_keys = not (variant == "left" and behaviour.null_key_fails_left_stream_join)
        elif draws_versioning:
            versioning = draw(versioning_strategy)
        if draws_grace and versioning is not None and draw(st.booleans()):
            window = Window(grace=draw(st.integers(min_value=0, max_value=versioning.history_ms)))
            null_keys = variant != "left"
        if join == "table-table":
            null_keys = not behaviour.null_key_fails_table_join
        spec = JoinSpec(join=join, variant=variant, window=window, stores=store, versioned=versioning)
        return spec, draw(with_null_keys[null_keys])

    return _scenario()
