"""The oracle checked against real Kafka Streams: generated scenarios through both, disagreements shrunk.

``verify`` draws scenarios of every join kind from the project's hypothesis strategies (both store kinds,
versioned tables, stream-table grace, null keys and values, out-of-order records), runs them through the
driver of a Kafka Streams release (``driver``) and through the oracle as that release, and compares the two
with the project's checker: same outputs, same order (Kafka's outputs come without the emitting input, so
the order of the whole stream is what is compared). A disagreement is shrunk the way ``kjoin fuzz`` shrinks
a candidate's failure, one driver call per round, and can be saved as a golden trace with its provenance.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
from msgspec.structs import replace

from kjoin.conformance.catalogue import Case
from kjoin.conformance.catalogue.portable import case_json
from kjoin.conformance.checker import CandidateFailure, Emitted, check
from kjoin.conformance.differential.generate import Generated, generate_cases, generate_min_time_cases
from kjoin.conformance.differential.profiles import FuzzProfile
from kjoin.conformance.differential.shrink import Shrunk, shrink
from kjoin.conformance.documents.outcomes import CaseOutcome, kafka_outputs
from kjoin.conformance.kafka.driver import (
    DriverInfo,
    KafkaDriver,
    build_announcement,
    driver_built,
    driver_info,
)
from kjoin.conformance.protocol import Claim
from kjoin.oracle.behaviour import one_release_per_era, release_of
from kjoin.oracle.records import JOIN_KINDS, STORE_KINDS, VARIANTS, JoinKind, Output, Settings

__all__ = [
    "SettingsEffect",
    "VerifyReport",
    "golden_line",
    "save_golden",
    "settings_effect",
    "verify",
    "verify_cases",
]

EVERYTHING = Claim(
    joins=frozenset(JOIN_KINDS), variants=frozenset(VARIANTS), kafka=one_release_per_era(),
    stores=frozenset(STORE_KINDS), versioned=True, stream_table_grace=True, production_settings=True,
    self_joins=True,
)  # fmt: skip
"""What a generated scenario may use: the strategies keep only what the release offers."""


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """One verification run: what was drawn (nothing, and no seed, for given scenarios), each case's outcome
    (Kafka as the truth, the oracle as the candidate), the shrunk disagreements, and the driver's provenance
    and timing."""

    release: str
    seed: int | None
    profile: FuzzProfile
    info: DriverInfo
    generated: tuple[Generated, ...]
    outcomes: tuple[CaseOutcome, ...]
    shrunk: tuple[Shrunk, ...]
    driver_calls: int
    seconds: float
    timing: dict[str, Any] | None = field(default=None)

    @property
    def disagreements(self) -> tuple[CaseOutcome, ...]:
        return tuple(outcome for outcome in self.outcomes if outcome.status == "fail")


def _kafka_answer(answer: tuple[Output, ...] | str) -> Emitted | str:
    """Real Kafka's outputs (order known, emitting inputs not), or why it emitted none (an error line)."""
    return answer if isinstance(answer, str) else Emitted(answer, causes_known=False)


Counted = Callable[[int, int], None]
"""``counted(done, total)``: scenarios answered by the driver so far, of how many (live progress)."""


def evaluator(
    release: str, calls: list[int], timings: list[dict[str, Any]], counted: Counted | None = None
) -> Callable[[Sequence[Case]], dict[str, CaseOutcome]]:
    """Check cases with one driver run: Kafka's answer as the expectation, the oracle's as the candidate's."""
    names = (f"Kafka {release}", "the oracle")

    def evaluate(cases: Sequence[Case]) -> dict[str, CaseOutcome]:
        lines = [json.dumps(dict(case_json(case), id=case.id)) for case in cases]
        answers: list[tuple[Output, ...] | str] = []
        with KafkaDriver(release, timing=True) as driver:
            for _, answer in driver.outputs(lines):
                answers.append(answer)
                if counted is not None:
                    counted(len(answers), len(lines))
        calls.append(1)
        if driver.timing_report is not None:
            timings.append(driver.timing_report)
        outcomes: dict[str, CaseOutcome] = {}
        for case, answer in zip(cases, answers, strict=True):
            outcomes[case.id] = _outcome(case, _kafka_answer(answer), names)
        return outcomes

    return evaluate


