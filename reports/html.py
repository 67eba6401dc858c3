"""HTML building blocks: escaping, elements and the page shell (inline CSS and script, no external assets).

Every value that reaches a page goes through ``text`` or ``attr`` (``html.escape`` with quotes): results
files hold data from users and candidates, and a value such as ``<script>alert(1)</script>`` must show as
text. Pages carry a Content-Security-Policy that allows only their own inline style and script (by hash),
so even a value that slipped past escaping could not run. Nothing here reads the clock: the same inputs
give byte-identical pages (docs/reports.md).
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from collections.abc import Iterable, Mapping

from kjoin.reports.assets import FILTER_SCRIPT, STYLE

__all__ = ["attr", "element", "page", "safe_name", "status_badge", "table", "text"]

_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_SURROGATES = re.compile("[\ud800-\udfff]")


def text(value: object) -> str:
    """``value`` as escaped HTML text (``None`` shows as ``null``, like the seed tables). Text that cannot be
    written as UTF-8 (a lone surrogate a candidate returned) shows its replacement character."""
    shown = "null" if value is None else str(value)
    shown = _SURROGATES.sub("\ufffd", shown)
    return html.escape(shown, quote=True)


def attr(name: str, value: object) -> str:
    """`` name="value"`` with the value escaped; ``name`` is ours, never data."""
    return f' {name}="{text(value)}"'


def element(tag: str, content: str = "", attrs: Mapping[str, object] | None = None) -> str:
    """``<tag attrs>content</tag>``: ``content`` is already-built HTML, attribute values are escaped."""
    rendered = "".join(attr(name, value) for name, value in (attrs or {}).items() if value is not None)
    return f"<{tag}{rendered}>{content}</{tag}>"


def safe_name(value: str, *, limit: int = 60) -> str:
    """A file name or fragment for ``value`` (any text): readable characters kept, the rest replaced,
    plus a short hash so that different values never share a name."""
    digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    readable = _NAME_UNSAFE.sub("_", value).strip("._-")[:limit]
    return f"{readable}-{digest}" if readable else digest


def status_badge(status: str, href: str | None = None) -> str:
    """A status as a coloured label (class ``st-<status>``), linked when ``href`` is given."""
    label = text(status)
    inner = f'<a href="{text(href)}">{label}</a>' if href else label
    return f'<span class="st st-{_NAME_UNSAFE.sub("_", status)}">{inner}</span>'


def table(
    headers: Iterable[str],
    rows: Iterable[Iterable[str]],
    *,
    attrs: Mapping[str, object] | None = None,
    header_html: bool = False,
) -> str:
    """A table of already-built cells; header labels are escaped unless ``header_html``."""
    head = "".join(f"<th>{h if header_html else text(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>\n" for row in rows)
    return element("table", f"<thead><tr>{head}</tr></thead>\n<tbody>\n{body}</tbody>", attrs)


def _sha256_source(source: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode() + "'"


def page(title: str, body: str, *, script: bool = False, banner: str = "") -> str:
    """A whole HTML document: ``body`` is built HTML; ``banner`` (built HTML) goes on top of every page (the
    run's identity); ``script`` adds the filter script."""
    policy = [
        "default-src 'none'",
        f"style-src {_sha256_source(STYLE)}",
        "base-uri 'none'",
        "form-action 'none'",
    ]
    if script:
        policy.append(f"script-src {_sha256_source(FILTER_SCRIPT)}")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{text("; ".join(policy))}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{text(title)}</title>",
        f"<style>{STYLE}</style>",
        "</head>",
        "<body>",
        f'<div class="banner">{banner}</div>' if banner else "",
        body,
    ]
    if script:
        parts.append(f"<script>{FILTER_SCRIPT}</script>")
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)
