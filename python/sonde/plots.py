"""The report's figures, drawn with matplotlib (Agg, no display) from loaded runs. Each
function returns a list of Figure(title, caption, png bytes); an empty list when the runs hold
nothing of that kind."""

import io
import math
from collections import defaultdict
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MAX_TASK_LINES = 64  # more tasks than this: timelines show an evenly spaced subset


@dataclass
class Figure:
    name: str
    title: str
    caption: str
    png: bytes


def _png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def _label(run):
    h = run.header or {}
    return f"{run.workload} {h.get('ranks', '?')}r {run.run_id or ''}".strip()


def bandwidth(runs):
    """Bandwidth of every I/O phase by iteration, error bars from the per-rank times."""
    out = []
    for k, run in enumerate(runs):
        rows = [m for m in run.measurements if m["bytes"] > 0 and m["bandwidth_mib_s"]]
        if not rows or run.workload == "coll":
            continue
        phases = list(dict.fromkeys(m["phase"] for m in rows))
        fig, ax = plt.subplots(figsize=(7, 3.6))
        width = 0.8 / len(phases)
        for p, phase in enumerate(phases):
            pts = [m for m in rows if m["phase"] == phase]
            xs = [i + p * width for i in range(len(pts))]
            ys = [m["bandwidth_mib_s"] for m in pts]
            lo, hi = [], []
            for m, y in zip(pts, ys, strict=True):
                pr = m.get("per_rank")
                # The slowest and fastest rank's time bound the aggregate rate.
                if pr and pr["max"] and pr["min"]:
                    lo.append(max(0.0, y - m["bytes"] / 2**20 / pr["max"]))
                    hi.append(max(0.0, m["bytes"] / 2**20 / pr["min"] - y))
                else:
                    lo.append(0.0)
                    hi.append(0.0)
            ax.bar(xs, ys, width, yerr=[lo, hi], capsize=3, label=phase)
        n = max(sum(1 for m in rows if m["phase"] == ph) for ph in phases)
        ax.set_xticks([i + 0.4 - width / 2 for i in range(n)])
        ax.set_xticklabels([str(i) for i in range(n)])
        ax.set_xlabel("iteration")
        ax.set_ylabel("MiB/s")
        ax.legend(fontsize=8)
        ax.set_title(_label(run), fontsize=9)
        out.append(Figure(f"bandwidth-{k}", f"Bandwidth: {_label(run)}",
                          "Aggregate bandwidth of each phase; error bars span the rates the "
                          "fastest and slowest rank's times imply.", _png(fig)))
    return out


def _profile_calls(run):
    """{phase: (tasks record, [(start row, end row), ...])} from a run's profile records."""
    by_phase = defaultdict(lambda: [None, []])
    for rec in run.profiles:
        entry = by_phase[rec.get("phase", "?")]
        if rec.get("part") == "tasks":
            entry[0] = rec
        elif rec.get("part") == "calls":
            entry[1].extend(zip(rec["start"], rec["end"], strict=True))
    return by_phase


def timelines(runs):
    """Per-call timelines (call index vs finish time per task) and a heatmap of calls per task
    over time, from profile records (mib -p)."""
    out = []
    for k, run in enumerate(runs):
        for phase, (_tasks, calls) in _profile_calls(run).items():
            if not calls:
                continue
            ntasks = len(calls[0][1])
            shown = range(ntasks) if ntasks <= MAX_TASK_LINES else [
                round(i * (ntasks - 1) / (MAX_TASK_LINES - 1)) for i in range(MAX_TASK_LINES)]
            fig, (ax, hm) = plt.subplots(1, 2, figsize=(11, 3.8))
            ends_all = []
            for t in shown:
                pts = [(i + 1, row[1][t]) for i, row in enumerate(calls)
                       if row[1][t] is not None]
                if pts:
                    ax.plot([p[1] for p in pts], [p[0] for p in pts], lw=0.8)
            for row in calls:
                ends_all.extend(e for e in row[1] if e is not None)
            ax.set_xlabel("time since the global zero (s)")
            ax.set_ylabel("call")
            ax.set_title(f"{phase}: calls completed per task", fontsize=9)
            if ends_all:
                tmax = max(ends_all) or 1.0
                bins = 50
                grid = [[0] * bins for _ in range(ntasks)]
                for row in calls:
                    for t, e in enumerate(row[1]):
                        if e is not None:
                            grid[t][min(bins - 1, int(e / tmax * bins))] += 1
                im = hm.imshow(grid, aspect="auto", origin="lower", cmap="viridis",
                               extent=[0, tmax, -0.5, ntasks - 0.5], interpolation="nearest")
                fig.colorbar(im, ax=hm, label="calls per bin")
            hm.set_xlabel("time (s)")
            hm.set_ylabel("task")
            hm.set_title(f"{phase}: calls per task over time", fontsize=9)
            out.append(Figure(f"timeline-{k}-{phase}",
                              f"Per-call timeline, {phase}: {_label(run)}",
                              "Left: each line is a task, climbing one step per finished call; "
                              "a flat stretch is a stall. Right: calls finished per task in 50 "
                              "time bins; a dark cell is a task that moved little then.",
                              _png(fig)))
    return out


