"""``JoinDriver``: the oracle in the shape of Kafka Streams' ``TopologyTestDriver``, for porting tests.

A test written against ``TopologyTestDriver`` pipes records into input topics and reads the output topic::

    driver = JoinDriver(JoinSpec(join="stream-table", variant="left"), kafka="3.9")
    driver.pipe("right", "k1", "R0", 5)
    driver.pipe("left", "k1", "L0", 7)
    driver.read_outputs()  # [Output(key='k1', value=('L0', 'R0'), ts=7, cause=1)]

Each ``pipe`` is one step of the processor ``engine.processor_for`` builds (the same processors as
``engine.run``, no second copy of the join logic); ``read_outputs`` hands out what was emitted since the
last read, in emission order, and ``snapshot`` the join's state. docs/driver.md.
"""

from __future__ import annotations

from kjoin.oracle.behaviour import Behaviour, behaviour_for
from kjoin.oracle.engine import processor_for
from kjoin.oracle.errors import OracleError
from kjoin.oracle.record_cache import commit_points
from kjoin.oracle.records import SIDES, JoinSpec, Key, Output, Record, Side, Value

__all__ = ["InvalidRecordError", "JoinDriver"]


class InvalidRecordError(OracleError, ValueError):
    """A record ``JoinDriver.pipe`` cannot take (an unknown side, a key or value of another type, a negative
    or non-integer timestamp, a wall clock going back); the message names the argument and its value."""


class JoinDriver:
    """One join of one Kafka Streams version, fed one record at a time, in processing order.

    ``kafka`` is a release (``"3.9"``, ``"2.8.1"``); ``intended=True`` turns off that release's bug flags
    (the documented semantics). Raises ``UnknownVersionError`` for a release the era table cannot place and
    ``UnsupportedJoinError`` for a join that release does not have.
    """

    def __init__(self, spec: JoinSpec, *, kafka: str, intended: bool = False) -> None:
        self.spec = spec
        self.behaviour: Behaviour = behaviour_for(kafka, intended=intended)
        self._processor = processor_for(spec, self.behaviour)
        self._commits = commit_points(spec)
        self._piped: list[Record] = []
        self._unread: list[Output] = []
        self._wall_clock = 0

    def pipe(
        self,
        side: Side,
        key: Key,
        value: Value,
        ts: int,
        *,
        wall_clock: int | None = None,
        commit: bool = False,
    ) -> None:
        """Process one record on topic ``side`` (``"left"`` or ``"right"``; ``None`` is a null key or value).

        ``wall_clock`` is the mocked wall-clock time (ms since the driver started, never decreasing) at which
        it is processed, as ``advanceWallClockTime`` before ``pipeInput``; ``None`` leaves it where it is.
        ``commit`` commits right after the record (see ``Record``); with a record cache, a commit is what
        flushes it (spec PR-7, PR-8).
        """
        self._check(side, key, value, ts, wall_clock)
        if wall_clock is not None:
            self._wall_clock = wall_clock
        record = Record(side=side, key=key, value=value, ts=ts, wall_clock=wall_clock, commit=commit)
        index = len(self._piped)
        self._unread.extend(self._processor.process(index, record))
        if self._commits is not None and self._commits.after(record):
            self._unread.extend(self._processor.commit(index))
        self._piped.append(record)

    def close(self) -> None:
        """Close the application (``KafkaStreams#close``): its closing commit flushes whatever the record
        caches still hold (spec PR-8); read it with ``read_outputs``. Nothing is left when every record
        commits (the default settings)."""
        if self._commits is not None and self._piped:
            self._unread.extend(self._processor.commit(len(self._piped) - 1))

    def read_outputs(self) -> list[Output]:
        """The outputs emitted since the last read, in emission order; ``Output.cause`` is the index (from 0)
        of the piped record that emitted each. Like reading an output topic: each output is read once."""
        outputs, self._unread = self._unread, []
        return outputs

    def snapshot(self) -> dict[str, object]:
        """The join's state now (window stores or tables, stream time, held records), as plain data."""
        return self._processor.snapshot()

    @property
    def records(self) -> tuple[Record, ...]:
        """Every record piped so far, in processing order."""
        return tuple(self._piped)

    def _check(self, side: object, key: object, value: object, ts: object, wall_clock: object) -> None:
        if side not in SIDES:
            raise InvalidRecordError(f"side={side!r} must be one of {list(SIDES)}")
        if key is not None and (not isinstance(key, str | int) or isinstance(key, bool)):
            raise InvalidRecordError(f"key={key!r} must be a string, an integer or None")
        if value is not None and not isinstance(value, str):
            raise InvalidRecordError(f"value={value!r} must be a string or None")
        if not isinstance(ts, int) or isinstance(ts, bool) or ts < 0:
            raise InvalidRecordError(f"ts={ts!r} must be a non-negative integer (ms)")
        if wall_clock is None:
            return
        if not isinstance(wall_clock, int) or isinstance(wall_clock, bool) or wall_clock < self._wall_clock:
            raise InvalidRecordError(
                f"wall_clock={wall_clock!r} must be an integer (ms) not below the last, {self._wall_clock}"
            )
