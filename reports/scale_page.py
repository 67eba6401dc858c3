"""The page of a scale check (``kjoin scale`` / ``kjoin replay``, a ``kjoin-scale`` document): the workload,
the totals, one row per Kafka task with its figures and a bar of its divergences, and the first divergence
of the sampled tasks with the input records around it. Nothing on it grows with the data: the document
carries only counts and bounded samples."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kjoin.conformance.notation import show_key, show_operand, show_output_json
from kjoin.reports.html import page, status_badge, table, text

__all__ = ["render_scale_page"]

_BAR = 160


def _shown(record: Mapping[str, Any]) -> str:
    """An input record in its side's column: ``k1: L1``."""
    return f"{show_key(record.get('key'))}: {show_operand(record.get('value'))}"


def _divergences(task: Mapping[str, Any]) -> int:
    return sum(int(task.get(name) or 0) for name in ("missing", "unexpected", "wrong_input"))


def _bars(tasks: Sequence[Mapping[str, Any]]) -> str:
    """An inline SVG: per task, its records (grey) and its divergences (red), on one scale each."""
    if not tasks:
        return ""
    most = max(int(t.get("records") or 0) for t in tasks) or 1
    worst = max(_divergences(t) for t in tasks)
    height = 18 * len(tasks) + 24
    width = 2 * _BAR + 200
    parts = [
        f'<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="records and divergences per task">',
        '<text x="110" y="12">records</text>',
        f'<text x="{_BAR + 130}" y="12">divergences</text>',
    ]
    for row, task in enumerate(tasks):
        y = 20 + row * 18
        records = int(task.get("records") or 0)
        bad = (
            int(task.get("missing") or 0)
            + int(task.get("unexpected") or 0)
            + int(task.get("wrong_input") or 0)
        )
        parts.append(f'<text x="4" y="{y + 11}">{text(task.get("task"))}</text>')
        parts.append(
            f'<rect class="bar" x="110" y="{y}" width="{max(1, round(_BAR * records / most))}" height="12">'
            f"<title>{text(f'{records:,} records')}</title></rect>"
        )
        if bad:
            width = max(2, round(_BAR * bad / (worst or 1)))
            parts.append(
                f'<rect class="out-missing" x="{_BAR + 130}" y="{y}" width="{width}" height="12">'
                f"<title>{text(f'{bad:,} divergences')}</title></rect>"
            )
    parts.append("</svg>")
    return "\n".join(parts)


def render_scale_page(document: Mapping[str, Any], *, banner: str = "") -> str:
    workload = document.get("workload") or {}
    summary = document.get("summary") or {}
    status = str(document.get("status"))
    data = (document.get("run") or {}).get("data") or {}
    title = f"kjoin {data.get('mode', 'scale')}: {(document.get('candidate') or {}).get('name')}"
    window = workload.get("window")
    settings = (
        f"{workload.get('variant')} {workload.get('join')} join as Kafka {workload.get('kafka')} "
        f"(era {workload.get('era')})"
    )
    if window:
        settings += (
            f", window before {window.get('before')} after {window.get('after')} grace {window.get('grace')}"
        )
    settings += f", {workload.get('stores')} stores"
    body = [
        f"<h1>{text(title)}</h1>",
        f"<p>{status_badge(status)} {text(settings)}</p>",
        table(["input", "value"], [[text(k), text(v)] for k, v in data.items()]),
    ]
    if status == "error":
        body.append(f"<h2>The candidate failed</h2><pre>{text(document.get('candidate_error'))}</pre>")
    else:
        body.append(
            f"<p>{text(summary.get('records', 0))} records in {text(summary.get('tasks', 0))} tasks. "
            f"Kafka emits {text(summary.get('expected', 0))} outputs, the candidate "
            f"{text(summary.get('actual', 0))}: "
            f"<b>{text(summary.get('missing', 0))} missing</b>, <b>{text(summary.get('unexpected', 0))} "
            f"unexpected</b>, {text(summary.get('wrong_input', 0))} emitted at another input (compared as "
            f"{text(summary.get('compared_as'))}).</p>"
        )
    tasks = [t for t in document.get("tasks") or [] if isinstance(t, Mapping)]
    if tasks:
        names = (
            "task",
            "partition",
            "records",
            "expected",
            "actual",
            "missing",
            "unexpected",
            "wrong_input",
            "first_at",
        )
        rows = [[text("" if t.get(n) is None else t.get(n)) for n in names] for t in tasks]
        body += [
            "<h2>Tasks</h2>",
            '<p class="muted">One Kafka task per partition number: its records are processed in Kafka\'s '
            "order and its stream time, stores and held records are its own.</p>",
            _bars(tasks),
            table(
                [
                    "task",
                    "partition",
                    "records",
                    "Kafka emits",
                    "candidate emits",
                    "missing",
                    "unexpected",
                    "other input",
                    "first divergence at",
                ],
                rows,
            ),
        ]
    for sample in document.get("samples") or []:
        first = sample.get("first_at")
        divergences = [
            [text(d.get("kind")), text(d.get("at")), text(show_output_json(d.get("output") or {}))]
            for d in sample.get("divergences") or []
        ]
        context = []
        for record in sample.get("context") or []:
            mark = "\u25b6 " if record.get("index") == first else ""
            context.append(
                [
                    text(f"{mark}{record.get('index')}"),
                    text(record.get("offset")),
                    text(record.get("ts")),
                    text(_shown(record) if record.get("side") == "left" else ""),
                    text(_shown(record) if record.get("side") == "right" else ""),
                ]
            )
        body += [
            f"<h3>{text(sample.get('task'))}: first divergence at input #{text(first)}</h3>",
            table(["kind", "input", "output"], divergences),
            table(["#", "offset", "ts", "left", "right"], context, attrs={"class": "diff"}),
        ]
    timings = document.get("timings") or {}
    if timings:
        body.append(
            "<h2>Time</h2>"
            + table(["step", "seconds"], [[text(k), text(f"{v:.1f}")] for k, v in timings.items()])
        )
    return page(title, "\n".join(body), banner=banner)
