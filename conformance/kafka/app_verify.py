"""The oracle checked against a real running Kafka Streams application, partition by partition.

``verify_application`` draws scenarios of the task-local join kinds (stream-stream, stream-table,
table-table; a foreign-key join spans tasks, spec TK-3) from the project's strategies, makes them fit a
multi-partition run (``for_application``), runs them through ``KafkaApplication`` (a ``KafkaStreams``
instance on the loopback broker, input topics of N partitions) and compares each output partition with the
oracle's outputs for that partition's task (``application.oracle_run``: one run per task, which also counts
its record cache's evictions). Where the oracle refuses (``UnmodelledSettingsError``: a cache it does not
model yet) the scenario is counted apart.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import msgspec

from kjoin.conformance.catalogue import Case
from kjoin.conformance.catalogue.portable import case_json
from kjoin.conformance.differential.generate import generate_cases
from kjoin.conformance.differential.profiles import FuzzProfile
from kjoin.conformance.kafka.application import (
    AppAnswer,
    KafkaApplication,
    decode_app_answer,
    expected_per_partition,
    first_difference,
    oracle_run,
    refusal,
)
from kjoin.conformance.kafka.cache_sizes import CACHE_BYTES, SMALL_CACHE_BYTES
from kjoin.conformance.kafka.verify import EVERYTHING
from kjoin.oracle.behaviour import release_of
from kjoin.oracle.errors import OracleError
from kjoin.oracle.records import JoinKind, Record, Settings, Versioning, Window

__all__ = [
    "APP_JOINS",
    "CACHE_BYTES",
    "EVICTING_JOINS",
    "SMALL_CACHE_BYTES",
    "AppOutcome",
    "AppVerifyReport",
    "check_answers",
    "for_application",
    "verify_application",
]

APP_JOINS: tuple[JoinKind, ...] = ("stream-stream", "stream-table", "table-table")
"""The joins whose state is one task's (spec TK-1); a foreign-key join's spans tasks (TK-3)."""
EVICTING_JOINS: tuple[JoinKind, ...] = ("table-table",)
"""The task-local joins whose output an eviction changes: a stream-table join forwards only from the
stream (spec PR-5)."""
CacheChoice = Literal["on", "off", "both", "evict"]
Status = Literal["agree", "disagree", "oracle refuses", "kafka error"]


@dataclass(frozen=True, slots=True)
class AppOutcome:
    """One scenario: agreement, the first difference, the oracle's refusal or Kafka's error line; ``spread``
    is how many partitions its input records went to (0 when the application failed): a scenario whose keys
    all hash to one partition runs one task, however many partitions its topics have."""

    case: Case
    status: Status
    detail: str = ""
    spread: int = 0
    evicted: int = 0
    """Entries the oracle's record caches evict in this run (spec PR-9), over all tasks."""
    evicted_dirty: int = 0
    """Of them the dirty ones, each of which flushed its store's dirty entries at once."""
    eviction_shows: bool = False
    """Whether the oracle's outputs differ from what it states with a 10 MiB cache, which evicts nothing
    here: the outputs show the evictions (an early flush often emits what the closing one would)."""

    @property
    def cached(self) -> bool:
        return self.case.spec.settings.cache_max_bytes > 0

    @property
    def commits(self) -> int:
        return sum(record.commit for record in self.case.records[:-1])


@dataclass(frozen=True, slots=True)
class AppVerifyReport:
    release: str
    partitions: int
    seed: int | None
    outcomes: tuple[AppOutcome, ...]
    seconds: float

    @property
    def disagreements(self) -> tuple[AppOutcome, ...]:
        return tuple(o for o in self.outcomes if o.status in ("disagree", "kafka error"))


def _doubled(value: int | None) -> int | None:
    return None if value is None else 2 * value


def for_application(case: Case, rng: random.Random, cache: bool, *, small_cache: bool = False) -> Case | None:
    """``case`` made deterministic in a multi-partition application (docs/kafka.md, "Application mode"), or
    ``None`` if nothing is left of it:

    * no two records of different sides share a timestamp (left ``2 ts``, right ``2 ts + 1``; windows, grace
      and history doubled to keep their reach), so a task never chooses between equal head timestamps;
    * no null keys (a record with a null key has no partition of its own: the producer's choice is free);
    * no wall clock (an application runs on the real one) and no emit throttle;
    * the record cache at 10 MiB (``cache``) or off, no timed commit; for table-table joins, whose state is
      all in changelogged stores, a commit point (a close and restart) after one or two records, half the
      time;
    * with ``small_cache`` (and ``cache``) instead a cache drawn from ``SMALL_CACHE_BYTES`` (50 to 149 bytes),
      which evicts, and no commit point: a restart empties the caches, which a commit does not (spec PR-9),
      so only the close at the end keeps the oracle's sizes exact."""
    records = [
        Record(r.side, r.key, r.value, 2 * r.ts + (r.side == "right"))
        for r in case.records
        if r.key is not None
    ]
    if not records:
        return None
    spec = case.spec
    small = cache and small_cache
    if case.join == "table-table" and not small and len(records) > 2 and rng.random() < 0.5:
        for index in rng.sample(range(len(records) - 1), k=min(2, len(records) - 2)):
            records[index] = msgspec.structs.replace(records[index], commit=True)
    window = spec.window
    if window is not None:
        window = Window(2 * window.before, 2 * window.after, _doubled(window.grace), window.legacy)
    versioned = spec.versioned
    if versioned is not None:
        versioned = Versioning(versioned.left, versioned.right, 2 * versioned.history_ms)
    size = rng.randrange(*SMALL_CACHE_BYTES) if small else CACHE_BYTES if cache else 0
    settings = Settings(cache_max_bytes=size)
    spec = msgspec.structs.replace(spec, window=window, versioned=versioned, settings=settings)
    label = f"cache{size}" if small else "cached" if cache else "uncached"
    return msgspec.structs.replace(
        case, id=f"{case.id}-app-{label}", scenario=f"{case.scenario}-app-{label}", spec=spec,
        records=tuple(records), expected=None,
    )  # fmt: skip


