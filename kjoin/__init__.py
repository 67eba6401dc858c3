"""kjoin: an exact oracle of Kafka Streams join semantics, and a conformance suite for Spark implementations.

The names a user needs, from one place::

    from kjoin import Claim, DeclaredDifference, JoinDriver, JoinSpec, streaming_candidate

The oracle (``JoinSpec``, ``Record``, ``run``, ``JoinDriver``, ...), the candidate protocol (``Claim``,
``DeclaredDifference``, ``Candidate``), the checker (``check``, ``Verdict``), the catalogue (``load_cases``,
``Case``), Structured Streaming jobs as candidates (``streaming_candidate``, ``JobShape``) and the errors,
all derived from ``KjoinError``. Each name is imported on first use (PEP 562), so ``import kjoin`` needs the
core dependencies only and ``streaming_candidate`` brings in Spark only when it is used. The Hypothesis
strategies are ``kjoin.strategies`` (with the ``fuzz`` extra). docs/api.md.

The parts stay where they live: ``kjoin.oracle``, ``kjoin.conformance``, ``kjoin.reports``,
``kjoin.scenarios``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kjoin.conformance.catalogue import Case, ScenarioError, load_cases
    from kjoin.conformance.checker import Divergence, Verdict, check
    from kjoin.conformance.protocol import (
        Candidate,
        CandidateLoadError,
        Claim,
        DeclaredDifference,
        load_candidate,
    )
    from kjoin.conformance.streaming import (
        JobShape,
        StreamingCandidate,
        StreamingJobError,
        streaming_candidate,
    )
    from kjoin.errors import KjoinError
    from kjoin.oracle.behaviour import Behaviour, UnknownVersionError, behaviour_for
    from kjoin.oracle.driver import InvalidRecordError, JoinDriver
    from kjoin.oracle.engine import processor_for, run, run_traced
    from kjoin.oracle.errors import OracleError, UnmodelledSettingsError, UnsupportedJoinError
    from kjoin.oracle.records import JoinSpec, Output, Record, Settings, Versioning, Window

_HOMES: dict[str, str] = {
    # the oracle
    "JoinSpec": "kjoin.oracle.records",
    "Record": "kjoin.oracle.records",
    "Output": "kjoin.oracle.records",
    "Window": "kjoin.oracle.records",
    "Versioning": "kjoin.oracle.records",
    "Settings": "kjoin.oracle.records",
    "Behaviour": "kjoin.oracle.behaviour",
    "behaviour_for": "kjoin.oracle.behaviour",
    "run": "kjoin.oracle.engine",
    "run_traced": "kjoin.oracle.engine",
    "processor_for": "kjoin.oracle.engine",
    "JoinDriver": "kjoin.oracle.driver",
    # candidates, the checker, the catalogue
    "Candidate": "kjoin.conformance.protocol",
    "Claim": "kjoin.conformance.protocol",
    "DeclaredDifference": "kjoin.conformance.protocol",
    "load_candidate": "kjoin.conformance.protocol",
    "check": "kjoin.conformance.checker",
    "Verdict": "kjoin.conformance.checker",
    "Divergence": "kjoin.conformance.checker",
    "Case": "kjoin.conformance.catalogue",
    "load_cases": "kjoin.conformance.catalogue",
    # Structured Streaming jobs as candidates (the spark extra)
    "streaming_candidate": "kjoin.conformance.streaming",
    "StreamingCandidate": "kjoin.conformance.streaming",
    "JobShape": "kjoin.conformance.streaming",
    # errors
    "KjoinError": "kjoin.errors",
    "OracleError": "kjoin.oracle.errors",
    "UnsupportedJoinError": "kjoin.oracle.errors",
    "UnmodelledSettingsError": "kjoin.oracle.errors",
    "UnknownVersionError": "kjoin.oracle.behaviour",
    "InvalidRecordError": "kjoin.oracle.driver",
    "ScenarioError": "kjoin.conformance.catalogue",
    "CandidateLoadError": "kjoin.conformance.protocol",
    "StreamingJobError": "kjoin.conformance.streaming",
}
"""Each public name and the module that defines it (imported on first use)."""

__all__ = [
    "Behaviour",
    "Candidate",
    "CandidateLoadError",
    "Case",
    "Claim",
    "DeclaredDifference",
    "Divergence",
    "InvalidRecordError",
    "JobShape",
    "JoinDriver",
    "JoinSpec",
    "KjoinError",
    "OracleError",
    "Output",
    "Record",
    "ScenarioError",
    "Settings",
    "StreamingCandidate",
    "StreamingJobError",
    "UnknownVersionError",
    "UnmodelledSettingsError",
    "UnsupportedJoinError",
    "Verdict",
    "Versioning",
    "Window",
    "behaviour_for",
    "check",
    "load_candidate",
    "load_cases",
    "processor_for",
    "run",
    "run_traced",
    "streaming_candidate",
]


_EXTRAS = {"pyspark": "spark", "pandas": "spark", "pyarrow": "spark", "py4j": "spark"}
"""Third-party packages a public name may need, and the extra that installs them."""


def __getattr__(name: str) -> object:
    """Import a public name's module on first use (PEP 562) and keep the name here."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'kjoin' has no attribute {name!r}")
    try:
        module = import_module(home)
    except ModuleNotFoundError as missing:
        extra = _EXTRAS.get((missing.name or "").split(".")[0])
        if extra is None:
            raise
        raise ModuleNotFoundError(
            f"kjoin.{name} needs {missing.name}: pip install 'kjoin-conformance[{extra}]'", name=missing.name
        ) from missing
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
