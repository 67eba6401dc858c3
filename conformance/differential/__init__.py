"""Generative differential testing: draw scenarios, check a candidate, shrink and keep what fails.

``generate`` draws scenarios from the hypothesis strategies, ``fuzz`` checks a candidate on them (one call per
join kind) and shrinks failures with ``shrink`` (one call per round), ``regressions`` saves and reads the
minimal scenarios, ``command`` is ``kjoin fuzz``, ``profiles`` holds the CI and nightly settings, and
``reach`` measures which behaviour flags a set of scenarios makes decisive.

The names below are imported on first use, so that ``kjoin.conformance.differential.profiles`` (plain data,
read by the command line's parsers) imports without hypothesis (the ``fuzz`` extra).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_HOMES = {
    "Counterexample": "fuzz",
    "FuzzReport": "fuzz",
    "fuzz": "fuzz",
    "Generated": "generate",
    "draw_examples": "generate",
    "generate_cases": "generate",
    "PROFILES": "profiles",
    "FuzzProfile": "profiles",
    "profile_named": "profiles",
    "Regression": "regressions",
    "read_regressions": "regressions",
    "write_regression": "regressions",
    "Shrunk": "shrink",
    "reductions": "shrink",
    "shrink": "shrink",
}
"""Each public name and the module that defines it."""

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{home}"), name)
