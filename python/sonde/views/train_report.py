# SPDX-License-Identifier: BSD-3-Clause
"""The report's views of sonde train runs (docs/workloads/train.md): the accelerator
utilization of each epoch against the run's threshold (the ranks' range and mean), samples/s
over time from the epochs' interval records (--interval), and each checkpoint: the time
training stood still for it, its write and read bandwidth."""

from ..results.names import (
    TRAIN,
    Interval,
    TrainCheckpoint,
    TrainCheckpointRead,
    TrainCheckpointWrite,
    TrainExtra,
)
from ..results.names import Measurement as M
from .figures import HIGHLIGHT, HLINE, LINE, POINTS, RANGE, Figure, Panel, Series
from .page import Table, num, text
from .plots import _slug

EPOCH = "train"  # the phase of an epoch's measurement


def train_runs(runs):
    return [r for r in runs if r.workload == TRAIN.workload and r.measurements]


def _of(run, phase):
    return [m for m in run.measurements if m[M.PHASE] == phase]


def _au_figure(run, label):
    epochs = _of(run, EPOCH)
    x = [m[M.ITERATION] + 1 for m in epochs]
    ex = [m["extra"] for m in epochs]
    au = Panel("Accelerator utilization", "epoch", "AU (compute / (compute + wait))",
               x_ticks=[(e, str(e)) for e in x])
    au.series = [
        Series(RANGE, "ranks' min to max", x, lo=[e[TrainExtra.AU_MIN] for e in ex],
               hi=[e[TrainExtra.AU_MAX] for e in ex], color=0),
        Series(LINE, "mean over ranks", x, [e[TrainExtra.AU_MEAN] for e in ex], color=0,
               markers=True,
               hover={"slowest rank": [e[TrainExtra.AU_MIN_RANK] for e in ex],
                      "pass": [_PASS_WORD[e[TrainExtra.AU_PASS]] for e in ex]}),
        Series(HLINE, "threshold", y=[ex[0][TrainExtra.AU_THRESHOLD]] if ex else [],
               color=HIGHLIGHT, dash=True),
    ]
    rate = Panel("Samples per second", "epoch", "samples/s", x_ticks=au.x_ticks)
    rate.series = [Series(LINE, "samples/s", x, [e[TrainExtra.SAMPLES_PER_S] for e in ex],
                          color=1, markers=True)]
    return Figure(
        f"train-au-{_slug(label)}", f"Accelerator utilization per epoch: {label}",
        "Each epoch's AU per rank (its emulated compute over compute plus the time it waited "
        "for batches): the range from the lowest rank's to the highest, the mean, and the "
        "run's --au-threshold (an epoch passes when every rank reaches it); and the epoch's "
        "samples over the longest rank's compute plus wait.", [au, rate], columns=2,
        section=TRAIN.workload)


def _samples_figure(run, label):
    series = []
    epochs = sorted({r[Interval.ITERATION] for r in run.intervals
                     if r[Interval.PHASE] == EPOCH})
    for k, e in enumerate(epochs):
        iv = [r for r in run.intervals
              if r[Interval.PHASE] == EPOCH and r[Interval.ITERATION] == e]
        series.append(Series(LINE, f"epoch {e + 1}",
                             [r[Interval.START] + r[Interval.SECONDS] / 2 for r in iv],
                             [r[Interval.OPS_PER_S] for r in iv], color=k, markers=True,
                             hover={"samples": [r[Interval.OPS] for r in iv],
                                    "seconds": [r[Interval.SECONDS] for r in iv]}))
    panel = Panel("Samples per second over time", "seconds since the epoch started",
                  "samples/s", series)
    return Figure(
        f"train-samples-{_slug(label)}", f"Samples per second over time: {label}",
        "From the epochs' interval records (--interval): each point is one interval, the "
        "samples of the batches the ranks' main threads got in it over its length (the first "
        "and last intervals are cut to the epoch).", [panel], section=TRAIN.workload)


def _checkpoint_figure(run, label):
    writes = _of(run, TrainCheckpoint.WRITE)
    reads = _of(run, TrainCheckpoint.READ)
    xw = [m[M.ITERATION] for m in writes]
    stall = Panel("Time training stood still", "checkpoint", "seconds",
                  x_ticks=[(k, str(k)) for k in xw])
    stall.series = [
        Series(POINTS, "training stalled", xw,
               [m["extra"][TrainCheckpointWrite.STALL_S] for m in writes], color=0,
               hover={"epoch": [m["extra"][TrainCheckpoint.EPOCH] for m in writes],
                      "step": [m["extra"][TrainCheckpoint.STEP] for m in writes]}),
        Series(POINTS, "in calls, fsync and close (slowest rank)", xw,
               [m[M.SECONDS] for m in writes], color=1, hollow=True),
    ]
    rate = Panel("Checkpoint bandwidth", "checkpoint", "MiB/s", x_ticks=stall.x_ticks)
    rate.series = [s for s in (
        Series(LINE, "write", xw, [m[M.BANDWIDTH] for m in writes], color=0, markers=True),
        Series(LINE, "read", [m[M.ITERATION] for m in reads], [m[M.BANDWIDTH] for m in reads],
               color=2, markers=True)) if s.x]
    panels = [p for p in (stall, rate) if any(s.x for s in p.series)]
    return Figure(
        f"train-checkpoints-{_slug(label)}", f"Checkpoints: {label}",
        "Per checkpoint: the time training stood still for it (the barrier that opens it to "
        "the last rank's close, buffers filled included) and the slowest rank's time in its "
        "write calls, fsync and close; the bandwidth of the bytes written and read over that "
        "time.", panels, columns=len(panels), section=TRAIN.workload)


