"""Real Kafka Streams as a running application: scenarios over partitioned topics on a real broker.

``KafkaApplication`` starts the project's loopback KRaft broker (``conformance/kafka/broker.py``) and the
driver's second program, ``kjoin.driver.Application`` (``conformance/kafka_driver``): the topology the test
driver runs, as a ``KafkaStreams`` instance with one stream thread, input topics of N partitions written
before it starts, closed (which commits and flushes its caches) at the end of the input and after each
record with ``commit``, restarted with the same ``application.id`` in between. Its answer gives every input
record's partition and offset and every output record's partition, in offset order.

``expected_per_partition`` says what the oracle states for such a run: one task per partition (spec TK-1),
each task's records of one segment (from one restart to the next close) in the order of spec TK-2, a commit
after each segment's last record. docs/kafka.md, "Application mode", says which parts of a real
application's output are deterministic.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from kjoin.conformance.catalogue import Case
from kjoin.conformance.harness.system_failures import SystemFailure
from kjoin.conformance.kafka.broker import DEFAULT_BROKER, KafkaBroker
from kjoin.conformance.kafka.driver import KafkaDriver
from kjoin.conformance.kafka.maven import MavenError
from kjoin.oracle.behaviour import behaviour_for, release_of
from kjoin.oracle.engine import run, run_traced
from kjoin.oracle.errors import OracleError
from kjoin.oracle.records import JoinSpec, Output, Record
from kjoin.oracle.tasks import processing_order

__all__ = [
    "NO_TIMED_COMMIT_MS",
    "AppAnswer",
    "KafkaApplication",
    "OracleRun",
    "decode_app_answer",
    "expected_per_partition",
    "oracle_run",
    "predicted_evictions",
    "refusal",
    "segments",
]

NO_TIMED_COMMIT_MS = 24 * 60 * 60 * 1000
"""The ``commit.interval.ms`` an application runs with when a scenario gives none (``Application.java``):
longer than any run, so it commits only when it is closed."""
PROGRAM = "kjoin.driver.Application"


@dataclass(frozen=True, slots=True)
class AppAnswer:
    """What a running application did with one scenario: each input record's ``(partition, offset)``, in
    the scenario's order, and its outputs per partition, in offset order (emitting inputs unknown)."""

    id: str | None
    partitions: int
    inputs: tuple[tuple[int, int], ...]
    outputs: dict[int, tuple[Output, ...]]


def decode_app_answer(text: str) -> AppAnswer | tuple[str | None, str]:
    """One answer line of the application program: an ``AppAnswer``, or ``(id, error)``."""
    data: dict[str, Any] = json.loads(text)
    if "error" in data:
        return data.get("id"), str(data["error"])
    outputs: dict[int, list[Output]] = {}
    for item in data["outputs"]:
        value = item["value"]
        pair = None if value is None else (value[0], value[1])
        outputs.setdefault(int(item["partition"]), []).append(Output(item["key"], pair, int(item["ts"]), -1))
    return AppAnswer(
        data["id"],
        int(data["partitions"]),
        tuple((int(item["partition"]), int(item["offset"])) for item in data["inputs"]),
        {partition: tuple(rows) for partition, rows in outputs.items()},
    )


class KafkaApplication:
    """A broker and the application program of Kafka Streams ``version`` for a ``with`` block: send portable
    lines, read one answer line each. ``log`` is the program's log file (Kafka's and its own messages; a
    temporary file that is removed afterwards when not given).

    ``MavenError`` and a broker that does not start become ``SystemFailure`` (exit 3, one line)."""

    def __init__(
        self,
        version: str,
        partitions: int,
        *,
        log: Path | None = None,
        broker: str = DEFAULT_BROKER,
        timeout_s: int = 180,
    ) -> None:
        self.release = release_of(version)
        self.partitions = partitions
        self.broker_version = broker
        self.timeout_s = timeout_s
        self.log = log
        self._stack = ExitStack()
        self._driver: KafkaDriver | None = None

    def __enter__(self) -> KafkaApplication:
        try:
            if self.log is None:
                folder = Path(self._stack.enter_context(tempfile.TemporaryDirectory(prefix="kjoin-app-")))
                self.log = folder / "application.log"
            broker = self._stack.enter_context(KafkaBroker(self.broker_version))
            program = [
                PROGRAM,
                "--bootstrap",
                broker.bootstrap,
                "--partitions",
                str(self.partitions),
                "--log",
                str(self.log),
                "--timeout-s",
                str(self.timeout_s),
            ]
            self._driver = self._stack.enter_context(KafkaDriver(self.release, program=program))
        except MavenError as error:
            self._stack.close()
            raise SystemFailure(_one_line(f"Kafka Streams {self.release} application: {error}")) from error
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self._driver = None
        self._stack.close()

    def answer_lines(self, lines: Iterable[str]) -> Iterator[str]:
        """One answer line (JSON text) per (non-blank) portable line, in order."""
        if self._driver is None:
            raise SystemFailure(
                "the application program is not running (use KafkaApplication in a with block)"
            )
        try:
            yield from self._driver.answer_lines(lines)
        except MavenError as error:
            raise SystemFailure(_one_line(f"{error} (log: {self.log})")) from error


def _one_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " / ".join(lines[:1] + lines[-1:]) if len(lines) > 1 else (lines[0] if lines else text)


