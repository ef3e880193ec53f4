# SPDX-License-Identifier: BSD-3-Clause
"""Every number on the report's page re-derived from the JSON records the binary wrote, here,
without sonde's loader: each table cell's exact value (data-value) and its shown text, and
every number of every figure (test_report checks that both renderers draw these numbers)."""

import html as htmllib
import json
import math
import re
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from sonde import report
from sonde.campaign import io500 as io500_module

MIB = 2**20


def raw_runs(run_dir):
    """[{header, measurements, summaries, profiles, end}] per run, files in sorted order."""
    runs = []
    for f in sorted(Path(run_dir).rglob("*.jsonl")):
        by_id = {}
        for line in f.read_text().splitlines():
            r = json.loads(line)
            run = by_id.setdefault(r["run_id"], {"measurement": [], "summary": [],
                                                 "profile": [], "header": None, "end": None})
            if r["type"] in ("header", "end"):
                run[r["type"]] = r
            else:
                run[r["type"]].append(r)
        runs.extend(by_id.values())
    return runs


def value_of(m):
    if m["bytes"] > 0 and m["bandwidth_mib_s"] is not None and \
            m["workload"] not in ("mdtest", "find"):
        return m["bandwidth_mib_s"]
    return m["ops_per_s"] if m["ops"] else None


def mean(v):
    return sum(v) / len(v)


def parse_tables(page_html):
    """{table id: [[(data-value or None, text, words), ...] per row]} of the written page."""
    out = {}
    for tid, body in re.findall(r'<table class="data sortable" id="([^"]+)">(.*?)</table>',
                                page_html, re.S):
        rows = []
        for tr in re.findall(r"<tr>(.*?)</tr>", body.split("<tbody>")[1], re.S):
            cells = re.findall(r"<td([^>]*)>(.*?)</td>", tr, re.S)
            row = []
            for attrs, text in cells:
                m = re.search(r'data-value="([^"]*)"', attrs)
                words = "class=" in attrs  # a number cell has no class, even when empty
                row.append((float(htmllib.unescape(m.group(1))) if m else None,
                            htmllib.unescape(text), words))
            rows.append(row)
        out[tid] = rows
    return out


def same(got, want):
    if want is None:
        return got is None
    return got is not None and math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-300)


def check_rows(table, expected):
    """expected: per row, the numbers of its numeric cells in order (None for "-")."""
    assert len(table) == len(expected)
    for row, want in zip(table, expected, strict=True):
        cells = [(v, t) for v, t, words in row if v is not None or not words]
        got = [v for v, _ in cells][: len(want)]
        assert len(got) == len(want) and all(same(g, w) for g, w in zip(got, want, strict=True)), \
            (row, want)
        for v, t in cells:
            if v is not None and re.fullmatch(r"-?[\d.]+(e[-+]\d+)?", t):
                assert math.isclose(float(t), v, rel_tol=5e-4, abs_tol=1e-12), (t, v)


