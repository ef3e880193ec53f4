# SPDX-License-Identifier: BSD-3-Clause
"""The report's views of a sonde train run the binary makes here (2 ranks, 2 epochs with
--interval, a verified checkpoint after each): every number of the AU, samples/s and checkpoint
figures and of the train tables re-derived from the JSON lines without sonde's loader, and the
page in headless Chromium (test_report_browser's checks)."""

import json
import subprocess

import pytest
from golden import SONDE, env, launcher
from test_report_browser import check_page

from sonde import report

THRESHOLD = 0.5


@pytest.fixture(scope="module")
def train_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("train")
    results = d / "r.jsonl"
    argv = launcher(2) + [
        SONDE, "train", "-d", str(d), "--generate", "--train", "--epochs", "2",
        "--num-files", "8", "--record-size", "64k", "--batch-size", "2",
        "--compute-time", "0.005", "--interval", "0.01", "--au-threshold", str(THRESHOLD),
        "--epochs-between-checkpoints", "1", "--checkpoint-folder", str(d / "ckpt"),
        "--model-size", "1m", "--num-layers", "2", "--checkpoint-type", "all_ranks",
        "--checkpoint-verify", "--json", str(results)]
    proc = subprocess.run(argv, env=env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return results


def raw(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def measured(recs, phase):
    return [r for r in recs if r["type"] == "measurement" and r["phase"] == phase]


def figure(page, start):
    (f,) = [f for f in page.figures() if f.title.startswith(start)]
    return f


def series(fig, panel, name):
    (p,) = [p for p in fig.panels if p.title == panel]
    (s,) = [s for s in p.series if s.name == name]
    return s


def test_train_figures_are_the_records(train_run):
    recs = raw(train_run)
    page = report.build([str(train_run)])
    epochs = measured(recs, "train")
    assert [e["iteration"] for e in epochs] == [0, 1]
    au = figure(page, "Accelerator utilization per epoch")
    rng = series(au, "Accelerator utilization", "ranks' min to max")
    assert rng.x == [1, 2]
    assert rng.lo == [e["extra"]["au_min"] for e in epochs]
    assert rng.hi == [e["extra"]["au_max"] for e in epochs]
    assert series(au, "Accelerator utilization", "mean over ranks").y == [
        e["extra"]["au_mean"] for e in epochs]
    assert series(au, "Accelerator utilization", "threshold").y == [THRESHOLD]
    rate = series(au, "Samples per second", "samples/s").y
    assert rate == [e["extra"]["samples_per_s"] for e in epochs]
    for got, e in zip(rate, epochs, strict=True):  # the samples over the epoch's seconds
        assert abs(got - e["extra"]["samples"] / e["seconds"]) <= 1e-6 * got
    over_time = figure(page, "Samples per second over time")
    for k in (0, 1):
        iv = [r for r in recs if r["type"] == "interval" and r["phase"] == "train"
              and r["iteration"] == k]
        s = series(over_time, "Samples per second over time", f"epoch {k + 1}")
        assert s.x == [r["start_s"] + r["seconds"] / 2 for r in iv]
        for got, r in zip(s.y, iv, strict=True):
            assert abs(got - r["ops"] / r["seconds"]) <= 1e-6 * max(got, 1)
        # the intervals of an epoch hold its samples
        assert sum(r["ops"] for r in iv) == epochs[k]["extra"]["samples"]
    writes, reads = measured(recs, "checkpoint-write"), measured(recs, "checkpoint-read")
    # each checkpoint's own time series (--interval) holds its calls and bytes
    for m in writes + reads:
        iv = [r for r in recs if r["type"] == "interval" and r["phase"] == m["phase"]
              and r["iteration"] == m["iteration"]]
        assert iv and sum(r["bytes"] for r in iv) == m["bytes"] == 2**20
        assert sum(r["ops"] for r in iv) == m["ops"]
    ck = figure(page, "Checkpoints")
    stalled = series(ck, "Time training stood still", "training stalled")
    assert stalled.x == [0, 1] and stalled.y == [w["extra"]["stall_s"] for w in writes]
    for w, r in zip(series(ck, "Checkpoint bandwidth", "write").y, writes, strict=True):
        assert abs(w - r["bytes"] / 2**20 / r["seconds"]) <= 1e-6 * w
    for got, r in zip(series(ck, "Checkpoint bandwidth", "read").y, reads, strict=True):
        assert abs(got - r["bytes"] / 2**20 / r["seconds"]) <= 1e-6 * got


def test_a_run_without_compute_time_is_not_judged(tmp_path):
    """No compute time: every second is a wait and AU is 0, which says nothing of the storage.
    The record's au_pass is null, and the report's verdict says "not judged", never fail."""
    results = tmp_path / "r.jsonl"
    argv = launcher(1) + [SONDE, "train", "-d", str(tmp_path), "--generate", "--train",
                          "--num-files", "4", "--record-size", "4k", "--batch-size", "2",
                          "--json", str(results)]
    proc = subprocess.run(argv, env=env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (epoch,) = measured(raw(results), "train")
    assert epoch["extra"]["au_pass"] is None and epoch["extra"]["au_max"] == 0
    page = report.build([str(results)])
    (section,) = [s for s in page.sections if s.id == "train"]
    au = {t.id: t for t in section.tables}["train-au"]
    (row,) = au.rows
    assert row[au.columns.index("verdict")].text == "not judged"
    check_page(report.write(page, tmp_path / "report.html"), page, 60)


def test_train_tables_are_the_records(train_run):
    recs = raw(train_run)
    page = report.build([str(train_run)])
    (section,) = [s for s in page.sections if s.id == "train"]
    au, ck = ({t.id: t for t in section.tables}[k] for k in ("train-au", "train-checkpoints"))
    col = {c: k for k, c in enumerate(au.columns)}
    for row, e in zip(au.rows, measured(recs, "train"), strict=True):
        assert row[col["epoch"]].value == e["iteration"] + 1
        assert row[col["AU min"]].value == e["extra"]["au_min"]
        assert row[col["AU min rank"]].value == e["extra"]["au_min_rank"]
        assert row[col["threshold"]].value == THRESHOLD
        assert row[col["verdict"]].text == ("pass" if e["extra"]["au_pass"] else "fail")
    col = {c: k for k, c in enumerate(ck.columns)}
    writes = measured(recs, "checkpoint-write")
    assert len(ck.rows) == len(writes) == 2
    for row, w in zip(ck.rows, writes, strict=True):
        assert row[col["MiB"]].value == w["bytes"] / 2**20 == 1
        assert row[col["training stalled s"]].value == w["extra"]["stall_s"]
        assert row[col["in epoch"]].value == w["extra"]["epoch"] + 1
        assert row[col["read back"]].text == "ok"
        # no pacing during training; each rank read back its own shards
        assert row[col["compute before s"]].value == w["extra"]["compute_before_s"] == 0
        assert row[col["read shift"]].value == 0


def test_train_report_in_a_browser(train_run, tmp_path):
    page = report.build([str(train_run)])
    out = report.write(page, tmp_path / "report.html")
    check_page(out, page, 60)
