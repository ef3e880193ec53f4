# SPDX-License-Identifier: BSD-3-Clause
"""sonde ior -D stonewalling with wear-out: every rank ends with the same number of transfers,
the file holds exactly that, and the status file makes a later read run read exactly that."""

import os
import re

import pytest
from conftest import read_jsonl, run_sonde

HARD = ["-t", "4k", "-b", "4k", "-s", "10000000"]


def ior(args, **kw):
    return run_sonde(["ior", *args], **kw)


def test_wear_out_and_status_file(scratch):
    target = scratch / "sw"
    status = scratch / "status"
    results = scratch / "r.jsonl"
    # -Y (fsync per write) on the disk keeps the 1-second phase small
    proc = ior(["-w", "-k", "-Y", "-D", "1", "-O",
                f"stoneWallingWearOut=1,stoneWallingStatusFile={status}", "-v", *HARD, "-o",
                target, "--json", results], np=2)
    m = re.search(r"^stonewalling pairs accessed min: (\d+) max: (\d+)", proc.stdout, re.MULTILINE)
    assert m, proc.stdout
    pairs = int(m.group(2))
    assert int(m.group(1)) <= pairs
    # the wear-out brings every rank to the busiest rank's count: the file is complete
    assert os.stat(target).st_size == pairs * 2 * 4096
    assert int(open(status).read()) == pairs
    meas = [r for r in read_jsonl(results) if r["type"] == "measurement"]
    assert meas[0]["bytes"] == pairs * 2 * 4096
    assert meas[0]["extra"]["stonewall_total_bytes"] <= pairs * 2 * 4096
    write_row = [ln for ln in proc.stdout.splitlines() if ln.startswith("write ")][-1].split()
    assert write_row[10] != "NA" and float(write_row[10]) >= 1.0  # Stonewall(s)
    assert re.search(r"^Aggregate write bandwidth at the stonewall: [\d.]+ MiB/s$",
                     proc.stdout, re.MULTILINE)

    proc = ior(["-r", "-k", "-O", f"stoneWallingStatusFile={status}", *HARD, "-o", target,
                "--json", results], np=2)
    read = [r for r in read_jsonl(results) if r["type"] == "measurement"][-1]
    assert read["phase"] == "read" and read["bytes"] == pairs * 2 * 4096


def test_status_file_needs_keep(scratch):
    proc = ior(["-w", "-D", "1", "-O", "stoneWallingWearOut=1", "-O",
                f"stoneWallingStatusFile={scratch / 's'}", "-o", scratch / "f"], np=2,
               check=False)
    assert proc.returncode == 2
    assert "please use -k" in proc.stderr


def test_wear_out_continues_where_each_rank_stopped(shm_scratch):
    """Ranks stopped at different transfers by the deadline each go on from their own next
    transfer: the -W check of the same run and a later -R read of the status file's count find
    every transfer holding its rank's data (a wear-out that went back to an earlier transfer
    would leave holes of zeros that the checks report)."""
    target, status = shm_scratch / "f", shm_scratch / "status"
    # three ranks on two cores reach the deadline at different counts
    proc = ior(["-w", "-W", "-k", "-G", "4242", "-D", "1", "-O",
                f"stoneWallingWearOut=1,stoneWallingStatusFile={status}", "-v", "-t", "4k",
                "-b", "8k", "-s", "10000000", "-o", target], np=3)
    m = re.search(r"^stonewalling pairs accessed min: (\d+) max: (\d+)", proc.stdout, re.MULTILINE)
    assert m, proc.stdout
    pairs = int(m.group(2))
    assert pairs > 2  # the deadline stopped the ranks inside a block, or between blocks
    assert "Verified" in proc.stdout and "no errors" in proc.stdout
    assert "incorrect data" not in proc.stderr
    assert int(open(status).read()) == pairs
    # whole blocks of 2 transfers per segment for 3 ranks, ending in the last rank's block
    segments = -(-pairs // 2)
    assert os.stat(target).st_size == (segments - 1) * 3 * 8192 + 2 * 8192 + \
        (4096 if pairs % 2 else 8192)
    ior(["-r", "-R", "-k", "-G", "4242", "-O", f"stoneWallingStatusFile={status}", "-t", "4k",
         "-b", "8k", "-s", "10000000", "-o", target], np=3)


def test_stonewall_summary_recomputed_from_repetitions(scratch):
    """IOR's definition (reference/ior.md): over the repetitions, Stonewall(s) is the mean
    stonewall time and Stonewall(MiB) the per-rank bytes at the deadline summed over the
    repetitions divided by the summed stonewall times; the aggregate is the same with every
    rank's bytes. Recomputed here from each repetition's own figures: a summary dividing by the
    mean time instead of the summed one reads three times too high at three repetitions."""
    results = scratch / "r.jsonl"
    np_, reps = 2, 3
    # -Y (fsync per write) on the disk keeps the 1-second phases small
    ior(["-w", "-Y", "-i", reps, "-D", "1", "-O", "stoneWallingWearOut=1", *HARD, "-o",
         scratch / "sw", "--json", results], np=np_)
    records = read_jsonl(results)
    meas = [r for r in records if r["type"] == "measurement" and r["phase"] == "write"]
    assert [r["iteration"] for r in meas] == list(range(reps))
    sw_bytes = [r["extra"]["stonewall_total_bytes"] for r in meas]
    sw_time = [r["extra"]["stonewall_s"] for r in meas]
    for r, b, t in zip(meas, sw_bytes, sw_time, strict=True):
        assert 0 < b <= r["bytes"] and t >= 1.0, r["extra"]
        assert r["extra"]["stonewall_aggregate_mib_s"] == pytest.approx(b / t / 2**20,
                                                                         rel=1e-6)
    summary = [r for r in records if r["type"] == "summary"]
    assert len(summary) == 1
    s = summary[0]
    assert s["repetitions"] == reps
    assert s["stonewall_s"] == pytest.approx(sum(sw_time) / reps, rel=1e-6)
    assert s["stonewall_aggregate_mib_s"] == pytest.approx(
        sum(sw_bytes) / sum(sw_time) / 2**20, rel=1e-6)
    assert s["stonewall_mib_s_per_rank"] == pytest.approx(
        sum(b / np_ for b in sw_bytes) / sum(sw_time) / 2**20, rel=1e-6)
