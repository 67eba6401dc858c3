"""Reading rendered pages in tests: cells with their classes and titles, the seed-shaped table's rows,
tags and text (entities decoded), and the check that a page carries no injected markup."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

__all__ = ["Cell", "assert_inert", "cells", "diff_rows", "parsed", "td"]


@dataclass
class Cell:
    """A ``<td>``, ``<tr>`` or ``<a>`` with its attributes and text."""

    tag: str
    attrs: dict[str, str | None]
    text: str = ""

    @property
    def css(self) -> list[str]:
        return (self.attrs.get("class") or "").split()


class _Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[Cell] = []
        self._open: list[Cell] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("td", "tr", "a", "th"):
            cell = Cell(tag, dict(attrs))
            self.found.append(cell)
            self._open.append(cell)

    def handle_endtag(self, tag: str) -> None:
        for position in range(len(self._open) - 1, -1, -1):
            if self._open[position].tag == tag:
                del self._open[position]
                break

    def handle_data(self, data: str) -> None:
        for cell in self._open:
            cell.text += data


def cells(page: str, tag: str | None = None) -> list[Cell]:
    """Every ``td``, ``th``, ``tr`` and ``a`` of ``page`` (only ``tag`` when given), in page order."""
    parser = _Cells()
    parser.feed(page)
    return [cell for cell in parser.found if tag is None or cell.tag == tag]


def td(page: str, css: str) -> list[str]:
    """The texts of the ``td`` cells of class ``css``."""
    return [cell.text for cell in cells(page, "td") if css in cell.css]


def diff_rows(page: str, number: int = 0) -> list[str]:
    """The texts of the rows of the page's ``number``-th seed-shaped table."""
    table = page.split('<table class="diff">')[number + 1].split("</table>", 1)[0]
    return [cell.text for cell in cells(table, "tr")]


@dataclass
class Parsed:
    tags: list[tuple[str, list[tuple[str, str | None]]]] = field(default_factory=list)
    text: list[str] = field(default_factory=list)


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.result = Parsed()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.result.tags.append((tag, attrs))

    def handle_data(self, data: str) -> None:
        self.result.text.append(data)


def parsed(page: str) -> Parsed:
    """Start tags with their attributes, and all text."""
    parser = _Tags()
    parser.feed(page)
    return parser.result


def assert_inert(page: str, *, scripts: int) -> str:
    """No injected element or event attribute, only our own scripts, the page's Content-Security-Policy in
    place. Returns the page's text."""
    found = parsed(page)
    names = [tag for tag, _ in found.tags]
    assert names.count("script") == scripts
    assert "img" not in names
    assert not [name for _, attrs in found.tags for name, _ in attrs if name.startswith("on")]
    assert '<meta http-equiv="Content-Security-Policy" content="default-src &#x27;none&#x27;' in page
    return "".join(found.text)
