# SPDX-License-Identifier: BSD-3-Clause
"""figures.Figure drawn with Bokeh for the page: zoom (box, wheel), pan, hover values on
every series, legends that hide a series on click. BokehJS ships inside the bokeh Python
package and is inlined into the page (only its core bundle, bokeh.min.js, about 1.3 MB), so the
report works offline from one file (docs/architecture.md says why Bokeh)."""

import numpy as np
from bokeh.embed import components
from bokeh.layouts import gridplot
from bokeh.models import (
    BasicTicker,
    ColorBar,
    ColumnDataSource,
    FactorRange,
    FixedTicker,
    HoverTool,
    Legend,
    LegendItem,
    LinearColorMapper,
    LogTicker,
)
from bokeh.palettes import Viridis256
from bokeh.plotting import figure as bokeh_figure
from bokeh.resources import Resources

from .figures import BAND, HEATMAP, HLINE, LINE, POINTS, QUADS, RANGE, ROW_PIXELS, VLINE
from .render_png import colour, wrap

PAGE_WIDTH = 1060  # pixels a figure of the page may take
TOOLS = "pan,wheel_zoom,box_zoom,reset,save"


def javascript():
    """BokehJS as inline <script> text: the core bundle only (no widgets, tables, WebGL or
    MathJax: the report uses none of them)."""
    return "\n".join(Resources(mode="inline", components=["bokeh"]).js_raw)


def _source(s, panel):
    data = {}
    for member in ("x", "y", "lo", "hi", "left", "right"):
        values = getattr(s, member)
        if values is not None and s.kind not in (HLINE, VLINE):
            data[member] = list(values)
    n = len(next(iter(data.values()))) if data else 0
    hover = []
    for k, (title, values) in enumerate(s.hover.items()):
        if len(values) == n:
            data[f"h{k}"] = list(values)
            hover.append((title, f"@h{k}"))
    return ColumnDataSource(data), hover