def write(run_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("truth") / "report.html"
    page = report.build([str(run_dir)])
    report.write(page, out)
    return page, parse_tables(out.read_text()), raw_runs(run_dir)


@pytest.fixture(scope="module")
def written(campaign, tmp_path_factory):
    return write(campaign, tmp_path_factory)


@pytest.fixture(scope="module", params=["campaign", "io500_campaign"])
def any_written(request, tmp_path_factory):
    return request.param, write(request.getfixturevalue(request.param), tmp_path_factory)


def test_tables_are_the_records(any_written):
    which, (page, tables, runs) = any_written
    check_rows(tables["runs"], [[r["header"]["ranks"], r["header"]["nodes"],
                                 r["end"]["elapsed_seconds"], len(r["measurement"])]
                                for r in runs])
    by_workload = defaultdict(list)
    for r in runs:
        by_workload[r["header"]["workload"]].append(r)
    for workload, group in by_workload.items():
        if workload == "coll":
            continue
        want = []
        for r in group:
            for phase in dict.fromkeys(m["phase"] for m in r["measurement"]):
                ms = [m for m in r["measurement"] if m["phase"] == phase]
                vals = [value_of(m) for m in ms]
                iterated = len(vals) > 1 and ms[0]["iteration"] == 0
                later = vals[1:] if iterated else vals
                want.append([len(ms), vals[0] if iterated else None, mean(later), min(vals),
                             max(vals), mean([m["seconds"] for m in ms])])
        check_rows(tables[f"{workload}-summary"], want)
    want = []
    for r in by_workload.get("coll", []):
        for m in sorted(r["measurement"], key=lambda m: (m["phase"], m["params"]["comm"],
                                                         m["params"]["size"])):
            per_call = m["params"]["timing"] == "per-call"
            e, lat = m["extra"], m["latency"]
            want.append([m["params"]["size"], m["ops"], e["avg_us"], e["min_us"], e["max_us"],
                         lat["p50"] * 1e6 if per_call else None,
                         lat["p99"] * 1e6 if per_call else None])
    if want:
        check_rows(tables["coll-summary"], want)
    want = []
    for r in by_workload["ior"]:
        if not r["summary"]:
            continue
        s = {x["operation"]: x for x in r["summary"] if x["test"] == 0}
        want.append([s.get(op, {}).get(k) for op in ("read", "write") for k in (
            "bw_max_mib_s", "bw_mean_mib_s", "bw_min_mib_s", "mean_time_s")]
            + [r["header"]["nodes"], r["header"]["ranks"], r["header"]["tasks_per_node"]])
    check_rows(tables["ior-table"], want)
    check_rows(tables["environment"], [[r["header"]["ranks"], r["header"]["tasks_per_node"]]
                                       for r in runs])
    io500 = {}
    if which == "io500_campaign":
        result = io500_module.evaluate_run_dir(Path(page.sources[0]))
        io500 = {"io500-0": [[r["value"], r["seconds"]] for r in result.rows()]}
        check_rows(tables["io500-0"], io500["io500-0"])
    check_rows(tables["headlines"], headlines(runs))
    # Every table of the page was checked above (or holds words only).
    checked = {"runs", "ior-table", "environment", "verdicts", "headlines"} | set(io500)
    checked |= {f"{w}-summary" for w in by_workload}
    assert set(tables) == checked
    facts = next(s for s in page.sections if s.id == "overview").intro
    ranks = [r["header"]["ranks"] for r in runs]
    shape = (f"{min(ranks)} to {max(ranks)} ranks" if min(ranks) < max(ranks) else
             f"{ranks[0]} ranks each")
    assert facts[0].startswith(f"{len(runs)} runs of ") and \
        f", {shape}, on 1 node, from " in facts[0]


def headlines(runs):
    """The summary's numbers per workload and phase in first-seen order, over the runs that
    ended with exit code 0: runs, best (the lowest latency for collectives), mean (none for
    collectives), p99 call latency in seconds, the largest spread of one run's iterations in
    percent."""
    groups = defaultdict(list)
    for r in runs:
        if r["end"] and r["end"]["exit_code"] == 0:
            for m in r["measurement"]:
                groups[(r["header"]["workload"], m["phase"])].append((r["header"]["run_id"]
                                                                      if "run_id" in r["header"]
                                                                      else id(r), m))
    want = []
    for (workload, _), ms in groups.items():
        coll = workload == "coll"
        values = [(run, m["extra"]["avg_us"] if coll else value_of(m), m) for run, m in ms]
        values = [v for v in values if v[1] is not None]
        if not values:
            continue
        figures = [v for _, v, _ in values]
        p99 = [m["latency"]["p99"] for _, _, m in values
               if (not coll or m["params"]["timing"] == "per-call")
               and (m.get("latency") or {}).get("p99") is not None]
        spreads = []
        for run in dict.fromkeys(run for run, _, _ in values):
            v = [f for r, f, _ in values if r == run]
            if len(v) > 1:
                spreads.append(100 * (max(v) - min(v)) / mean(v))
        want.append([len({run for run, _, _ in values}),
                     min(figures) if coll else max(figures), None if coll else mean(figures),
                     max(p99) if p99 else None,
                     max(spreads) if spreads and not coll else None])
    return want


def panel(fig, title):
    return next(p for p in fig.panels if p.title == title)


def series(p, name):
    return next(s for s in p.series if s.name == name)


def test_bandwidth_figures_are_the_records(written):
    page, _, runs = written
    labels = {p.title for f in page.figures() if f.name.endswith("-per-iteration")
              for p in f.panels}
    n = 0
    for f in page.figures():
        if not f.name.endswith("-per-iteration"):
            continue
        for p in f.panels:
            run = next(r for r in runs if p.title.startswith(_name(r)) and
                       f"{r['header']['ranks']} rank" in p.title and
                       _matches(p, r))
            for phase in dict.fromkeys(m["phase"] for m in run["measurement"]):
                ms = [m for m in run["measurement"] if m["phase"] == phase]
                pts = {}
                for s in p.series:
                    if s.kind in ("points", "line") and s.name.split(",")[0] == phase:
                        pts.update(zip(s.x, s.y, strict=True))
                key = [m["iteration"] if m["iteration"] >= 0 else phase for m in ms]
                assert pts == dict(zip(key, [value_of(m) for m in ms], strict=True))
                if len(ms) > 1 and ms[0]["iteration"] == 0:
                    hl = series(p, f"{phase}, mean of iterations 1-{ms[-1]['iteration']}")
                    assert hl.y == [pytest.approx(mean([value_of(m) for m in ms[1:]]),
                                                  rel=1e-12)]
                rng = [s for s in p.series if s.name == f"{phase}, slowest to fastest rank"]
                if run["header"]["ranks"] > 1:
                    [rng] = rng
                    amount = [m["bytes"] / MIB if m["bytes"] else m["ops"] for m in ms]
                    assert rng.lo == [a / m["per_rank"]["max"] for a, m in zip(amount, ms,
                                                                                strict=True)]
                    assert rng.hi == [a / m["per_rank"]["min"] for a, m in zip(amount, ms,
                                                                                strict=True)]
                else:
                    assert rng == []
                n += 1
    assert n >= 8 and labels


def _name(r):
    return r["header"]["workload"]


def _matches(p, r):
    """The panel of run r: its points are r's figures."""
    ys = {y for s in p.series if s.kind in ("points", "line") for y in s.y}
    return ys == {value_of(m) for m in r["measurement"] if value_of(m) is not None}


def test_scaling_is_the_records(written):
    page, _, runs = written
    [fig] = [f for f in page.figures() if f.name == "ior-scaling"]
    [p] = fig.panels
    for phase in ("write", "read"):
        line = series(p, f"ior easy, {phase}")
        by_ranks = {}
        for r in runs:
            if r["header"]["workload"] == "ior":
                by_ranks[r["header"]["ranks"]] = [value_of(m) for m in r["measurement"]
                                                  if m["phase"] == phase]
        assert line.x == sorted(by_ranks)
        assert line.y == [pytest.approx(mean(by_ranks[x]), rel=1e-12) for x in line.x]
        band = next(s for s in p.series if s.kind == "band" and s.color == line.color)
        assert band.lo == [min(by_ranks[x]) for x in line.x]
        assert band.hi == [max(by_ranks[x]) for x in line.x]


def test_latency_figures_are_the_records(written):
    page, _, runs = written
    figs = [f for f in page.figures() if f.title.startswith("Call latency: ")]
    with_latency = [r for r in runs if r["header"]["workload"] != "coll" and any(
        (m["latency"] or {}).get("count", 0) > 1 for m in r["measurement"])]
    assert len(figs) == len(with_latency)
    for fig, r in zip(figs, with_latency, strict=True):
        ms = [m for m in r["measurement"] if (m["latency"] or {}).get("count", 0) > 1]
        pct = panel(fig, "Percentiles per phase and iteration")
        keys = {"p50": "p50", "p90": "p90", "p99": "p99", "p99.9": "p999", "max": "max"}
        assert [s.name for s in pct.series] == list(keys)
        for s in pct.series:
            assert s.y == [m["latency"][keys[s.name]] * 1e6 for m in ms]
        hist = panel(fig, "Calls per latency bucket")
        curve = panel(fig, "Percentile curve per phase")
        for s in hist.series:
            counts = defaultdict(int)
            for m in ms:
                if m["phase"] == s.name:
                    for lo, hi, n in m["latency"]["histogram_ns"]:
                        counts[(lo, hi)] += n
            edges = sorted(counts)
            assert s.y == [counts[e] for e in edges]
            assert s.left == [lo / 1e3 for lo, _ in edges]
            cdf = series(panel(fig, "Cumulative distribution per phase"), s.name)
            total = sum(s.y)
            assert cdf.y[1:] == pytest.approx((np.cumsum(s.y) / total).tolist(), rel=1e-12)
            # the curve: the bucket of the sample of rank ceil(p% of the calls), its midpoint
            largest = max(m["latency"]["max"] for m in ms if m["phase"] == s.name)
            line = next(c for c in curve.series if c.name == s.name)
            bars = next(c for c in curve.series if c.kind == "range" and c.color == line.color)
            for i, p in enumerate((50, 90, 99, 99.9)):
                rank = math.ceil(round(p * total / 100, 9))
                seen = 0
                for lo, hi in edges:
                    seen += counts[(lo, hi)]
                    if seen >= rank:
                        break
                assert line.y[i] == pytest.approx(min((lo + hi) / 2e3, largest * 1e6), rel=1e-12)
                assert bars.lo[i] == pytest.approx(lo / 1e3, rel=1e-12)
                assert bars.lo[i] <= line.y[i] <= bars.hi[i]


def test_finish_figures_are_the_records(written):
    page, _, runs = written
    figs = [f for f in page.figures() if f.title.startswith("Rank finish times: ")]
    finished = [r for r in runs if any(m.get("finish") for m in r["measurement"])]
    assert finished and len(figs) == len(finished)
    for fig, r in zip(figs, finished, strict=True):
        ms = [m for m in r["measurement"] if m.get("finish")]
        spread = panel(fig, "Rank finish times since the phase start")
        value = "x" if spread.y_categories else "y"  # phases as rows, or side by side
        for name, key in (("first rank", "min_s"), ("median rank", "p50_s")):
            assert getattr(series(spread, name), value) == [m["finish"][key] for m in ms]
        slow = series(spread, "slowest ranks")
        want = [x["seconds"] for m in ms for x in m["finish"]["slowest"]]
        assert getattr(slow, value) == want
        assert slow.hover["rank"] == [f"rank {x['rank']} ({x['host']})"
                                      for m in ms for x in m["finish"]["slowest"]]
        top = ms[0]["finish"]["slowest"][0]
        assert f"rank {top['rank']} ({top['host']})" in fig.caption


def test_timelines_are_the_records(written):
    page, _, runs = written
    [r] = [r for r in runs if r["profile"]]
    call_size = r["header"]["params"]["call_size"]
    for phase in ("write", "read"):
        [fig] = [f for f in page.figures() if
                 f.title.startswith(f"Per-call timeline of the {phase} phase")]
        tasks = next(p for p in r["profile"] if p["phase"] == phase and p["part"] == "tasks")
        calls = [p for p in r["profile"] if p["phase"] == phase and p["part"] == "calls"]
        ends = np.array([row for p in calls for row in p["end"]], dtype=float)
        done = panel(fig, "Calls completed per task")
        for t in range(tasks["tasks"]):
            line = next(s for s in done.series if s.name.startswith(f"task {t}"))
            assert line.y[0] == 0 and line.y[-1] == tasks["calls"][t]
            t0 = min(tasks["phase_start"])
            for x, y in zip(line.x[1:-1], line.y[1:-1], strict=True):
                assert y == int(np.sum(ends[:, t] - t0 < x + 1e-12)) or \
                    abs(y - int(np.sum(ends[:, t] - t0 <= x))) <= 1  # a call on a bin edge
        rate = panel(fig, "Rate per task over time").series[0]
        x0, x1, _, _ = rate.extent
        width = (x1 - x0) / rate.z.shape[1]
        moved = np.sum(rate.z) * width * MIB
        assert moved == pytest.approx(np.isfinite(ends).sum() * call_size, rel=1e-9)
        assert x1 == pytest.approx(np.nanmax(ends) - min(tasks["phase_start"]), rel=1e-9)


def test_collective_figure_is_the_records(written):
    page, _, runs = written
    [fig] = [f for f in page.figures() if f.name == "coll-latency-vs-size"]
    for r in (r for r in runs if r["header"]["workload"] == "coll"):
        per_call = r["header"]["params"]["timing"] == "per-call"
        for op in ("Bcast", "Allreduce"):
            ms = sorted((m for m in r["measurement"] if m["phase"] == op and
                         m["params"]["size"] > 0), key=lambda m: m["params"]["size"])
            p = panel(fig, op)
            lines = [s for s in p.series if s.kind == "line" and s.hover["run id"][0] ==
                     r["header"]["run_id"]]
            [line] = lines
            assert line.x == [m["params"]["size"] for m in ms]
            assert line.y == [m["extra"]["avg_us"] for m in ms]
            band = next(s for s in p.series if s.kind == "band" and s.color == line.color)
            if per_call:
                assert band.lo == [m["latency"]["p50"] * 1e6 for m in ms]
                assert band.hi == [m["latency"]["p99"] * 1e6 for m in ms]
            else:
                assert band.lo == [m["extra"]["min_us"] for m in ms]
                assert band.hi == [m["extra"]["max_us"] for m in ms]
