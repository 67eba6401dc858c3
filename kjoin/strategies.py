"""Hypothesis strategies for join inputs: small pieces that compose and shrink (docs/strategies.md).

Each strategy is a few lines, validates its arguments when it is built (``InvalidArgument`` naming the
argument and its value), and says in its docstring what it shrinks towards. Histories grow one record at
a time (``while draw(_ANOTHER_RECORD)``), so the shrinker can delete any single record.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import msgspec
from msgspec.structs import replace

try:
    from hypothesis import strategies as st
    from hypothesis.errors import InvalidArgument
except ModuleNotFoundError as missing:  # a bare install (tests/test_public_api.py)
    raise ModuleNotFoundError(
        f"kjoin.strategies needs {missing.name}: pip install 'kjoin-conformance[fuzz]'", name=missing.name
    ) from missing

from kjoin.oracle.behaviour import DAY_MS, Behaviour
from kjoin.oracle.records import (
    JOIN_KINDS,
    KEY_MAPPERS,
    OPTIMIZATIONS,
    SIDES,
    STORE_KINDS,
    VARIANTS,
    JoinKind,
    JoinSpec,
    Key,
    KeyMapper,
    Record,
    Settings,
    Side,
    StoreKind,
    Value,
    Variant,
    Versioning,
    Window,
)
from kjoin.oracle.window_store import segment_interval

__all__ = [
    "JOIN_VARIANTS",
    "as_self_joins",
    "emission_pass_scenarios",
    "histories",
    "join_histories",
    "join_scenarios",
    "join_specs",
    "join_windows",
    "keys",
    "min_time_boundary_scenarios",
    "pass_stop_boundary_scenarios",
    "records",
    "store_expiry_scenarios",
    "timestamps",
    "ts_offsets",
    "values",
    "versioned_gap_scenarios",
    "versionings",
    "windows",
    "with_production_settings",
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
    "stream-globaltable": ("inner", "left"),
}
"""The variants Kafka offers per join kind (no outer stream-table, foreign-key or stream-globaltable join)."""

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


def _key_prefix(join: JoinKind, side: Side, key_mapper: KeyMapper) -> str:
    """Key names: ``k1..`` on both sides; a foreign-key join keys its left rows ``p1..`` (primary keys)
    and its right rows ``f1..`` (the foreign keys the left values point to); a stream-globaltable join whose
    key mapper reads the value keys its global table ``f1..`` (the keys the stream values point to)."""
    if join == "fk":
        return "p" if side == "left" else "f"
    if join == "stream-globaltable" and key_mapper != "key" and side == "right":
        return "f"
    return "k"


def _points_into_values(join: JoinKind, key_mapper: KeyMapper) -> bool:
    """Whether the left values carry the key of a right row (``<fk>:L<i>`` or ``L<i>,<fk>``)."""
    return join == "fk" or (join == "stream-globaltable" and key_mapper != "key")


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
    key_mapper: KeyMapper = "key",
) -> st.SearchStrategy[tuple[Record, ...]]:
    """Input histories of ``min_size`` to ``max_size`` records for a ``join``, with unique, labelled values.

    Record number ``i`` carries the value ``L<i>`` (left) or ``R<i>`` (right), so every output names the
    records it was computed from; a foreign-key join's left value is ``<fk>:L<i>`` with a foreign key
    ``f1..`` (or an empty one, a null foreign key, if ``null_foreign_keys``), and so is a stream-globaltable
    join's with the ``colon-prefix`` ``key_mapper`` (``L<i>,<fk>`` with ``comma-second``, ``L<i>`` alone for
    a null mapped key). 1 in 5 values is null if
    ``null_values`` (a tombstone for a table), and 1 in 5 keys if ``null_keys``. Each ts lies ``ts_offsets``
    away from the largest ts so far (never below 0): equal timestamps, out-of-order records and jumps that
    close windows. The history is a list of independent steps (``st.lists`` grows it one step at a time),
    folded into records afterwards, so the shrinker can delete any record. One foreign-key history in
    three also has a foreign-key change among its records (a left row's key goes from ``f1`` through null
    or to ``f2`` and maybe back, then ``f1``'s and ``f2``'s right rows change or are deleted): where a port
    keeps an old subscription or mishandles a right-side delete.

    Shrinks towards the shortest history, then towards left records with key ``k1``, non-null values and
    equal timestamps.
    """
    if join not in JOIN_KINDS:
        raise InvalidArgument(f"join={join!r} must be one of {list(JOIN_KINDS)}")
    _check_interval("min_size", min_size, "max_size", max_size)
    _check_positive("max_keys", max_keys)
    offsets = ts_offsets(max_step=max_step, max_back=max_back, max_jump=max_jump)
    steps = _history_steps(
        join, offsets, min_size, max_size, max_keys, null_keys, null_values, null_foreign_keys, key_mapper
    )
    if join == "fk":
        steps = _with_episode(steps, _foreign_key_change(max_keys, offsets))
    return steps.map(lambda drawn: _fold(join, drawn, key_mapper=key_mapper))


def _history_steps(
    join: JoinKind,
    offsets: st.SearchStrategy[int],
    min_size: int,
    max_size: int,
    max_keys: int,
    null_keys: bool,
    null_values: bool,
    null_foreign_keys: bool,
    key_mapper: KeyMapper = "key",
) -> st.SearchStrategy[list[_Step]]:
    """The steps ``join_histories`` folds into records (see there)."""
    sides = st.sampled_from(SIDES)
    side_keys = {side: keys(max_keys=max_keys, prefix=_key_prefix(join, side, key_mapper)) for side in SIDES}
    points = _points_into_values(join, key_mapper)
    foreign_keys = keys(max_keys=max_keys, null_keys=null_foreign_keys, prefix="f")

    @st.composite
    def _step(draw: st.DrawFn) -> _Step:
        side = draw(sides)
        key = None if null_keys and draw(_RARELY) else draw(side_keys[side])
        is_null = null_values and draw(_RARELY)
        foreign = draw(foreign_keys) if points and side == "left" and not is_null else None
        return _Step(side, key, is_null, "" if foreign is None else str(foreign), draw(offsets))

    return st.lists(_step(), min_size=min_size, max_size=max_size)


def _with_episode(
    steps: st.SearchStrategy[list[_Step]], episode: st.SearchStrategy[list[_Step]], *, always: bool = False
) -> st.SearchStrategy[list[_Step]]:
    """``steps``, or one time in three (``always``: every time) ``episode`` placed among them (at a
    drawn position)."""

    @st.composite
    def _placed(draw: st.DrawFn) -> list[_Step]:
        drawn = draw(steps)
        if not always and not draw(_ONE_IN_THREE):
            return drawn
        at = draw(st.integers(min_value=0, max_value=len(drawn)))
        return [*drawn[:at], *draw(episode), *drawn[at:]]

    return _placed()


def _foreign_key_change(max_keys: int, offsets: st.SearchStrategy[int]) -> st.SearchStrategy[list[_Step]]:
    """A foreign-key episode (issue 23): a left row subscribes to ``f1``, its foreign key goes through null
    (one time in two) or straight to another key and maybe back, then the old and the new foreign key's
    right rows change or are deleted: a subscription left behind, a null round trip and a right-side
    delete of a key with subscribers all show there."""

    @st.composite
    def _episode(draw: st.DrawFn) -> list[_Step]:
        primary = draw(keys(max_keys=max_keys, prefix="p"))
        old, new = "f1", draw(st.sampled_from(["f2", "f1"]))
        episode = [
            _Step("right", old, False, "", draw(offsets)),
            _Step("left", primary, False, old, draw(offsets)),
        ]
        if draw(st.booleans()):
            episode.append(_Step("left", primary, False, "", draw(offsets)))  # through a null foreign key
        elif new == old:
            new = "f2"
        episode.append(_Step("left", primary, False, new, draw(offsets)))
        for foreign in draw(st.permutations([old, "f2"])):
            episode.append(_Step("right", foreign, draw(_ONE_IN_THREE), "", draw(offsets)))
        return episode

    return _episode()


def _grace_clock(grace: int, max_keys: int) -> st.SearchStrategy[list[_Step]]:
    """A KIP-923 episode (issue 23): a stream record is buffered, a table update passes its ts + ``grace``
    before any stream record does, its key's table row changes after that, and one time in two a stream
    record past its ts + grace releases it: a buffer clocked by table updates releases it early, one
    clocked by stream records at the right time, against the right table version."""

    @st.composite
    def _episode(draw: st.DrawFn) -> list[_Step]:
        key = draw(keys(max_keys=max_keys))
        other = draw(keys(max_keys=max_keys))
        past = st.integers(min_value=grace + 1, max_value=grace + 3)
        episode = [
            _Step("right", key, False, "", draw(st.integers(min_value=0, max_value=2))),
            _Step("left", key, False, "", draw(st.integers(min_value=0, max_value=2))),
            _Step("right", other, False, "", draw(past)),
            _Step("right", key, draw(_ONE_IN_THREE), "", draw(st.integers(min_value=-1, max_value=1))),
        ]
        if draw(st.booleans()):
            episode.append(_Step("left", other, False, "", draw(st.integers(min_value=0, max_value=2))))
        return episode

    return _episode()


class _Step(NamedTuple):
    """One drawn record before labelling: its side, key, whether its value is null, its foreign key
    (foreign-key joins' left records; empty for a null one) and its ts offset."""

    side: Side
    key: Key
    is_null: bool
    foreign_key: str
    offset: int


def _fold(
    join: JoinKind, steps: Sequence[_Step], *, absolute: bool = False, key_mapper: KeyMapper = "key"
) -> tuple[Record, ...]:
    """Label the values (``L<i>``/``R<i>``, ``<fk>:L<i>``, ``L<i>,<fk>``) and turn offsets into timestamps
    (offsets from the stream time so far, or the timestamps themselves if ``absolute``)."""
    points = _points_into_values(join, key_mapper)
    history: list[Record] = []
    stream_time = 0
    for index, step in enumerate(steps):
        label = f"{step.side[0].upper()}{index}"
        value: Value = None if step.is_null else label
        if value is not None and points and step.side == "left":
            if key_mapper == "comma-second" and join == "stream-globaltable":
                value = f"{label},{step.foreign_key}" if step.foreign_key else label
            else:
                value = f"{step.foreign_key}:{label}"
        ts = max(0, step.offset if absolute else stream_time + step.offset)
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


def _check_boundary_arguments(
    variants: Sequence[str], stores: Sequence[str], min_per_side: int, max_per_side: int
) -> None:
    """The arguments the pass-boundary strategies share (``min_time_boundary_scenarios``,
    ``pass_stop_boundary_scenarios``), checked when the strategy is built."""
    _check_choices("variants", variants, ("outer", "left"))
    if not variants:
        raise InvalidArgument("variants=[] must offer outer or left")
    _check_choices("stores", stores, STORE_KINDS)
    _check_positive("min_per_side", min_per_side)
    _check_interval("min_per_side", min_per_side, "max_per_side", max_per_side)


def min_time_boundary_scenarios(
    *,
    variants: Sequence[Variant] = ("outer", "left"),
    stores: Sequence[StoreKind] = STORE_KINDS,
    min_per_side: int = 3,
    max_per_side: int = 5,
) -> st.SearchStrategy[tuple[JoinSpec, tuple[Record, ...]]]:
    """Stream-stream outer and left joins shaped for 3.8+'s emission pass and the ``minTime`` it leaves
    behind (KAFKA-15417, spec SS-22 to SS-25): several unjoined records per side are held, then one record
    closes the first of them and runs a pass that finds both sides open, and then stream time steps across
    ``minTime + joinAfter + grace``.

    1. *Held*: ``min_per_side`` to ``max_per_side`` records per side, interleaved, each under a key of its
       own (one in five reuses an earlier record's key), in non-decreasing time (steps of 1, 2 or 0 ms). The
       window (``ofTimeDifferenceAndGrace``, ``before`` and ``after`` drawn apart in ``[0, 3]``) has a grace
       at least as long as their time span, so no pass runs among them and every one is held.
    2. *Trigger*: a record on the side of a held record, at the first stream time that closes it (``ts +
       joinAfter + grace + 1``, or the largest held ts if later): its processor's ``minTime`` test lets the
       pass run, which emits what has closed and, in an outer join, stops one entry after the later of the
       two sides' first open records. Only closing points that leave held entries past that stop entry
       are drawn (where there are some).
    3. *Steps*: 1 to 3 records in time order, each on a drawn side, on an edge of that side's processor's
       early-return bound ``minTime + joinAfter + grace`` (exactly on it, or 1 ms past), for ``minTime``
       the pass's stop entry (3.8+ as released) and the last held entry (where a walk that never stops
       leaves it): a record past the first bound and not past the second runs the pass under the first
       ``minTime`` and not under the second. Then one time in two a record late enough to close
       everything.

    An outer join whose pass left ``minTime`` at the stop entry and one whose walk went on to the last
    entry then emit the closed records at different records (``conformance/differential/corners.py``,
    ``ss-min-time-past-stop``). A left join holds left records only, so its walk never stops early; it is
    drawn (one time in four) for the timing of the pass itself. Values are labelled as in ``join_histories``.

    Shrinks towards an outer join with a zero-width window, ``min_per_side`` held records per side 1 ms
    apart, the first closing point, and one step 1 ms past the stop entry's bound.
    """
    _check_boundary_arguments(variants, stores, min_per_side, max_per_side)
    per_side = st.integers(min_value=min_per_side, max_value=max_per_side)
    narrow = st.integers(min_value=0, max_value=3)
    outer_mostly: list[Variant] = ["outer", "outer", "outer", "left"]
    weighted = list(variants) if len(set(variants)) == 1 else outer_mostly
    only_left: list[Side] = ["left"]
    only_right: list[Side] = ["right"]

    @st.composite
    def _scenario(draw: st.DrawFn) -> tuple[JoinSpec, tuple[Record, ...]]:
        variant = draw(st.sampled_from(weighted))
        sides = only_left * draw(per_side) + only_right * draw(per_side)
        held: list[_Step] = []
        ts = 0
        for number, side in enumerate(draw(st.permutations(sides))):
            ts += draw(st.sampled_from([1, 2, 0])) if number else 0
            reused = bool(held) and draw(_RARELY)
            key = draw(st.sampled_from([step.key for step in held])) if reused else f"k{number + 1}"
            held.append(_Step(side, key, False, "", ts))
        window = Window(before=draw(narrow), after=draw(narrow), grace=ts + draw(st.integers(0, 3)))
        spec = JoinSpec(
            join="stream-stream", variant=variant, window=window, stores=draw(st.sampled_from(list(stores)))
        )
        fresh = iter(f"k{number}" for number in range(len(held) + 1, 2 * len(held) + 10))
        order = sorted(held, key=lambda step: (step.offset, step.side == "left", str(step.key).encode()))
        in_store = order if variant == "outer" else [step for step in order if step.side == "left"]
        side, trigger_at = draw(st.sampled_from(_trigger_points(in_store, window)))
        steps = [*held, _Step(side, next(fresh), False, "", trigger_at)]
        stop, last = _min_time_after_pass(in_store, trigger_at, window)
        stream_time = trigger_at
        for _ in range(draw(st.integers(min_value=1, max_value=3))):
            side = draw(st.sampled_from(SIDES))
            # minTime + joinAfter + grace for this side's processor: 1 ms past the stop entry's (the first
            # stream time at which the pass runs), on the last entry's (the last at which only it runs),
            # on the stop entry's (neither runs), 1 ms past the last entry's (both run)
            stop_edge, last_edge = (_closes_after(ts, side, window) - 1 for ts in (stop, last))
            edge = draw(st.sampled_from([stop_edge + 1, last_edge, stop_edge, last_edge + 1]))
            stream_time = max(stream_time, edge)
            steps.append(_Step(side, next(fresh), False, "", stream_time))
        if draw(st.booleans()):
            late = _closes_after(trigger_at, "left", window) + window.before + window.after
            steps.append(_Step(draw(st.sampled_from(SIDES)), next(fresh), False, "", late))
        return spec, _fold("stream-stream", steps, absolute=True)

    return _scenario()


def pass_stop_boundary_scenarios(
    *,
    variants: Sequence[Variant] = ("outer", "left"),
    stores: Sequence[StoreKind] = STORE_KINDS,
    min_per_side: int = 1,
    max_per_side: int = 3,
) -> st.SearchStrategy[tuple[JoinSpec, tuple[Record, ...]]]:
    """Stream-stream outer and left joins shaped for the stop of 3.1-3.7's emission pass (spec SS-18,
    KAFKA-13721): the pass emits held records in store order until the first with ``ts + joinAfter + grace
    >= streamTime`` (``joinAfter`` of the processor that runs it), so a record exactly on that bound stays
    held and can still join.

    1. *Held*: ``min_per_side`` to ``max_per_side`` records per side (a left join: the right ones never
       held), interleaved, each under a key of its own, the first at 0 and the second 1 or 2 ms later, then
       steps of 1, 2 or 0 ms. The window (``ofTimeDifferenceAndGrace``, ``before`` and ``after`` drawn apart
       in ``[0, 3]``) has a grace at least as long as their time span, so no pass runs among them.
    2. *Boundary*: a target held record at ``t > 0`` and a processor side whose pass runs at ``t +
       joinAfter + grace`` (``minTime``, 0, ``< streamTime - lookBack - grace``); a record of that side
       under a fresh key at that stream time (three times in five; else 1 ms before or after it).
    3. *Match*: a record of the target's other side under its key at the window's far edge ``t + after``
       (a left target) or ``t + before`` (a right one), three times in five; else 1 ms inside or outside.
       Then one time in two a record late enough to close everything.

    At the boundary, 3.1-3.7 keep the target held, and the match joins it; a pass that also emits at
    equality forwards ``(v, null)`` first (the survivor ``stream_stream.py:239 >= -> >`` of
    docs/mutation-report-stateful.md). Values are labelled as in ``join_histories``.

    Shrinks towards an outer join with a zero-width window, ``min_per_side`` held records per side, the
    first target, and both records exactly on their bounds.
    """
    _check_boundary_arguments(variants, stores, min_per_side, max_per_side)
    per_side = st.integers(min_value=min_per_side, max_value=max_per_side)
    narrow = st.integers(min_value=0, max_value=3)
    mostly_exact = st.sampled_from([0, 0, 0, -1, 1])
    only_left: list[Side] = ["left"]
    only_right: list[Side] = ["right"]

    @st.composite
    def _scenario(draw: st.DrawFn) -> tuple[JoinSpec, tuple[Record, ...]]:
        variant = draw(st.sampled_from(list(variants)))
        sides = only_left * draw(per_side) + only_right * draw(per_side)
        held: list[_Step] = []
        ts = 0
        for number, side in enumerate(draw(st.permutations(sides))):
            if number:
                ts += draw(st.sampled_from([1, 2] if number == 1 else [1, 2, 0]))
            held.append(_Step(side, f"k{number + 1}", False, "", ts))
        window = Window(before=draw(narrow), after=draw(narrow), grace=ts + draw(st.integers(0, 3)))
        spec = JoinSpec(
            join="stream-stream", variant=variant, window=window, stores=draw(st.sampled_from(list(stores)))
        )
        in_store = held if variant == "outer" else [step for step in held if step.side == "left"]
        targets = [
            (step, processor)
            for step in in_store
            for processor in SIDES
            if step.offset > 0 and _pass_runs_at_bound(step.offset, processor, window)
        ]
        fresh = iter(f"k{number}" for number in range(len(held) + 1, len(held) + 4))
        steps = list(held)
        if targets:  # none: a left join whose left records are all at 0 (a shape still worth running)
            target, processor = draw(st.sampled_from(targets))
            bound = target.offset + _join_after(processor, window) + (window.grace or 0)
            steps.append(_Step(processor, next(fresh), False, "", max(0, bound + draw(mostly_exact))))
            other: Side = "right" if target.side == "left" else "left"
            far = window.after if target.side == "left" else window.before
            match = max(0, target.offset + far + draw(mostly_exact))
            steps.append(_Step(other, target.key, False, "", match))
        if draw(st.booleans()):
            late = max(step.offset for step in steps) + window.before + window.after + (window.grace or 0) + 1
            steps.append(_Step(draw(st.sampled_from(SIDES)), next(fresh), False, "", late))
        return spec, _fold("stream-stream", steps, absolute=True)

    return _scenario()


def _join_after(processor: Side, window: Window) -> int:
    """``joinAfter`` of ``processor``'s join: ``after`` for the left processor, ``before`` for the right."""
    return window.after if processor == "left" else window.before


def _pass_runs_at_bound(ts: int, processor: Side, window: Window) -> bool:
    """Whether a 3.1-3.7 pass of ``processor`` runs at stream time ``ts + joinAfter + grace`` with ``minTime``
    0: ``0 < streamTime - lookBack - grace`` (``lookBack``: the other processor's ``joinAfter``)."""
    other: Side = "right" if processor == "left" else "left"
    return ts + _join_after(processor, window) - _join_after(other, window) > 0


def _closes_after(ts: int, side: Side, window: Window) -> int:
    """The first stream time at which a held record of ``side`` at ``ts`` has closed (3.8+, spec SS-22): a
    left record after ``ts + after + grace``, a right one after ``ts + before + grace``. Read another way,
    ``_closes_after(minTime, side) - 1`` is the bound of the early return of a ``side`` processor's pass,
    ``minTime + joinAfter + grace`` (``joinAfter`` is ``after`` for the left processor, ``before`` for the
    right one)."""
    bound = window.after if side == "left" else window.before
    return ts + bound + (window.grace or 0) + 1


def _trigger_points(held: Sequence[_Step], window: Window) -> list[tuple[Side, int]]:
    """Where a record runs a pass that leaves entries of ``held`` (in store order) past its stop entry:
    (its side, its ts) at the first stream time that closes a held record (at least the largest held ts),
    on that record's side, whose processor's early return then lets the pass run. All closing points when
    none leaves entries past the stop (a left join)."""
    latest = max(step.offset for step in held)
    points = [(step.side, max(latest, _closes_after(step.offset, step.side, window))) for step in held]
    past_stop = [point for point in points if len(set(_min_time_after_pass(held, point[1], window))) == 2]
    return list(dict.fromkeys(past_stop or points))


def _min_time_after_pass(held: Sequence[_Step], stream_time: int, window: Window) -> tuple[int, int]:
    """Where a 3.8+ pass at ``stream_time`` over ``held`` (in store order, one value per key) leaves
    ``minTime`` (spec SS-24): the entry after the later of the two sides' first open records, or the last
    entry when it never sees both; and the last entry's ts."""
    open_sides: set[Side] = set()
    for step in held:
        if len(open_sides) == 2:
            return step.offset, held[-1].offset
        if _closes_after(step.offset, step.side, window) > stream_time:
            open_sides.add(step.side)
    return held[-1].offset, held[-1].offset


def versioned_gap_scenarios(
    *, variants: Sequence[Variant] = ("inner", "left"), max_noise: int = 3
) -> st.SearchStrategy[tuple[JoinSpec, tuple[Record, ...]]]:
    """Stream-table joins over a versioned table (3.5+) whose key's history has a gap that an out-of-order
    put fills exactly at its start (spec VS-6, VS-9; issue 23, the survivor ``versioned.py:115``).

    A key ``k1`` of the table gets a value at ``a``, a tombstone at ``d > a`` and a value at ``c > d + 1``:
    its versions end at ``d`` and its current value starts at ``c``, so ``[d, c)`` is a gap. Then a put of
    ``k1`` exactly at ``d`` (out of order, within the history retention) must fill the gap up to ``c``, and
    1 or 2 stream records for ``k1`` inside the gap look it up (the put's value, not nothing). One time in
    two a stream record looks into the gap before the put too (nothing there yet), and one time in three
    a later put lands inside the filled version (a version ending at it). Up to ``max_noise`` records
    under ``k2`` come first. The history retention covers every put (at least ``c - a``), so none is
    dropped as too old. Values are labelled as in ``join_histories``; timestamps are absolute.

    Only the stream-table join looks a versioned table up by time (``get(key, ts)``, spec VS-9): a
    table-table or foreign-key join reads the latest value and drops out-of-order updates, so a wrong
    version in the history does not show there.

    Shrinks towards an inner join, no noise, the narrowest gap and one lookup at its start.
    """
    _check_choices("variants", variants, ("inner", "left"))
    if not variants:
        raise InvalidArgument("variants=[] must offer inner or left")
    _check_non_negative("max_noise", max_noise)
    small = st.integers(min_value=1, max_value=4)

    @st.composite
    def _scenario(draw: st.DrawFn) -> tuple[JoinSpec, tuple[Record, ...]]:
        variant = draw(st.sampled_from(list(variants)))
        noise = [
            _Step(draw(st.sampled_from(SIDES)), "k2", draw(_RARELY), "", draw(st.integers(0, 3)))
            for _ in range(draw(st.integers(min_value=0, max_value=max_noise)))
        ]
        first = max((step.offset for step in noise), default=0) + draw(st.integers(0, 2))
        deleted = first + draw(small)
        current = deleted + 1 + draw(small)
        inside = st.integers(min_value=deleted, max_value=current - 1)
        steps = [
            *noise,
            _Step("right", "k1", False, "", first),
            _Step("right", "k1", True, "", deleted),
            _Step("right", "k1", False, "", current),
        ]
        if draw(st.booleans()):
            steps.append(_Step("left", "k1", False, "", draw(inside)))  # the gap before it is filled
        steps.append(_Step("right", "k1", False, "", deleted))  # the put at the versions' end
        if draw(_ONE_IN_THREE):
            steps.append(_Step("right", "k1", False, "", draw(st.integers(deleted + 1, current))))
        lookups = sorted(draw(st.lists(inside, min_size=1, max_size=2)))
        steps.extend(_Step("left", "k1", False, "", ts) for ts in lookups)
        history = current - first + draw(st.integers(min_value=0, max_value=5))
        versioning = Versioning(left=False, right=True, history_ms=history)
        spec = JoinSpec(join="stream-table", variant=variant, versioned=versioning)
        return spec, _fold("stream-table", steps, absolute=True)

    return _scenario()


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

    A stream-table join with grace has, one time in three, a history around a buffered stream record
    whose grace a table update passes before a stream record does (KIP-923's buffer is clocked by the
    stream side only).

    Stream-stream outer joins with grace come, one draw in three, from ``emission_pass_scenarios``
    (longer histories in slow stream time, where the deferred emission passes decide the output), and one
    in three of the other stream-stream draws (one in two where there are no emission passes, e.g. before
    2.1) from ``store_expiry_scenarios`` (timestamps on the window stores' expiry points and RocksDB segment
    boundaries).

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
    mappers: tuple[KeyMapper, ...] = KEY_MAPPERS if join == "stream-globaltable" else ("key",)
    with_null_keys = {
        (flag, mapper): join_histories(
            join,
            min_size=min_size,
            max_size=max_size,
            max_keys=max_keys,
            null_keys=flag,
            max_back=max_jump,
            max_jump=max_jump,
            key_mapper=mapper,
        )
        for flag in (False, True)
        for mapper in mappers
    }
    join_window = join_windows(
        max_difference=max_difference, max_grace=max_grace, with_grace=behaviour.join_windows_have_grace
    )
    kinds = [kind for kind in stores if kind == "rocksdb" or behaviour.stream_joins_can_use_in_memory_stores]
    store_kinds = st.sampled_from(kinds or list(stores))
    versioned_sides: tuple[Side, ...] = ("right",) if join == "stream-table" else SIDES
    versioning_strategy = versionings(versioned_sides, max_history=max_history)
    draws_versioning = (
        join not in ("stream-stream", "stream-globaltable") and versioned and behaviour.has_versioned_stores
    )
    draws_grace = join == "stream-table" and stream_table_grace and behaviour.has_stream_table_grace
    passes = (
        emission_pass_scenarios(stores=kinds or list(stores))
        if join == "stream-stream" and "outer" in offered and behaviour.join_windows_have_grace
        else None
    )

    expiry = (
        store_expiry_scenarios(behaviour, variants=offered, stores=stores, max_keys=max_keys)
        if join == "stream-stream"
        else None
    )

    expiry_odds = _ONE_IN_THREE if passes is not None else st.booleans()

    def _grace_history(grace: int, null_keys: bool) -> st.SearchStrategy[tuple[Record, ...]]:
        """A stream-table history with a grace-clock episode among its records (``_grace_clock``)."""
        offsets = ts_offsets(max_back=max_jump, max_jump=max_jump)
        plain = _history_steps(join, offsets, 0, max(max_size // 2, 1), max_keys, null_keys, True, False)
        episode = _grace_clock(grace, max_keys)
        return _with_episode(plain, episode, always=True).map(lambda drawn: _fold(join, drawn))

    @st.composite
    def _scenario(draw: st.DrawFn) -> tuple[JoinSpec, tuple[Record, ...]]:
        if passes is not None and draw(_ONE_IN_THREE):
            return draw(passes)
        if expiry is not None and draw(expiry_odds):
            return draw(expiry)
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
        history: tuple[Record, ...] | None = None
        if draws_grace and versioning is not None and draw(st.booleans()):
            window = Window(grace=draw(st.integers(min_value=0, max_value=versioning.history_ms)))
            null_keys = variant != "left"
            if draw(_ONE_IN_THREE):
                history = draw(_grace_history(window.grace or 0, null_keys))
        if join == "table-table":
            null_keys = not behaviour.null_key_fails_table_join
        mapper = draw(st.sampled_from(mappers))
        spec = JoinSpec(
            join=join, variant=variant, window=window, stores=store, versioned=versioning, key_mapper=mapper
        )
        return spec, history if history is not None else draw(with_null_keys[null_keys, mapper])

    return _scenario()


def store_expiry_scenarios(
    behaviour: Behaviour,
    *,
    variants: Sequence[Variant] = VARIANTS,
    stores: Sequence[StoreKind] = STORE_KINDS,
    min_size: int = 9,
    max_size: int = 24,
    max_keys: int = 2,
) -> st.SearchStrategy[tuple[JoinSpec, tuple[Record, ...]]]:
    """Stream-stream scenarios whose records land on the window stores' expiry points (spec SS-6 to SS-9,
    SS-15), built from *episodes* of three records: one stored; one on the same side (null-valued one time
    in three) that moves that store's observed time by a landmark (the retention, the late-record bound, one
    to three segment intervals) or onto one of the next segment boundaries, each plus or minus 1 ms; and a
    probe from the other side on an edge of the window around the first. A window without grace gets the
    landmarks of both legacy default graces (``24 h - 2 * before`` since 3.0, ``max(1 day, before + after)``
    before), and half the small windows are asymmetric legacy ones, where the two differ. One window in five
    (one in two before 2.1) is over a day wide (``before + after`` odd; its records then lie on its segment
    boundaries), where the pre-2.1 three-segment rule and 2.1's retention rule part. Three draws in four use
    RocksDB.

    So records expire exactly at the boundary, whole segments roll (also under a null value, which rolled
    RocksDB segments before 2.5.1), and probes find records that exact expiry dropped and a segment still
    holds: the corners where RocksDB before 3.4, before 2.5.1 and before 2.1 and the legacy grace before
    3.0 behave differently. The general strategy's jumps of a few milliseconds never reach them (measured by
    ``tools/reach.py``).

    Shrinks towards shorter histories, the first offered variant and small windows.
    """
    _check_interval("min_size", min_size, "max_size", max_size)
    _check_positive("max_keys", max_keys)
    _check_choices("stores", stores, STORE_KINDS)
    offered = [variant for variant in variants if variant in VARIANTS] or list(VARIANTS)
    kinds = [kind for kind in stores if kind == "rocksdb" or behaviour.stream_joins_can_use_in_memory_stores]
    # Half the small windows are asymmetric legacy ``of`` windows, whose default grace 3.0 changed.
    asymmetric = st.builds(
        lambda low, wider, flip: Window(low + wider, low) if flip else Window(low, low + wider),
        st.integers(min_value=0, max_value=4),
        st.integers(min_value=1, max_value=3),
        st.booleans(),
    )
    small = st.one_of(
        join_windows(max_difference=5, max_grace=5, with_grace=behaviour.join_windows_have_grace), asymmetric
    )
    odd_day_span = st.integers(min_value=0, max_value=3).map(lambda d: DAY_MS // 2 + 2 * d + 1)
    even_day_span = st.integers(min_value=0, max_value=3).map(lambda d: DAY_MS // 2 + 2 * d)
    day_wide = st.builds(Window, before=odd_day_span, after=even_day_span)
    # Three draws in four use RocksDB, whose segments most of these rules are about.
    rocksdb_mostly: list[StoreKind] = ["rocksdb", "rocksdb", "rocksdb", "memory"]
    store_kinds = (
        st.sampled_from(rocksdb_mostly)
        if set(kinds) == {"rocksdb", "memory"}
        else st.sampled_from(kinds or list(stores))
    )
    # Before 2.1 every window keeps a day or more, and only an odd span over a day parts the segment rules.
    wide_odds = _RARELY if behaviour.join_windows_have_grace else st.booleans()
    sides = st.sampled_from(SIDES)
    side_keys = keys(max_keys=max_keys)

    @st.composite
    def _scenario(draw: st.DrawFn) -> tuple[JoinSpec, tuple[Record, ...]]:
        variant = draw(st.sampled_from(offered))
        window = draw(day_wide) if draw(wide_odds) else draw(small)
        store = draw(store_kinds)
        spec = JoinSpec(join="stream-stream", variant=variant, window=window, stores=store)
        if window.before + window.after > DAY_MS:
            grid = _segment_grid(window)

            @st.composite
            def _step(inner: st.DrawFn) -> _Step:
                return _Step(inner(sides), inner(side_keys), inner(_RARELY), "", inner(grid))

            steps = draw(st.lists(_step(), min_size=min_size, max_size=max_size))
            return spec, _fold("stream-stream", steps, absolute=True)
        episode = _expiry_episode(window, side_keys)
        episodes = draw(st.lists(episode, min_size=max(1, min_size // 3), max_size=max(1, max_size // 3)))
        return spec, _fold("stream-stream", _episode_steps(episodes), absolute=True)

    return _scenario()


def _segment_grid(window: Window) -> st.SearchStrategy[int]:
    """Timestamps on the first four segment boundaries of a window over a day wide (whose retention is the
    window itself), exactly or 1 ms either side. Shrinks towards ``0``."""
    interval = segment_interval(window.before + window.after)
    return st.builds(
        lambda count, nudge: count * interval + nudge,
        st.integers(min_value=0, max_value=3),
        st.sampled_from([0, 0, 0, 1, -1]),
    )


class _Episode(NamedTuple):
    """Three records of ``store_expiry_scenarios``: one stored at ``step`` past the stream time, one on the
    same side that moves that store's observed time (null-valued if ``advance_null``), and a probe from the
    other side ``probe`` from the first record's ts. The second record lies ``advance`` after the first or,
    if ``boundaries`` is not 0, ``advance`` from the ``boundaries``-th segment boundary (of ``interval``)
    after it."""

    side: Side
    key: Key
    step: int
    advance_key: Key
    advance_null: bool
    advance: int
    boundaries: int
    interval: int
    probe: int


def _expiry_episode(window: Window, side_keys: st.SearchStrategy[Key]) -> st.SearchStrategy[_Episode]:
    """An ``_Episode`` for ``window``: the store advances by a landmark (its retention, the late-record
    bound, one to three segment intervals) or to one of the next three segment boundaries, each plus or
    minus 1 ms (both legacy default graces for a window without grace), and the probe lands on the edge of
    the window around the stored record. Shrinks towards a left record, no step, and the first landmark."""
    size = window.before + window.after
    if window.grace is None:
        graces = {max(DAY_MS - 2 * window.before, 0), max(DAY_MS, size) - size}
    else:
        graces = {window.grace}
    retentions = {size + grace for grace in graces}
    intervals = {segment_interval(retention) for retention in retentions}
    landmarks = sorted(
        retentions
        | {window.after + grace for grace in graces}
        | {count * interval for interval in intervals for count in (1, 2, 3)}
    )
    nudges = st.sampled_from([1, 0, -1])
    relative = st.tuples(st.builds(lambda at, by: at + by, st.sampled_from(landmarks), nudges), st.just(0))
    to_boundary = st.tuples(nudges, st.integers(min_value=1, max_value=3))
    edges = sorted({0, -window.after, window.before, window.after, -window.before})

    @st.composite
    def _episode(draw: st.DrawFn) -> _Episode:
        side, key, step = draw(st.sampled_from(SIDES)), draw(side_keys), draw(st.integers(0, 2))
        advance_key, advance_null = draw(side_keys), draw(_ONE_IN_THREE)
        advance, boundaries = draw(st.one_of(relative, to_boundary))
        interval = draw(st.sampled_from(sorted(intervals)))
        probe = draw(st.sampled_from(edges))
        return _Episode(side, key, step, advance_key, advance_null, advance, boundaries, interval, probe)

    return _episode()


def _episode_steps(episodes: Sequence[_Episode]) -> list[_Step]:
    """The records of ``episodes`` one after another, as absolute-ts steps (see ``_fold``)."""
    steps: list[_Step] = []
    stream_time = 0
    for episode in episodes:
        other: Side = "right" if episode.side == "left" else "left"
        stored = stream_time + episode.step
        steps.append(_Step(episode.side, episode.key, False, "", stored))
        moved = stored + episode.advance
        if episode.boundaries:
            moved = (stored // episode.interval + episode.boundaries) * episode.interval + episode.advance
        steps.append(_Step(episode.side, episode.advance_key, episode.advance_null, "", moved))
        steps.append(_Step(other, episode.key, False, "", max(0, stored + episode.probe)))
        stream_time = max(stream_time, moved)
    return steps


PRODUCTION_CACHE_BYTES = 10 * 1024 * 1024
"""``statestore.cache.max.bytes``' default, 10 MiB: the record cache of a job in production."""

PRODUCTION_EMIT_INTERVAL_MS = 1000
"""The spurious-free stream-stream join's default emit interval (spec PR-2)."""

_WALL_CLOCK_PACES: tuple[tuple[int, ...], ...] = ((0,), (0, 100), (100,), (1000,), (0, 100, 400, 1000, 2500))
"""How far the wall clock moves from one record to the next, per run: not at all, less than the emit
interval (twice: where the throttle bites), exactly the interval, or a mix of all (more than it too)."""


def with_production_settings(
    scenarios: st.SearchStrategy[tuple[JoinSpec, tuple[Record, ...]]], behaviour: Behaviour
) -> st.SearchStrategy[tuple[JoinSpec, tuple[Record, ...]]]:
    """``scenarios`` under production-like settings (docs/semantics/production.md): the record cache on
    (10 MiB, three times in four) or off, where the oracle models it (2.3+), the emit throttle at 1000 ms
    (three times in four) or 0 where the era has spurious-free joins (3.1+), commits after every record (the
    test driver's), and a wall clock per record that stays put, moves by less than the interval, by the
    interval, or by a mix that includes more. Shrinks towards the test driver's settings and a wall clock that
    never moves."""
    # On three times in four, as in production; index 0 (off) is where hypothesis shrinks to.
    caches = (
        (0,) + (PRODUCTION_CACHE_BYTES,) * 3 if behaviour.record_cache_skips_deletes_of_absent_keys else (0,)
    )
    intervals = (0,) + (PRODUCTION_EMIT_INTERVAL_MS,) * 3 if behaviour.has_spurious_free_outer_joins else (0,)

    @st.composite
    def _scenario(draw: st.DrawFn) -> tuple[JoinSpec, tuple[Record, ...]]:
        spec, records = draw(scenarios)
        settings = Settings(
            cache_max_bytes=draw(st.sampled_from(caches)),
            emit_interval_ms=draw(st.sampled_from(intervals)),
        )
        pace = draw(st.sampled_from(_WALL_CLOCK_PACES))
        wall, timed = 0, []
        for record in records:
            step = draw(st.sampled_from(pace))
            wall += step
            timed.append(msgspec.structs.replace(record, wall_clock=wall if step else None))
        return replace(spec, settings=settings), tuple(timed)

    return _scenario()


def as_self_joins(
    scenarios: st.SearchStrategy[tuple[JoinSpec, tuple[Record, ...]]],
) -> st.SearchStrategy[tuple[JoinSpec, tuple[Record, ...]]]:
    """Stream-stream ``scenarios`` as self-joins (docs/semantics/self-join.md): the one stream joined with
    itself, every record a left record (the right ones relabelled, in place), and ``topology.optimization``
    ``none`` or ``all`` (the rewrite of 3.4+). Shrinks towards ``none``."""

    @st.composite
    def _scenario(draw: st.DrawFn) -> tuple[JoinSpec, tuple[Record, ...]]:
        spec, records = draw(scenarios)
        if spec.join != "stream-stream":
            raise InvalidArgument(f"a self-join is a stream-stream join, not {spec.join!r}")
        optimization = draw(st.sampled_from(OPTIMIZATIONS))
        relabelled = tuple(
            record if record.side == "left" else msgspec.structs.replace(record, side="left")
            for record in records
        )
        return replace(spec, self_join=True, optimization=optimization), relabelled

    return _scenario()
