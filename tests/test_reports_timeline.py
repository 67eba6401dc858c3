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


def test_a_global_table_is_drawn_as_updates_in_processing_order_not_as_versions_over_time() -> None:
    """Spec GT-3, GT-7: the lookup sees the table as processed, whatever the timestamps, so the table's
    updates are points (and a tombstone a cross), not bars from one timestamp to the next (the table-join
    drawing, which showed the out-of-order update 'c1 = old @3' as valid before 'c1 = new @5')."""
    records = [
        {"side": "right", "key": "c1", "value": "new", "ts": 5},
        {"side": "right", "key": "c1", "value": "old", "ts": 3},
        {"side": "left", "key": "o1", "value": "c1:pen", "ts": 1},
        {"side": "right", "key": "c1", "value": None, "ts": 6},
        {"side": "left", "key": "o2", "value": "c1:ink", "ts": 7},
    ]
    case = {
        "id": "gt-timeline",
        "join": "stream-globaltable",
        "records": records,
        "spec": {"join": "stream-globaltable", "key_mapper": "colon-prefix"},
        "expected": [{"key": "o1", "value": ["c1:pen", "old"], "ts": 1, "cause": 2}],
    }
    svg = render_timeline(case)
    labels = re.findall(r'<text class="lane-label" x="4" y="[0-9.]+">([^<]+)</text>', svg)
    assert [label for label in labels if label != "event time"] == [
        "stream o1",
        "stream o2",
        "global table c1",
        "out o1",
    ]
    assert 'class="version"' not in svg
    assert svg.count('class="tombstone"') == 1 and "<title>tombstone @6</title>" in svg
    assert len(_circle_xs(svg)) == 5  # every record is a point in its lane
