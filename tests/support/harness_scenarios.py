"""Small portable scenarios for the harness's own Spark tests (few records: few micro-batches)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["SMALL_SCENARIOS", "write_scenarios"]


def _records(*rows: tuple[str, str | None, str | None, int]) -> list[dict[str, Any]]:
    return [{"side": side, "key": key, "value": value, "ts": ts} for side, key, value, ts in rows]


def _scenario(
    scenario_id: str,
    join: str,
    variant: str,
    window: dict[str, Any] | None,
    *rows: tuple[str, str | None, str | None, int],
) -> dict[str, Any]:
    line: dict[str, Any] = {
        "id": scenario_id,
        "kafka": "3.9",
        "join": join,
        "variant": variant,
        "stores": "memory",
        "records": _records(*rows),
    }
    if window is not None:
        line["window"] = window
    return line


SMALL_SCENARIOS: tuple[dict[str, Any], ...] = (
    # a match inside the window, a left record outside it: Spark and Kafka agree
    _scenario(
        "small-ss-inner",
        "stream-stream",
        "inner",
        {"before": 5, "after": 5, "grace": 0},
        ("left", "k", "A", 1),
        ("right", "k", "a", 6),
        ("left", "k", "B", 20),
    ),
    # the right record lies 6 ms after the left one: only a window reaching one ms too far joins them
    _scenario(
        "small-ss-inner-edge",
        "stream-stream",
        "inner",
        {"before": 5, "after": 5, "grace": 0},
        ("left", "k", "A", 1),
        ("right", "k", "a", 7),
    ),
    # legacy JoinWindows.of: Kafka emits "A - null" at once, then "A - a"
    _scenario(
        "small-ss-left-legacy",
        "stream-stream",
        "left",
        {"before": 5, "after": 5, "grace": None},
        ("left", "k", "A", 1),
        ("right", "k", "a", 2),
    ),
    # spurious-free: A closes when stream time passes 1 + 5 + 0; B is still open at the end of input
    _scenario(
        "small-ss-left-grace",
        "stream-stream",
        "left",
        {"before": 5, "after": 5, "grace": 0},
        ("left", "k", "A", 1),
        ("left", "k", "B", 10),
    ),
    _scenario(
        "small-st-inner",
        "stream-table",
        "inner",
        None,
        ("right", "k", "t1", 0),
        ("left", "k", "A", 1),
        ("right", "k", None, 2),
        ("left", "k", "B", 3),
    ),
    _scenario(
        "small-st-left",
        "stream-table",
        "left",
        None,
        ("right", "k", "t1", 0),
        ("left", "k", "A", 1),
        ("right", "k", None, 2),
        ("left", "k", "B", 3),
    ),
)


def write_scenarios(path: Path, scenarios: tuple[dict[str, Any], ...] = SMALL_SCENARIOS) -> Path:
    """Write ``scenarios`` as a portable JSON Lines file and return its path."""
    path.write_text("".join(json.dumps(scenario) + "\n" for scenario in scenarios), encoding="utf-8")
    return path
