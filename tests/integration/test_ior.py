# SPDX-License-Identifier: BSD-3-Clause
"""sonde ior: numbers cross-checked against the files, IOR's output layout, verification."""

import csv
import math
import os
import re

import pytest
from conftest import read_jsonl, run_sonde

MIB = 1048576.0


def ior(args, **kw):
    return run_sonde(["ior", *args], **kw)

# IOR's "Summary of all tests" header, as printed by IOR 4 (seed README and IOR output).
IOR_SUMMARY_HEADER = (
    "Operation   Max(MiB)   Min(MiB)  Mean(MiB)     StdDev   Max(OPs)   Min(OPs)  Mean(OPs)"
    "     StdDev    Mean(s) Stonewall(s) Stonewall(MiB) Test# #Tasks tPN reps fPP reord"
    " reordoff reordrand seed segcnt   blksiz    xsize aggs(MiB)   API RefNum")

ROW = re.compile(r"^(write|read)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)"
                 r"\s+(\S+)\s+(\S+)\s+(\d+)\s*$")


def rows(out):
    """Per-iteration rows of the Results table: dicts of the printed figures."""
    keys = ["access", "bw", "iops", "latency", "block", "xfer", "open", "wrrd", "close",
            "total", "iter"]
    found = []
    for line in out.splitlines():
        m = ROW.match(line)
        if m:
            values = [m.group(1)] + [float(g) for g in m.groups()[1:]]
            found.append(dict(zip(keys, values, strict=False)))
    return found


def summary(out):
    """The Summary of all tests table: {operation: {column: value}}."""
    lines = out.splitlines()
    i = lines.index("Summary of all tests:")
    header = lines[i + 1].split()
    header[8] = "StdDev(OPs)"  # the second StdDev column
    table = {}
    for line in lines[i + 2:]:
        if not line.startswith(("write", "read")):
            break
        table[line.split()[0]] = dict(zip(header, line.split(), strict=False))
    return table


def test_bytes_bandwidth_and_files(shm_scratch):
    target = shm_scratch / "f"
    results = shm_scratch / "r.jsonl"
    proc = ior(["-w", "-r", "-k", "-F", "-t", "64k", "-b", "1m", "-s", "3", "-i", "2",
                      "-o", target, "--json", results, "--csv", shm_scratch / "r.csv"], np=2)
    files = sorted(shm_scratch.glob("f.0*"))
    assert [f.name for f in files] == ["f.00000000", "f.00000001"]
    on_disk = sum(os.stat(f).st_size for f in files)
    assert on_disk == 2 * 3 * 1048576
    table = rows(proc.stdout)
    assert [r["access"] for r in table] == ["write", "read", "write", "read"]
    for r in table:
        # bandwidth is bytes over total time, open and close included (IOR's definition)
        assert r["bw"] == pytest.approx(on_disk / MIB / r["total"], rel=0.02)
        assert r["block"] == 1024 and r["xfer"] == 64
    records = read_jsonl(results)
    meas = [r for r in records if r["type"] == "measurement"]
    assert [(m["phase"], m["iteration"]) for m in meas] == [
        ("write", 0), ("read", 0), ("write", 1), ("read", 1)]
    for m in meas:
        assert m["bytes"] == on_disk
        assert m["ops"] == on_disk // 65536
        assert m["latency"]["count"] == on_disk // 65536
        assert m["per_rank"]["n"] == 2
        # the straggler view: each rank's bytes, and the slowest ranks by total time
        assert m["extra"]["rank_bytes"] == [on_disk / 2, on_disk / 2]
        secs = m["extra"]["rank_seconds"]
        assert m["extra"]["slowest_ranks"] == sorted(range(2), key=lambda k: -secs[k])
    assert records[0]["type"] == "header" and records[-1]["type"] == "end"
    assert {r["operation"] for r in records if r["type"] == "summary"} == {"write", "read"}
    with open(shm_scratch / "r.csv") as f:
        csv_rows = list(csv.DictReader(f))
    assert [(r["phase"], int(r["bytes"])) for r in csv_rows] == [
        ("write", on_disk), ("read", on_disk)] * 2