def _outcome(case: Case, kafka: Emitted | str, names: tuple[str, str]) -> CaseOutcome:
    oracle = kafka_outputs(case)
    if isinstance(kafka, str) and isinstance(oracle, str):
        return CaseOutcome(
            case, "not-applicable", reason=f"both refuse: Kafka: {kafka}; the oracle: {oracle}"
        )
    if isinstance(kafka, str) or isinstance(oracle, str):
        kafka_side = kafka if isinstance(kafka, str) else f"{len(kafka.outputs)} outputs"
        oracle_side = oracle if isinstance(oracle, str) else f"{len(oracle.outputs)} outputs"
        failure = CandidateFailure(f"Kafka {case.kafka}: {kafka_side}; the oracle: {oracle_side}")
        verdict = check(Emitted(()), failure, "exact", names=names)
        return CaseOutcome(case, "fail", "exact", verdict, None if isinstance(kafka, str) else kafka, failure)
    verdict = check(kafka, oracle, "exact", names=names)
    return CaseOutcome(case, verdict.status, "exact", verdict, kafka, oracle)


def _announce_build(release: str, progress: Callable[[str], None] | None) -> None:
    if progress is not None and not driver_built(release):
        progress(build_announcement(release))


def verify(
    version: str,
    *,
    profile: FuzzProfile,
    seed: int | None = None,
    examples: int | None = None,
    joins: Sequence[JoinKind] | None = None,
    shrink_failures: int | None = None,
    progress: Callable[[str], None] | None = None,
    counted: Counted | None = None,
    production: bool = False,
    self_joins: bool = False,
) -> VerifyReport:
    """Draw scenarios for every join kind (``joins`` narrows them), run them through Kafka Streams ``version``
    (a release; ``4.3`` means its newest patch) and through the oracle as that release, and shrink the
    disagreements (at most ``shrink_failures``, default the profile's). With ``production`` the scenarios
    carry production-like settings and wall clocks (``strategies.with_production_settings``). With
    ``self_joins`` they are stream-stream self-joins instead, optimization ``none`` and ``all``
    (``strategies.as_self_joins``, docs/semantics/self-join.md). Stream-stream joins as 3.8+ also get the
    profile's ``min_time_examples`` scenarios around the emission pass's ``minTime``
    (``generate_min_time_cases``)."""
    started = time.perf_counter()
    release = release_of(version)
    _announce_build(release, progress)
    info = driver_info(release)
    chosen_seed = profile.seed if seed is None else seed
    if progress is not None:
        progress(f"drawing scenarios (profile {profile.name}, seed {chosen_seed})")
    wanted = [join for join in JOIN_KINDS if joins is None or join in joins]
    if self_joins:
        wanted = ["stream-stream"]
    generated = tuple(
        generate_cases(
            join,
            release,
            profile=profile,
            seed=chosen_seed,
            claim=EVERYTHING,
            examples=examples,
            production=production,
            self_join=self_joins,
        )
        for join in wanted
    )
    if "stream-stream" in wanted and not (self_joins or production):
        generated += (generate_min_time_cases(release, profile=profile, seed=chosen_seed, claim=EVERYTHING),)
    cases = [case for batch in generated for case in batch.cases]
    calls: list[int] = []
    timings: list[dict[str, Any]] = []
    if progress is not None:
        progress(f"{len(cases)} scenarios through Kafka Streams {release} and the oracle")
    checked = evaluator(release, calls, timings, counted)(cases) if cases else {}
    evaluate = evaluator(release, calls, timings)
    outcomes = tuple(checked[case.id] for case in cases)
    failing = [outcome for outcome in outcomes if outcome.status == "fail"]
    limit = profile.shrink_failures if shrink_failures is None else shrink_failures
    if failing and progress is not None:
        progress(f"{len(failing)} disagreements; shrinking {min(limit, len(failing))}")
    shrunk = shrink(failing[:limit], evaluate, rounds=profile.shrink_rounds, limit=profile.round_reductions)
    return VerifyReport(
        release,
        chosen_seed,
        profile,
        info,
        generated,
        outcomes,
        tuple(shrunk),
        sum(calls),
        time.perf_counter() - started,
        timings[0] if timings else None,
    )


