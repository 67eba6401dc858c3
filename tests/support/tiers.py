"""Which tier the project's own tests run in (docs/testing.md, "Test tiers").

* ``--tier default|system|all`` (tests/conftest.py): the default tier (the README's command) is a smoke
  tier, every test without the ``system`` mark; the system tier the ``system`` tests; ``all`` both. The
  ``scaled`` tests run in both: in the default tier smaller (the property tests: at most
  ``SMOKE_PROPERTY_EXAMPLES`` Hypothesis examples each), in the system tier at the fuzzing profile's size.
* ``runs_in``: the one rule that decides whether a test belongs to the run, used by the selection
  (conftest's ``_select_tier``) and by ``parametrize_by_tier``, which builds only the items of the run's
  tier (a default-tier run does not build 7,000 catalogue items to deselect them).
* ``$KJOIN_HEAVY_TESTS=1`` (``nox -s heavy``): the same tests at benchmark sizes and with more seeds, where
  the default size already checks the same claim.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable, Container, Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

if TYPE_CHECKING:
    from hypothesis import settings

    from kjoin.conformance.differential.profiles import FuzzProfile

__all__ = [
    "HEAVY",
    "HEAVY_ENV",
    "SMOKE_PROPERTY_EXAMPLES",
    "TIERS",
    "configure",
    "default_tier_keeps",
    "named",
    "parametrize_by_tier",
    "property_examples",
    "runs_in",
    "smoke_ends",
    "spark_group",
    "system_module",
    "tier_property_settings",
]

T = TypeVar("T")

TIERS = ("default", "system", "all")
"""The test tiers of ``--tier``: the smoke tier (the README's command), the system tests, or both."""

HEAVY_ENV = "KJOIN_HEAVY_TESTS"
HEAVY = os.environ.get(HEAVY_ENV, "").strip() == "1"
"""True under ``nox -s heavy``."""

SMOKE_PROPERTY_EXAMPLES = 15
"""Hypothesis examples per property test (and era) in the default tier; the system tier and ``--tier
all`` run the fuzzing profile's number (ci 30, deep 1,000). 15 is the fewest at which every property's
vacuity check (``support.vacuity``) holds with the profile's seed: Hypothesis draws the simplest examples
first, and at 10, 13 property runs saw too few examples exercising what they are about."""

_tier: str | None = None
"""This process's ``--tier`` (``None``: not given, the default tier), set by ``configure``."""


def configure(tier: str | None) -> None:
    """Record this run's ``--tier`` (tests/conftest.py's ``pytest_configure``, on xdist workers too),
    before any test module is imported."""
    global _tier
    _tier = tier


def full_size() -> bool:
    """Whether the ``scaled`` tests run at full size in this run (``--tier system`` or ``all``)."""
    return _tier in ("system", "all")


def spark_group(name: str) -> pytest.MarkDecorator:
    """The ``xdist_group`` mark of a Spark test module: its own group ``name`` under ``--tier system`` or
    ``all`` (the long runs spread over both workers, each worker with one SparkSession), and one group
    ``spark`` for every Spark test of the default tier, so that one worker starts the run's only
    SparkSession (a JVM's start costs about 28 CPU-s) while the other runs the tests without Spark."""
    return pytest.mark.xdist_group(name if full_size() else "spark")


def property_examples(profile: FuzzProfile) -> int:
    """``max_examples`` of each property test in this run: the profile's (ci 30, deep 1,000) under
    ``--tier system`` or ``all``, at most ``SMOKE_PROPERTY_EXAMPLES`` in the default tier."""
    if full_size():
        return profile.property_examples
    return min(profile.property_examples, SMOKE_PROPERTY_EXAMPLES)


def tier_property_settings(profile: FuzzProfile) -> settings:
    """The profile's property settings (``property_settings``: derandomized, no database, no deadline)
    with this run's number of examples (``property_examples``)."""
    from hypothesis import settings

    from kjoin.conformance.differential.profiles import property_settings

    return settings(property_settings(profile), max_examples=property_examples(profile))


_NAMED = pytest.StashKey[frozenset[Path]]()


def _named_files(config: pytest.Config) -> frozenset[Path]:
    """The test files named on the command line (``pytest tests/test_scale.py``), found once per run."""
    if _NAMED not in config.stash:
        paths = (Path(arg.split("::", 1)[0]) for arg in config.args)
        config.stash[_NAMED] = frozenset(path.resolve() for path in paths if path.is_file())
    return config.stash[_NAMED]


def named(config: pytest.Config, path: Path) -> bool:
    """Whether the test file was named on the command line."""
    return path.resolve() in _named_files(config)


def runs_in(config: pytest.Config, path: Path, *, system: bool, scaled: bool = False) -> bool:
    """Whether a test of file ``path`` belongs to this run: ``system`` tests run in the system tier,
    the others in the default tier, ``scaled`` tests in both. Without ``--tier``, a system test still runs
    when its file was named on the command line (asking for the file is asking for it)."""
    tier = config.getoption("kjoin_tier")
    if tier == "all":
        return True
    if tier == "system":
        return system or scaled
    if not system:
        return True
    return tier is None and named(config, path)


@cache
def system_module(path: Path) -> bool:
    """Whether the test file's module mark (``pytestmark``) holds ``pytest.mark.system``, so that every test
    in it is a system test: read from its source, without importing it (tests/conftest.py then leaves the
    file out of a default-tier run altogether, its imports included: pandas, a Kafka driver's helpers)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return False  # imported as usual, and pytest reports what is wrong with it
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytestmark" for target in statement.targets
        ):
            return any(
                isinstance(node, ast.Attribute)
                and node.attr == "system"
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == "mark"
                for node in ast.walk(statement.value)
            )
    return False


def default_tier_keeps(values: Iterable[T], keep: Container[T]) -> list[Any]:
    """Parameters of a test whose ``keep`` values run in the default tier and the others in the system
    tier (the ``system`` mark, tests/conftest.py), with unchanged test ids: the default tier checks the
    claim on a few values within issue 24's CPU budget, CI's system tier on all of them (docs/testing.md,
    "Test tiers"). A tuple value is the arguments of a test parametrized over several names."""
    return [
        value if value in keep else pytest.param(*_arguments(value), marks=pytest.mark.system)
        for value in values
    ]


def _arguments(value: object) -> tuple[object, ...]:
    """The arguments one parameter value stands for: a tuple's items (several argument names), else itself."""
    return value if isinstance(value, tuple) else (value,)


def smoke_ends(values: Sequence[T]) -> list[Any]:
    """Parameters (eras, releases) of which the first and the last run in the default tier and those between
    in the system tier only (``default_tier_keeps``): the oldest and the newest era a property is about, as
    a smoke test of each property; CI's system tier runs every era."""
    return default_tier_keeps(values, keep={values[0], values[-1]})


def parametrize_by_tier(
    metafunc: pytest.Metafunc,
    argname: str,
    values: Sequence[T],
    *,
    ids: Callable[[T], str],
    keep: Callable[[T], bool],
) -> None:
    """Parametrize ``argname`` as ``default_tier_keeps`` would (the ``keep`` values in the default tier,
    the others marked ``system``, the same ids), but build only the items of this run's tier: a test
    parametrized over thousands of values costs its collection only where it runs. When the tier wants
    none of them, every value is built and the selection deselects them (so no placeholder item appears)."""
    every = [
        (pytest.param(value, id=ids(value), marks=() if keep(value) else (pytest.mark.system,)), keep(value))
        for value in values
    ]
    config, path = metafunc.config, metafunc.definition.path
    wanted = {in_default: runs_in(config, path, system=not in_default) for in_default in (True, False)}
    params = [param for param, in_default in every if wanted[in_default]] or [param for param, _ in every]
    metafunc.parametrize(argname, params)
