"""Time drawn as a picture: an inline SVG of one case (no external assets, every label escaped text).

Stream-stream joins: both sides' records on an event-time axis, one lane per side and key, each left
record's join window ``[ts - before, ts + after]`` (blue) and its grace (amber), the join's stream time as
it advances with each input (ticks labelled with the input index), and every output placed at its
timestamp in the output lane of its key, linked by a dashed line to the input whose processing emitted it
(a deferred result's link reaches far to the right). Outputs only Kafka emits are red, only the candidate
green, both grey; the first divergence is ringed. Table joins: per side and key, each version as a bar from
its timestamp to the next update's, tombstones as crosses, and the outputs in the same way. A
stream-GlobalKTable join has stream lanes and global-table lanes: the table's updates are points and
tombstones crosses, never bars over event time, because a global table is read in processing order,
whatever the timestamps (spec GT-3, GT-7).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from kjoin.conformance.documents.vocabulary import DivergenceKind
from kjoin.conformance.notation import show_key, show_output_json, show_record_json
from kjoin.reports.html import text

__all__ = ["render_timeline"]

_WIDTH = 960
_LEFT = 120
_RIGHT = 24
_ROW = 20
_LINKS_SHOWN = 300
"""Above this many outputs the emission links are left out (the picture would be a scribble)."""
_PLACE_KINDS: frozenset[DivergenceKind] = frozenset({"wrong-input", "out-of-order"})
"""Kinds about where or in which order an output is emitted, not whether: no output is missing or extra.
(An ``unexplained-output``'s Kafka side is what Kafka emits at some commit points, not necessarily one of
the outputs drawn, which are those of a commit after every record: only its candidate side is marked.)"""

Case = Mapping[str, Any]


def _outputs(case: Case) -> list[tuple[Mapping[str, Any], str]]:
    """(output, mark) for Kafka's outputs and the candidate's unexpected ones: ``same``, ``missing`` (only
    Kafka emits it) or ``unexpected`` (only the candidate)."""
    expected = list(case.get("expected") or [])
    marks = ["same"] * len(expected)
    extra: list[tuple[Mapping[str, Any], str]] = []
    for divergence in case.get("divergences") or []:
        kind = divergence.get("kind")
        want, got = divergence.get("expected"), divergence.get("actual")
        if want is not None and kind not in _PLACE_KINDS and kind != "unexplained-output":
            for position in range(len(expected) - 1, -1, -1):
                if expected[position] == want and marks[position] == "same":
                    marks[position] = "missing"
                    break
        if got is not None and kind not in _PLACE_KINDS:
            extra.append((got, "unexpected"))
    return list(zip(expected, marks, strict=True)) + extra


def render_timeline(case: Case, *, names: tuple[str, str] = ("Kafka", "the candidate")) -> str:
    """The case's timeline as an ``<svg>`` element, or ``""`` when there is nothing to draw. ``names`` are
    the two sides compared (Kafka and the candidate, or an older and a newer Kafka version)."""
    records = list(case.get("records") or [])
    if not records:
        return ""
    join = case.get("join")
    spec = case.get("spec") or {}
    window = spec.get("window") or {}
    before = int(window.get("before") or 0) if join == "stream-stream" else 0
    after = int(window.get("after") or 0) if join == "stream-stream" else 0
    grace = window.get("grace")
    spurious_free = join == "stream-stream" and grace is not None and not window.get("legacy")
    outputs = _outputs(case)
    times = [int(r["ts"]) for r in records] + [int(o["ts"]) for o, _ in outputs]
    stream_times = [int(t) for t in (case.get("timeline") or {}).get("stream_time") or [] if t is not None]
    grace_ms = int(grace) if spurious_free and grace is not None else 0
    low, high = _visible_range(times + stream_times, before, after + grace_ms)
    span = max(high - low, 1)

    def x(ts: float) -> float:
        clipped = min(max(ts, low), high)
        return float(round(_LEFT + (clipped - low) * (_WIDTH - _LEFT - _RIGHT) / span, 1))

    lanes: list[tuple[str, str, object]] = []  # (label, kind, key)
    names_of = {"left": "stream", "right": "global table"} if join == "stream-globaltable" else {}
    for side in ("left", "right"):
        keys = list(dict.fromkeys(show_key(r.get("key")) for r in records if r.get("side") == side))
        lanes += [(f"{names_of.get(side, side)} {key}", side, key) for key in keys]
    out_keys = list(dict.fromkeys(show_key(o.get("key")) for o, _ in outputs))
    lanes += [(f"out {key}", "out", key) for key in out_keys]
    stream_lane = join == "stream-stream" and bool(stream_times)
    top = 24 + (_ROW if stream_lane else 0)
    row_of = {(kind, key): top + i * _ROW for i, (_, kind, key) in enumerate(lanes)}
    height = top + len(lanes) * _ROW + 30
    first = case.get("first_divergence") or {}
    parts = [
        f'<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{height}" '
        f'viewBox="0 0 {_WIDTH} {height}" role="img" aria-label="{text(_title(case))}">',
        f"<title>{text(_title(case))}</title>",
    ]
    parts += _axis(x, low, high, height)
    for label, kind, key in lanes:
        y = row_of[(kind, key)]
        parts.append(
            f'<rect class="lane" x="{_LEFT}" y="{y - 8}" width="{_WIDTH - _LEFT - _RIGHT}" height="16"/>'
        )
        parts.append(f'<text class="lane-label" x="4" y="{y + 4}">{text(label)}</text>')
    if join == "stream-stream":
        parts += _windows(records, row_of, x, (before, after, grace_ms), (low, high))
    elif join == "stream-globaltable":
        deletes = [r for r in records if r.get("side") == "right" and r.get("value") is None]
        parts += [_tombstone(record, row_of, x) for record in deletes]
    else:
        parts += _versions(records, row_of, x, high)
    starts = micro_batch_starts(case)
    parts += _boundaries(records, starts, x, height)
    positions: dict[int, tuple[float, float]] = {}
    for index, record in enumerate(records):
        y = row_of[(record.get("side"), show_key(record.get("key")))]
        cx = x(int(record["ts"]))
        positions[index] = (cx, y)
        css = "rec-null" if record.get("value") is None else f"rec-{record.get('side')}"
        label = show_record_json(record, index)
        if case.get("micro_batches"):
            label += f", micro-batch {sum(start <= index for start in starts)}"
        parts.append(f'<circle class="{css}" cx="{cx}" cy="{y}" r="4"><title>{text(label)}</title></circle>')
    if stream_lane:
        parts += _stream_time(case, x)
    parts += _output_marks(outputs, row_of, x, positions, first, names)
    at = first.get("at")
    if isinstance(at, int) and at in positions:
        cx, ring_y = positions[at]
        parts.append(
            f'<circle class="first" cx="{cx}" cy="{ring_y}" r="8"><title>first divergence at input '
            f"#{at}</title></circle>"
        )
    parts.append("</svg>")
    return "\n".join(parts)


def micro_batch_starts(case: Case) -> list[int]:
    """The indices of the records that begin a micro-batch (``micro_batches.starts``; none if the case
    was not fed in micro-batches)."""
    return [int(start) for start in (case.get("micro_batches") or {}).get("starts") or []]


def _boundaries(records: Sequence[Case], starts: Sequence[int], x: Any, height: int) -> list[str]:
    """A dashed line at the ts of each record that begins a micro-batch, labelled with its number and
    the record's index: the state a streaming candidate carries over crosses it."""
    parts = []
    for number, start in enumerate(starts, start=1):
        if not 0 <= start < len(records):
            continue
        px = x(int(records[start]["ts"]))
        label = f"micro-batch {number} begins at input #{start}"
        parts.append(
            f'<line class="mb-boundary" x1="{px}" y1="12" x2="{px}" y2="{height - 22}">'
            f"<title>{text(label)}</title></line>"
        )
        parts.append(f'<text class="mb-label" x="{px + 2}" y="10">{text(f"mb {number} #{start}")}</text>')
    return parts