def test_summary_recomputed_from_rows(shm_scratch):
    proc = ior(["-w", "-r", "-t", "32k", "-b", "256k", "-s", "4", "-i", "3", "-v", "-o",
                      shm_scratch / "s"], np=2)
    table = rows(proc.stdout)
    lines = proc.stdout.splitlines()
    header = lines[lines.index("Summary of all tests:") + 1]
    assert header.split() == IOR_SUMMARY_HEADER.split()
    assert header == IOR_SUMMARY_HEADER
    s = summary(proc.stdout)
    for op in ("write", "read"):
        bws = [r["bw"] for r in table if r["access"] == op]
        totals = [r["total"] for r in table if r["access"] == op]
        assert len(bws) == 3
        mean = sum(bws) / 3
        sd = math.sqrt(sum((b - mean) ** 2 for b in bws) / 3)  # population, as IOR
        row = s[op]
        tol = dict(rel=0.01, abs=0.02)
        assert float(row["Max(MiB)"]) == pytest.approx(max(bws), **tol)
        assert float(row["Min(MiB)"]) == pytest.approx(min(bws), **tol)
        assert float(row["Mean(MiB)"]) == pytest.approx(mean, **tol)
        assert float(row["Mean(s)"]) == pytest.approx(sum(totals) / 3, rel=0.01, abs=1e-5)
        # IOR's OPs are the bandwidths over the transfer size
        assert float(row["Max(OPs)"]) == pytest.approx(max(bws) * MIB / 32768, rel=0.01)
        assert float(row["StdDev"]) == pytest.approx(sd, rel=0.02, abs=0.05)
        assert float(row["StdDev(OPs)"]) == pytest.approx(sd * MIB / 32768, rel=0.02, abs=2)
        assert row["Stonewall(s)"] == "NA"
        assert row["#Tasks"] == "2" and row["reps"] == "3" and row["segcnt"] == "4"
        assert row["blksiz"] == "262144" and row["xsize"] == "32768"
        assert row["aggs(MiB)"] == "2.0" and row["API"] == "POSIX"
    # the Max Write line is the best iteration
    best = max(r["bw"] for r in table if r["access"] == "write")
    m = re.search(r"^Max Write: (\S+) MiB/sec", proc.stdout, re.MULTILINE)
    assert float(m.group(1)) == pytest.approx(best, rel=0.01)
    assert re.search(r"^Finished\s+: ", proc.stdout, re.MULTILINE)


def test_jube_pattern_extracts_the_result(shm_scratch):
    """The JUBE-style extraction of the README's result table works on sonde's output."""
    proc = ior(["-a", "POSIX", "-C", "-Q", "1", "-g", "-b", "128k", "-t", "32k", "-i",
                      "2", "-o", shm_scratch / "testFileA", "-s", "2", "-r", "-w", "-v",
                      "-F"], np=2)
    pat = re.compile(r"^(write|read)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+[\d.]+\s+[\d.]+\s+"
                     r"[\d.]+\s+[\d.]+\s+[\d.]+\s+([\d.]+)\s+NA\s+NA", re.MULTILINE)
    found = {m.group(1): [float(g) for g in m.groups()[1:]] for m in pat.finditer(proc.stdout)}
    assert set(found) == {"write", "read"}
    for bwmax, bwmin, bwmean, mean_s in found.values():
        assert bwmin <= bwmean <= bwmax and mean_s > 0


def test_shared_file_offsets_verified(shm_scratch):
    """Shared file, several segments: -W reads back every rank's block and checks it."""
    target = shm_scratch / "shared"
    proc = ior(["-w", "-W", "-k", "-l", "offset", "-t", "16k", "-b", "64k", "-s", "3",
                      "-o", target, "-v"], np=3)
    assert "Verified 589824 bytes: no errors." in proc.stdout
    assert os.stat(target).st_size == 3 * 3 * 65536


@pytest.mark.parametrize("packet", ["timestamp", "offset"])
def test_check_catches_corruption(scratch, packet):
    target = scratch / "c"
    ior(["-w", "-k", "-G", "4242", "-l", packet, "-t", "8k", "-b", "64k", "-s", "2",
               "-o", target], np=2)
    bad = 3 * 65536 + 8192 + 77  # segment 1, rank 1, second transfer
    with open(target, "r+b") as f:
        f.seek(bad)
        byte = f.read(1)
        f.seek(bad)
        f.write(bytes([byte[0] ^ 0xFF]))
    proc = ior(["-r", "-W", "-k", "-G", "4242", "-l", packet, "-t", "8k", "-b", "64k",
                      "-s", "2", "-o", target], np=2, check=False)
    assert proc.returncode == 3, proc.stderr
    assert re.search(rf"offset {bad}\b", proc.stderr), proc.stderr
    # the same file reads back clean with -R once repaired
    with open(target, "r+b") as f:
        f.seek(bad)
        f.write(byte)
    ior(["-r", "-R", "-k", "-G", "4242", "-l", packet, "-t", "8k", "-b", "64k", "-s",
               "2", "-o", target], np=2)


