# SPDX-License-Identifier: BSD-3-Clause
"""The report as a browser shows it (headless Chromium, scripts/setup.sh installs Debian's): the
campaign's page and one of more than 10^6 per-call profile records load with no console error
or exception, fetch nothing from the network, draw every figure (its title above it, its
canvas not blank), fit the page's width, and render in bounded time."""

import io
import os
import subprocess

import layout
import pytest
from browser import Browser, find
from golden import SONDE, env, launcher

from sonde import report, results

# Bounds on this shared 2-core machine, far above what a quiet one takes (about a second):
# they catch a report that stops drawing or grows without bound, not a slow day.
CAMPAIGN_SECONDS = 60
LARGE_SECONDS = 90
LARGE_CALLS = 500_000  # per phase, 2 tasks: 2 x 10^6 profile records (start and end)

READY = ("typeof Bokeh !== 'undefined' && Bokeh.documents.length > 0 && "
         "Bokeh.documents.every(d => d.is_idle)")
FIGURES = """Array.from(document.querySelectorAll('figure.figure')).map(f => {
  // Bokeh's root div is display: contents; the element it drew into is its first child.
  const root = f.querySelector('[data-root-id]');
  const r = (root && root.firstElementChild) || f;
  const b = r.getBoundingClientRect();
  return {title: f.querySelector('h3').textContent, want: f.dataset.title,
          x: b.left + window.scrollX, y: b.top + window.scrollY, width: b.width,
          height: b.height};
})"""


def browser_or_skip():
    binary = find()
    if not binary:
        pytest.skip("no Chromium installed (scripts/setup.sh installs Debian's chromium)")
    return binary


def distinct_colours(png):
    from PIL import Image

    im = Image.open(io.BytesIO(png)).convert("RGB")
    return len(im.resize((200, 120)).getcolors(maxcolors=200 * 120))


def check_page(path, page, seconds):
    with Browser(browser_or_skip()) as b:
        took = b.open(path.as_uri(), READY, timeout=seconds * 2)
        assert took < seconds, f"rendered in {took:.1f} s"
        assert b.problems() == []
        assert all(u.startswith(("file:", "data:", "about:")) for u in b.requests()), \
            [u for u in b.requests() if not u.startswith("file:")]
        figs = b.evaluate(FIGURES)
        assert len(figs) == len(page.figures())
        assert [f["title"] for f in figs] == [f.title for f in page.figures()]
        for f in figs:
            assert f["title"] == f["want"] and f["width"] > 200 and f["height"] > 150, f
            shot = b.screenshot({k: f[k] for k in ("x", "y", "width", "height")})
            assert distinct_colours(shot) > 12, f"blank figure: {f['title']}"
        # Wide tables scroll inside their box: the page itself never gets wider than the view.
        assert b.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
        # The tables sort on a click of a column title (by the exact values).
        ordered = b.evaluate("""(() => {
            const t = document.querySelector('table#runs'); const th = t.tHead.rows[0].cells;
            const col = Array.from(th).findIndex(h => h.textContent === 'ranks');
            th[col].click(); th[col].click();
            return Array.from(t.tBodies[0].rows).map(r => parseFloat(r.cells[col].dataset.value));
        })()""")
        assert ordered == sorted(ordered, reverse=True)
        full = b.screenshot()
        assert full.startswith(b"\x89PNG") and distinct_colours(full) > 20
        return took


def test_campaign_report_in_a_browser(campaign, tmp_path):
    page = report.build([str(campaign)])
    out = report.write(page, tmp_path / "report.html")
    check_page(out, page, CAMPAIGN_SECONDS)


