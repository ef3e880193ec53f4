# SPDX-License-Identifier: BSD-3-Clause
"""A figures.Figure drawn with matplotlib (Agg) as a PNG, for slides: the same numbers as
the interactive figure of the page."""

import io
import math
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402

from .figures import (  # noqa: E402
    BAND,
    HEATMAP,
    HIGHLIGHT,
    HLINE,
    LINE,
    MUTED,
    POINTS,
    QUADS,
    RANGE,
    ROW_PIXELS,
    VLINE,
)

PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf",
           "#bcbd22", "#7f7f7f", "#aec7e8", "#ffbb78", "#98df8a"]
HIGHLIGHT_COLOUR = "#d62728"
MUTED_COLOUR = "#b0b0b0"
PANEL_SIZE = (5.2, 3.6)  # inches per panel
LEGEND_ROWS = 18  # legend entries a column holds beside a panel
MIN_PLOT = 220  # pixels of a plot's width, whatever its legend takes


def colour(c, k):
    if c == HIGHLIGHT:
        return HIGHLIGHT_COLOUR
    if c == MUTED:
        return MUTED_COLOUR
    return PALETTE[(k if c is None else c) % len(PALETTE)]


def _plain(v, _pos=None):
    """Tick labels as plain numbers (1, 10, 0.01), never 2x10^2 over each other."""
    return f"{v:g}"


def _axis(axis, log, ticks, scale, integer=False):
    if log:
        scale("log", base=log)
        lo, hi = axis.get_view_interval()
        # Less than two decades: 1-2-5 steps, so that a short axis still has labels.
        subs = (1.0, 2.0, 5.0) if log == 10 and 0 < lo and hi / lo < 100 else (1.0,)
        axis.set_major_locator(ticker.LogLocator(base=log, subs=subs, numticks=10))
        axis.set_major_formatter(ticker.FuncFormatter(_plain))
        axis.set_minor_formatter(ticker.NullFormatter())
    if ticks:
        axis.set_major_locator(ticker.FixedLocator([t for t, _ in ticks]))
        axis.set_major_formatter(ticker.FixedFormatter([lbl for _, lbl in ticks]))
        axis.set_minor_locator(ticker.NullLocator())
    if integer:
        axis.set_major_locator(ticker.MaxNLocator(integer=True, nbins=8))
    if not log and not ticks:
        if axis.axis_name == "x" and not integer:
            # matplotlib's own count allows about three characters a label: a short span of
            # small values (0.00025 s steps) printed its labels over each other
            axis.set_major_locator(ticker.MaxNLocator(nbins=5, steps=[1, 2, 2.5, 5, 10]))
        axis.set_major_formatter(ticker.ScalarFormatter(useOffset=False))
        axis.get_major_formatter().set_scientific(False)


def wrap(title, width):
    """A title on as many lines as it needs of about width characters."""
    return "\n".join(textwrap.wrap(title, max(30, width))) or title


