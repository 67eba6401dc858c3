"""The oracle's model of production settings (docs/semantics/production.md, spec PR-n), as properties.

The outputs of single behaviours are scenario files (``scenarios/stream_stream/emit-throttle-*.toml``, run by
``kjoin check``). What stays here holds over many generated inputs, in every era that has the behaviour: the
default settings change nothing, the throttle keeps joined results and only moves, keeps back or drops
non-joined ones, and a wall clock that moves by the interval per record undoes it (spec PR-4).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace

import pytest

from kjoin.oracle import behaviour_for, run
from kjoin.oracle.behaviour import flags_in_force
from kjoin.oracle.engine import processor_for
from kjoin.oracle.records import JoinSpec, Output, Record, Settings, Window

SPURIOUS_FREE_VERSIONS = ("3.1", "3.4", "3.5", "3.7", "3.9", "4.4")
"""One version per era of the spurious-free join, and the newest line."""

INTERVALS = (1, 100, 1000)


def _inputs(seed: int) -> Iterator[tuple[JoinSpec, list[Record]]]:
    """Generated left/outer spurious-free joins: a few keys, timestamps moving mostly forward with some
    out-of-order records, and a wall clock that stays put, moves by less than or more than an interval, or
    is not given for a record (no advance)."""
    rng = random.Random(seed)
    for _ in range(60):
        window = Window(rng.randint(0, 6), rng.randint(0, 6), rng.randint(0, 4))
        spec = JoinSpec("stream-stream", rng.choice(("left", "outer")), window, stores="memory")
        ts = wall = 0
        records = []
        for index in range(rng.randint(1, 24)):
            ts = max(0, ts + rng.randint(-3, 6))
            wall += rng.choice((0, 0, 50, 400, 1000, 2500))
            side = rng.choice(("left", "right"))
            records.append(
                Record(side, rng.choice("abc"), f"v{index}", ts, wall if rng.random() < 0.8 else None)
            )
        yield spec, records


def _with(spec: JoinSpec, **settings: int) -> JoinSpec:
    return replace(spec, settings=Settings(**settings))


def _joined(outputs: list[Output]) -> list[tuple[object, ...]]:
    return [(o.key, o.value, o.ts, o.cause) for o in outputs if o.value is not None and None not in o.value]


def _non_joined(outputs: list[Output]) -> list[Output]:
    return [o for o in outputs if o.value is not None and None in o.value]


@pytest.mark.parametrize("version", SPURIOUS_FREE_VERSIONS)
def test_default_settings_ignore_the_wall_clock(version: str) -> None:
    """Spec PR-2: with the interval at 0 (the default) no pass is skipped, whatever the wall clock says."""
    behaviour = behaviour_for(version)
    for spec, records in _inputs(seed=1):
        without_clock = [Record(r.side, r.key, r.value, r.ts) for r in records]
        assert run(spec, records, behaviour) == run(spec, without_clock, behaviour)


@pytest.mark.parametrize("version", SPURIOUS_FREE_VERSIONS)
@pytest.mark.parametrize("intended", [False, True])
def test_the_throttle_only_delays_or_drops_non_joined_results(version: str, intended: bool) -> None:
    """Spec PR-4: joined results are the same, in the same order and from the same records; every non-joined
    result is a record's own value with its own key and timestamp, emitted at most once per input record;
    values and timestamps never change."""
    behaviour = behaviour_for(version, intended=intended)
    throttled_somewhere = False
    for spec, records in _inputs(seed=2):
        free = run(spec, records, behaviour)
        for interval in INTERVALS:
            throttled = run(_with(spec, emit_interval_ms=interval), records, behaviour)
            assert _joined(throttled) == _joined(free)
            inputs = Counter(
                (r.key, (r.value, None) if r.side == "left" else (None, r.value), r.ts) for r in records
            )
            emitted = Counter((o.key, o.value, o.ts) for o in _non_joined(throttled))
            assert not emitted - inputs, "a non-joined result that is no input record's own"
            throttled_somewhere |= throttled != free
    assert throttled_somewhere, "no generated input was throttled: the generator misses the rule"


@pytest.mark.parametrize("version", SPURIOUS_FREE_VERSIONS)
def test_a_wall_clock_moving_by_the_interval_per_record_undoes_the_throttle(version: str) -> None:
    """Spec PR-4: when each record comes at least one interval after the one before, every pass runs."""
    behaviour = behaviour_for(version)
    for spec, records in _inputs(seed=3):
        for interval in INTERVALS:
            paced = [replace(r, wall_clock=i * interval + i // 3) for i, r in enumerate(records)]
            assert run(_with(spec, emit_interval_ms=interval), paced, behaviour) == run(
                spec, records, behaviour
            )


@pytest.mark.parametrize("version", SPURIOUS_FREE_VERSIONS)
def test_without_wall_clock_advance_only_the_first_pass_runs(version: str) -> None:
    """Spec PR-2: the first pass sets the next time to emit to the interval, which a wall clock that never
    moves does not reach: every non-joined result not emitted at once by its own record (spec SS-20) comes
    from one pass."""
    behaviour = behaviour_for(version)
    for spec, records in _inputs(seed=4):
        still = [Record(r.side, r.key, r.value, r.ts) for r in records]
        outputs = run(_with(spec, emit_interval_ms=1000), still, behaviour)
        passes = {o.cause for o in _non_joined(outputs) if not _emitted_at_once(spec, still, o)}
        assert len(passes) <= 1, f"non-joined results from several passes: {sorted(passes)}"


def _emitted_at_once(spec: JoinSpec, records: list[Record], output: Output) -> bool:
    """Whether ``output`` is its cause's own non-joined result, emitted at once because that record's window
    had already ended when it came (spec SS-20), not by a pass."""
    record = records[output.cause]
    own = (record.value, None) if record.side == "left" else (None, record.value)
    assert spec.window is not None
    stream_time = max((r.ts for r in records[: output.cause]), default=-1)
    join_after = spec.window.after if record.side == "left" else spec.window.before
    return output.value == own and output.ts == record.ts and record.ts + join_after < stream_time


def test_the_next_time_to_emit_is_in_the_state() -> None:
    """Spec PR-2: a throttled join shows its next time to emit; one with interval 0 does not."""
    spec = JoinSpec("stream-stream", "left", Window(0, 0, 0), stores="memory")
    records = [Record("left", "a", "A", 0, 0), Record("left", "b", "B", 1, 250)]
    throttled = processor_for(_with(spec, emit_interval_ms=1000), behaviour_for("3.9"))
    for index, record in enumerate(records):
        throttled.process(index, record)
    outer = throttled.snapshot()["outer"]
    assert isinstance(outer, dict) and outer["next_time_to_emit"] == 1250
    free = processor_for(spec, behaviour_for("3.9"))
    free.process(0, records[0])
    free_outer = free.snapshot()["outer"]
    assert isinstance(free_outer, dict) and "next_time_to_emit" not in free_outer


def test_the_resync_flag_is_in_force_only_with_production_settings() -> None:
    """The flag of spec PR-3 cannot change an output under the test driver's settings."""
    flag = "outer_join_emit_throttle_resyncs_to_wall_clock"
    assert flag not in flags_in_force("stream-stream", behaviour_for("3.9"))
    assert flag in flags_in_force("stream-stream", behaviour_for("3.9"), production=True)
    assert flag in flags_in_force("stream-stream", behaviour_for("3.4"), production=True)
    assert flag not in flags_in_force("stream-stream", behaviour_for("3.0"), production=True)
