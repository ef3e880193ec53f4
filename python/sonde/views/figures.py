# SPDX-License-Identifier: BSD-3-Clause
"""What a figure of the report shows, independent of how it is drawn: panels of series of
numbers with their axes and words. plots computes them from the records (numpy, bounded
to the pixels drawn); render_html draws them with Bokeh (zoom, hover) inside the page and
render_png with matplotlib as the PNGs beside it, so both show the same numbers, and the
tests check these numbers against the records."""

from dataclasses import dataclass, field

# Series kinds.
LINE = "line"  # x, y joined (markers=True adds points)
POINTS = "points"  # x, y markers (hollow=True: open markers)
BAND = "band"  # the area between lo and hi over x
RANGE = "range"  # a vertical segment from lo to hi at each x
QUADS = "quads"  # bars from left to right, 0 to y (histograms with true bucket widths)
HEATMAP = "heatmap"  # z[row][column] over the extent x0..x1, y0..y1
HLINE = "hline"  # a horizontal line at y
VLINE = "vline"  # a vertical line at x
KINDS = (LINE, POINTS, BAND, RANGE, QUADS, HEATMAP, HLINE, VLINE)

HIGHLIGHT = "highlight"  # the colour of what needs attention (stragglers)
MUTED = "muted"  # the colour of background context


@dataclass
class Series:
    kind: str
    name: str = ""  # legend entry; "" keeps it out of the legend
    x: list = None  # numbers, or category names on a categorical axis
    y: list = None
    lo: list = None
    hi: list = None
    left: list = None
    right: list = None
    z: object = None  # HEATMAP: 2-D array, rows along y
    extent: tuple = None  # HEATMAP: (x0, x1, y0, y1)
    z_range: tuple = None  # HEATMAP: the values the colour scale spans (outliers clip to it)
    color: object = None  # palette index, HIGHLIGHT, MUTED or None (next colour)
    hollow: bool = False
    dash: bool = False
    markers: bool = False
    hover: dict = field(default_factory=dict)  # column title -> a value per point

    def __post_init__(self):
        assert self.kind in KINDS, self.kind


ROW_PIXELS = 18  # height of one row of a categorical y axis


@dataclass
class Panel:
    title: str
    x_label: str
    y_label: str
    series: list = field(default_factory=list)
    x_log: int | None = None  # None, 2 or 10
    y_log: int | None = None
    x_categories: list | None = None  # a categorical x axis, in this order
    y_categories: list | None = None  # a categorical y axis, the first at the top; the panel
    # is as tall as its rows need (ROW_PIXELS each)
    x_ticks: list | None = None  # [(value, label)], e.g. message sizes in binary units
    y_ticks: list | None = None
    y_integer: bool = False  # whole-number ticks (task numbers)
    colorbar: str | None = None  # the heatmap's value, with its unit


@dataclass
class Figure:
    name: str  # file stem of its PNG: words, never a run id
    title: str
    caption: str
    panels: list
    columns: int = 1  # panels per row
    section: str = ""  # the report section it belongs to (a workload, "compare", ...)

    def numbers(self):
        """Every number the figure shows, for the tests: (panel title, series name, member,
        values)."""
        for p in self.panels:
            for s in p.series:
                for member in ("x", "y", "lo", "hi", "left", "right"):
                    values = getattr(s, member)
                    if values is not None:
                        yield p.title, s.name, member, values
