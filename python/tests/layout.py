# SPDX-License-Identifier: BSD-3-Clause
"""What makes a page or a PNG unreadable, measured after layout: in the browser (JavaScript run
in the page) a table cell narrower than its longest word, a table cut at the right, a plot area
under MIN_PLOT pixels, a legend over its plot or spilling out of its figure, a plot's title cut at
its right edge; in a PNG drawn by
matplotlib a layout that did not succeed, text over text, text outside the image, a legend or
the title over a plot."""

import itertools
import warnings

from sonde.views import render_png

MIN_PLOT = 200  # pixels of a plot area, either way

# Every table cell narrower than its longest word (canvas measureText in the cell's own font),
# and every table wider than its box (cut at the right, or scrolled).
TABLES = """(() => {
  const ctx = document.createElement('canvas').getContext('2d'), narrow = [], cut = [];
  const tall = [], ONE_LINE = ['[id^=ior-table]', '#coll-summary', '#headlines', '#compare',
                               '#runs'].map(s => 'table.data' + s).join(', ');
  for (const td of document.querySelectorAll('table.data td')) {
    const st = getComputedStyle(td);
    ctx.font = `${st.fontStyle} ${st.fontWeight} ${st.fontSize} ${st.fontFamily}`;
    const longest = Math.max(0, ...td.textContent.split(/\\s+/).filter(Boolean)
                                    .map(w => ctx.measureText(w).width));
    const inner = td.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight);
    if (inner + 1 < longest) narrow.push([td.closest('table').id, td.textContent, inner, longest]);
  }
  // The tables of figures read one line per row, like the seed's (the status at the right too).
  for (const t of document.querySelectorAll(ONE_LINE)) {
    const line = parseFloat(getComputedStyle(t).fontSize) * 1.6;
    for (const tr of t.tBodies[0].rows)
      if (tr.getBoundingClientRect().height > line + 8) tall.push([t.id, tr.textContent]);
  }
  for (const box of document.querySelectorAll('div.scroll')) {
    const t = box.querySelector('table');
    if (box.scrollWidth > box.clientWidth + 1 || t.getBoundingClientRect().right > innerWidth)
      cut.push([t.id, box.scrollWidth, box.clientWidth]);
  }
  return {narrow, cut, tall, page: document.documentElement.scrollWidth - innerWidth};
})()"""

# Per Bokeh plot: its plot area (frame), its legends, and whether the figure's drawing stays
# inside its own element (a legend drawn below the element lies over what follows it).
PLOTS = """(() => {
  const out = [], ctx = document.createElement('canvas').getContext('2d');
  function walk(v, figure) {
    if (v.frame) {
      const f = v.frame.bbox;
      const legends = [];
      for (const r of v.renderer_views.values())
        if (r.model.type === 'Legend' && r.model.items.length)
          legends.push({x0: r.bbox.x0, y0: r.bbox.y0, x1: r.bbox.x1, y1: r.bbox.y1});
      // the title starts over the plot area's left edge and has up to the plot's right edge
      const t = v.model.title;
      let title_width = 0;
      if (t && t.text) {
        ctx.font = `${t.text_font_style} ${t.text_font_size} ${t.text_font}`;
        title_width = Math.max(...t.text.split('\\n').map(l => ctx.measureText(l).width));
      }
      out.push({figure, title: t ? t.text : '', width: f.width, height: f.height,
                frame: {x0: f.x0, y0: f.y0, x1: f.x1, y1: f.y1}, legends, title_width,
                title_room: v.bbox.width - f.x0});
    }
    for (const c of (v.child_views || [])) walk(c, figure);
  }
  for (const fig of document.querySelectorAll('figure.figure')) {
    const root = fig.querySelector('[data-root-id]');
    const view = Bokeh.index.get_by_id(root.dataset.rootId);
    const drawn = (root.firstElementChild || root).getBoundingClientRect();
    const caption = fig.querySelector('figcaption').getBoundingClientRect();
    out.push({figure: fig.dataset.title, spill: drawn.bottom - caption.top,
              height: view.bbox.height, element: drawn.height});
    walk(view, fig.dataset.title);
  }
  return out;
})()"""


# Per figure: its caption's box against the figure's, and whether its text is clipped (a
# caption that names the stragglers must be read whole, not cut at the figure's edge).
CAPTIONS = """Array.from(document.querySelectorAll('figure.figure')).map(f => {
  const c = f.querySelector('figcaption'), fb = f.getBoundingClientRect(),
        cb = c.getBoundingClientRect();
  return {figure: f.dataset.title, text: c.textContent, clipped: c.scrollWidth > c.clientWidth + 1,
          outside: cb.left < fb.left - 1 || cb.right > fb.right + 1};
})"""


