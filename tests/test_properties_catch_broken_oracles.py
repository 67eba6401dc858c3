"""The property tests can fail: run against a deliberately broken oracle, each property family fails.

Three breakages, each a thin wrapper around the real oracle: ``nothing`` (emits no output at all),
``swapped`` (the joiner gets its arguments the wrong way round: ``R - L``) and ``no-timestamps`` (every
output at ts 0). Each property test is run once with the module's ``run`` (and ``run_traced``) replaced;
it must fail, by a violated property or by the vacuity check (``support.vacuity``), for every breakage it
is about. ``CAUGHT`` states which those are; a property that compares variants with each other cannot see
a breakage that hits all variants alike (say ``no-timestamps`` for "the left join's joined pairs are the
inner join's"), so it is not asked to.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import hypothesis
import pytest
import test_consistency_properties as consistency
import test_oracle_properties as properties

from kjoin.oracle import Output, run, run_traced

pytestmark = pytest.mark.scaled  # as the properties it runs: fewer examples in the default tier

Breakage = Callable[[Output], Output | None]

BREAKAGES: dict[str, Breakage] = {
    "nothing": lambda output: None,
    "swapped": lambda output: (
        output if output.value is None else output._replace(value=(output.value[1], output.value[0]))
    ),
    "no-timestamps": lambda output: output._replace(ts=0),
}

ALL = frozenset(BREAKAGES)
FIND_ONLY = (hypothesis.Phase.explicit, hypothesis.Phase.reuse, hypothesis.Phase.generate)
"""Hypothesis' phases up to the first failing example (no shrinking, no explanation of it)."""
SIDES = frozenset({"nothing", "swapped"})
CAUGHT: dict[str, frozenset[str]] = {
    # variants compared with each other, plus the sides of the values they name
    "test_stream_stream_joined_pairs_are_the_same_in_every_variant_from_kip77": SIDES,
    "test_stream_stream_left_joined_pairs_are_inner_pairs_before_kip77": SIDES,
    "test_stream_stream_eager_left_results_are_outer_results": SIDES,
    "test_stream_stream_spurious_free_left_results_are_outer_results_once_flushed": SIDES,
    "test_stream_stream_spurious_free_results_are_eager_results": SIDES,
    "test_stream_table_inner_results_are_the_left_results_with_a_table_value": SIDES,
    "test_table_table_variants_agree_on_the_rows_they_share": SIDES,
    "test_fk_inner_joined_pairs_are_left_joined_pairs": SIDES,
    # output timestamps against the records they come from
    "test_stream_stream_output_ts_follows_the_records_it_joins": ALL,
    "test_stream_table_output_ts_is_the_stream_records_ts": ALL,
    "test_table_table_output_ts_never_below_the_trigger": ALL,
    "test_fk_output_ts_never_below_the_trigger": ALL,
    # determinism: a deterministic broken oracle is still deterministic; key locality
    "test_oracle_is_deterministic_for_every_join_kind": frozenset({"nothing"}),
    "test_unversioned_table_joins_are_key_local": SIDES,
    # seed 002's consistency against independent models (a relational join of the materialized tables,
    # the windowed join of the record sets); the table model compares values only, not timestamps
    "test_table_table_join_commutes_with_materialization_in_order": SIDES,
    "test_table_table_join_commutes_with_materialization_out_of_order_unversioned": SIDES,
    "test_table_table_join_commutes_with_materialization_in_order_versioned": SIDES,
    "test_stream_stream_inner_join_is_independent_of_arrival_order": ALL,
}


def _property_tests() -> Iterator[tuple[ModuleType, str]]:
    for module in (properties, consistency):
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("test_") and hasattr(function, "hypothesis"):
                yield module, name


def _newest_parameters(function: Any) -> dict[str, Any]:
    """The last value of each ``parametrize`` mark: the newest era a property runs for."""
    chosen: dict[str, Any] = {}
    for mark in getattr(function, "pytestmark", []):
        if mark.name == "parametrize":
            names = (
                [name.strip() for name in mark.args[0].split(",")] if isinstance(mark.args[0], str) else []
            )
            values = mark.args[1][-1]
            chosen.update(zip(names, values if len(names) > 1 else [values], strict=True))
    return chosen


def test_every_property_test_states_what_it_catches() -> None:
    assert sorted(name for _, name in _property_tests()) == sorted(CAUGHT)


def _broken_run(breakage: Breakage) -> Callable[..., list[Output]]:
    def broken(spec: Any, history: Any, behaviour: Any) -> list[Output]:
        return [o for o in map(breakage, run(spec, history, behaviour)) if o is not None]

    return broken


def _broken_run_traced(breakage: Breakage) -> Callable[..., Iterator[Any]]:
    def broken(spec: Any, history: Any, behaviour: Any) -> Iterator[Any]:
        for outputs, state in run_traced(spec, history, behaviour):
            yield [o for o in map(breakage, outputs) if o is not None], state

    return broken


@pytest.mark.parametrize(
    ("module", "name", "breakage"),
    [
        pytest.param(module, name, breakage, id=f"{name}-{breakage}")
        for module, name in _property_tests()
        for breakage in sorted(CAUGHT.get(name, ()))
    ],
)
def test_a_broken_oracle_fails_the_property(
    module: ModuleType, name: str, breakage: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(module, "run", _broken_run(BREAKAGES[breakage]))
    if hasattr(module, "run_traced"):
        monkeypatch.setattr(module, "run_traced", _broken_run_traced(BREAKAGES[breakage]))
    function = getattr(module, name)
    # A failure is all this test needs: no shrinking of the failing example (most of the time it took)
    layer = function
    while layer is not None:  # the settings live on @given's wrapper, under the vacuity check's
        if hasattr(layer, "_hypothesis_internal_use_settings"):
            unshrunk = hypothesis.settings(layer._hypothesis_internal_use_settings, phases=FIND_ONLY)
            monkeypatch.setattr(layer, "_hypothesis_internal_use_settings", unshrunk)
        layer = getattr(layer, "__wrapped__", None)
    with pytest.raises((AssertionError, ExceptionGroup)):
        function(**_newest_parameters(function))


@pytest.mark.parametrize(("module", "name"), [pytest.param(m, n, id=n) for m, n in _property_tests()])
def test_the_real_oracle_passes_the_same_calls(module: ModuleType, name: str) -> None:
    """The control: called the same way, the real oracle passes (so a failure above is the breakage's)."""
    function = getattr(module, name)
    function(**_newest_parameters(function))