def draw(
    release: str, *, profile: FuzzProfile, seed: int, examples: int | None, joins: Sequence[JoinKind] | None,
    cache: CacheChoice,
) -> list[Case]:  # fmt: skip
    """The scenarios of ``verify_application``: drawn per join kind, then made fit (``for_application``),
    with caching on, off, or on for every other one; ``evict``: table-table joins only (the one kind whose
    output an eviction changes, spec PR-5), each with a small cache."""
    rng = random.Random(seed)
    cases: list[Case] = []
    kinds: Sequence[JoinKind] = EVICTING_JOINS if cache == "evict" else APP_JOINS
    for join in kinds:
        if joins is not None and join not in joins:
            continue
        batch = generate_cases(join, release, profile=profile, seed=seed, claim=EVERYTHING, examples=examples)
        for number, case in enumerate(batch.cases):
            cached = cache in ("on", "evict") or (cache == "both" and number % 2 == 0)
            fitted = for_application(case, rng, cached, small_cache=cache == "evict")
            if fitted is not None:
                cases.append(fitted)
    return cases


Answer = AppAnswer | tuple[str | None, str]
"""An application's answer for one scenario, or ``(id, its error line)``."""


def _with_large_cache(case: Case) -> Case:
    """``case`` with Kafka's default cache of 10 MiB, other settings unchanged."""
    settings = msgspec.structs.replace(case.spec.settings, cache_max_bytes=CACHE_BYTES)
    return msgspec.structs.replace(case, spec=msgspec.structs.replace(case.spec, settings=settings))


def check_answers(cases: Sequence[Case], answers: Sequence[Answer]) -> list[AppOutcome]:
    """Each case's outcome: its application answer against the oracle's outputs per partition."""
    outcomes = []
    for case, answer in zip(cases, answers, strict=True):
        if not isinstance(answer, AppAnswer):
            outcomes.append(AppOutcome(case, "kafka error", answer[1]))
            continue
        spread = len({partition for partition, _ in answer.inputs})
        try:
            predicted = oracle_run(case, answer)
        except OracleError as error:
            outcomes.append(AppOutcome(case, "oracle refuses", refusal(error), spread))
            continue
        expected = predicted.outputs
        shows = predicted.evicted_dirty > 0 and expected != expected_per_partition(
            _with_large_cache(case), answer
        )
        difference = first_difference(answer.outputs, expected)
        status: Status = "agree" if difference is None else "disagree"
        outcomes.append(
            AppOutcome(
                case, status, difference or "", spread, predicted.evicted, predicted.evicted_dirty, shows
            )
        )
    return outcomes


def run_cases(
    release: str, cases: Sequence[Case], partitions: int, counted: Callable[[int, int], None] | None = None
) -> list[Answer]:
    """Every case through one application program (one broker), in order."""
    lines = [json.dumps(dict(case_json(case), id=case.id)) for case in cases]
    answers: list[Answer] = []
    with KafkaApplication(release, partitions) as app:
        for text in app.answer_lines(lines):
            answers.append(decode_app_answer(text))
            if counted is not None:
                counted(len(answers), len(lines))
    return answers


def verify_application(
    version: str,
    *,
    partitions: int,
    profile: FuzzProfile,
    seed: int | None = None,
    examples: int | None = None,
    joins: Sequence[JoinKind] | None = None,
    cache: CacheChoice = "both",
    cases: Sequence[Case] | None = None,
    progress: Callable[[str], None] | None = None,
    counted: Callable[[int, int], None] | None = None,
) -> AppVerifyReport:
    """Drawn scenarios (or the given ``cases``, as they are) through a real application of Kafka Streams
    ``version`` over ``partitions`` partitions and through the oracle, per partition. Small caches
    (``cache="evict"``) need one partition: the tasks of one stream thread share its cache, and when one
    task's write finds it full depends on how the thread interleaves its tasks (docs/kafka.md)."""
    if cache == "evict" and cases is None and partitions != 1:
        raise ValueError(f"small caches (cache='evict') need one partition, not {partitions}")
    started = time.perf_counter()
    release = release_of(version)
    chosen_seed = profile.seed if seed is None else seed
    if cases is None:
        if progress is not None:
            progress(f"drawing scenarios (profile {profile.name}, seed {chosen_seed})")
        cases = draw(release, profile=profile, seed=chosen_seed, examples=examples, joins=joins, cache=cache)
    if progress is not None:
        progress(
            f"{len(cases)} scenarios through a Kafka Streams {release} application ({partitions} partitions) "
            "and the oracle"
        )
    answers = run_cases(release, cases, partitions, counted) if cases else []
    outcomes = tuple(check_answers(cases, answers))
    return AppVerifyReport(release, partitions, chosen_seed, outcomes, time.perf_counter() - started)