def _draw_panel(fig, ax, panel):
    cats = panel.x_categories
    pos = {c: i for i, c in enumerate(cats)} if cats else None
    rows = {c: i for i, c in enumerate(panel.y_categories or [])}

    def xs(values):
        return [pos[v] for v in values] if pos else list(values)

    def ys(values):
        return [rows[v] for v in values] if rows else list(values)

    for k, s in enumerate(panel.series):
        col = colour(s.color, k)
        label = s.name or None
        if s.kind == LINE:
            ax.plot(xs(s.x), s.y, color=col, lw=1.4, ls="--" if s.dash else "-",
                    marker="o" if s.markers else None, ms=3.5, label=label)
        elif s.kind == POINTS:
            ax.scatter(xs(s.x), ys(s.y), s=26, label=label, facecolors="none" if s.hollow else col,
                       edgecolors=col, zorder=3)
        elif s.kind == BAND:
            ax.fill_between(xs(s.x), s.lo, s.hi, color=col, alpha=0.2, lw=0, label=label)
        elif s.kind == RANGE:
            ax.vlines(xs(s.x), s.lo, s.hi, color=col, lw=2, alpha=0.6, label=label)
        elif s.kind == QUADS:
            widths = [r - lft for lft, r in zip(s.left, s.right, strict=True)]
            ax.bar(s.left, s.y, width=widths, align="edge", color=col, alpha=0.45,
                   edgecolor=col, label=label)
        elif s.kind == HLINE:
            ax.axhline(s.y[0], color=col, ls="--" if s.dash else "-", lw=1, label=label)
        elif s.kind == VLINE:
            ax.axvline(s.x[0], color=col, ls="--" if s.dash else "-", lw=1, label=label)
        elif s.kind == HEATMAP:
            lo, hi = s.z_range or (None, None)
            im = ax.imshow(s.z, aspect="auto", origin="lower", extent=s.extent,
                           interpolation="nearest", cmap="viridis", vmin=lo, vmax=hi)
            bar = fig.colorbar(im, ax=ax)
            bar.set_label(wrap(panel.colorbar or s.name, 30), fontsize=7)
            bar.ax.tick_params(labelsize=7)
    ax.autoscale_view()
    _axis(ax.xaxis, panel.x_log, list(enumerate(cats)) if cats else panel.x_ticks,
          ax.set_xscale)
    _axis(ax.yaxis, panel.y_log, panel.y_ticks, ax.set_yscale, panel.y_integer)
    if cats:
        long = sum(len(c) + 2 for c in cats) > 70 or len(cats) > 8  # not side by side
        ax.set_xlim(-0.6, len(cats) - 0.4)
        for t in ax.get_xticklabels():
            t.set(rotation=35 if long else 0, ha="right" if long else "center", fontsize=7)
    if rows:  # the first row at the top
        ax.set_yticks(range(len(rows)), list(rows), fontsize=7)
        ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_title(wrap(panel.title, 56), fontsize=9)
    ax.set_xlabel(panel.x_label, fontsize=8)
    ax.set_ylabel(panel.y_label, fontsize=8)
    ax.tick_params(labelsize=7)
    ax.grid(True, which="major", alpha=0.25)
    named = [s for s in panel.series if s.name and s.kind != HEATMAP]
    if named and any(s.kind == HEATMAP for s in panel.series):  # the colour bar is beside it
        ax.legend(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.3), borderaxespad=0,
                  ncols=min(len(named), 3), framealpha=0.8)
    elif named:  # beside the plot, never over it: a column per LEGEND_ROWS entries
        ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0,
                  ncols=math.ceil(len(named) / LEGEND_ROWS), framealpha=0.8)


def _inches(panel, dpi):
    """Height of a panel: a categorical y axis gets ROW_PIXELS a row."""
    if panel.y_categories:
        return max(2.2, 1.3 + ROW_PIXELS * len(panel.y_categories) / dpi)
    return PANEL_SIZE[1]


def draw(figure, dpi=100):
    """The figure as a matplotlib Figure, laid out (tight layout)."""
    n = len(figure.panels)
    cols = max(1, min(figure.columns, n))
    rows = math.ceil(n / cols)
    heights = [max(_inches(p, dpi) for p in figure.panels[r * cols:(r + 1) * cols])
               for r in range(rows)]
    # A lone panel of named rows: twice as wide, room for the names and the plot.
    wide = cols == 1 and any(p.y_categories for p in figure.panels)
    fig, axes = plt.subplots(rows, cols, squeeze=False,
                             figsize=(PANEL_SIZE[0] * cols * (2 if wide else 1), sum(heights)),
                             gridspec_kw={"height_ratios": heights})
    for k, ax in enumerate(axes.flat):
        if k < n:
            _draw_panel(fig, ax, figure.panels[k])
        else:
            ax.axis("off")
    title = fig.suptitle(wrap(figure.title, 110 * cols), fontsize=10,
                         y=1 - 6 / fig.bbox.height)  # 6 pixels from the top, however tall
    # Room for the title above the panels: tight_layout alone leaves a fixed fraction of the
    # figure, which a tall figure (a row per measurement) fills with its first panel.
    fig.canvas.draw()
    below = (title.get_window_extent().height + 10) / fig.bbox.height
    fig.tight_layout(rect=(0, 0, 1, 1 - below))
    # A long legend beside a panel takes its width from the plot: widen the image by what the
    # narrowest plot lacks, so that every plot keeps MIN_PLOT pixels.
    lack = MIN_PLOT - min(ax.bbox.width for ax in fig.axes if ax.axison)
    if lack > 0:
        fig.set_size_inches(fig.get_figwidth() + cols * lack / dpi, fig.get_figheight())
        fig.tight_layout(rect=(0, 0, 1, 1 - below))
    return fig


def png(figure, dpi=100):
    """The figure as PNG bytes."""
    fig = draw(figure, dpi)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    plt.close(fig)
    return buf.getvalue()
