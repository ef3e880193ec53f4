# SPDX-License-Identifier: BSD-3-Clause
"""sonde ior -D stonewalling with wear-out: every rank ends with the same number of transfers,
the file holds exactly that, and the status file makes a later read run read exactly that."""

import os
import re

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