def figures(runs, labels):
    """Per train run: AU per epoch, samples/s over time (with --interval), checkpoints."""
    out = []
    for run in train_runs(runs):
        label = labels(run)
        if _of(run, EPOCH):
            out.append(_au_figure(run, label))
        if any(r[Interval.PHASE] == EPOCH for r in run.intervals):
            out.append(_samples_figure(run, label))
        if _of(run, TrainCheckpoint.WRITE) or _of(run, TrainCheckpoint.READ):
            out.append(_checkpoint_figure(run, label))
    return out


# au_pass null: a run without compute time, whose AU (every second a wait) says nothing
_PASS_WORD = {True: "yes", False: "no", None: "not judged (no compute time)"}


def _verdict(ex):
    judged = ex[TrainExtra.AU_PASS]
    if judged is None:
        return text("not judged", tip="no compute time: every second was a wait, so AU (0) "
                                      "says nothing of the storage")
    return text("pass" if judged else "fail", "good" if judged else "bad")


def tables(runs, labels):
    """The epochs' AU and the checkpoints, one row each, for the train section."""
    epochs, checkpoints = [], []
    for run in train_runs(runs):
        for m in _of(run, EPOCH):
            ex = m["extra"]
            epochs.append([text(labels(run)), num(m[M.ITERATION] + 1),
                           num(ex[TrainExtra.SAMPLES]), num(ex[TrainExtra.SAMPLES_PER_S]),
                           num(m[M.BANDWIDTH]), num(ex[TrainExtra.AU_MIN]),
                           num(ex[TrainExtra.AU_MIN_RANK]), num(ex[TrainExtra.AU_MEAN]),
                           num(ex[TrainExtra.AU_MAX]), num(ex[TrainExtra.AU_THRESHOLD]),
                           _verdict(ex)])
        reads = {m[M.ITERATION]: m for m in _of(run, TrainCheckpoint.READ)}
        for w in _of(run, TrainCheckpoint.WRITE):
            ex, r = w["extra"], reads.get(w[M.ITERATION])
            checked = r and r["verify"]["checked"]
            checkpoints.append([
                text(labels(run)), num(w[M.ITERATION]),
                num(None if ex[TrainCheckpoint.EPOCH] is None else ex[TrainCheckpoint.EPOCH] + 1),
                num(ex[TrainCheckpoint.STEP]), num(ex[TrainCheckpoint.FILES]),
                num(w[M.BYTES] / (1 << 20)), num(w[M.BANDWIDTH]),
                num(ex[TrainCheckpointWrite.STALL_S]),
                # records of runs before --time-between-checkpoints and --recovery-rank-shift
                # have neither member
                num(ex.get(TrainCheckpoint.COMPUTE_BEFORE_S)), num(r[M.BANDWIDTH] if r else None),
                num(r["extra"].get(TrainCheckpointRead.RANK_SHIFT) if r else None),
                text(("ok" if not r["verify"]["errors"] else f"{r['verify']['errors']} errors")
                     if checked else "not checked")])
    out = []
    if epochs:
        out.append(Table("train-au", "Accelerator utilization per epoch",
                         ["run", "epoch", "samples", "samples/s", "MiB/s", "AU min",
                          "AU min rank", "AU mean", "AU max", "threshold", "verdict"], epochs,
                         "AU of a rank = its emulated compute / (compute + its wait for "
                         "batches); an epoch passes when every rank's AU reaches the "
                         "threshold. Without compute time it is not judged: every second is "
                         "a wait, and its samples/s are what the readers deliver."))
    if checkpoints:
        out.append(Table("train-checkpoints", "Checkpoints",
                         ["run", "checkpoint", "in epoch", "step", "files", "MiB",
                          "write MiB/s", "training stalled s", "compute before s", "read MiB/s",
                          "read shift", "read back"],
                         checkpoints,
                         "Write and read bandwidth: the bytes moved over the slowest rank's "
                         "time in its calls, fsync and close; training stalled: the barrier "
                         "opening the checkpoint to the last rank's close; compute before: "
                         "the emulated compute that paced a checkpoint-only run "
                         "(--time-between-checkpoints), outside the checkpoint's time; read "
                         "shift: rank r read what rank r + shift wrote (--recovery-rank-shift, "
                         "0: its own)."))
    return out
