"""Which tier the project's own tests run as: the README's test command (the default), or the heavy
variants that ``nox -s heavy`` runs (``$KJOIN_HEAVY_TESTS=1``): the same tests at benchmark sizes and with
more seeds, where the default size already checks the same claim (docs/testing.md, "Test tiers")."""

from __future__ import annotations

import os

__all__ = ["HEAVY", "HEAVY_ENV"]

HEAVY_ENV = "KJOIN_HEAVY_TESTS"
HEAVY = os.environ.get(HEAVY_ENV, "").strip() == "1"
"""True under ``nox -s heavy``."""