def caption_problems(browser):
    """Figures whose caption is clipped or reaches outside the figure, in words."""
    return [f"{c['figure']}: caption {'clipped' if c['clipped'] else 'outside its figure'}"
            for c in browser.evaluate(CAPTIONS) if c["clipped"] or c["outside"]]


def overlap(a, b):
    return min(a["x1"], b["x1"]) - max(a["x0"], b["x0"]) > 1 and \
        min(a["y1"], b["y1"]) - max(a["y0"], b["y0"]) > 1


def page_problems(browser):
    """Every unreadable thing of the page open in browser, in words (empty: none)."""
    bad = []
    t = browser.evaluate(TABLES)
    bad += [f"cell narrower than its longest word: {n}" for n in t["narrow"]]
    bad += [f"table cut at the right: {c}" for c in t["cut"]]
    bad += [f"row on more than one line: {r}" for r in t["tall"]]
    if t["page"] > 1:
        bad.append(f"page {t['page']} px wider than the window")
    for p in browser.evaluate(PLOTS):
        if "spill" in p:
            if p["spill"] > 1 or p["element"] + 1 < p["height"]:
                bad.append(f"{p['figure']}: drawn beyond its element {p}")
            continue
        if p["width"] < MIN_PLOT or p["height"] < MIN_PLOT:
            bad.append(f"{p['figure']} / {p['title']}: plot area {p['width']:.0f} x "
                       f"{p['height']:.0f} px")
        bad += [f"{p['figure']} / {p['title']}: legend over the plot"
                for leg in p["legends"] if overlap(leg, p["frame"])]
        if p["title_width"] > p["title_room"] + 1:
            bad.append(f"{p['figure']} / {p['title']}: title cut ({p['title_width']:.0f} px "
                       f"in {p['title_room']:.0f})")
    return bad


def _shown_ticks(axis):
    lo, hi = sorted(axis.get_view_interval())
    slack = 1e-9 * max(abs(lo), abs(hi))
    return [t.label1 for t in axis.get_major_ticks() if lo - slack <= t.get_loc() <= hi + slack]


def _box(extent):
    return {"x0": extent.x0, "y0": extent.y0, "x1": extent.x1, "y1": extent.y1}


def png_problems(figure):
    """Every unreadable thing of the figure's PNG, in words (empty: none)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig = render_png.draw(figure)
        fig.canvas.draw()
    bad = [f"layout: {w.message}" for w in caught]
    r = fig.canvas.get_renderer()
    texts = [fig._suptitle] if fig._suptitle else []
    plots = [ax for ax in fig.axes if ax.axison]
    for ax in plots:
        texts += [ax.title, ax.xaxis.label, ax.yaxis.label]
        texts += _shown_ticks(ax.xaxis) + _shown_ticks(ax.yaxis)
        if ax.get_legend():
            texts += ax.get_legend().get_texts()
    shown = [(t.get_text(), _box(t.get_window_extent(r))) for t in texts
             if t.get_visible() and t.get_text().strip()]
    whole = {"x0": -1, "y0": -1, "x1": fig.bbox.width + 1, "y1": fig.bbox.height + 1}
    bad += [f"text outside the image: {s!r}" for s, b in shown
            if b["x0"] < whole["x0"] or b["y0"] < whole["y0"] or b["x1"] > whole["x1"]
            or b["y1"] > whole["y1"]]
    bad += [f"text over text: {a!r} / {b!r}"
            for (a, ba), (b, bb) in itertools.combinations(shown, 2) if overlap(ba, bb)]
    areas = [_box(ax.bbox) for ax in plots]
    bad += [f"plot area {ax.bbox.width:.0f} x {ax.bbox.height:.0f} px: {ax.get_title()!r}"
            for ax in plots if not ax.get_label() == "<colorbar>"
            and min(ax.bbox.width, ax.bbox.height) < MIN_PLOT * 0.8]
    for ax in plots:
        if ax.get_legend():
            leg = _box(ax.get_legend().get_window_extent(r))
            bad += [f"legend over a plot: {ax.get_title()!r}" for a in areas if overlap(leg, a)]
    if fig._suptitle:
        title = _box(fig._suptitle.get_window_extent(r))
        bad += ["title over a plot" for a in areas if overlap(title, a)]
    render_png.plt.close(fig)
    return bad
