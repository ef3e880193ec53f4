# SPDX-License-Identifier: BSD-3-Clause
"""sonde-report on records the binary wrote (a campaign run by sonde-suite in the test session,
and single runs): every view, its words (no run id in any title, legend or axis), the bugs seen
in earlier reports, --compare, and the files written."""

import json
import math
import re

import layout
import numpy as np
import pytest
from bokeh.models import ColumnDataSource
from golden import IOR_NO_FILE, IOR_WAITING, SONDE, WORKLOAD_RUNS, records_of

from sonde import report, results
from sonde.campaign import argcheck, io500
from sonde.views import compare, figures, plots, profiles, render_html, words
from sonde.views.figures import HEATMAP, HLINE, LINE, POINTS, QUADS, RANGE

RUN_ID = re.compile(r"\d{8}T\d{6}Z-\d+")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def page(campaign):
    return report.build([str(campaign)])


def words_of(fig):
    yield fig.title
    yield fig.caption
    for p in fig.panels:
        yield from (p.title, p.x_label, p.y_label, p.colorbar or "")
        yield from (s.name for s in p.series)
        yield from (str(c) for c in p.x_categories or [])


def test_every_view_of_the_campaign(page):
    titles = [f.title for f in page.figures()]
    assert "ior: MiB/s per phase and iteration" in titles
    assert "ior: scaling" in titles
    assert any(t.startswith("Call latency: ior easy, 2 ranks on 1 node, POSIX") for t in titles)
    assert "Per-call timeline of the write phase: mib, 2 ranks on 1 node, 4 KiB calls, up to " \
           "400 calls per task" in titles
    assert any(t.startswith("Per-call timeline of the read phase: mib") for t in titles)
    assert "Collective latency against message size" in titles
    assert any(t.startswith("btio") for t in titles) and any(t.startswith("mpiio") for t in titles)
    # Organised by question: summary, overview, one section per workload, procurement, environment.
    ids = [s.id for s in page.sections]
    assert ids[:2] == ["summary", "overview"] and ids[-2:] == ["procurement", "environment"]
    assert set(ids[2:-2]) == {"ior", "mib", "mpiio", "btio", "coll"}


def test_no_run_id_in_any_words_of_a_figure(page):
    for fig in page.figures():
        for text in words_of(fig):
            assert not RUN_ID.search(text), (fig.title, text)
    for t in page.tables():
        assert not RUN_ID.search(t.title)


def test_labels_say_what_ran(campaign):
    runs = results.load(campaign)
    labels = words.Labels(runs)
    said = {labels(r) for r in runs}
    assert "ior easy, 2 ranks on 1 node, POSIX, 64 KiB transfers, 512 KiB blocks, " \
           "file per process" in said
    assert "btio, 4 ranks on 1 node, MPI-IO independent, grid 12x12x12" in said
    assert "coll-per-call, 2 ranks on 1 node, per-call timing" in said
    assert len(said) == len(runs)  # every run told apart
    assert [words.size(n) for n in (0, 512, 4096, 47008, 16 << 20, 3 << 30, 10 * 1024 + 1)] == [
        "0 B", "512 B", "4 KiB", "45.9 KiB", "16 MiB", "3 GiB", "10 KiB"]


def test_bandwidth_iteration_zero_apart_and_rank_range_only_with_ranks(page, campaign):
    fig = next(f for f in page.figures() if f.name == "ior-per-iteration")
    one = next(p for p in fig.panels if p.title.startswith("ior easy, 1 rank "))
    two = next(p for p in fig.panels if p.title.startswith("ior easy, 2 ranks "))
    # One rank has no rank spread: no range is drawn (earlier reports drew error bars).
    assert not [s for s in one.series if s.kind == RANGE]
    assert [s.name for s in two.series if s.kind == RANGE] == [
        "write, slowest to fastest rank", "read, slowest to fastest rank"]
    first = [s for s in two.series if s.kind == POINTS and s.hollow]
    assert [s.name for s in first] == ["write, iteration 0", "read, iteration 0"]
    assert all(s.x == [0] for s in first)
    rest = [s for s in two.series if s.kind == LINE]
    assert all(s.x == [1, 2] for s in rest)
    assert [s.name for s in two.series if s.kind == HLINE] == [
        "write, mean of iterations 1-2", "read, mean of iterations 1-2"]
    assert two.x_ticks == [(0, "0"), (1, "1"), (2, "2")]  # whole iterations, never 0.25


