# SPDX-License-Identifier: BSD-3-Clause
"""Per-call profiles (the "profile" records of mib -p) aggregated with numpy into what a figure
can show: a grid of tasks x time bins (calls, bytes and call time per cell), calls completed
over time per task, and the stragglers. The grid is bounded by the pixels a figure draws
(TIME_BINS x TASK_ROWS), so 10^7 calls cost one pass over the arrays, never one point each."""

from dataclasses import dataclass

import numpy as np

TIME_BINS = 400  # columns of the heatmaps and points of each timeline
TASK_ROWS = 256  # more tasks than this: each heatmap row is a group of consecutive tasks
STRAGGLERS = 3  # the latest-finishing tasks named, when they finish late (below)
LATE = 1.1  # a task is late when it took more than 10% longer than the median task


@dataclass
class Phase:
    """The calls of one phase: start and end times (seconds since the run's common zero) as
    calls x tasks arrays, NaN where a task made fewer calls."""

    name: str
    phase_start: np.ndarray  # per task
    start: np.ndarray
    end: np.ndarray

    @property
    def tasks(self):
        return self.start.shape[1]


def phases(run):
    """{phase name: Phase} from a run's profile records, calls in order."""
    starts, chunks = {}, {}
    for rec in run.profiles:
        phase = rec.get("phase")
        if rec.get("part") == "tasks":
            starts[phase] = np.asarray(rec["phase_start"], dtype=float)
        elif rec.get("part") == "calls":
            chunks.setdefault(phase, []).append(rec)
    out = {}
    for phase, recs in chunks.items():
        recs.sort(key=lambda r: r["first_call"])
        start = np.vstack([np.asarray(r["start"], dtype=float) for r in recs])
        end = np.vstack([np.asarray(r["end"], dtype=float) for r in recs])
        if phase not in starts:
            starts[phase] = np.nanmin(start, axis=0)
        out[phase] = Phase(phase, starts[phase], start, end)
    return out


@dataclass
class Grid:
    """A phase binned: t0 (the phase's start: the earliest task's), bin width, edges relative
    to t0, and per (row, bin) the calls that ended there and the seconds they took. A row is
    `group` consecutive tasks (1 unless there are more than TASK_ROWS)."""

    t0: float
    width: float
    edges: np.ndarray  # TIME_BINS + 1 edges, seconds since t0
    group: int
    calls: np.ndarray  # rows x bins
    busy: np.ndarray  # rows x bins: sum of call durations
    completed: np.ndarray  # tasks x (bins + 1): calls finished by each edge
    finish: np.ndarray  # per task: end of its last call, seconds since t0 (NaN: no call)
    total_calls: int

    def rate_mib_s(self, call_bytes):
        """MiB/s moved per row and bin, counting call_bytes per call (a short last call of a
        task is counted whole: mib's records say how many there were)."""
        return self.calls * (call_bytes / 2**20) / self.width

    def mean_latency_us(self):
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.calls > 0, self.busy / self.calls * 1e6, np.nan)

    def stragglers(self):
        """[(task, finish seconds since t0)] of up to STRAGGLERS tasks that finished last, if
        they finished more than 10% later than the median task."""
        done = np.isfinite(self.finish)
        if done.sum() < 2:
            return []
        median = float(np.median(self.finish[done]))
        order = np.argsort(np.where(done, -self.finish, np.inf), kind="stable")[:STRAGGLERS]
        return [(int(t), float(self.finish[t])) for t in order
                if done[t] and self.finish[t] > LATE * median]


CALLS_PER_BIN = 8  # fewer time bins than TIME_BINS when tasks made few calls: no empty stripes


def grid(phase, bins=None, rows=TASK_ROWS):
    """The phase binned into at most rows x bins cells (bins: TIME_BINS, or fewer so that a
    task's bin holds CALLS_PER_BIN calls on average)."""
    ok = np.isfinite(phase.end) & np.isfinite(phase.start)
    if bins is None:
        per_task = ok.sum() / max(1, phase.tasks)
        bins = int(min(TIME_BINS, max(10, per_task // CALLS_PER_BIN)))
    t0 = float(np.nanmin(phase.phase_start)) if phase.phase_start.size else 0.0
    t_end = float(phase.end[ok].max()) if ok.any() else t0
    if np.isfinite(phase.start[ok]).any():
        t0 = min(t0, float(phase.start[ok].min()))
    span = max(t_end - t0, 1e-9)
    width = span / bins
    tasks = phase.tasks
    group = -(-tasks // rows)
    nrows = -(-tasks // group)
    # Per task and bin over the whole calls x tasks arrays (no copy of the valid calls): a
    # missing call goes to an extra bin per task, dropped below.
    with np.errstate(invalid="ignore"):
        col = np.where(ok, np.minimum((phase.end - t0) / width, bins - 1), bins)
    cell = col.astype(np.int64) + np.arange(tasks, dtype=np.int64) * (bins + 1)
    took = np.where(ok, phase.end - phase.start, 0.0)
    size = tasks * (bins + 1)
    per_task = np.bincount(cell.ravel(), minlength=size).reshape(tasks, bins + 1)[:, :bins]
    busy_task = np.bincount(cell.ravel(), weights=took.ravel(),
                            minlength=size).reshape(tasks, bins + 1)[:, :bins]

    def by_row(a):  # consecutive tasks summed into heatmap rows
        padded = np.zeros((nrows * group, bins), dtype=a.dtype)
        padded[:tasks] = a
        return padded.reshape(nrows, group, bins).sum(axis=1)

    calls, busy = by_row(per_task), by_row(busy_task)
    completed = np.zeros((tasks, bins + 1), dtype=np.int64)
    np.cumsum(per_task, axis=1, out=completed[:, 1:])
    last = np.where(ok, phase.end, -np.inf).max(axis=0, initial=-np.inf)
    finish = np.where(np.isfinite(last), last - t0, np.nan)
    return Grid(t0, width, np.linspace(0.0, span, bins + 1), group, calls, busy, completed,
                finish, int(ok.sum()))