def segments(records: Sequence[Record]) -> list[range]:
    """The runs of an application between restarts: cut after each record with ``commit`` (the application
    is closed there, which commits) and at the end."""
    cuts = [index + 1 for index, record in enumerate(records) if record.commit and index + 1 < len(records)]
    starts = [0, *cuts]
    ends = [*cuts, len(records)]
    return [range(start, end) for start, end in zip(starts, ends, strict=True) if end > start]


def task_records(case: Case, inputs: Sequence[tuple[int, int]], partition: int) -> list[Record]:
    """The records task ``partition`` processes, in order: per segment, that partition's left and right
    records in the order of spec TK-2 (both partitions buffered before the task starts, as the application
    writes all of a segment's input first), the last one with ``commit`` (the close after the segment)."""
    ordered: list[Record] = []
    for segment in segments(case.records):
        mine = [case.records[i] for i in segment if inputs[i][0] == partition]
        sides = [[r for r in mine if r.side == side] for side in ("left", "right")]
        order = processing_order([[r.ts for r in side] for side in sides])
        taken = [msgspec.structs.replace(sides[queue][pos], commit=False) for queue, pos in order]
        if taken:
            taken[-1] = msgspec.structs.replace(taken[-1], commit=True)
        ordered += taken
    return ordered


def _as_run(case: Case) -> JoinSpec:
    """``case``'s join with the settings the application ran with: no timed commit when it gives none."""
    settings = case.spec.settings
    if settings.commit_interval_ms == 0:
        settings = msgspec.structs.replace(settings, commit_interval_ms=NO_TIMED_COMMIT_MS)
    return msgspec.structs.replace(case.spec, settings=settings)


@dataclass(frozen=True, slots=True)
class OracleRun:
    """What the oracle states for an application run: each output partition's outputs (its task's, spec
    TK-1), and how many entries the tasks' record caches evict in all, how many of them dirty (each flushes
    its store at once, spec PR-9); both 0 when not asked for or without a cache."""

    outputs: dict[int, tuple[Output, ...]]
    evicted: int = 0
    evicted_dirty: int = 0


def oracle_run(case: Case, answer: AppAnswer, *, evictions: bool = True) -> OracleRun:
    """The oracle once over each task of the run ``answer`` describes, with the settings the application ran
    with (no timed commit when the scenario gives no interval). With ``evictions`` and a record cache the
    run is traced, and the evictions are read from its last state: one run gives both the outputs and the
    counts. Raises ``OracleError`` where the oracle refuses (e.g. ``UnmodelledSettingsError``)."""
    spec = _as_run(case)
    behaviour = behaviour_for(case.kafka)
    traced = evictions and spec.settings.cache_max_bytes > 0
    outputs: dict[int, tuple[Output, ...]] = {}
    evicted = evicted_dirty = 0
    for partition in range(answer.partitions):
        records = task_records(case, answer.inputs, partition)
        if not records:
            continue
        if traced:
            steps = run_traced(spec, records, behaviour)
            emitted = [output for step, _ in steps for output in step]
            for table in steps[-1][1].values():
                if isinstance(table, dict) and "evicted" in table:
                    evicted += int(table["evicted"])
                    evicted_dirty += int(table["evicted_dirty"])
        else:
            emitted = run(spec, records, behaviour)
        if emitted:
            outputs[partition] = tuple(emitted)
    return OracleRun(outputs, evicted, evicted_dirty)


def refusal(error: OracleError) -> str:
    """How an oracle's refusal to state a run's outputs is reported."""
    return f"{type(error).__name__}: {error}"


def expected_per_partition(case: Case, answer: AppAnswer) -> dict[int, tuple[Output, ...]] | str:
    """What the oracle states for each partition of the output topic (``oracle_run``'s outputs), or why it
    states nothing (its refusal, e.g. ``UnmodelledSettingsError``)."""
    try:
        return oracle_run(case, answer, evictions=False).outputs
    except OracleError as error:
        return refusal(error)


def predicted_evictions(case: Case, answer: AppAnswer) -> tuple[int, int]:
    """How many entries the oracle's record caches evict over all tasks of the run ``answer`` describes, and
    how many of them are dirty (``oracle_run``); ``(0, 0)`` without a cache."""
    predicted = oracle_run(case, answer)
    return predicted.evicted, predicted.evicted_dirty


def first_difference(
    kafka: dict[int, tuple[Output, ...]], oracle: dict[int, tuple[Output, ...]]
) -> str | None:
    """Where the two first differ, per partition in order (keys, values and timestamps; the oracle's
    causes are not compared: Kafka's are unknown), or ``None`` when they agree."""
    for partition in sorted(set(kafka) | set(oracle)):
        mine = [output[:3] for output in kafka.get(partition, ())]
        theirs = [output[:3] for output in oracle.get(partition, ())]
        if mine == theirs:
            continue
        for index, (k, o) in enumerate(zip(mine, theirs, strict=False)):
            if k != o:
                return f"partition {partition}, output {index}: Kafka {k}, the oracle {o}"
        shorter = "Kafka" if len(mine) < len(theirs) else "the oracle"
        extra = (theirs if len(mine) < len(theirs) else mine)[min(len(mine), len(theirs))]
        return (
            f"partition {partition}: Kafka {len(mine)} outputs, the oracle {len(theirs)}; {shorter} lacks "
            f"{extra}"
        )
    return None
