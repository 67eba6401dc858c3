"""Which tier the project's own tests run as: the README's test command (the default), or the heavy
variants that ``nox -s heavy`` runs (``$KJOIN_HEAVY_TESTS=1``): the same tests at benchmark sizes and with
more seeds, where the default size already checks the same claim (docs/testing.md, "Test tiers")."""

from __future__ import annotations

import os
from collections.abc import Container, Iterable
from typing import Any, TypeVar

import pytest

__all__ = ["HEAVY", "HEAVY_ENV", "default_tier_keeps"]

T = TypeVar("T")

HEAVY_ENV = "KJOIN_HEAVY_TESTS"
HEAVY = os.environ.get(HEAVY_ENV, "").strip() == "1"
"""True under ``nox -s heavy``."""


def default_tier_keeps(values: Iterable[T], keep: Container[T]) -> list[Any]:
    """Parameters of a test whose ``keep`` values run in the default tier and the others in the system
    tier (the ``system`` mark, tests/conftest.py), with unchanged test ids: the default tier checks the
    claim on a few values within issue 24's CPU budget, CI's system tier on all of them (docs/testing.md,
    "Test tiers")."""
    return [value if value in keep else pytest.param(value, marks=pytest.mark.system) for value in values]
