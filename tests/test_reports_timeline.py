"""The timeline's scale: records take the width, windows far beyond them are clipped with an open end."""

from __future__ import annotations

import re
from typing import Any

from kjoin.reports.timeline import render_timeline


def _case(before: int, after: int, grace: int | None) -> dict[str, Any]:
    records = [{"side": "left", "key": "k", "value": f"L{ts}", "ts": ts} for ts in (0, 2, 4)] + [
        {"side": "right", "key": "k", "value": "r", "ts": 7}
    ]
    return {
        "id": "ss-wide-window",
        "join": "stream-stream",
        "records": records,
        "spec": {"window": {"before": before, "after": after, "grace": grace}},
        "expected": [],
    }


def _circle_xs(svg: str) -> list[float]:
    return [float(cx) for cx in re.findall(r'<circle class="rec-[a-z]+" cx="([0-9.]+)"', svg)]


def test_records_take_at_least_half_the_width_whatever_the_window() -> None:
    svg = render_timeline(_case(100, 100, 50))
    xs = _circle_xs(svg)
    assert len(xs) == 4
    drawable = 960 - 120 - 24
    assert (max(xs) - min(xs)) / drawable >= 0.5  # was 7/357 of the width with the window's span drawn


def test_a_window_beyond_the_picture_is_clipped_with_open_ends_and_keeps_its_true_bounds() -> None:
    svg = render_timeline(_case(100, 100, 50))
    assert "<title>window [-100, 100] of L0@0</title>" in svg
    assert svg.count('class="clipped"') == 6  # three left records, both ends each
    assert "<title>window [-100, 100] of L0@0: starts at -100, left of the picture</title>" in svg
    assert "<title>window [-100, 100] of L0@0: ends at 150, right of the picture</title>" in svg


def test_a_window_that_fits_is_drawn_whole_without_clipping() -> None:
    svg = render_timeline(_case(2, 2, None))
    assert 'class="clipped"' not in svg
    assert "<title>window [-2, 2] of L0@0</title>" in svg
