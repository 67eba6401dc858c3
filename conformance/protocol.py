"""The candidate protocol: what an implementation of Kafka Streams joins on Spark hands to the harness.

A candidate is a small ``typing.Protocol`` (docs/candidates.md), no base class: a ``name``, a ``Claim`` (what
it implements), its ``DeclaredDifference``s (known, accepted differences with the reason, xfail-like) and
``run(spark, inputs, specs) -> DataFrame``. ``run`` gets the records of MANY scenarios at once (one call per
join kind) and returns one DataFrame with ``OUTPUT_SCHEMA`` columns (plus an optional ``idx``: the input index
whose processing emitted the row, which enables exact-order checks).

Candidates are found by name: ``module:attr`` (an object, or a zero-argument factory) or a name registered
in the ``kjoin.candidates`` entry-point group (``spark-reference``, ``spark-native``, ...).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from kjoin.errors import KjoinError
from kjoin.oracle.behaviour import era_of, parse_version, version_problem
from kjoin.oracle.records import JOIN_KINDS, STORE_KINDS, VARIANTS

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "ENTRY_POINT_GROUP",
    "INPUT_SCHEMA",
    "OUTPUT_SCHEMA",
    "SPEC_SCHEMA",
    "Candidate",
    "CandidateLoadError",
    "Claim",
    "DeclaredDifference",
    "candidate_names",
    "load_candidate",
    "ran_as",
    "validate_candidate",
]

INPUT_SCHEMA = (
    "scenario_id string not null, idx long not null, side string not null, key string, value string, "
    "ts long not null"
)
"""One row per input record; ``idx`` is the processing order within the scenario, from 0."""

SPEC_SCHEMA = (
    "scenario_id string not null, kafka string not null, join string not null, variant string not null, "
    "before long, after long, grace long, stores string not null, left_versioned boolean not null, "
    "right_versioned boolean not null, history_ms long, fk_extractor string not null, "
    "intended boolean not null, legacy boolean not null, self_join boolean not null, "
    "optimization string not null, key_mapper string not null"
)
"""One row per scenario. Window columns are null for joins without a window; ``grace`` null is the legacy
``JoinWindows.of(before)`` with no grace; ``legacy`` true with a grace is the deprecated
``JoinWindows.of(before).grace(grace)`` (eager left/outer results; false otherwise and without a window).
``self_join`` (stream-stream: one stream joined with itself, every record ``left``) and ``optimization``
(``none``/``all``, the topology's) are ``JoinSpec.self_join``/``optimization``; ``key_mapper`` is a
stream-globaltable join's ``JoinSpec.key_mapper`` (``key`` for every other join)."""

OUTPUT_SCHEMA = (
    "scenario_id string not null, key string, left string, right string, tombstone boolean not null, "
    "ts long not null"
)
"""What a candidate returns. Optional extra columns: ``idx long`` (the input index whose processing emitted
the row: enables exact-order checks) and, with it, ``seq long`` (the row's position among the outputs of
that input, 0, 1, ...; without it the DataFrame's own order within one ``idx`` is used)."""

ENTRY_POINT_GROUP = "kjoin.candidates"


class CandidateLoadError(KjoinError, ValueError):
    """A candidate name that cannot be resolved to a usable candidate; the message says why."""


@dataclass(frozen=True)
class Claim:
    """What a candidate says it implements. A scenario outside the claim is reported "not claimed".

    ``kafka`` names Kafka versions; each claims its era (``("3.9",)``: the 3.8 era, 3.8.0 to 3.9.0). A
    scenario the catalogue states for a release of another era whose semantics for its join kind are the
    same is checked too, once, as the claimed version (``harness.claims``; docs/candidates.md, "Claims").
    """

    joins: frozenset[str]
    variants: frozenset[str]
    kafka: tuple[str, ...]
    stores: frozenset[str] = frozenset({"memory", "rocksdb"})
    versioned: bool = False
    stream_table_grace: bool = False
    commit_points: bool = False
    """The candidate is a micro-batch port of table joins: one result per changed key per batch, as Kafka
    with record caches emits at each commit. Under ``--equivalence auto`` its table-table and foreign-key
    results are compared at level ``commit-points`` (spec CP-2); its table joins' scenarios with production
    settings are claimed with it (the level sets the scenario's cache size, commit interval, commit points
    and wall clock aside, spec CP-1)."""
    record_caches: bool = False
    """Table-table scenarios under a record cache (``cache_max_bytes`` > 0, production settings) are claimed,
    and under ``--equivalence auto`` compared at level ``commit-points`` (what Kafka with record caches emits
    for some commit points, spec CP-2), the other cases as before: for a port that emits Kafka's changelog
    record by record and is checked ``exact`` where no cache merges."""
    production_settings: bool = False
    """Scenarios with production settings (a record cache, commit points, the emit throttle, a wall clock:
    docs/semantics/production.md). Off by default: the input schema carries no wall clock or commit point
    yet, so a candidate cannot see them (issue 26)."""
    self_joins: bool = False
    """Self-join scenarios (``JoinSpec.self_join``: one stream joined with itself, with or without the 3.4+
    single-store rewrite, docs/semantics/self-join.md). Off by default: a candidate that implements the
    two-sided join is not thereby a self-join (issue 25)."""


def ran_as(claimed: Sequence[str], releases: Iterable[str]) -> list[dict[str, Any]]:
    """Which releases each era of a claim ran as: one entry per era of ``claimed`` (claim order) with its
    claimed versions and ``releases``, the Kafka release of each claimed case run, counted per release
    (oldest first); releases of no claimed era (a run as one ``--kafka`` release of the same semantics)
    follow, one entry per era with no claimed version."""
    counts: dict[str, dict[str, int]] = {}
    for release in releases:
        per_release = counts.setdefault(era_of(release) or "unknown", {})
        per_release[release] = per_release.get(release, 0) + 1
    entries = []
    for era in dict.fromkeys(era_of(version) or "unknown" for version in claimed):
        versions = [version for version in dict.fromkeys(claimed) if (era_of(version) or "unknown") == era]
        entries.append({"claimed": versions, "era": era, "releases": _oldest_first(counts.pop(era, {}))})
    for era, per_release in counts.items():
        entries.append({"claimed": [], "era": era, "releases": _oldest_first(per_release)})
    return entries


def _oldest_first(per_release: dict[str, int]) -> dict[str, int]:
    """Known releases in version order (all of one era are known, or none is)."""
    order = sorted(per_release, key=lambda release: parse_version(release) if era_of(release) else (0,))
    return {release: per_release[release] for release in order}


@dataclass(frozen=True)
class DeclaredDifference:
    """A known, accepted difference from Kafka Streams (xfail-like), with the reason shown in reports.

    ``scenario`` is an ``fnmatch`` glob over scenario ids (``"ss-left-*"``, ``"*"``); it also matches
    against the full case id ``<scenario>[<variant>-<kafka>]``. ``strict`` means the scenario MUST differ:
    a pass is then an "unexpected pass" and fails.
    """

    scenario: str
    reason: str
    joins: frozenset[str] | None = None
    variants: frozenset[str] | None = None
    kafka: tuple[str, ...] | None = None
    strict: bool = False


@runtime_checkable
class Candidate(Protocol):
    """An implementation of Kafka Streams joins on Spark, as the harness sees it."""

    name: str
    claim: Claim
    declared_differences: tuple[DeclaredDifference, ...]

    def run(self, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
        """All outputs of all scenarios in ``inputs``/``specs`` (one join kind) as one DataFrame."""
        ...


def candidate_names() -> dict[str, str]:
    """Registered candidate names -> their ``module:attr`` (the ``kjoin.candidates`` entry points)."""
    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


def load_candidate(name: str) -> Candidate:
    """The candidate called ``name``: a ``kjoin.candidates`` entry point or ``module:attr``.

    ``attr`` may be dotted, and may be the candidate itself or a zero-argument factory returning it.
    Raises ``CandidateLoadError`` naming what is wrong.
    """
    if not name or not name.strip():
        raise CandidateLoadError("empty candidate name")
    name = name.strip()
    registered = candidate_names()
    target = registered.get(name, name)
    if ":" not in target:
        known = ", ".join(sorted(registered)) or "none installed"
        raise CandidateLoadError(
            f"unknown candidate {name!r}: give module:attr or one of the registered names ({known})"
        )
    module_name, _, attr = target.partition(":")
    module = _import_module(name, module_name, from_folder=name not in registered)
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise CandidateLoadError(f"candidate {name!r}: module {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not _looks_like_candidate(obj) and callable(obj):
        obj = _call_factory(name, obj)
    validate_candidate(name, obj)
    candidate: Candidate = obj
    return candidate


def _import_module(name: str, module_name: str, *, from_folder: bool) -> ModuleType:
    """Import the candidate's module. A ``module:attr`` the user names is looked for in the current folder
    first, as ``python -m`` does (and the folder is handed to Spark's Python workers through
    ``PYTHONPATH``); an import that fails says what to do, with the module's own traceback in a log file."""
    folder = os.getcwd()
    if from_folder and folder not in sys.path and "" not in sys.path:
        sys.path.insert(0, folder)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        missing = error.name or module_name
        if module_name != missing and not module_name.startswith(missing + "."):
            raise CandidateLoadError(
                _raised(name, f"importing module {module_name!r}", error)
            ) from error  # the module's own import
        top = missing.split(".")[0]
        problem = (
            f"cannot import module {module_name!r}: no module named {missing!r} in the current folder "
            f"({folder}) or the installed packages; run from the folder that holds {top}, or add that folder "
            f"to PYTHONPATH (PYTHONPATH=/path/to/that/folder)"
        )
        raise CandidateLoadError(f"candidate {name!r}: {problem}") from error
    except (Exception, SystemExit) as error:
        raise CandidateLoadError(_raised(name, f"importing module {module_name!r}", error)) from error
    if from_folder:
        _share_folder(folder, module)
    return module


def _share_folder(folder: str, module: ModuleType) -> None:
    """When ``module`` came from ``folder``, put the folder on ``PYTHONPATH`` too, so the processes started
    from here (Spark's Python workers, pytest-xdist's workers) import the candidate's code as well."""
    path = getattr(module, "__file__", None) or ""
    if not os.path.abspath(path).startswith(os.path.join(folder, "")):
        return
    entries = [entry for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry]
    if folder not in entries:
        os.environ["PYTHONPATH"] = os.pathsep.join([folder, *entries])


def _raised(name: str, what: str, error: BaseException) -> str:
    """One line for an exception the candidate's own code raised; its traceback goes to a log file."""
    import tempfile
    import traceback

    with tempfile.NamedTemporaryFile(
        "w", prefix="kjoin-candidate-", suffix=".log", delete=False, encoding="utf-8"
    ) as log:
        log.write(f"candidate {name!r}: {what}\n")
        log.write("".join(traceback.format_exception(error)))
    text = " ".join(str(error).split())
    if len(text) > 200:
        text = text[:197] + "..."
    raised = f"{type(error).__name__}: {text}" if text else type(error).__name__
    return f"candidate {name!r}: {what} raised {raised} (traceback in {log.name})"


def _call_factory(name: str, factory: Callable[[], Any]) -> Any:
    try:
        return factory()
    except TypeError as error:
        raise CandidateLoadError(f"candidate {name!r}: factory must take no arguments: {error}") from error
    except (Exception, SystemExit) as error:
        raise CandidateLoadError(_raised(name, "its factory", error)) from error


def _looks_like_candidate(obj: Any) -> bool:
    return all(hasattr(obj, attribute) for attribute in ("name", "claim", "declared_differences", "run"))


def validate_candidate(name: str, obj: Any) -> None:
    """Check the protocol's attributes, their types and the claim, naming the first that is wrong
    (``CandidateLoadError``)."""
    missing = [a for a in ("name", "claim", "declared_differences", "run") if not hasattr(obj, a)]
    if missing:
        raise CandidateLoadError(f"candidate {name!r}: {type(obj).__name__} lacks {', '.join(missing)}")
    if not isinstance(obj.name, str) or not obj.name:
        raise CandidateLoadError(f"candidate {name!r}: name must be a non-empty string, got {obj.name!r}")
    if not isinstance(obj.claim, Claim):
        raise CandidateLoadError(f"candidate {name!r}: claim must be a Claim, got {type(obj.claim).__name__}")
    declared = obj.declared_differences
    if not isinstance(declared, tuple) or not all(isinstance(d, DeclaredDifference) for d in declared):
        problem = "declared_differences must be a tuple of DeclaredDifference"
        raise CandidateLoadError(f"candidate {name!r}: {problem}")
    _validate_claim(name, obj.claim)
    for index, difference in enumerate(declared):
        _validate_vocabulary(name, f"declared_differences[{index}].joins", difference.joins, JOIN_KINDS)
        _validate_vocabulary(name, f"declared_differences[{index}].variants", difference.variants, VARIANTS)
        for version in difference.kafka or ():
            _validate_version(name, f"declared_differences[{index}].kafka", version)
    if not callable(obj.run):
        raise CandidateLoadError(f"candidate {name!r}: run must be callable")


def _validate_claim(name: str, claim: Claim) -> None:
    """A claim names known join kinds, variants and store kinds, and at least one known Kafka version: a
    claim that matches nothing would check nothing and pass."""
    for field, values, allowed in (
        ("joins", claim.joins, JOIN_KINDS),
        ("variants", claim.variants, VARIANTS),
        ("stores", claim.stores, STORE_KINDS),
    ):
        if not values:
            raise CandidateLoadError(
                f"candidate {name!r}: claim.{field} is empty: the candidate would check nothing"
            )
        _validate_vocabulary(name, f"claim.{field}", values, allowed)
    if not claim.kafka:
        raise CandidateLoadError(f"candidate {name!r}: claim.kafka names no Kafka version")
    for version in claim.kafka:
        _validate_version(name, "claim.kafka", version)


def _validate_vocabulary(
    name: str, field: str, values: Iterable[str] | None, allowed: tuple[str, ...]
) -> None:
    unknown = sorted(str(value) for value in values or () if value not in allowed)
    if unknown:
        raise CandidateLoadError(
            f"candidate {name!r}: {field}: {unknown[0]!r} is not one of {', '.join(allowed)}"
        )


def _validate_version(name: str, field: str, version: object) -> None:
    problem = version_problem(version)
    if problem is not None:
        raise CandidateLoadError(f"candidate {name!r}: {field}: {version!r} {problem}")
