"""The scenario catalogue below the harness: find files, load them, and hand out ``Case``s.

One loader (``load_cases``) and one case type (``Case``) serve ``kjoin check``, ``kjoin oracle FILE``,
``kjoin run``, the pytest plugin, ``kjoin diff-versions``, fuzzing and ``kjoin verify``. Formats:
hand-written TOML scenario files (``seed_tables``) and portable JSON Lines (``portable``), both described in
docs/scenario-format.md.

The loader's names are imported on first use (PEP 562): ``kjoin oracle --jsonl`` reads portable lines only,
and starts once per pipeline, so it does not pay for the TOML reader and the file search.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from kjoin.conformance.catalogue.case import About, Case, Erratum, Expected, MicroBatches, Reference, case_id
from kjoin.conformance.catalogue.errors import ScenarioError

if TYPE_CHECKING:
    from kjoin.conformance.catalogue.load import (
        CaseSet,
        bundled_files,
        label_of,
        load_cases,
        load_file,
        scenario_files,
    )

__all__ = [
    "About",
    "Case",
    "CaseSet",
    "Erratum",
    "Expected",
    "MicroBatches",
    "Reference",
    "ScenarioError",
    "bundled_files",
    "case_id",
    "label_of",
    "load_cases",
    "load_file",
    "scenario_files",
]

_LOADER = frozenset({"CaseSet", "bundled_files", "label_of", "load_cases", "load_file", "scenario_files"})
"""The names of ``catalogue.load``, imported on first use."""


def __getattr__(name: str) -> object:
    if name not in _LOADER:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module("kjoin.conformance.catalogue.load"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