def test_wrong_signature_is_caught(shm_scratch):
    target = shm_scratch / "g"
    ior(["-w", "-k", "-G", "1", "-t", "8k", "-b", "8k", "-o", target], np=1)
    proc = ior(["-r", "-R", "-k", "-G", "2", "-t", "8k", "-b", "8k", "-o", target],
                     np=1, check=False)
    assert proc.returncode == 3 and "incorrect data on read" in proc.stderr


def test_mpiio_collective(shm_scratch):
    target = shm_scratch / "m"
    proc = ior(["-a", "MPIIO", "-c", "-w", "-W", "-r", "-k", "-t", "16k", "-b", "64k",
                      "-s", "2", "-o", target, "-v"], np=2,
                     env={"IOR_HINT__MPI__romio_cb_write": "enable"})
    assert os.stat(target).st_size == 2 * 2 * 65536
    assert "type                : collective" in proc.stdout
    assert "no errors" in proc.stdout
    assert len(rows(proc.stdout)) == 2


def test_dry_run_touches_nothing(shm_scratch):
    proc = ior(["--dryRun", "-w", "-r", "-o", shm_scratch / "d"], np=2)
    assert "dry run" in proc.stdout and "Options:" in proc.stdout
    assert list(shm_scratch.iterdir()) == []


def test_drop_cache_reports(scratch):
    proc = ior(["-w", "-r", "--drop-cache", "-F", "-t", "64k", "-b", "512k", "-o",
                      scratch / "dc"], np=2)
    m = re.search(r"^drop-cache: (\d+) of (\d+) pages still resident", proc.stdout, re.MULTILINE)
    assert m and int(m.group(2)) == 2 * 512 * 1024 // os.sysconf("SC_PAGESIZE")
    assert int(m.group(1)) <= int(m.group(2))


def test_rank_details_and_latency(shm_scratch):
    proc = ior(["-w", "-r", "--rank-details", "--latency", "-t", "16k", "-b", "64k",
                      "-o", shm_scratch / "x"], np=2)
    assert "write rank details (iteration 0):" in proc.stdout
    assert re.search(r"^slowest rank: [01] ", proc.stdout, re.MULTILINE)
    assert re.search(r"^read latency \(iteration 0, 8 calls\): p50 ", proc.stdout, re.MULTILINE)


@pytest.mark.parametrize("api", ["POSIX", "MPIIO"])
def test_odirect(scratch, api):
    target = scratch / "od"
    proc = ior(["-a", api, "--posix.odirect", "-w", "-W", "-r", "-k", "-t", "64k", "-b",
                "256k", "-s", "2", "-o", target, "-v"], np=2)
    assert "Verified 1048576 bytes: no errors." in proc.stdout
    assert os.stat(target).st_size == 1048576


def test_memory_hog(shm_scratch):
    proc = ior(["-w", "-M", "64m", "-O", "memoryPerTask=1m", *["-t", "16k", "-b", "64k"],
                "-o", shm_scratch / "h"], np=2)
    # IOR's Options lines; each rank hogs 64 MiB / 2 ranks + 1 MiB
    assert "memoryPerTask       : 1 MiB\nmemoryPerNode       : 64 MiB\n" in proc.stdout
    bad = ior(["-w", "-M", "10x", "-o", shm_scratch / "h"], np=2, check=False)
    assert bad.returncode == 2 and "memoryPerNode: '10x'" in bad.stderr


def test_quit_on_error_and_ior33_letters(scratch):
    """-q stops after the repetition whose check failed; -B is IOR 3.3's O_DIRECT letter."""
    target = scratch / "q"
    ior(["-w", "-k", "-G", "5", "-B", "-t", "8k", "-b", "8k", "-o", target], np=1)
    with open(target, "r+b") as f:
        first = f.read(1)[0]
        f.seek(0)
        f.write(bytes([first ^ 0x5A]))
    proc = ior(["-r", "-R", "-q", "-k", "-i", "3", "-G", "5", "-t", "8k", "-b", "8k", "-o",
                target], np=1, check=False)
    assert proc.returncode == 3
    assert len(rows(proc.stdout)) == 1  # one repetition, then it stopped
    assert "Summary of all tests:" in proc.stdout
