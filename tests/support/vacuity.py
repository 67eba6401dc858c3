"""Properties that can fail. A property that holds for every example may hold only because the examples
never exercised it (an oracle that emits nothing satisfies "the left join's joined pairs are the inner
join's"). So each property test reports, per example, whether it saw what it is about (``witness``), and
``exercised`` fails the test when too small a share of its examples did.
"""

from __future__ import annotations

import functools
import os
import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

import hypothesis

__all__ = ["exercised", "witness"]

_ACTIVE: list[Counter[tuple[str, bool]]] = []


def witness(name: str, seen: bool, amount: int | None = None) -> None:
    """Record whether this example exercised ``name`` (a no-op outside an ``exercised`` test); ``amount``
    (how much of it, e.g. the number of joined pairs) also steers hypothesis towards examples with more."""
    if amount is not None:
        hypothesis.target(float(amount), label=name)
    if _ACTIVE:
        _ACTIVE[-1][(name, bool(seen))] += 1


def exercised(**shares: float) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Fail the (hypothesis) test unless at least ``share`` of its examples witnessed each ``name``."""

    def decorate(test: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(test)
        def checked(*args: Any, **kwargs: Any) -> None:
            counts: Counter[tuple[str, bool]] = Counter()
            _ACTIVE.append(counts)
            try:
                test(*args, **kwargs)
            finally:
                _ACTIVE.pop()
            for name, share in shares.items():
                seen, total = counts[(name, True)], counts[(name, True)] + counts[(name, False)]
                if os.environ.get("KJOIN_SHOW_WITNESSES"):  # for tuning the shares
                    print(f"{test.__name__}{kwargs}: {name} {seen}/{total}", file=sys.stderr)
                assert total and seen >= share * total, (
                    f"vacuous: only {seen} of {total} examples had {name} (at least {share:.0%} wanted)"
                )

        return checked

    return decorate
