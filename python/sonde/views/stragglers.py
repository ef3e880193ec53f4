# SPDX-License-Identifier: BSD-3-Clause
"""The report's view of stragglers: when each rank finished each phase (the measurement
record's "finish", schema_version 2: src/core/finish.c), with the slowest ranks named, and the
rate while every rank was still at work against the rate when the last one finished."""

from ..results.names import Measurement
from .figures import HIGHLIGHT, MUTED, POINTS, Figure, Panel, Series
from .plots import MAX_COLUMNS, _slug, figure_of, io_runs

MAX_NAMED = 12  # phases whose slowest rank the caption names; the hover has every one


def _finished(run):
    return [m for m in run.measurements if m.get("finish")]


def _category(m):
    iteration = m[Measurement.ITERATION]
    return m[Measurement.PHASE] + (f" #{iteration}" if iteration >= 0 else "")


def _who(slow):
    return f"rank {slow['rank']} ({slow['host'] or 'node ' + str(slow['node'])})"


def _panel(title, unit, cats, rows_of, log=None):
    if rows_of:  # a log axis keeps large rates' tick labels apart
        return Panel(title, unit, "", y_categories=cats, x_log=log)
    return Panel(title, "phase", unit, x_categories=cats)


def _points(rows_of, name, values, at, **kw):
    return Series(POINTS, name, *((values, at) if rows_of else (at, values)), **kw)


def finish_times(runs, labels):
    """Per run whose records have finish times: per phase and iteration, the ranks' finish
    times since the phase start (the range from the first to the last, the median, the slowest
    ranks marked and named), and the first-done and last-done rates."""
    out = []
    for run in io_runs(runs):
        rows = _finished(run)
        if not rows:
            continue
        label = labels(run)
        cats = [_category(m) for m in rows]
        # Many phases (mdtest's ten): a row each, named on the y axis; a few: side by side.
        rows_of = len(cats) > MAX_COLUMNS
        spread = _panel("Rank finish times since the phase start", "seconds", cats, rows_of)
        for name, key, colour in (("first rank", "min_s", MUTED), ("median rank", "p50_s", 0)):
            spread.series.append(_points(rows_of, name, [m["finish"][key] for m in rows], cats,
                                         color=colour))
        slow_s, slow_at, slow_who = [], [], []
        for cat, m in zip(cats, rows, strict=True):
            for slow in m["finish"]["slowest"]:
                slow_s.append(slow["seconds"])
                slow_at.append(cat)
                slow_who.append(_who(slow))
        spread.series.append(_points(rows_of, "slowest ranks", slow_s, slow_at,
                                     color=HIGHLIGHT, hollow=True, hover={"rank": slow_who}))
        unit = figure_of(rows[0])[1] or "MiB/s"
        key = "bandwidth_mib_s" if unit == "MiB/s" else "ops_per_s"
        rates = _panel("Rate when the first and the last rank finished", unit, cats, rows_of,
                       log=10)
        for k, (done, name) in enumerate((("first_done", "first done (all ranks at work)"),
                                          ("last_done", "last done (the whole phase)"))):
            values = [m["finish"][done][key] for m in rows]
            rates.series.append(_points(rows_of, name, values, cats, color=k + 1, hover={
                "time lost to the tail (s)": [m["finish"]["lost_s"] for m in rows]}))
        named = "; ".join(
            f"{cat}: {_who(m['finish']['slowest'][0])} at {m['finish']['max_s']:.3g} s, the "
            f"median rank at {m['finish']['p50_s']:.3g} s"
            for cat, m in list(zip(cats, rows, strict=True))[:MAX_NAMED])
        more = (f" (and {len(rows) - MAX_NAMED} more phases in the hover)"
                if len(rows) > MAX_NAMED else "")
        out.append(Figure(
            f"{run.workload}-finish-{_slug(label)}", f"Rank finish times: {label}",
            "Left: when the ranks finished each phase: the first rank (grey), the median rank, "
            "and the slowest ranks (hollow red; the hover names them). Right: the aggregate "
            "rate while every rank was at work (each rank's own "
            "rate summed) and the rate over the whole phase, up to the last rank's finish; "
            "the hover gives the time the mean rank waited for the last. Slowest: " + named +
            more + ".", [spread, rates], columns=2, section=run.workload))
    return out
