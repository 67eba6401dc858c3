"""The scenario catalogue below the harness: find files, load them, and hand out ``Case``s.

One loader (``load_cases``) and one case type (``Case``) serve ``kjoin check``, ``kjoin oracle FILE``,
``kjoin run``, the pytest plugin, ``kjoin diff-versions``, fuzzing and ``kjoin verify``. Formats:
hand-written TOML scenario files (``seed_tables``) and portable JSON Lines (``portable``), both described in
docs/scenario-format.md.
"""

from kjoin.conformance.catalogue.case import About, Case, Erratum, Expected, Reference, case_id
from kjoin.conformance.catalogue.errors import ScenarioError
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
    "Reference",
    "ScenarioError",
    "bundled_files",
    "case_id",
    "label_of",
    "load_cases",
    "load_file",
    "scenario_files",
]