def latency_histograms(runs):
    """Log2 latency histograms of the phases that recorded per-call latencies."""
    out = []
    for k, run in enumerate(runs):
        rows = [m for m in run.measurements if m.get("latency") and run.workload != "coll"]
        if not rows:
            continue
        merged = defaultdict(lambda: [0] * 48)
        for m in rows:
            for b, c in enumerate(m["latency"]["histogram_log2_ns"]):
                merged[m["phase"]][b] += c
        fig, ax = plt.subplots(figsize=(7, 3.4))
        for phase, hist in merged.items():
            last = max((b for b, c in enumerate(hist) if c), default=0)
            first = min((b for b, c in enumerate(hist) if c), default=0)
            xs = list(range(first, last + 1))
            ax.step([2.0**b / 1e3 for b in xs], [hist[b] for b in xs], where="post",
                    label=phase)
        ax.set_xscale("log")
        ax.set_xlabel("call latency (µs, log2 buckets)")
        ax.set_ylabel("calls")
        ax.legend(fontsize=8)
        out.append(Figure(f"latency-{k}", f"Call latency: {_label(run)}",
                          "How many calls took each latency (log2 buckets, all ranks and "
                          "iterations).", _png(fig)))
    return out


def collective_latency(runs):
    """Collective latency against message size, log-log, one line per operation."""
    out = []
    for k, run in enumerate(runs):
        rows = [m for m in run.measurements if run.workload == "coll"]
        if not rows:
            continue
        series = defaultdict(list)
        for m in rows:
            p, e = m.get("params", {}), m.get("extra", {})
            avg = e.get("avg_us")
            if avg is None or p.get("size") is None:
                continue
            series[(p.get("comm", "?"), m["phase"])].append((max(p["size"], 1), avg))
        if not series:
            continue
        fig, ax = plt.subplots(figsize=(7.5, 4))
        for (comm, op), pts in sorted(series.items()):
            pts.sort()
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3,
                    label=op if comm == "MPI_COMM_WORLD" else f"{op} ({comm})")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel("average latency (µs)")
        ax.legend(fontsize=7, ncol=2)
        out.append(Figure(f"collectives-{k}", f"Collective latency: {_label(run)}",
                          "Average latency over ranks and iterations for each message size "
                          "(0 bytes drawn at 1).", _png(fig)))
    return out


def btio_scaling(runs):
    """BTIO bandwidth against rank count, one line per method and phase."""
    series = defaultdict(list)
    for run in runs:
        if run.workload != "btio":
            continue
        ranks = (run.header or {}).get("ranks")
        for m in run.measurements:
            method = m.get("params", {}).get("method", "?")
            if m["bandwidth_mib_s"]:
                series[(method, m["phase"])].append((ranks, m["bandwidth_mib_s"]))
    if not series or len({r for pts in series.values() for r, _ in pts}) < 2:
        return []
    fig, ax = plt.subplots(figsize=(7, 3.8))
    for (method, phase), pts in sorted(series.items(), key=lambda kv: str(kv[0])):
        by_ranks = defaultdict(list)
        for r, bw in pts:
            by_ranks[r].append(bw)
        xs = sorted(by_ranks)
        ax.plot(xs, [sum(by_ranks[x]) / len(by_ranks[x]) for x in xs], marker="o",
                label=f"method {method} {phase}")
    ax.set_xlabel("ranks")
    ax.set_ylabel("MiB/s")
    ax.set_xscale("log", base=2)
    ax.legend(fontsize=7)
    return [Figure("btio-scaling", "BTIO strong scaling",
                   "Bandwidth of the same problem on each rank count (mean of repetitions).",
                   _png(fig))]


def compare_bars(labels, a_values, b_values, a_name, b_name, unit):
    fig, ax = plt.subplots(figsize=(max(6, 0.5 * len(labels) + 2), 3.8))
    xs = range(len(labels))
    ax.bar([x - 0.2 for x in xs], [v if v is not None else math.nan for v in a_values], 0.4,
           label=a_name)
    ax.bar([x + 0.2 for x in xs], [v if v is not None else math.nan for v in b_values], 0.4,
           label=b_name)
    ax.set_xticks(list(xs))
    ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=7)
    ax.set_ylabel(unit)
    ax.legend(fontsize=8)
    return Figure("compare", "A and B side by side", f"Mean {unit} of each phase in A and B.",
                  _png(fig))


ALL = (bandwidth, timelines, latency_histograms, collective_latency, btio_scaling)
