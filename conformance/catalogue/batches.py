"""A case's batch composition as data: the values of ``Case.batch``, a case's store shape and the id
suffix they give (docs/testing.md, "Batch compositions"). A saved counterexample that failed only in
its store shape's batch states it (``batch`` in the portable line, docs/scenario-format.md), so every run
checks it in that batch again; ``kjoin.conformance.harness.compositions`` makes the groups.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from kjoin.conformance.catalogue.case import Case

__all__ = ["BATCHES", "STORE_SHAPE", "STORE_SHAPES", "batch_suffix", "call_shape", "store_shape"]

STORE_SHAPE: Final = "store-shape"
"""``Case.batch`` of a case checked in a batch of the cases of its own store shape only."""

BATCHES: Final = (STORE_SHAPE,)
"""The values a scenario's ``batch`` field may take (absent: the joint batch of its join kind)."""

STORE_SHAPES: Final = ("unversioned", "left-versioned", "right-versioned", "both-versioned")
"""The store shapes, in the order their batches are checked."""


def store_shape(case: Case) -> str:
    """Which sides of ``case`` are in a versioned store: one of ``STORE_SHAPES``."""
    versioned = case.spec.versioned
    left = versioned is not None and versioned.left
    right = versioned is not None and versioned.right
    return STORE_SHAPES[left + 2 * right]


def batch_suffix(case: Case) -> str:
    """What ``case``'s id ends in for its batch composition: ``~<shape>-batch``, or nothing (joint)."""
    return f"~{store_shape(case)}-batch" if case.batch == STORE_SHAPE else ""


def call_shape(cases: Sequence[Case]) -> str | None:
    """The store shape of a candidate call holding one store shape's batch (every case's ``batch`` is
    ``STORE_SHAPE``), or ``None`` for a joint call."""
    if cases and all(case.batch == STORE_SHAPE for case in cases):
        return store_shape(cases[0])
    return None
