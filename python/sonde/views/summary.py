# SPDX-License-Identifier: BSD-3-Clause
"""The headline figures a storage team reads first: per workload and phase the best and the mean
figure (MiB/s, operations/s, or latency for collectives), the p99 call latency and how far the
iterations of one run spread; one table, with a group of columns per campaign when several are
compared side by side."""

from ..results.names import COLL, COLLExtra
from . import words
from .page import Cell, Table, num, text


def _spread(g):
    """The largest spread of one run's iterations over the runs of a phase, in percent of the
    run's mean: (max - min) / mean; None when no run has two iterations."""
    spreads = []
    for _, run in g.groupby("run_id", sort=False):
        values = [v for v in run["figure"] if v is not None and v == v]
        if len(values) > 1 and sum(values):
            mean = sum(values) / len(values)
            spreads.append(100 * (max(values) - min(values)) / mean)
    return max(spreads) if spreads else None


def _p99(g):
    if g["workload"].iloc[0] == COLL.workload:  # of every call with per-call timing only
        g = g[g[f"param.{COLL.TIMING}"] == "per-call"]
    values = [v for v in g["lat_p99_s"] if v is not None and v == v]
    return max(values) if values else None


def headlines(df, short_of):
    """{(workload, phase): {"unit", "runs", "best", "best_in", "mean", "p99", "spread"}} of
    the rows of report.measurements_frame (short_of: a run id's name in one line)."""
    out = {}
    if df.empty:
        return out
    for (workload, phase), g in df.groupby(["workload", "phase"], sort=False):
        if workload == COLL.workload:  # latency per call: the lowest is the best
            g = g.assign(figure=g[f"extra.{COLLExtra.AVG_US}"], unit="µs")
        g = g[g["figure"].notna()]
        if g.empty:
            continue
        unit = g["unit"].iloc[0]
        best = g.loc[g["figure"].idxmin() if unit == "µs" else g["figure"].idxmax()]
        where = short_of(best["run_id"])
        if workload == COLL.workload:
            where += f", {words.size(best[f'param.{COLL.SIZE}'])}"
        out[(workload, phase)] = {
            "unit": unit, "runs": g["run_id"].nunique(), "best": float(best["figure"]),
            "best_in": where,
            # The mean over message sizes says nothing: collectives have none.
            "mean": None if workload == COLL.workload else float(g["figure"].mean()),
            "p99": _p99(g), "spread": None if workload == COLL.workload else _spread(g)}
    return out


def _cells(h, where):
    if h is None:
        return [num(None)] * (5 if where else 4)
    p99, spread = h["p99"], h["spread"]
    return [num(h["best"])] + ([text(h["best_in"], "name")] if where else []) + [
            num(h["mean"]),
            Cell(words.seconds(p99), p99) if p99 is not None else num(None),
            # a figure's cell, without one: no run had two iterations to spread
            Cell(f"{spread:.0f}%", spread) if spread is not None else Cell("one sample")]


def table(per_campaign, names):
    """The headline table: a row per workload and phase in first-seen order, a group of
    columns per campaign (per_campaign: headlines() of each, names: theirs, or [None])."""
    keys = list(dict.fromkeys(k for h in per_campaign for k in h))
    several = len(per_campaign) > 1
    cols = ["workload", "phase", "unit"] + ([] if several else ["runs"])
    for name in names:  # side by side, where the best was is in the hover (room)
        cols += [f"{name} best", f"{name} mean", f"{name} p99", f"{name} spread"] \
            if several else ["best", "best in", "mean", "p99 call latency", "iteration spread"]
    rows = []
    for key in keys:
        first = next(h[key] for h in per_campaign if key in h)
        row = [text(key[0], "name"), text(key[1], "name"), text(first["unit"], "name")]
        if not several:
            row.append(num(first["runs"]))
        for h in per_campaign:
            cells = _cells(h.get(key), not several)
            if several and h.get(key):
                cells[0].tip = h[key]["best_in"]
            row += cells
        rows.append(row)
    return Table("headlines", "Headline figures per workload and phase", cols, rows,
                 "Best and mean over every iteration of every run of the phase (MiB/s where "
                 "the phase moved data, operations/s for metadata; for collectives the mean "
                 "latency per call in µs, where the best is the lowest, at its message size). "
                 "p99: the slowest run's 99th percentile of call latency, where calls were "
                 "timed. Iteration spread: the largest (max - min) / mean of one run's "
                 "iterations; \"one sample\" where no run has two. Runs that failed are left "
                 "out.")
