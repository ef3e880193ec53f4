# SPDX-License-Identifier: BSD-3-Clause
"""The report's section on sonde mix runs (docs/workloads/mix.md): a timeline of the groups
(each group's phases from start to end on the mix's clock, alone and at once, the overlap
windows marked, and each group's rate over time from its interval records) and the
interference table (each overlap's groups: their rates inside and outside the window, the phase
averages alone and at once, and the ratios), from the mix's own records and its groups'
measurement and interval records. A mix that ended early (stopped by a signal, a rank that
died, killed without an end record) has no overlaps: its groups' endings are listed instead. Mix
records of sonde before the interval-based figures ("figures": "phase-average") are read too:
their rates are the groups' phase averages, shown as such."""

from ..results.names import End, Interval, Mix, Stopped
from ..results.names import Measurement as M
from .figures import LINE, MUTED, VLINE, Figure, Panel, Series
from .page import Section, Table, num, text


def mix_runs(runs):
    return [r for r in runs if r.workload == Mix.MIX and r.header is not None]


def _groups(mix):
    return mix.header["params"][Mix.GROUPS]


def _group_label(g):
    ranks = len(g[Mix.WORLD_RANKS])
    return f"group {g['group']}: {g[Mix.WORKLOAD]} ({ranks} rank{'s' if ranks > 1 else ''})"


def _rates(groups, by_id):
    """Each group's rate over time: one line per phase of each run (at once solid, alone
    dashed), a point per interval at its middle on the mix's clock; MiB/s for the phases that
    move bytes, operations/s in a panel of their own for those that do not."""
    bandwidth = Panel("Rate of each group over time (MiB/s)", "seconds on the mix's clock",
                      "MiB/s")
    operations = Panel("Rate of each group over time (operations/s)",
                       "seconds on the mix's clock", "operations/s")
    for k, g in enumerate(groups):
        for stage, run_id, dash in (("alone", g.get(Mix.SOLO_RUN_ID), True),
                                    ("at once", g[Mix.RUN_ID], False)):
            run = by_id.get(run_id)
            phases = {}
            for r in run.intervals if run else []:
                phases.setdefault((r[Interval.PHASE], r[Interval.ITERATION]), []).append(r)
            for (phase, _), iv in phases.items():
                by_bytes = any(r[Interval.BYTES] for r in iv)
                panel, member = ((bandwidth, Interval.BANDWIDTH) if by_bytes
                                 else (operations, Interval.OPS_PER_S))
                panel.series.append(Series(
                    LINE, "", x=[r[Interval.CLOCK] + r[Interval.SECONDS] / 2 for r in iv],
                    y=[r[member] for r in iv], color=k, dash=dash, markers=True,
                    hover={"group": [_group_label(g)] * len(iv), "phase": [phase] * len(iv),
                           "run": [stage] * len(iv)}))
    return [p for p in (bandwidth, operations) if p.series]


def timeline(mix, by_id, label, n):
    """Each group's phases as segments on its row: solid at once, dashed alone (--solo); the
    overlap windows as dashed vertical lines; below, each group's rate over time."""
    groups = _groups(mix)
    series = []
    for k, g in enumerate(groups):
        row = len(groups) - k  # group 1 at the top
        for stage, run_id, dash in (("alone", g.get(Mix.SOLO_RUN_ID), True),
                                    ("at once", g[Mix.RUN_ID], False)):
            run = by_id.get(run_id)
            for m in run.measurements if run else []:
                if m.get(Mix.START) is None or m.get(Mix.END) is None:
                    continue
                series.append(Series(
                    LINE, "", x=[m[Mix.START], m[Mix.END]], y=[row, row], color=k, dash=dash,
                    markers=True,
                    hover={"group": [_group_label(g)] * 2, "phase": [m[M.PHASE]] * 2,
                           "run": [stage] * 2}))
    windows = []
    for r in mix.records:
        if r["type"] == Mix.MIX:
            windows += [Series(VLINE, "", x=[r["start"]], color=MUTED, dash=True),
                        Series(VLINE, "", x=[r["end"]], color=MUTED, dash=True)]
    panel = Panel("Phases (dashed: alone, solid: at once)",
                  "seconds on the mix's clock", "group", series + windows,
                  y_ticks=[(len(groups) - k, _group_label(g)) for k, g in enumerate(groups)])
    rates = _rates(groups, by_id)
    for p in rates:
        p.series += windows
    return Figure(f"mix-timeline-{n}",
                  f"Groups of the mix: {label}",
                  "When each group ran each phase, from its measurement records' start and "
                  "end on the mix's clock, and its rate over time, a point per interval of its "
                  "time series (interval records, --interval) in the group's colour (dashed: "
                  "alone); the grey dashed lines bound the overlaps, the windows in which "
                  "every group was inside one phase.",
                  [panel, *rates], section="mix")