def verify_cases(
    version: str,
    cases: Sequence[Case],
    *,
    profile: FuzzProfile,
    shrink_failures: int | None = None,
    progress: Callable[[str], None] | None = None,
    counted: Counted | None = None,
) -> VerifyReport:
    """Given scenarios (a user's own, or catalogue files), each run as Kafka Streams ``version`` through the
    real release and through the oracle; disagreements shrunk as in ``verify``. Cases must already be run as
    that version (``load_cases(paths, kafka=version)``); ``intended`` cases are left out (real Kafka has no
    such mode)."""
    started = time.perf_counter()
    release = release_of(version)
    _announce_build(release, progress)
    info = driver_info(release)
    chosen = [case for case in cases if not case.intended]
    calls: list[int] = []
    timings: list[dict[str, Any]] = []
    if progress is not None:
        progress(f"{len(chosen)} scenarios through Kafka Streams {release} and the oracle")
    checked = evaluator(release, calls, timings, counted)(chosen) if chosen else {}
    evaluate = evaluator(release, calls, timings)
    outcomes = tuple(checked[case.id] for case in chosen)
    failing = [outcome for outcome in outcomes if outcome.status == "fail"]
    limit = profile.shrink_failures if shrink_failures is None else shrink_failures
    if failing and progress is not None:
        progress(f"{len(failing)} disagreements; shrinking {min(limit, len(failing))}")
    shrunk = shrink(failing[:limit], evaluate, rounds=profile.shrink_rounds, limit=profile.round_reductions)
    return VerifyReport(
        release,
        None,
        profile,
        info,
        (),
        outcomes,
        tuple(shrunk),
        sum(calls),
        time.perf_counter() - started,
        timings[0] if timings else None,
    )


@dataclass(frozen=True, slots=True)
class SettingsEffect:
    """What production settings did in a run's compared scenarios (docs/semantics/production.md): how many
    ran a table join with the record cache on, how many a left/outer stream-stream join with the emit
    throttle on, and, per join kind, how many emitted otherwise (keys, values, timestamps, order: what an
    output topic shows) than the same input under the test driver's settings, by the oracle's account."""

    settings: int
    """Scenarios with any production setting or wall clock."""
    cached: int
    throttled: int
    changed: dict[str, int]

    @property
    def changed_total(self) -> int:
        return sum(self.changed.values())


def under_test_settings(case: Case) -> Case:
    """``case`` with the test driver's settings (no cache, a commit after every record, no throttle) and a
    wall clock that never moves: the input its production settings are measured against."""
    plain = tuple(msgspec.structs.replace(record, wall_clock=None, commit=False) for record in case.records)
    return replace(case, spec=replace(case.spec, settings=Settings()), records=plain)


def _has_settings(case: Case) -> bool:
    return case.spec.settings != Settings() or any(
        record.wall_clock is not None or record.commit for record in case.records
    )


def _shown(emitted: Emitted | str) -> tuple[tuple[object, ...], ...] | str:
    """Outputs as an output topic shows them (no emitting input), or the refusal."""
    if isinstance(emitted, str):
        return emitted
    return tuple((output.key, output.value, output.ts) for output in emitted.outputs)


def settings_effect(outcomes: Sequence[CaseOutcome]) -> SettingsEffect:
    """The ``SettingsEffect`` of the compared (agreeing or disagreeing) ``outcomes``."""
    compared = [outcome.case for outcome in outcomes if outcome.status in ("pass", "fail")]
    with_settings = [case for case in compared if _has_settings(case)]
    changed: Counter[str] = Counter(
        case.join
        for case in with_settings
        if _shown(kafka_outputs(case)) != _shown(kafka_outputs(under_test_settings(case)))
    )
    return SettingsEffect(
        settings=len(with_settings),
        cached=sum(
            case.join != "stream-stream" and case.spec.settings.cache_max_bytes > 0 for case in compared
        ),
        throttled=sum(
            case.join == "stream-stream"
            and case.variant != "inner"
            and case.spec.settings.emit_interval_ms > 0
            for case in compared
        ),
        changed={join: changed[join] for join in JOIN_KINDS if changed[join]},
    )


def golden_line(outcome: CaseOutcome, report: VerifyReport, strategy: str) -> dict[str, Any]:
    """A golden trace from a (shrunk) verified case: the scenario, real Kafka's outputs, and provenance."""
    case = outcome.case
    expected = outcome.expected
    line = case_json(case, expected=None if expected is None else expected.outputs)
    digest = hashlib.sha256(json.dumps(line, sort_keys=True).encode()).hexdigest()[:10]
    line["id"] = f"verify-{case.join}-{case.variant}-{digest}"
    line["source"] = {
        **report.info.to_json(),
        "seed": report.seed,
        "strategy": strategy,
        "shrunk_from": case.scenario.split(".r")[0],
    }
    return line


def save_golden(directory: Path, report: VerifyReport) -> list[Path]:
    """Each shrunk disagreement as one golden trace file (``<id>@<release>.jsonl``) under ``directory``."""
    strategies = {batch.join: batch.strategy for batch in report.generated}
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for item in report.shrunk:
        strategy = strategies.get(item.minimal.case.join, f"given scenario {item.original.case.source}")
        line = golden_line(item.minimal, report, strategy)
        path = directory / f"{line['id']}@{report.release}.jsonl"
        path.write_text(json.dumps(line, separators=(",", ":")) + "\n", encoding="utf-8")
        paths.append(path)
    return paths
