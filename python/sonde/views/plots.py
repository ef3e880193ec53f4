# SPDX-License-Identifier: BSD-3-Clause
"""The report's views, computed from loaded runs as figures.Figure (numbers and words, no
drawing): bandwidth per phase and iteration, scaling over ranks, nodes or any swept parameter,
per-call latency (percentiles, CDF, histogram), timelines and heatmaps from per-call profiles,
time series from interval records (--interval), collective latency against message size, and the
ratios of a comparison.

Every figure is titled in words (words), never with a run id: ids are in the hover.
Each view returns a list of figures, empty when the runs hold nothing of its kind."""

import math
from collections import defaultdict

import numpy as np

from ..results import sweep_values
from ..results.names import (
    BTIO,
    COLL,
    FIND,
    IOR,
    MDTEST,
    MIB,
    MPIIO,
    COLLExtra,
    Interval,
    Measurement,
)
from ..results.units import parse_size
from . import profiles, words
from .figures import (
    BAND,
    HEATMAP,
    HIGHLIGHT,
    HLINE,
    LINE,
    MUTED,
    POINTS,
    QUADS,
    RANGE,
    VLINE,
    Figure,
    Panel,
    Series,
)

MIB_BYTES = 2**20
MAX_PANELS = 12  # runs drawn one panel each per workload; the tables list every run
MAX_TASK_LINES = 16  # more tasks: a band over all tasks, the median and the stragglers
PERCENTILES = (("p50", "p50"), ("p90", "p90"), ("p99", "p99"), ("p999", "p99.9"), ("max", "max"))


# ---- what a measurement measures ------------------------------------------------------------

# Metadata workloads: their figure is the rate of operations even where a phase moves bytes
# (mdtest's file writes), as mdtest and IO500 report it.
RATE_WORKLOADS = {MDTEST.workload, FIND.workload}


def figure_of(m):
    """(value, unit) of an I/O or metadata measurement (a record, or a row of
    sonde.results.measurement_rows, which has the same names): its bandwidth when it moved
    bytes (not for metadata workloads), else its rate of operations; (None, None) when it has
    neither."""
    bandwidth, rate = m[Measurement.BANDWIDTH], m.get("ops_per_s")
    if m[Measurement.BYTES] > 0 and _known(bandwidth) and m["workload"] not in RATE_WORKLOADS:
        return bandwidth, "MiB/s"
    if m.get("ops") and _known(rate):
        return rate, "operations/s"
    return None, None


def _known(v):
    """A figure the record has: not null (None), not NaN (a DataFrame's null)."""
    return v is not None and v == v


def rank_range(m, unit):
    """The figure the slowest and the fastest rank's phase time imply for the whole phase,
    (slow, fast), or None with one rank (no spread to show) or no per-rank times."""
    pr = m.get("per_rank")
    if not pr or pr["n"] < 2 or not pr["min"] or not pr["max"]:
        return None
    amount = m["bytes"] / MIB_BYTES if unit == "MiB/s" else m["ops"]
    return amount / pr["max"], amount / pr["min"]


def io_runs(runs):
    """Runs of the I/O and metadata workloads (every workload but coll)."""
    return [r for r in runs if r.workload != COLL.workload and r.measurements]


def coll_runs(runs):
    return [r for r in runs if r.workload == COLL.workload and r.measurements]


def _phases(runs):
    """Phase names in first-seen order: each keeps its colour across figures."""
    return list(dict.fromkeys(m[Measurement.PHASE] for r in runs for m in r.measurements))


def _by_workload(runs):
    out = defaultdict(list)
    for r in runs:
        out[r.workload].append(r)
    return out


def _more(group, labels):
    """What the cap on panels left out, by name (never silently)."""
    if len(group) <= MAX_PANELS:
        return ""
    return (f" The first {MAX_PANELS} of {len(group)} runs are drawn; left out (in the table): "
            + "; ".join(labels(r) for r in group[MAX_PANELS:]) + ".")


def _spans(values, factor):
    v = [x for x in values if x is not None and x > 0]
    return len(v) >= 2 and max(v) / min(v) >= factor


# ---- bandwidth per phase and iteration ------------------------------------------------------

