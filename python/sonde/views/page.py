# SPDX-License-Identifier: BSD-3-Clause
"""What a report page is made of, before rendering: tables of cells (each with the exact
number behind its text, what the tests check against the records), sections and the page."""

from dataclasses import dataclass, field


@dataclass
class Cell:
    text: str
    value: float | None = None  # the exact number behind the text (sorting, the tests)
    cls: str = ""  # "text" (left-aligned words), "good", "bad", "muted"
    tip: str | None = None  # hover text (run ids go here)


def num(value, unit_digits=None):
    """A number cell: the exact value, shown to 4 significant figures (1 decimal from 1000)."""
    if value is None:
        return Cell("-")
    if isinstance(value, bool):
        return Cell(str(value).lower(), cls="text")
    if isinstance(value, int):
        return Cell(str(value), float(value))
    if unit_digits is not None:
        return Cell(f"{value:.{unit_digits}f}", float(value))
    return Cell(f"{value:.1f}" if abs(value) >= 1000 else f"{value:.4g}", float(value))


def text(value, cls="text", tip=None):
    return Cell("-" if value is None else str(value), None, cls, tip)


@dataclass
class Table:
    id: str
    title: str
    columns: list
    rows: list = field(default_factory=list)
    note: str | None = None


@dataclass
class Section:
    id: str
    title: str
    intro: list = field(default_factory=list)  # sentences
    tables: list = field(default_factory=list)
    figures: list = field(default_factory=list)


@dataclass
class Page:
    title: str
    sources: list
    sections: list

    def figures(self):
        return [f for s in self.sections for f in s.figures]

    def tables(self):
        return [t for s in self.sections for t in s.tables]