def _panel(panel, width, height):
    cats = panel.x_categories
    kwargs = dict(width=width, height=height, tools=TOOLS, toolbar_location="above",
                  # the title has the plot's width less its y axis (its labels: 140 px), at
                  # about 7.3 px a character of the 10pt bold title
                  title=wrap(panel.title,
                             (width - (140 if panel.y_categories else 70)) * 2 // 15),
                  x_axis_label=panel.x_label,
                  y_axis_label=panel.y_label)
    if cats:
        kwargs["x_range"] = FactorRange(*cats)
    elif panel.x_log:
        kwargs["x_axis_type"] = "log"
    if panel.y_categories:  # the first row at the top
        kwargs["y_range"] = FactorRange(*reversed(panel.y_categories))
    if panel.y_log:
        kwargs["y_axis_type"] = "log"
    p = bokeh_figure(**kwargs)
    p.title.text_font_size = "10pt"
    p.height += 14 * p.title.text.count("\n")
    items = {}
    for k, s in enumerate(panel.series):
        col = colour(s.color, k)
        src, extra = _source(s, panel)
        x_tip = ("x", "@x") if cats else (panel.x_label, "@x{0.[000]}")
        y_tip = (panel.y_label, "@y" if panel.y_categories else "@y{0.[000]}")
        tips = [("", s.name)] if s.name else []
        if s.kind == LINE:
            r = [p.line("x", "y", source=src, color=col, line_width=2,
                        line_dash="dashed" if s.dash else "solid")]
            if s.markers:
                r.append(p.scatter("x", "y", source=src, color=col, size=5))
            tips += [x_tip, y_tip]
        elif s.kind == POINTS:
            r = [p.scatter("x", "y", source=src, size=8, line_color=col, line_width=2,
                           fill_color=None if s.hollow else col)]
            tips += [x_tip, y_tip]
        elif s.kind == BAND:
            r = [p.varea("x", "lo", "hi", source=src, fill_color=col, fill_alpha=0.2)]
            tips += [x_tip, ("from", "@lo{0.[000]}"), ("to", "@hi{0.[000]}")]
        elif s.kind == RANGE:
            r = [p.segment("x", "lo", "x", "hi", source=src, color=col, line_width=4,
                           line_alpha=0.55)]
            tips += [x_tip, ("from", "@lo{0.[000]}"), ("to", "@hi{0.[000]}")]
        elif s.kind == QUADS:
            r = [p.quad(left="left", right="right", top="y", bottom=0, source=src,
                        fill_color=col, fill_alpha=0.4, line_color=col)]
            tips += [("from", "@left{0.[000]}"), ("to", "@right{0.[000]}"),
                     (panel.y_label, "@y")]
        elif s.kind == HLINE:
            r = [p.hspan(y=[s.y[0]], line_color=col, line_width=1.5,
                         line_dash="dashed" if s.dash else "solid")]
            tips = []
        elif s.kind == VLINE:
            r = [p.vspan(x=[s.x[0]], line_color=col, line_width=1.5,
                         line_dash="dashed" if s.dash else "solid")]
            tips = []
        elif s.kind == HEATMAP:
            z = np.asarray(s.z, dtype=float)
            lo, hi = s.z_range or (float(np.nanmin(z)), float(np.nanmax(z)))
            mapper = LinearColorMapper(palette=Viridis256, nan_color="#ffffff", low=lo, high=hi)
            x0, x1, y0, y1 = s.extent
            src = ColumnDataSource({"image": [z]})
            r = [p.image(image="image", x=x0, y=y0, dw=x1 - x0, dh=y1 - y0, source=src,
                         color_mapper=mapper)]
            p.add_layout(ColorBar(color_mapper=mapper, title=panel.colorbar or s.name,
                                  width=10), "right")
            p.x_range.range_padding = p.y_range.range_padding = 0
            tips = [(panel.x_label, "$x{0.[000]}"), (panel.y_label, "$y{0}"),
                    (panel.colorbar or s.name, "@image{0.[00]}")]
        if tips:
            p.add_tools(HoverTool(renderers=r, tooltips=tips + extra))
        if s.name and s.kind != HEATMAP:
            items.setdefault(s.name, []).extend(r)
    if cats and sum(len(c) + 2 for c in cats) * 7 > width * 0.8:  # not side by side
        p.xaxis.major_label_orientation = 0.7
    for axis, log, ticks in ((p.xaxis, panel.x_log, panel.x_ticks),
                             (p.yaxis, panel.y_log, panel.y_ticks)):
        if ticks:
            axis.ticker = FixedTicker(ticks=[t for t, _ in ticks])
            axis.major_label_overrides = {float(t): text for t, text in ticks}
        elif log and not cats:
            axis.ticker = LogTicker(base=log, desired_num_ticks=6)
    if panel.y_integer:
        p.yaxis.ticker = BasicTicker(min_interval=1, desired_num_ticks=8)
    if items:
        ncols = 1 if max(len(k) for k in items) > width // 14 else 2
        legend = Legend(items=[LegendItem(label=k, renderers=v) for k, v in items.items()],
                        click_policy="hide", label_text_font_size="8pt", spacing=0,
                        padding=4, ncols=ncols, label_height=14, glyph_height=14)
        p.add_layout(legend, "below")
        p.height += 16 * -(-len(items) // ncols)
    return p


def height(panel):
    """Pixels of a panel: a categorical y axis gets ROW_PIXELS a row, and room for its axes."""
    if panel.y_categories:
        return max(320, 110 + ROW_PIXELS * len(panel.y_categories))
    return 320


def layout(figure):
    """The figure's panels in a grid, one toolbar for all."""
    cols = max(1, min(figure.columns, len(figure.panels)))
    width = max(320, min(560, PAGE_WIDTH // cols))
    if any(p.y_categories for p in figure.panels):  # room for the rows' names
        width = PAGE_WIDTH // cols
    plots = [_panel(p, width, height(p)) for p in figure.panels]
    # A row's panels as tall as its tallest: a panel with a shorter legend below it would
    # otherwise give the difference from its own plot area.
    for first in range(0, len(plots), cols):
        row = plots[first:first + cols]
        tallest = max(p.height for p in row)
        for p in row:
            p.height = tallest
    return gridplot(plots, ncols=cols, merge_tools=True, toolbar_location="above")


def embed(figures):
    """(script, [div per figure]) for the page: one document, one script for all figures."""
    if not figures:
        return "", []
    script, divs = components([layout(f) for f in figures])
    return script, list(divs)