def test_large_profile_report_in_a_browser(tmp_path):
    """A profiled mib run of 2 x 10^6 per-call records (start and end of 500 000 calls of 2
    tasks in each phase): the figures stay bounded to their pixels, so the page loads as fast
    as a small one."""
    browser_or_skip()
    results = tmp_path / "large.jsonl"
    argv = launcher(2) + [SONDE, "mib", "-F", "-t", str(tmp_path),
            "-l", str(LARGE_CALLS), "-L", "300", "-s", "16", "-p", str(tmp_path / "prof"),
            "--json", str(results)]
    proc = subprocess.run(argv, env=env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    for f in tmp_path.glob("mibData.*"):
        os.unlink(f)
    page = report.build([str(results)])
    timelines = [f for f in page.figures() if f.title.startswith("Per-call timeline")]
    assert len(timelines) == 2
    for f in timelines:
        heat = f.panels[1].series[0]
        assert heat.z.size <= 256 * 400  # bounded to pixels, whatever the calls
        assert f"{2 * LARGE_CALLS} calls of 2 tasks" in f.caption
    out = report.write(page, tmp_path / "large.html")
    assert out.stat().st_size < 4 << 20  # the page does not grow with the calls
    check_page(out, page, LARGE_SECONDS)


def test_latency_and_finish_views_are_readable(golden, tmp_path):
    """The percentile curves with their error bars and the rank finish times with the
    stragglers named, for the binary's ior and mdtest runs (mdtest's ten phases: the most
    categories), at 1400 px: no layout problem on the page or in their PNGs, every such figure
    drawn (not blank), the curve's error bars drawn as segments, and each finish figure's
    caption, whole and inside its figure, naming the slowest rank of its first phase."""
    from golden import WORKLOAD_RUNS

    sources = [golden.run(w, *WORKLOAD_RUNS[w]) for w in ("ior", "mdtest")]
    page = report.build([str(p) for p in sources])
    path = report.write(page, tmp_path / "telemetry.html")
    shown = [f for f in page.figures() if f.title.startswith(("Call latency", "Rank finish"))]
    assert len([f for f in shown if f.title.startswith("Rank finish")]) == 2
    assert len([f for f in shown if f.title.startswith("Call latency")]) == 2
    with Browser(browser_or_skip(), width=1400) as b:
        b.open(path.as_uri(), READY, timeout=CAMPAIGN_SECONDS * 2)
        assert b.problems() == []
        assert layout.page_problems(b) == []
        assert layout.caption_problems(b) == []
        captions = {c["figure"]: c["text"] for c in b.evaluate(layout.CAPTIONS)}
        figs = {f["title"]: f for f in b.evaluate(FIGURES)}
        for f in shown:
            box = figs[f.title]
            shot = b.screenshot({k: box[k] for k in ("x", "y", "width", "height")})
            assert distinct_colours(shot) > 12, f"blank figure: {f.title}"
            if f.title.startswith("Rank finish"):
                slow = f.panels[0].series[2].hover["rank"][0]  # the first phase's slowest
                assert slow in captions[f.title]
            else:
                curve = f.panels[1]
                assert [s.kind for s in curve.series].count("range") == len(curve.series) // 2
    problems = {f.name: layout.png_problems(f) for f in shown}
    assert {k: v for k, v in problems.items() if v} == {}


@pytest.fixture(scope="module")
def quick_pages(quick_pair, tmp_path_factory):
    """The quick suite's report and the comparison of two runs of it, written once."""
    out = tmp_path_factory.mktemp("quick-pages")
    one = report.build([str(quick_pair[0])])
    both = report.build_comparison([str(d) for d in quick_pair],
                                   [results.load(d) for d in quick_pair], SONDE)
    return [(one, report.write(one, out / "report.html")),
            (both, report.write(both, out / "compare.html"))]


def test_quick_suite_pages_are_readable(quick_pages):
    """At 1400 px, as a storage team's meeting screen shows them: every table one line per
    run (no cell narrower than its longest word, nothing cut at the right), every plot area at
    least 200 px each way, no legend over its plot or over what follows the figure."""
    with Browser(browser_or_skip(), width=1400) as b:
        for page, path in quick_pages:
            b.open(path.as_uri(), READY, timeout=CAMPAIGN_SECONDS * 2)
            assert b.problems() == []
            assert layout.page_problems(b) == [], path.name
            assert len(b.evaluate(layout.PLOTS)) > len(page.figures())


def test_quick_suite_pngs_are_readable(quick_pages):
    """The PNGs beside the pages: matplotlib's layout succeeded, no text over text or outside
    the image, no legend or title over a plot."""
    problems = {f.name: layout.png_problems(f) for page, _ in quick_pages
                for f in page.figures()}
    assert {k: v for k, v in problems.items() if v} == {}


def test_mix_report_timeline_and_interference(mix_file, tmp_path):
    """A sonde mix run's section: the interference table holds the mix records' figures, the
    timeline each group's phases where its measurement records put them and each group's rate
    over time where its interval records put it; the page and the PNG are readable (layout
    checks) in the browser."""
    runs = results.load(mix_file)
    page = report.build([str(mix_file)], runs)
    (section,) = [s for s in page.sections if s.id == "mix"]
    (table,) = section.tables
    (mix,) = [r for r in runs if r.workload == "mix"]
    overlaps = [r for r in mix.records if r["type"] == "mix"]
    assert overlaps, "the golden mix run has no overlap"
    rows = [row for row in table.rows if row[2].text != "all groups"]
    want = [(g["bandwidth_mib_s"], g["outside_bandwidth_mib_s"], g["phase_bandwidth_mib_s"],
             g["solo_bandwidth_mib_s"], g["bandwidth_ratio"])
            for r in overlaps for g in r["groups"]]
    assert [tuple(row[i].value for i in (5, 7, 9, 11, 13)) for row in rows] == want
    sums = [row[5].value for row in table.rows if row[2].text == "all groups"]
    assert sums == [r["aggregate_bandwidth_mib_s"] for r in overlaps]
    (figure,) = section.figures
    segments = sorted(tuple(s.x) for s in figure.panels[0].series if s.kind == "line")
    spans = sorted((m["start"], m["end"]) for r in runs if r.header and "group" in r.header
                   for m in r.measurements)
    assert segments == spans
    # both groups write: every interval of their runs is a point of the bandwidth panel
    (rates,) = figure.panels[1:]
    points = sorted((x, y) for s in rates.series if s.kind == "line"
                    for x, y in zip(s.x, s.y, strict=True))
    intervals = sorted((i["clock_s"] + i["seconds"] / 2, i["bandwidth_mib_s"]) for r in runs
                       if r.header and "group" in r.header for i in r.intervals)
    assert len(intervals) > 2 * len(spans) and points == intervals
    out = report.write(page, tmp_path / "mix.html")
    with Browser(browser_or_skip(), width=1400) as b:
        b.open(out.as_uri(), READY, timeout=CAMPAIGN_SECONDS * 2)
        assert b.problems() == []
        assert layout.page_problems(b) == []
    assert layout.png_problems(figure) == []


def test_time_series_report_is_readable(series_file, tmp_path):
    """A run with interval records: the page loads, its time series figure is drawn, and at
    1400 px nothing is unreadable (no title cut, no legend over a plot); its PNG neither."""
    page = report.build([str(series_file)])
    [fig] = [f for f in page.figures() if f.title.startswith("Time series")]
    out = report.write(page, tmp_path / "series.html")
    check_page(out, page, CAMPAIGN_SECONDS)
    with Browser(browser_or_skip(), width=1400) as b:
        b.open(out.as_uri(), READY, timeout=CAMPAIGN_SECONDS * 2)
        problems = [p for p in layout.page_problems(b) if fig.title in p
                    or not p.startswith("cell narrower")]
        assert problems == []
    assert layout.png_problems(fig) == []