def test_latency_histogram_buckets_have_their_width(page):
    """A phase whose calls all fall in one or two buckets still draws bars as wide as their
    buckets (the top bucket had zero width and the frame stayed empty)."""
    figs = [f for f in page.figures() if f.title.startswith("Call latency: ")]
    assert figs
    for fig in figs:
        hist = next(p for p in fig.panels if p.title == "Calls per latency bucket")
        for s in hist.series:
            assert s.kind == QUADS and len(s.left) == len(s.right) == len(s.y) >= 1
            for lo, hi in zip(s.left, s.right, strict=True):  # 64 buckets an octave
                assert lo < hi <= lo * (1 + 1 / 64) * (1 + 1e-12)
            assert sum(s.y) > 0
        cdf = next(p for p in fig.panels if p.title.startswith("Cumulative"))
        for s in cdf.series:
            assert s.y[0] == 0 and s.y[-1] == pytest.approx(1.0)
            assert all(a <= b for a, b in zip(s.y, s.y[1:], strict=False))


def test_mib_heatmaps_start_at_the_phase_start(campaign):
    [run] = [r for r in results.load(campaign) if r.workload == "mib"]
    tasks = {p["phase"]: p for p in run.profiles if p["part"] == "tasks"}
    for name, phase in profiles.phases(run).items():
        g = profiles.grid(phase)
        assert g.t0 == pytest.approx(min(tasks[name]["phase_start"]), abs=1e-3)
        # The read phase's calls fill its first bins (they were empty from 0 s on).
        assert g.calls[:, : max(1, g.calls.shape[1] // 5)].sum() > 0
        assert g.completed[:, -1].tolist() == tasks[name]["calls"]
        assert g.calls.sum() == sum(tasks[name]["calls"])
    fig = next(f for f in report.build([str(campaign)]).figures()
               if f.title.startswith("Per-call timeline of the read phase"))
    for p in fig.panels[1:]:
        assert p.y_integer and p.series[0].kind == HEATMAP
        assert p.series[0].extent[0] == 0.0


def test_collectives_one_panel_per_operation_timings_never_mixed(page):
    fig = next(f for f in page.figures() if f.name == "coll-latency-vs-size")
    assert [p.title for p in fig.panels] == ["Bcast", "Allreduce"]
    for p in fig.panels:
        assert p.x_log == 2 and p.y_log == 10
        names = [s.name for s in p.series]
        assert any("mpiBench timing: mean" in n for n in names)
        assert any("per-call timing: mean" in n for n in names)
        assert any("per-call timing: p50 to p99 of calls" in n for n in names)
        assert any("mpiBench timing: fastest to slowest rank" in n for n in names)
        assert all(0 not in (s.x or []) for s in p.series)  # 0 B has no place on a log axis
        assert all(re.fullmatch(r"\d+ (B|KiB|MiB)", t) for _, t in p.x_ticks)
    assert "0-byte messages" in fig.caption


def test_scaling_over_the_swept_ranks(page):
    fig = next(f for f in page.figures() if f.name == "ior-scaling")
    [panel] = fig.panels
    assert panel.title == "MiB/s against ranks" and panel.x_log == 2
    lines = [s for s in panel.series if s.kind == LINE]
    assert [s.name for s in lines] == ["ior easy, write", "ior easy, read"]
    assert all(s.x == [1, 2, 4] for s in lines)


def test_status_reads_no_rules_and_tables_fit(page):
    verdicts = next(t for t in page.tables() if t.id == "verdicts")
    assert {r[1].text for r in verdicts.rows} == {"no rules"}
    assert all(r[2].text == "the step lists no rule" for r in verdicts.rows)
    ior = next(t for t in page.tables() if t.id == "ior-table")
    assert len(ior.rows) == 3 and {r[-1].text for r in ior.rows} == {"no rules"}


def test_written_page_and_pngs(campaign, tmp_path, capsys):
    out = tmp_path / "r.html"
    assert report.main([str(campaign), "-o", str(out)]) == 0
    html = out.read_text()
    page = report.build([str(campaign)])
    pngs = sorted((tmp_path / "r-figures").glob("*.png"))
    assert len(pngs) == len(page.figures())
    assert all(p.read_bytes().startswith(PNG_MAGIC) for p in pngs)
    assert all(not RUN_ID.search(p.name) for p in pngs)
    # Self-contained: BokehJS inline (the browser test checks that nothing is fetched; its
    # MathJax loader, which this page never calls, names an address), nothing else linked.
    bokeh_js = render_html.javascript()
    assert bokeh_js in html
    assert not re.search(r"""(src|href)=["']https?://""", html.replace(bokeh_js, ""))
    assert "Bokeh" in html and html.count('<figure class="figure"') == len(pngs)
    assert html.count('class="data sortable"') == len(page.tables())
    assert "figures" in capsys.readouterr().out


def test_renderers_draw_the_spec_numbers(page):
    """The page's figures (Bokeh) draw the spec's own numbers. The PNGs of the same figures
    (matplotlib) are drawn once, by test_written_page_and_pngs (drawing them here too cost 100 s
    of CI's CPU)."""
    for fig in page.figures():
        grid = render_html.layout(fig)
        sources = [m for m in grid.references() if isinstance(m, ColumnDataSource)]
        data = [s.data for s in sources]
        for _, _, member, values in fig.numbers():
            if member in ("lo", "hi", "left", "right", "y") and values:
                assert any(list(values) == list(d.get(member, [])) for d in data), \
                    (fig.title, member)


PATHS = argcheck.path_params(SONDE)


# ---- --compare ------------------------------------------------------------------------------

def test_compare_matches_only_the_same_measurement(golden):
    small = golden.run("mib", "-F", "-t", "{dir}", "-l", "8", "-s", "4k")
    large = golden.run("mib", "-F", "-t", "{dir}", "-l", "8", "-s", "64k")
    a, b = results.load(small), results.load(large)
    assert compare.match([a, b], PATHS) == []  # other call sizes: never the same measurement
    same = results.load(golden.run("mib", "-F", "-t", "{dir}", "-l", "8", "-s", "4k",
                                   "-b"))
    assert compare.match([a, same], PATHS) == []  # random reads are another benchmark


def test_compare_keeps_every_row_and_marks_noise(golden, tmp_path):
    args = ["-b", "1", "-e", "1M", "-i", "10", "Bcast", "Allreduce", "Barrier"]
    a = golden.run("coll", *args, ranks=2)
    b = golden.run("coll", *args, ranks=2, csv=True)  # the same measurements run again
    ior_a = golden.run("ior", *WORKLOAD_RUNS["ior"])
    # again, on another file (paths are not what makes a measurement)
    ior_b = golden.run("ior", *WORKLOAD_RUNS["ior"][:-1], "{dir}/ior-file-b")
    out = tmp_path / "cmp.html"
    pa, pb = tmp_path / "A", tmp_path / "B"
    pa.mkdir()
    pb.mkdir()
    for src, d in ((a, pa), (ior_a, pa), (b, pb), (ior_b, pb)):
        (d / src.name).write_bytes(src.read_bytes())
    assert report.main(["--compare", str(pa), str(pb), "-o", str(out)]) == 0
    page = report.build_comparison([str(pa), str(pb)], [results.load(pa), results.load(pb)], SONDE)
    [table] = [t for t in page.tables() if t.id == "compare"]
    matched = compare.match([results.load(pa), results.load(pb)], PATHS)
    assert len(table.rows) == len(matched) > 40  # every matched row, not the first 40
    units = {r[1].text for r in table.rows}
    assert units == {"µs", "MiB/s"}
    [fig] = page.figures()
    # a unitless axis, never mixed; a panel per workload, a row per measurement
    assert {p.x_label for p in fig.panels} == {"ratio to A (1: the same)"}
    assert sum(len(p.y_categories) for p in fig.panels) == len(matched)
    for m, row in zip(matched, table.rows, strict=True):
        ratio = row[-2]
        assert ratio.value == pytest.approx(m.means[1] / m.means[0])
        if m.within_noise(1):
            assert ratio.cls == "muted"
        lo_a, hi_a, lo_b, hi_b = min(m.values[0]), max(m.values[0]), min(m.values[1]), \
            max(m.values[1])
        assert m.within_noise(1) == (len(m.values[0]) > 1 and len(m.values[1]) > 1 and
                                     max(lo_a, lo_b) <= min(hi_a, hi_b))
    # A campaign against itself: every ratio 1; within noise where there is a range (ior's
    # iterations), never where a single value has none (a collective's mean); nothing better.
    same = compare.match([results.load(pa), results.load(pa)], PATHS)
    coll_run, ior_run = sorted(results.load(pa), key=lambda r: r.workload)
    assert len(same) == len(coll_run.measurements) + 2  # ior: write and read, 2 iterations
    for m in same:
        assert m.ratio(1) == 1 and m.better(1) is None
        assert m.within_noise(1) == (m.unit == "MiB/s")


def test_compare_needs_two_campaigns(golden, capsys):
    f = golden.run("coll", *WORKLOAD_RUNS["coll"])
    with pytest.raises(SystemExit):
        report.main(["--compare", str(f)])
    assert "at least two" in capsys.readouterr().err


def test_figure_numbers_iterates_every_member():
    fig = figures.Figure("n", "t", "c", [figures.Panel("p", "x", "y", [
        figures.Series(LINE, "s", [1, 2], [3, 4]), figures.Series(RANGE, "r", [1], lo=[0],
                                                                  hi=[5])])])
    assert list(fig.numbers()) == [("p", "s", "x", [1, 2]), ("p", "s", "y", [3, 4]),
                                   ("p", "r", "x", [1]), ("p", "r", "lo", [0]),
                                   ("p", "r", "hi", [5])]


def test_latency_buckets_of_both_versions():
    # schema_version 2: the record's buckets as they are, the overflow bucket up to infinity
    lo, hi, counts = plots.latency_buckets({"histogram_ns": [[1, 1.015625, 3], [2**42, None, 1]]})
    assert lo.tolist() == [1, 2**42] and hi.tolist() == [1.015625, math.inf]
    assert counts.tolist() == [3, 1]
    # version 1: 48 log2 buckets, the empty ones left out
    lo, hi, counts = plots.latency_buckets({"histogram_log2_ns": [0] * 10 + [5] + [0] * 37})
    assert lo.tolist() == [1024] and hi.tolist() == [2048] and counts.tolist() == [5]
    # a percentile: the bucket of the sample of rank ceil(p% of 4), never above the largest
    lo, hi = np.array([100.0, 200.0]), np.array([101.0, 202.0])
    value, low, high = plots.percentile_of_buckets(lo, hi, np.array([3, 1]), 50, 1.0)
    assert (value, low, high) == pytest.approx((100.5e-9, 100e-9, 101e-9), rel=1e-12)
    assert plots.percentile_of_buckets(lo, hi, np.array([3, 1]), 99.9, 201e-9)[0] == 201e-9


def test_io500_table_is_io500_s_result(io500_campaign):
    page = report.build([str(io500_campaign)])
    result = io500.evaluate_run_dir(io500_campaign)
    [table] = [t for t in page.tables() if t.id.startswith("io500")]
    rows = result.rows()
    assert [r[0].text for r in table.rows] == [r["phase"] for r in rows] == list(
        io500.PHASE_NAMES)
    for cells, r in zip(table.rows, rows, strict=True):
        assert cells[2].value == r["value"] and cells[4].value == r["seconds"]
        assert cells[5].text == ("valid" if r["valid"] else "INVALID")
    proc = next(s for s in page.sections if s.id == "procurement")
    [line] = [s for s in proc.intro if s.startswith("IO500")]
    assert f"score {result.score:.4g}" in line and f"bandwidth {result.bw:.4g} GiB/s" in line
    # a one-second stonewall is no valid IO500 run, and the page says so
    assert "INVALID" in line and not result.valid
    # mdtest and find have their sections, their rates in operations per second
    ids = [s.id for s in page.sections]
    assert "mdtest" in ids and "find" in ids
    md = next(t for t in page.tables() if t.id == "mdtest-summary")
    assert {r[2].text for r in md.rows} == {"operations/s"}


def test_what_failed_and_why(golden, tmp_path):
    """A run that failed (its end record's reason, error and path) and one killed before its
    end (no end record) are in the overview's failures, in words."""
    failed = golden.run("ior", *IOR_NO_FILE, expect=2)
    killed = golden.killed("ior", *IOR_WAITING)
    ok = golden.run("coll", *WORKLOAD_RUNS["coll"])
    page = report.build([str(failed), str(killed), str(ok)])
    [table] = [t for t in page.tables() if t.id == "failures"]
    end = records_of(failed)[-1]
    rows = {r[1].text: r for r in table.rows}
    usage = rows["exit 2: usage"]
    assert usage[2].text == end["error"] and usage[3].text == end["path"]
    assert usage[4].value == end["rank"] == 0
    # SIGKILLed, as srun and Hydra end tasks: a header and no end record
    gone = rows["killed by the launcher (no end record)"]
    assert gone[2].text.startswith("the launcher killed it")
    assert len(table.rows) == 2  # the coll run finished: not a failure
    ran = next(t for t in page.tables() if t.id == "runs")
    assert [r[-1].text for r in ran.rows] == ["exit 2: usage",
                                              "killed by the launcher (no end record)", "ok"]


def test_time_series_draws_every_interval(series_file):
    """The rate panel of each phase holds its intervals' bandwidths at their midpoints; over
    their lengths they add up to the bytes of the phase's measurement record."""
    [run] = results.load(series_file)
    [fig] = plots.time_series([run], words.Labels([run]))
    assert fig.section == "ior" and RUN_ID.search(fig.name) is None
    rate, lat, active = fig.panels
    assert rate.y_label == "MiB/s" and lat.y_log == 10 and active.y_integer
    for m in run.measurements:
        name = f"{m['phase']} {m['iteration']}"
        [s] = [s for s in rate.series if s.name == name]
        iv = [r for r in run.intervals
              if (r["phase"], r["iteration"]) == (m["phase"], m["iteration"])]
        assert s.x == [r["start_s"] + r["seconds"] / 2 for r in iv]
        moved = sum(y * 2**20 * r["seconds"] for y, r in zip(s.y, iv, strict=True))
        assert moved == pytest.approx(m["bytes"], rel=1e-9)
    # latency and ranks for each phase's first iteration only
    assert {s.name for s in active.series} == {"write 0", "read 0"}
    assert {s.name for s in lat.series} <= {"write 0 p50", "write 0 p99", "read 0 p50",
                                            "read 0 p99"}


def test_finish_times_of_a_sub_millisecond_phase_keep_their_ticks_apart(golden, tmp_path):
    """mdtest's rank finish times when every phase ends within 2 ms (a quick one-rank run, as
    the browser test's golden run once was): the seconds axis's labels (0.00025 s steps, seven
    characters each, were printed over each other in the PNG) stay apart. The binary's mdtest
    records, their finish times scaled into 0-2 ms."""
    src = golden.run("mdtest", *WORKLOAD_RUNS["mdtest"])
    recs = [json.loads(line) for line in src.read_text().splitlines()]
    finished = [r for r in recs if r.get("type") == "measurement" and r.get("finish")]
    scale = 0.002 / max(r["finish"]["max_s"] for r in finished)
    for r in finished:
        f = r["finish"]
        for key in ("min_s", "p50_s", "max_s", "mean_s", "lost_s"):
            f[key] *= scale
        for s in f["slowest"]:
            s["seconds"] *= scale
    path = tmp_path / "quick.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    page = report.build([str(path)])
    shown = [f for f in page.figures() if f.title.startswith("Rank finish")]
    assert shown
    assert {f.name: p for f in shown if (p := layout.png_problems(f))} == {}