def bandwidth(runs, labels):
    """Per workload, one panel per run: each phase's figure per iteration, iteration 0 (first
    touch of files and caches) drawn apart as an open marker and left out of the mean line
    of the others; the rank range where the run had more than one rank."""
    out = []
    for workload, group in _by_workload(io_runs(runs)).items():
        colours = {p: k for k, p in enumerate(_phases(group))}
        panels, unit_seen = [], set()
        for run in group[:MAX_PANELS]:
            panel = _bandwidth_panel(run, labels(run), colours)
            if panel:
                panels.append(panel)
                unit_seen.add(panel.y_label)
        if not panels:
            continue
        out.append(Figure(
            f"{workload}-per-iteration",
            f"{workload}: {' and '.join(sorted(unit_seen))} per phase and iteration",
            "Each point is one phase of one iteration as the run measured it (all ranks "
            "together). Iteration 0, open markers, is the first touch of files and caches and is "
            "left out of the dashed mean of the other iterations. The vertical bar spans the "
            "figure the slowest and the fastest rank's phase time imply: a long bar is a rank "
            "spread (drawn only with more than one rank)." + _more(group, labels),
            panels, columns=2 if len(panels) > 1 else 1, section=workload))
    return out


def _bandwidth_panel(run, title, colours):
    rows = [(m, *figure_of(m)) for m in run.measurements]
    rows = [r for r in rows if r[1] is not None]
    if not rows:
        return None
    unit = rows[0][2]
    rows = [r for r in rows if r[2] == unit]
    iterated = any(m[Measurement.ITERATION] >= 0 for m, _, _ in rows)
    panel = Panel(title, "iteration" if iterated else "phase", unit,
                  x_categories=None if iterated else list(dict.fromkeys(
                      m[Measurement.PHASE] for m, _, _ in rows)))
    if iterated:
        its = sorted({m[Measurement.ITERATION] for m, _, _ in rows})
        panel.x_ticks = [(i, str(i)) for i in its[::max(1, -(-len(its) // 12))]]
    by_phase = defaultdict(list)
    for m, v, _ in rows:
        by_phase[m[Measurement.PHASE]].append((m, v))
    for phase, pts in by_phase.items():
        c = colours[phase]
        xs = [m[Measurement.ITERATION] if iterated else phase for m, _ in pts]
        hover = {"run id": [m["run_id"] for m, _ in pts],
                 "seconds": [m[Measurement.SECONDS] for m, _ in pts]}
        first = [i for i, (m, _) in enumerate(pts) if iterated and m[Measurement.ITERATION] == 0]
        rest = [i for i in range(len(pts)) if i not in first]

        def pick(idx, values):
            return [values[i] for i in idx]

        ys = [v for _, v in pts]
        if first and len(pts) > 1:
            panel.series.append(Series(POINTS, f"{phase}, iteration 0", pick(first, xs),
                                       pick(first, ys), color=c, hollow=True,
                                       hover={k: pick(first, v) for k, v in hover.items()}))
        else:
            rest = list(range(len(pts)))
        panel.series.append(Series(LINE if len(rest) > 1 else POINTS, phase, pick(rest, xs),
                                   pick(rest, ys), color=c, markers=True,
                                   hover={k: pick(rest, v) for k, v in hover.items()}))
        if first and len(rest) > 1:
            mean = sum(pick(rest, ys)) / len(rest)
            panel.series.append(Series(HLINE, f"{phase}, mean of iterations 1-"
                                       f"{max(pick(rest, xs))}", y=[mean], color=c, dash=True))
        ranges = [(x, rank_range(m, unit)) for x, (m, _) in zip(xs, pts, strict=True)]
        ranges = [(x, r) for x, r in ranges if r]
        if ranges:
            panel.series.append(Series(
                RANGE, f"{phase}, slowest to fastest rank", [x for x, _ in ranges],
                lo=[r[0] for _, r in ranges], hi=[r[1] for _, r in ranges], color=c))
    if _spans([v for _, v, _ in rows], 100):  # mdtest's phases: tens to a million ops/s
        panel.y_log = 10
    return panel


# ---- scaling --------------------------------------------------------------------------------

def _number(v):
    """A swept value as a number (sizes such as "1m" in bytes), or None."""
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return v
    try:
        return parse_size(v)
    except ValueError:
        return None


def _axes_of(run):
    """{axis: value} a run can be placed on: its suite sweep's keys, else ranks and nodes."""
    swept = sweep_values(run.launch)
    if swept:
        return swept
    h = run.header or {}
    return {"ranks": h.get("ranks"), "nodes": h.get("nodes")}


# Parameters whose values are codes of a choice, not quantities: a sweep over them is drawn on
# a categorical axis, each value by its name where the report has one.
CATEGORICAL = {("btio", str(BTIO.METHOD)): words.BTIO_METHODS, ("mpiio", str(MPIIO.TYPE)): {},
               ("ior", str(IOR.API)): {}}


def _category(names, x):
    return names.get(_number(x), str(x)) if names else str(x)


def scaling(runs, labels):
    """Per workload and axis (ranks, nodes, or a parameter the suite swept): the mean figure of
    each phase against the axis, one line per benchmark and phase, the band spanning every
    iteration and repetition; only where at least two values of the axis were run."""
    out = []
    for workload, group in _by_workload(io_runs(runs)).items():
        lines = defaultdict(lambda: defaultdict(list))  # (axis, line) -> x -> values
        units = {}
        for run in group:
            axes = _axes_of(run)
            for axis, x in axes.items():
                if x is None:
                    continue
                others = ", ".join(f"{k} {v}" for k, v in sorted(axes.items()) if k != axis)
                base = words.name(run) if run.launch else words.label(run, with_shape=False)
                for m in run.measurements:
                    v, unit = figure_of(m)
                    if v is None:
                        continue
                    key = (axis, ", ".join(t for t in (base, others, m[Measurement.PHASE]) if t))
                    lines[key][x].append(v)
                    units[key] = unit
        panels = defaultdict(lambda: None)
        for (axis, line), by_x in lines.items():
            if len(by_x) < 2:
                continue
            xs = sorted(by_x, key=lambda x: (_number(x) is None, _number(x) or 0, str(x)))
            named = CATEGORICAL.get((workload, axis))
            numeric = named is None and all(_number(x) is not None for x in xs)
            unit = units[(axis, line)]
            key = (axis, unit)
            if panels[key] is None:
                panels[key] = Panel(f"{unit} against {axis}", axis, unit,
                                    x_categories=None if numeric else [])
            p = panels[key]
            px = [_number(x) for x in xs] if numeric else [_category(named, x) for x in xs]
            if not numeric:
                p.x_categories += [x for x in px if x not in p.x_categories]
            means = [sum(by_x[x]) / len(by_x[x]) for x in xs]
            c = len([s for s in p.series if s.kind == LINE])
            p.series.append(Series(LINE, line, px, means, color=c, markers=True,
                                   hover={"measurements": [len(by_x[x]) for x in xs]}))
            if any(len(by_x[x]) > 1 for x in xs):
                p.series.append(Series(BAND, "", px, lo=[min(by_x[x]) for x in xs],
                                       hi=[max(by_x[x]) for x in xs], color=c))
            if numeric and _spans(px, 4):
                p.x_log = 2
                if axis not in ("ranks", "nodes"):
                    p.x_ticks = [(x, words.size(x)) for x in px] if _is_size(axis, xs) else None
            if _spans(means, 10):
                p.y_log = 10
        made = [p for p in panels.values() if p is not None]
        if made:
            out.append(Figure(
                f"{workload}-scaling", f"{workload}: scaling",
                "Each line is one benchmark and phase run at several values of the axis; the "
                "point is the mean over its iterations and repetitions, the band spans the "
                "lowest to the highest of them. Log axes where the values span a wide range.",
                made, columns=2 if len(made) > 1 else 1, section=workload))
    return out


def _is_size(axis, xs):
    return any(isinstance(x, str) and _number(x) is not None for x in xs) or "size" in axis


# ---- per-call latency -----------------------------------------------------------------------

def _latency_rows(run):
    return [m for m in run.measurements
            if (m.get("latency") or {}).get("count", 0) > 1 and m["latency"]["p50"] is not None]


MAX_COLUMNS = 8  # categories an x axis takes; more are rows of a y axis


def latency(runs, labels):
    """Per run with per-call latencies (not coll: its own view): the p50/p90/p99/p99.9/max of
    every phase and iteration; per phase over its iterations, the percentile curve up to p99.9
    with the bucket that holds each point as its error bar, the CDF and the histogram (buckets
    drawn with their true widths), log time axes."""
    out = []
    for run in io_runs(runs):
        rows = _latency_rows(run)
        if not rows:
            continue
        label = labels(run)
        bucketed = any(m["latency"].get("percentiles") == LOG2_EDGE for m in rows)
        cats = [f"{m[Measurement.PHASE]}" + (f" #{m[Measurement.ITERATION]}"
                                               if m[Measurement.ITERATION] >= 0 else "")
                for m in rows]
        # Many phases and iterations (mdtest's ten phases): a row each, named on the y axis,
        # instead of as many rotated names under a plot they would squeeze flat.
        rows_of = len(cats) > MAX_COLUMNS
        pct = Panel("Percentiles per phase and iteration", *(
            ("call latency (µs)", "") if rows_of else ("phase", "call latency (µs)")),
            y_categories=cats if rows_of else None, x_categories=None if rows_of else cats,
            x_log=10 if rows_of else None, y_log=None if rows_of else 10)
        for k, (key, name) in enumerate(PERCENTILES):
            if any(m["latency"].get(key) is None for m in rows):
                continue  # p99.9 of schema_version 1 records
            edge = " (log2 bucket edge)" if bucketed and key != "max" else ""
            values = [m["latency"][key] * 1e6 for m in rows]
            pct.series.append(Series(POINTS, name + edge, *((values, cats) if rows_of
                                                            else (cats, values)), color=k,
                                     hover={"calls": [m["latency"]["count"] for m in rows]}))
        # x: the "nines" of each percentile, -log10(1 - p/100), as HDR histograms plot them
        nines = [-math.log10(1 - p / 100) for p, _ in CURVE]
        curve = Panel("Percentile curve per phase", "percentile", "call latency (µs)",
                      x_ticks=list(zip(nines, [n for _, n in CURVE], strict=True)), y_log=10)
        cdf = Panel("Cumulative distribution per phase", "call latency (µs)",
                    "fraction of calls", x_log=10)
        hist = Panel("Calls per latency bucket", "call latency (µs)", "calls", x_log=10)
        colours = {p: k for k, p in enumerate(_phases([run]))}
        for phase, (lo_ns, hi_ns, counts, largest) in _merged_buckets(rows).items():
            c = colours[phase]
            # the overflow bucket (no upper edge) drawn up to the largest call
            lo_us = lo_ns / 1e3
            hi_us = np.where(np.isinf(hi_ns), np.maximum(largest * 1e9, 2 * lo_ns), hi_ns) / 1e3
            points = [percentile_of_buckets(lo_ns, hi_ns, counts, p, largest) for p, _ in CURVE]
            curve.series.append(Series(LINE, phase, nines, [v * 1e6 for v, _, _ in points],
                                       color=c, markers=True,
                                       hover={"bucket (µs)": [f"{a * 1e6:.4g}-{b * 1e6:.4g}"
                                                              for _, a, b in points]}))
            curve.series.append(Series(RANGE, "", nines, lo=[a * 1e6 for _, a, _ in points],
                                       hi=[b * 1e6 for _, _, b in points], color=c))
            frac = np.cumsum(counts) / counts.sum()
            cdf.series.append(Series(LINE, phase, [lo_us[0]] + list(hi_us),
                                     [0.0] + list(frac), color=c, markers=True))
            hist.series.append(Series(QUADS, phase, left=list(lo_us), right=list(hi_us),
                                      y=[int(v) for v in counts], color=c))
        note = (" Percentiles marked (log2 bucket edge) come from a histogram of schema_version "
                "1: each is the upper edge of the bucket holding it, up to twice the true "
                "value; max is exact." if bucketed else "")
        errors = sorted({m["latency"].get("error_rel") or 0 for m in rows} - {0})
        if errors:
            note += (f" Percentiles of phases with more calls than sonde keeps come from its "
                     f"log-linear histogram, within {errors[-1]:.2%} of the true value.")
        out.append(Figure(
            f"{run.workload}-latency-{_slug(label)}", f"Call latency: {label}",
            "Top left: the latency of the median, 90th, 99th and 99.9th percentile and slowest "
            "call of each phase and iteration. Top right: per phase (all iterations), the "
            "percentile curve, each point with the latency bucket that holds the true value "
            "as its error bar. Bottom: the fraction of calls done within a latency, and calls "
            "per bucket, each bar as wide as its bucket." + note, [pct, curve, cdf, hist],
            columns=2, section=run.workload))
    return out


LOG2_EDGE = "log2-bucket-upper-edge"  # schema_version 1's histogram percentiles
CURVE = ((50, "p50"), (90, "p90"), (99, "p99"), (99.9, "p99.9"))


def latency_buckets(latency):
    """(lower, upper, count) in ns of the buckets of a latency record that counted something:
    schema_version 2's histogram_ns as written (upper null: the overflow bucket, +inf), or
    version 1's 48 log2 buckets, bucket b [2^b, 2^(b+1)) ns (bucket 0 from 1 ns)."""
    if "histogram_ns" in latency:
        rows = latency["histogram_ns"]
        return (np.array([r[0] for r in rows], dtype=float),
                np.array([math.inf if r[1] is None else r[1] for r in rows], dtype=float),
                np.array([r[2] for r in rows], dtype=np.int64))
    h = np.asarray(latency["histogram_log2_ns"], dtype=np.int64)
    b = np.nonzero(h)[0]
    return 2.0**b, 2.0 ** (b + 1), h[b]


def _merged_buckets(rows):
    """Per phase, its records' buckets summed (the same edges in every record of a version)
    and the largest call: {phase: (lower, upper, counts, max seconds)}."""
    sums, largest = defaultdict(lambda: defaultdict(int)), defaultdict(float)
    for m in rows:
        phase = m[Measurement.PHASE]
        for lo, hi, n in zip(*latency_buckets(m["latency"]), strict=True):
            sums[phase][(float(lo), float(hi))] += int(n)
        largest[phase] = max(largest[phase], m["latency"]["max"] or 0.0)
    out = {}
    for phase, buckets in sums.items():
        edges = sorted(buckets)
        out[phase] = (np.array([e[0] for e in edges]), np.array([e[1] for e in edges]),
                      np.array([buckets[e] for e in edges], dtype=np.int64), largest[phase])
    return out


def percentile_of_buckets(lower, upper, counts, p, largest):
    """(value, low, high) in seconds of percentile p (to a tenth) from buckets in ns, as sonde
    computes it (src/core/stats.c): the bucket holding the sample of rank ceil(p% of the
    count), its midpoint as the value, its edges as the bounds of the true value, none above
    the largest call."""
    total = int(counts.sum())
    want = max(1, (round(p * 10) * total + 999) // 1000)
    i = int(np.searchsorted(np.cumsum(counts), want))
    lo, hi = lower[i] * 1e-9, upper[i] * 1e-9
    value = lo if math.isinf(hi) else (lo + hi) / 2
    return min(value, largest), lo, min(hi, largest)


def _slug(text):
    out = "".join(ch if ch.isalnum() else "-" for ch in text.lower())
    while "--" in out:
        out = out.replace("--", "-")
    return out.strip("-")[:60]


# ---- timelines from per-call profiles -------------------------------------------------------

def timelines(runs, labels):
    """Per run and phase with per-call profiles (mib -p): calls completed over time per task
    (stragglers highlighted), and heatmaps of tasks x time of the rate moved and the mean
    call latency, from the phase's own start."""
    out = []
    for run in runs:
        if not run.profiles:
            continue
        call_bytes = ((run.header or {}).get("params") or {}).get(MIB.CALL_SIZE)
        label = labels(run)
        for name, phase in profiles.phases(run).items():
            g = profiles.grid(phase)
            if g.total_calls == 0:
                continue
            out.append(_timeline_figure(run, label, name, phase, g, call_bytes))
    return out


def colour_range(z):
    """The least value to the 99th percentile of a heatmap's cells: one stalled bin must not
    turn every other cell into the same colour."""
    finite = z[np.isfinite(z)]
    if not finite.size:
        return (0.0, 1.0)
    lo, hi = float(finite.min()), float(np.percentile(finite, 99))
    return (lo, hi if hi > lo else lo + 1.0)


def _timeline_figure(run, label, name, phase, g, call_bytes):
    late = g.stragglers()
    late_tasks = {t for t, _ in late}
    edges = list(g.edges)
    done = Panel("Calls completed per task", "seconds since the phase started",
                 "calls completed")
    if phase.tasks <= MAX_TASK_LINES:
        for t in range(phase.tasks):
            done.series.append(Series(LINE, f"task {t}" + (" (late)" if t in late_tasks else ""),
                                      edges, g.completed[t].tolist(),
                                      color=HIGHLIGHT if t in late_tasks else t))
    else:
        done.series.append(Series(BAND, "all tasks, fewest to most", edges,
                                  lo=g.completed.min(axis=0).tolist(),
                                  hi=g.completed.max(axis=0).tolist(), color=MUTED))
        done.series.append(Series(LINE, "median task", edges,
                                  np.median(g.completed, axis=0).tolist(), color=0))
        for t, _ in late:
            done.series.append(Series(LINE, f"task {t} (late)", edges, g.completed[t].tolist(),
                                      color=HIGHLIGHT))
    rows = g.calls.shape[0]
    extent = (0.0, float(g.edges[-1]), -0.5, rows - 0.5)
    task_axis = "task" if g.group == 1 else f"tasks (groups of {g.group})"
    heat = []
    if call_bytes:
        rate = g.rate_mib_s(call_bytes)
        heat.append(Panel("Rate per task over time", "seconds since the phase started",
                          task_axis, [Series(HEATMAP, "MiB/s", z=rate, extent=extent,
                                             z_range=colour_range(rate))],
                          y_integer=True, colorbar="MiB/s"))
    lat = g.mean_latency_us()
    heat.append(Panel("Mean call latency per task over time", "seconds since the phase started",
                      task_axis, [Series(HEATMAP, "µs", z=lat, extent=extent,
                                         z_range=colour_range(lat))],
                      y_integer=True, colorbar="mean call latency (µs, top 1% of cells clipped)"))
    if late:
        for p in heat:
            p.series.append(Series(POINTS, "last call of a late task", [f for _, f in late],
                                   [t // g.group for t, _ in late], color=HIGHLIGHT,
                                   hover={"task": [t for t, _ in late]}))
    median = float(np.nanmedian(g.finish))
    said = ("; ".join(f"task {t} finished at {words.seconds(f)} (median task "
                      f"{words.seconds(median)})" for t, f in late) if late else
            "no task finished more than 10% after the median task")
    return Figure(
        f"{run.workload}-timeline-{name}-{_slug(label)}",
        f"Per-call timeline of the {name} phase: {label}",
        f"{g.total_calls} calls of {phase.tasks} tasks in {len(edges) - 1} time bins of "
        f"{words.seconds(g.width)} from the phase's start. A flat stretch of a line, or a dark "
        f"stretch of a heatmap row, is a task that stalled. Late tasks: {said}.",
        [done] + heat, columns=len(heat) + 1, section=run.workload)


# ---- time series from interval records ------------------------------------------------------

MAX_SERIES = 12  # phases x iterations drawn in a run's rate panel; the caption names the rest


def time_series(runs, labels):
    """Per run with interval records (--interval): each phase's bandwidth (operations/s for
    the metadata workloads and phases that move no bytes) over time from the phase's start,
    and for each phase's first iteration the p50 and p99 call latency and the ranks still
    running."""
    return [_time_series_figure(run, labels(run)) for run in runs if run.intervals]


def _series_name(phase, iteration):
    return phase if iteration < 0 else f"{phase} {iteration}"


def _time_series_figure(run, label):
    groups = defaultdict(list)
    for r in run.intervals:
        groups[(r[Interval.PHASE], r[Interval.ITERATION])].append(r)
    keys = list(groups)
    by_bytes = run.workload not in RATE_WORKLOADS and any(r[Interval.BYTES]
                                                          for r in run.intervals)
    member, unit = ((Interval.BANDWIDTH, "MiB/s") if by_bytes
                    else (Interval.OPS_PER_S, "operations/s"))
    first = {}
    for phase, it in keys:
        first.setdefault(phase, (phase, it))
    x_label = "seconds since the phase started"
    rate = Panel("Bandwidth over time" if by_bytes else "Operations over time", x_label, unit)
    lat = Panel("Call latency, p99 dashed", x_label, "µs", y_log=10)
    active = Panel("Ranks running", x_label, "ranks", y_integer=True)
    for key in keys[:MAX_SERIES]:
        iv = groups[key]
        name, colour = _series_name(*key), keys.index(key)
        mid = [r[Interval.START] + r[Interval.SECONDS] / 2 for r in iv]
        hover = {"interval": [r[Interval.INTERVAL] for r in iv],
                 "seconds": [r[Interval.SECONDS] for r in iv],
                 "bytes": [r[Interval.BYTES] for r in iv], "ops": [r[Interval.OPS] for r in iv]}
        rate.series.append(Series(LINE, name, mid, [r[member] for r in iv], color=colour,
                                  markers=True, hover=hover))
        if first[key[0]] != key:
            continue
        timed = [(x, r) for x, r in zip(mid, iv, strict=True)
                 if r[Interval.LATENCY_P50] is not None]
        if timed:
            xs = [x for x, _ in timed]
            lat.series.append(Series(LINE, f"{name} p50", xs,
                                     [r[Interval.LATENCY_P50] * 1e6 for _, r in timed],
                                     color=colour))
            lat.series.append(Series(LINE, f"{name} p99", xs,
                                     [r[Interval.LATENCY_P99] * 1e6 for _, r in timed],
                                     color=colour, dash=True))
        active.series.append(Series(LINE, name, mid, [r[Interval.RANKS_ACTIVE] for r in iv],
                                    color=colour, markers=True))
    period = max(r[Interval.SECONDS] for r in run.intervals)
    left = keys[MAX_SERIES:]
    more = (f" The first {MAX_SERIES} of {len(keys)} phases are drawn; left out: "
            + ", ".join(_series_name(*k) for k in left) + ".") if left else ""
    panels = [p for p in (rate, lat, active) if p.series]
    return Figure(
        f"{run.workload}-time-series-{_slug(label)}",
        f"Time series of each phase: {label}",
        f"{len(run.intervals)} intervals of up to {words.seconds(period)} (--interval). Each "
        "point is one interval: what the ranks' calls that ended in it moved, over its length "
        "(the first and the last are cut to the phase). Latencies are percentiles of those "
        "calls (histogram bucket upper edges), ranks running those whose phase overlaps the "
        "interval: it falls before the end when some ranks finish first. Latency and ranks "
        "are drawn for each phase's first iteration." + more,
        panels, columns=len(panels), section=run.workload)


# ---- collectives ----------------------------------------------------------------------------

def _coll_series_name(run, labels, comm):
    text = labels(run)
    return text if comm in (None, "MPI_COMM_WORLD") else f"{text}, {comm}"


def collectives(runs, labels):
    """One panel per operation: latency against message size, log-log, one line per run
    (and communicator) with its band. mpiBench timing bands span the ranks' mean times (min
    to max over ranks); per-call timing bands span p50 to p99 of the calls. The timing is in
    every line's name, so the two kinds are never mixed in one line."""
    group = coll_runs(runs)
    if not group:
        return []
    ops = list(dict.fromkeys(m[Measurement.PHASE] for r in group for m in r.measurements))
    panels = {op: Panel(op, "message size", "latency (µs)", x_log=2, y_log=10) for op in ops}
    sizes = defaultdict(set)
    zero_sized = False
    for k, run in enumerate(group):
        lines = defaultdict(list)
        for m in run.measurements:
            p = m[Measurement.PARAMS]
            lines[(m[Measurement.PHASE], p.get(COLL.COMM))].append(m)
        for (op, comm), ms in lines.items():
            ms = sorted((m for m in ms if m[Measurement.PARAMS].get(COLL.SIZE)),
                        key=lambda m: m[Measurement.PARAMS][COLL.SIZE])
            zero_sized |= len(ms) < len(lines[(op, comm)])
            if not ms:
                continue
            per_call = ms[0][Measurement.PARAMS].get(COLL.TIMING) == "per-call"
            xs = [m[Measurement.PARAMS][COLL.SIZE] for m in ms]
            sizes[op].update(xs)
            name = _coll_series_name(run, labels, comm)
            ys = [m[Measurement.EXTRA][COLLExtra.AVG_US] for m in ms]
            if per_call:
                lo = [m["latency"]["p50"] * 1e6 for m in ms]
                hi = [m["latency"]["p99"] * 1e6 for m in ms]
                band = f"{name}: p50 to p99 of calls"
            else:
                lo = [m[Measurement.EXTRA][COLLExtra.MIN_US] for m in ms]
                hi = [m[Measurement.EXTRA][COLLExtra.MAX_US] for m in ms]
                band = f"{name}: fastest to slowest rank"
            panel = panels[op]
            panel.series.append(Series(BAND, band, xs, lo=lo, hi=hi, color=k))
            panel.series.append(Series(LINE, f"{name}: mean", xs, ys, color=k, markers=True,
                                       hover={"run id": [m["run_id"] for m in ms],
                                              "iterations": [m["ops"] for m in ms]}))
    made = []
    for op, p in panels.items():
        if p.series:
            p.x_ticks = [(x, words.size(x)) for x in _pow2_ticks(sizes[op])]
            made.append(p)
    if not made:
        return []
    return [Figure(
        "coll-latency-vs-size", "Collective latency against message size",
        "One panel per operation, log-log. The line is the mean time of one call (mpiBench's "
        "average over ranks); the band spans the fastest to the slowest rank's mean for "
        "mpiBench timing, and the 50th to the 99th percentile of the calls for per-call "
        "timing." + (" 0-byte messages have no place on a log axis: the table lists them."
                     if zero_sized else ""),
        made, columns=min(3, len(made)), section=COLL.workload)]


def _pow2_ticks(values):
    """A few powers of two over the values' range, for a readable size axis (at most six)."""
    lo, hi = min(values), max(values)
    exps = range(int(math.floor(math.log2(lo))), int(math.ceil(math.log2(hi))) + 1)
    step = max(1, -(-len(exps) // 5))  # five labels fit a panel of a row of three
    return [2**e for e in exps[::step]]


# ---- comparison -----------------------------------------------------------------------------

# How a later campaign's mean compares with the first's (compare.Matched.judgement):
# its colour and whether the marker is open.
JUDGED = (("better", 2, False), ("worse", HIGHLIGHT, False), ("same", MUTED, False),
          ("within noise", MUTED, True), ("one sample, no range", 0, True))


def comparison(rows, names):
    """The ratio of each later campaign to the first for every matched measurement (rows from
    compare.match): a dot plot per workload, one row per measurement with its name on
    the y axis, the ratio on a log x axis around 1; coloured by what can be said of it
    (better, worse, within noise, one sample with no range to judge by)."""
    if not rows or len(names) < 2:
        return []
    by_workload = {}
    for r in rows:
        by_workload.setdefault(r.workload, []).append(r)
    panels = []
    for workload, mine in by_workload.items():
        cats = [r.short for r in mine]
        panel = Panel(f"{workload}: ratio to {names[0]} ({words.plural(len(mine), 'measurement')})",
                      f"ratio to {names[0]} (1: the same)", "", y_categories=cats, x_log=10)
        panel.series.append(Series(VLINE, "", x=[1.0], color=MUTED, dash=True))
        for k, name in enumerate(names[1:], start=1):
            for said, colour, hollow in JUDGED:
                pts = [r for r in mine if r.judgement(k) == said]
                if pts:
                    panel.series.append(Series(
                        POINTS, f"{name}: {said}" if len(names) > 2 else said,
                        [r.ratio(k) for r in pts], [r.short for r in pts], color=colour,
                        hollow=hollow,
                        hover={"measurement": [r.label for r in pts],
                               "unit": [r.unit for r in pts],
                               names[0]: [r.means[0] for r in pts],
                               name: [r.means[k] for r in pts]}))
        panels.append(panel)
    return [Figure("comparison-ratios", f"Ratios to {names[0]}",
                   "Every matched measurement's mean over iterations, divided by the same "
                   f"measurement's mean in {names[0]}, one row each, a panel per workload. "
                   "Right of 1 is more: better for MiB/s and operations/s, worse for latency "
                   "(µs, seconds). Green is better, red worse, grey the same or within noise "
                   "(the two runs' iteration ranges overlap); an open marker has one sample on "
                   "a side, with no range to judge the difference by.",
                   panels, section="compare")]


ALL = (bandwidth, scaling, latency, timelines, time_series, collectives)
