"""Generative differential testing: draw scenarios, check a candidate, shrink and keep what fails.

``generate`` draws scenarios from the hypothesis strategies, ``fuzz`` checks a candidate on them (one call per
join kind) and shrinks failures with ``shrink`` (one call per round), ``regressions`` saves and reads the
minimal scenarios, ``command`` is ``kjoin fuzz``, ``profiles`` holds the CI and nightly settings, and
``reach`` measures which behaviour flags a set of scenarios makes decisive.
"""

from kjoin.conformance.differential.fuzz import Counterexample, FuzzReport, fuzz
from kjoin.conformance.differential.generate import Generated, draw_examples, generate_cases
from kjoin.conformance.differential.profiles import PROFILES, FuzzProfile, profile_named
from kjoin.conformance.differential.regressions import Regression, read_regressions, write_regression
from kjoin.conformance.differential.shrink import Shrunk, reductions, shrink

__all__ = [
    "PROFILES",
    "Counterexample",
    "FuzzProfile",
    "FuzzReport",
    "Generated",
    "Regression",
    "Shrunk",
    "draw_examples",
    "fuzz",
    "generate_cases",
    "profile_named",
    "read_regressions",
    "reductions",
    "shrink",
    "write_regression",
]