def _visible_range(times: Sequence[int], before: int, after: int) -> tuple[int, int]:
    """The event-time range drawn: the records, outputs and stream times, widened towards the windows'
    and graces' ends by at most half their own span on each side (at least 2 ms), so the records always
    take at least half the width; a window reaching further is clipped at the edge (drawn open-ended)."""
    data_low, data_high = min(times), max(times)
    margin = max((data_high - data_low) // 2, 2)
    low = max(data_low - before, data_low - margin) if before else data_low - 1
    high = min(data_high + after, data_high + margin) if after else data_high + 1
    return low, high


def _title(case: Case) -> str:
    return f"timeline of {case.get('id')}"


def _axis(x: Any, low: int, high: int, height: int) -> list[str]:
    span = max(high - low, 1)
    step = 1
    for candidate in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 100000, 1000000):
        step = candidate
        if span / candidate <= 12:
            break
    parts = [
        f'<line class="axis" x1="{_LEFT}" y1="{height - 22}" x2="{_WIDTH - _RIGHT}" y2="{height - 22}"/>'
    ]
    tick = (low // step) * step
    while tick <= high:
        if tick >= low:
            px = x(tick)
            parts.append(f'<line class="grid" x1="{px}" y1="12" x2="{px}" y2="{height - 22}"/>')
            parts.append(f'<text x="{px}" y="{height - 8}" text-anchor="middle">{text(tick)}</text>')
        tick += step
    parts.append(f'<text class="lane-label" x="4" y="{height - 8}">event time</text>')
    return parts


def _windows(
    records: Sequence[Case],
    row_of: Mapping[tuple[str, object], float],
    x: Any,
    window_ms: tuple[int, int, int],
    drawn: tuple[int, int],
) -> list[str]:
    """Each left record's window (before, after) and grace; ends outside the ``drawn`` range are clipped."""
    before, after, grace = window_ms
    parts = []
    for record in records:
        if record.get("side") != "left" or record.get("value") is None:
            continue
        ts, y = int(record["ts"]), row_of[("left", show_key(record.get("key")))]
        x0, x1 = x(ts - before), x(ts + after)
        window = f"window [{ts - before}, {ts + after}] of {record.get('value')}@{ts}"
        parts.append(
            f'<rect class="window" x="{x0}" y="{y - 6}" width="{max(x1 - x0, 1)}" height="12">'
            f"<title>{text(window)}</title></rect>"
        )
        end = ts + after + grace
        if grace:
            x2 = x(end)
            note = f"grace until {end}: held until stream time passes it"
            parts.append(
                f'<rect class="grace" x="{x1}" y="{y - 6}" width="{max(x2 - x1, 1)}" height="12">'
                f"<title>{text(note)}</title></rect>"
            )
        parts += _clip_marks(drawn, ts - before, end, y, window)
    return parts


def _clip_marks(drawn: tuple[int, int], start: int, end: int, y: float, label: str) -> list[str]:
    """An open end (a chevron at the picture's edge) where a window or grace reaches past the drawn range."""
    marks = []
    left_edge, right_edge = float(_LEFT), float(_WIDTH - _RIGHT)
    if start < drawn[0]:
        marks.append(
            f'<path class="clipped" d="M{left_edge + 6},{y - 6}L{left_edge},{y}L{left_edge + 6},{y + 6}">'
            f"<title>{text(f'{label}: starts at {start}, left of the picture')}</title></path>"
        )
    if end > drawn[1]:
        marks.append(
            f'<path class="clipped" d="M{right_edge - 6},{y - 6}L{right_edge},{y}L{right_edge - 6},{y + 6}">'
            f"<title>{text(f'{label}: ends at {end}, right of the picture')}</title></path>"
        )
    return marks


def _versions(
    records: Sequence[Case], row_of: Mapping[tuple[str, object], float], x: Any, high: int
) -> list[str]:
    """Table versions: per side and key, a bar from each update's ts to the next update's (by ts)."""
    updates: dict[tuple[str, str], list[Case]] = defaultdict(list)
    for record in records:
        updates[(str(record.get("side")), show_key(record.get("key")))].append(record)
    parts = []
    for (side, key), items in updates.items():
        y = row_of[(side, key)]
        ordered = sorted(items, key=lambda r: int(r["ts"]))
        for position, record in enumerate(ordered):
            ts = int(record["ts"])
            end = int(ordered[position + 1]["ts"]) if position + 1 < len(ordered) else high
            if record.get("value") is None:
                parts.append(_tombstone(record, row_of, x))
                continue
            x0, x1 = x(ts), x(end)
            label = f"version {record.get('value')} from {ts}"
            parts.append(
                f'<rect class="version" x="{x0}" y="{y - 6}" width="{max(x1 - x0, 1)}" height="12">'
                f"<title>{text(label)}</title></rect>"
            )
    return parts


def _tombstone(record: Case, row_of: Mapping[tuple[str, object], float], x: Any) -> str:
    """A cross at a tombstone's timestamp in its lane."""
    ts, y = int(record["ts"]), row_of[(str(record.get("side")), show_key(record.get("key")))]
    px = x(ts)
    return (
        f'<path class="tombstone" d="M{px - 4},{y - 4}L{px + 4},{y + 4}M{px - 4},{y + 4}'
        f'L{px + 4},{y - 4}"><title>{text(f"tombstone @{ts}")}</title></path>'
    )


def _stream_time(case: Case, x: Any) -> list[str]:
    times = (case.get("timeline") or {}).get("stream_time") or []
    parts = ['<text class="lane-label" x="4" y="20">stream time</text>']
    previous = None
    label_end = float("-inf")
    for index, value in enumerate(times):
        if value is None:
            continue
        if value != previous:
            parts.append(
                f'<line class="stream-time" x1="{x(value)}" y1="10" x2="{x(value)}" y2="22">'
                f"<title>{text(f'stream time {value} after input #{index}')}</title></line>"
            )
            label = f"#{index}"
            if x(value) + 2 >= label_end:  # crowded ticks keep their hover title, not a label
                parts.append(f'<text x="{x(value) + 2}" y="10">{text(label)}</text>')
                label_end = x(value) + 2 + 7 * len(label) + 3
        previous = value
    return parts


def _output_marks(
    outputs: Sequence[tuple[Mapping[str, Any], str]],
    row_of: Mapping[tuple[str, object], float],
    x: Any,
    positions: Mapping[int, tuple[float, float]],
    first: Mapping[str, Any],
    names: tuple[str, str],
) -> list[str]:
    parts = []
    stacked: dict[tuple[str, int], int] = defaultdict(int)
    first_outputs = [first.get("expected"), first.get("actual")]
    for output, mark in outputs:
        key = show_key(output.get("key"))
        ts = int(output["ts"])
        y = row_of[("out", key)] + stacked[(key, ts)] * 3
        stacked[(key, ts)] += 1
        px = x(ts)
        cause = output.get("cause")
        who = {
            "same": f"{names[0]} and {names[1]}",
            "missing": f"only {names[0]}",
            "unexpected": f"only {names[1]}",
        }[mark]
        when = f", emitted at input #{cause}" if isinstance(cause, int) else ""
        label = f"{show_output_json(output)} ({who}{when})"
        if isinstance(cause, int) and cause in positions and len(outputs) <= _LINKS_SHOWN:
            rx, ry = positions[cause]
            parts.append(f'<path class="emit" d="M{px},{y}L{rx},{ry}"/>')
        parts.append(
            f'<path class="out-{mark}" d="M{px},{y - 5}L{px + 5},{y}L{px},{y + 5}L{px - 5},{y}Z">'
            f"<title>{text(label)}</title></path>"
        )
        if output in first_outputs and output is not None:
            parts.append(f'<circle class="first" cx="{px}" cy="{y}" r="8"/>')
    return parts