def _window_rates(r, g):
    """A group's rates inside the window, outside it and over its phase, as the record's
    figures give them: a phase-average record has the phase's only."""
    if r[Mix.FIGURES] == Mix.PHASE_AVERAGE:
        return [None] * 4 + [g[Mix.BANDWIDTH], g[Mix.OPS_PER_S]]
    return [g[Mix.BANDWIDTH], g[Mix.OPS_PER_S], g[Mix.OUTSIDE_BANDWIDTH],
            g[Mix.OUTSIDE_OPS_PER_S], g[Mix.PHASE_BANDWIDTH], g[Mix.PHASE_OPS_PER_S]]


PHASE_AVERAGE_NOTE = (
    " Overlaps marked \"phase averages\" were written by sonde before the interval-based "
    "figures (\"figures\": \"phase-average\"): nothing was counted inside their windows; "
    "their rates are each group's phase averages, their sums those averages summed, their "
    "ratio the phase average at once over alone.")


def interference(mix, label, n):
    """One row per group per overlap (inside the window, outside it, the phase averages at
    once and alone, the ratios), and the overlap's sums."""
    rows = []
    older = False
    for r in (r for r in mix.records if r["type"] == Mix.MIX):
        averages = r[Mix.FIGURES] == Mix.PHASE_AVERAGE
        older = older or averages
        window = f"{r['start']:.3f}-{r['end']:.3f} s" + (" (phase averages)" if averages else "")
        for g in r[Mix.GROUPS]:
            rows.append([num(r[Mix.OVERLAP]), text(window), text(f"group {g['group']}"),
                         text(g[Mix.WORKLOAD]), text(f"{g[Mix.PHASE]} {g[Mix.ITERATION]}"),
                         *map(num, _window_rates(r, g)),
                         num(g.get(Mix.SOLO_BANDWIDTH)), num(g.get(Mix.SOLO_OPS_PER_S)),
                         num(g.get(Mix.BANDWIDTH_RATIO)), num(g.get(Mix.OPS_RATIO))])
        sums = [r[Mix.AGGREGATE_BANDWIDTH], r[Mix.AGGREGATE_OPS]]
        rates = [None] * 4 + sums if averages else sums + [None] * 4
        rows.append([num(r[Mix.OVERLAP]), text(window), text("all groups"), text("-"),
                     text("-"), *map(num, rates), *[text("-")] * 4])
    return Table(f"mix-interference-{n}",
                 f"Interference: {label}",
                 ["overlap", "window", "group", "workload", "phase", "MiB/s", "ops/s",
                  "outside MiB/s", "outside ops/s", "phase MiB/s", "phase ops/s",
                  "alone MiB/s", "alone ops/s", "MiB/s ratio", "ops/s ratio"], rows,
                 "MiB/s and ops/s: counted inside the window, from each group's interval "
                 "records (an interval across an edge of the window by its share of time "
                 "inside); outside: the rest of the group's phase; phase: the phase's average "
                 "over its own seconds, at once and alone (--solo); ratio = inside the window "
                 "/ alone, below 1: slower beside the other groups." +
                 (PHASE_AVERAGE_NOTE if older else ""))


# How a mix that did not reach its end ended: its end record's reason, in words.
ENDED_EARLY = {Stopped.SIGNALLED: "stopped by {signal}",
               Stopped.PEER_FAILED: "{rank} died or failed and the launcher stopped the others"}


def ended_early(mix):
    """How the mix ended when it did not reach its end (its overlaps are computed there), in
    words, else None."""
    if mix.end is None:
        return mix.ending  # killed without an end record
    words = ENDED_EARLY.get(mix.end[End.REASON])
    if words is None:
        return None
    rank = mix.end.get(Stopped.RANK)
    return words.format(signal=mix.end.get(Stopped.SIGNAL),
                        rank="a rank" if rank is None else f"rank {rank}")


def incomplete(mix, by_id, label, n, ending):
    """A mix that ended early: no overlap figures, each group's concurrent run and how it
    ended."""
    rows = []
    for g in _groups(mix):
        run = by_id.get(g[Mix.RUN_ID])
        rows.append([text(f"group {g[Mix.GROUP]}"), text(g[Mix.WORKLOAD]),
                     num(len(g[Mix.WORLD_RANKS])),
                     num(len(run.measurements) if run else None),
                     text(run.ending if run else "not started")])
    return Table(f"mix-incomplete-{n}", f"Incomplete mix: {label}",
                 ["group", "workload", "ranks", "measurements", "its run ended"], rows,
                 f"The mix ended early: {ending}. Its overlaps and their figures are computed "
                 "when every group has finished, so there are none; each group's measurements "
                 "recorded until then are in its workload's section.")


def section(runs, labels):
    """The mix section, or None when no run is a mix."""
    mixes = mix_runs(runs)
    if not mixes:
        return None
    by_id = {r.run_id: r for r in runs}
    tables, figures = [], []
    for n, mix in enumerate(mixes, 1):
        label = labels(mix)
        ending = ended_early(mix)
        if ending:
            tables.append(incomplete(mix, by_id, label, n, ending))
        else:
            tables.append(interference(mix, label, n))
        figures.append(timeline(mix, by_id, label, n))
    intro = ["sonde mix runs groups of ranks, each its own workload, at once in one launch; "
             "each group's own records are in its workload's section."]
    return Section("mix", "Concurrent workloads (sonde mix)", intro, tables, figures)
