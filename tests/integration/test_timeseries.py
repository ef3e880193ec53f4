# SPDX-License-Identifier: BSD-3-Clause
"""--interval and --live (docs/core-runtime.md, "Time series"; docs/results-schema.md,
"interval"): for every I/O workload, one small launch whose interval records must sum to each
phase's totals and cover the phase without a gap, with the bytes checked against an oracle that
is not sonde's (the files' sizes, the request, the entries of the tree); and a slow ior phase
whose --live file is read while it runs."""

import json
import math
import os
import subprocess
import time

import pytest
from bounded import kill_session
from conftest import launch_command, mpi_env, read_jsonl, run_sonde
from preload import build_shim, preload_env

INTERVAL = 0.01


def phases(records):
    """{(phase, iteration): (measurement, [its interval records in file order])}."""
    out = {}
    for r in records:
        if r["type"] == "measurement":
            out[(r["phase"], r["iteration"])] = (r, [])
    for r in records:
        if r["type"] == "interval":
            out[(r["phase"], r["iteration"])][1].append(r)
    return out


def check_series(records, period, span_matches=True, without=()):
    """Every phase with calls: its intervals sum to its bytes and ops, are numbered 0, 1, ...,
    each starts where the one before ended (the first at the phase's start), every one but the
    first and last is one period long, and their lengths add up to the phase's time (to more
    where the workload leaves untimed work out of its figure). The phases named in without
    have no intervals. Returns the phases with intervals."""
    found = phases(records)
    assert found
    for (phase, _), (_, iv) in found.items():
        assert (phase in without) == (not iv), phase
    found = {k: v for k, v in found.items() if k[0] not in without}
    for (phase, it), (m, iv) in found.items():
        assert iv, f"{phase} {it}: no interval records"
        assert sum(r["bytes"] for r in iv) == m["bytes"], (phase, it)
        assert sum(r["ops"] for r in iv) == m["ops"], (phase, it)
        assert [r["interval"] for r in iv] == list(range(len(iv)))
        assert iv[0]["start_s"] == 0
        for a, b in zip(iv, iv[1:], strict=False):
            assert math.isclose(a["start_s"] + a["seconds"], b["start_s"], abs_tol=1e-9)
            assert math.isclose(a["clock_s"] + a["seconds"], b["clock_s"], abs_tol=1e-9)
            # the grid: every interval after the first starts on a multiple of the period
            assert math.isclose(b["clock_s"] / period, round(b["clock_s"] / period),
                                abs_tol=1e-6)
        for r in iv[1:-1]:
            assert math.isclose(r["seconds"], period, rel_tol=1e-6)
        span = sum(r["seconds"] for r in iv)
        assert span >= m["seconds"] - 1e-3, (phase, it, span, m["seconds"])
        if span_matches:
            assert span <= m["seconds"] + 0.05, (phase, it, span, m["seconds"])
        for r in iv:
            # 0 when no rank ran then: one held up (a loaded machine) before its start
            # while the others had already finished; no call can end in such an interval
            assert 0 <= r["ranks_active"] <= r["ranks"]
            assert r["ranks_active"] or r["ops"] == 0
            assert (r["latency_p50_s"] is None) == (r["ops"] == 0)
            if r["ops"]:
                assert 0 <= r["latency_p50_s"] <= r["latency_p99_s"]
                assert math.isclose(r["ops_per_s"], r["ops"] / r["seconds"], rel_tol=1e-9)
        # every rank ran in at least one of them
        assert sum(r["ranks_active"] for r in iv) >= iv[0]["ranks"]
    return found


def several(found):
    """At least one phase was cut into several intervals (not a one-interval triviality)."""
    assert max(len(iv) for _, iv in found.values()) >= 2


def test_ior(shm_scratch):
    out = shm_scratch / "r.jsonl"
    run_sonde(["ior", "-w", "-r", "-F", "-k", "-i", "2", "-t", "256", "-b", "4m", "-o",
               shm_scratch / "f", "--interval", INTERVAL, "--json", out], np=2)
    found = check_series(read_jsonl(out), INTERVAL)
    several(found)
    # the oracle: the two files the ranks wrote, and the request (2 MiB a rank)
    written = sum(os.path.getsize(p) for p in shm_scratch.glob("f.*"))
    assert written == 2 * 4 * 2**20
    for _, iv in found.values():
        assert sum(r["bytes"] for r in iv) == written


def test_mib(shm_scratch):
    out = shm_scratch / "r.jsonl"
    run_sonde(["mib", "-F", "-t", shm_scratch, "-s", "4k", "-l", 3000, "-L", 60,
               "--interval", INTERVAL, "--json", out], np=2)
    found = check_series(read_jsonl(out), INTERVAL)
    several(found)
    files = sum(os.path.getsize(p) for p in shm_scratch.glob("mibData.*"))
    assert files == 2 * 3000 * 4096
    for _, iv in found.values():
        assert sum(r["bytes"] for r in iv) == files


def test_mdtest(shm_scratch):
    out = shm_scratch / "r.jsonl"
    run_sonde(["mdtest", "-F", "-n", 600, "-w", 100, "-e", 100, "-i", 1, "-d",
               shm_scratch / "md", "--interval", INTERVAL, "--json", out], np=2)
    # the item phases have series, the tree phases (one tree's directories) none
    found = check_series(read_jsonl(out), INTERVAL, without={"tree-create", "tree-remove"})
    several(found)
    # the oracle is the request
    assert {p for p, _ in found} == {"file-create", "file-stat", "file-read", "file-remove"}
    for (phase, _), (_, iv) in found.items():
        assert sum(r["ops"] for r in iv) == 2 * 600
        expected = 2 * 600 * 100 if phase in ("file-create", "file-read") else 0
        assert sum(r["bytes"] for r in iv) == expected


def test_mpiio_aggregated(shm_scratch):
    # type 4: two aggregators, each call moving the objects of several processes (its ops)
    out = shm_scratch / "r.jsonl"
    run_sonde(["mpiio", "-type", "4", "-num_io", "2", "-nobj", 300, "-size", "4K",
               "-target", shm_scratch / "f", "--interval", INTERVAL, "--json", out], np=4)
    found = check_series(read_jsonl(out), INTERVAL, span_matches=False)
    size = os.path.getsize(shm_scratch / "f")
    assert size == 4 * 300 * 4096
    for _, iv in found.values():
        assert sum(r["bytes"] for r in iv) == size
        assert sum(r["ops"] for r in iv) == 4 * 300


def test_btio(shm_scratch):
    out = shm_scratch / "r.jsonl"
    run_sonde(["btio", "--mode", "rw", "--method", "1", "--dumps", 20, "--grid", "20x21x22",
               "--dir", shm_scratch, "--interval", INTERVAL, "--json", out], np=4)
    found = check_series(read_jsonl(out), INTERVAL, span_matches=False)
    size = os.path.getsize(shm_scratch / "btio.mpi")
    assert size == 20 * 21 * 22 * 5 * 8 * 20
    for _, iv in found.values():
        assert sum(r["bytes"] for r in iv) == size


def test_find(shm_scratch):
    for d in range(20):
        sub = shm_scratch / "tree" / f"d{d}"
        sub.mkdir(parents=True)
        for f in range(30):
            (sub / f"f{f}").write_bytes(b"")
    out = shm_scratch / "r.jsonl"
    run_sonde(["find", shm_scratch / "tree", "--interval", INTERVAL, "--json", out], np=2)
    found = check_series(read_jsonl(out), INTERVAL)
    entries = 1 + sum(len(ds) + len(fs) for _, ds, fs in os.walk(shm_scratch / "tree"))
    ((_, iv),) = found.values()
    assert sum(r["ops"] for r in iv) == entries


@pytest.fixture(scope="module")
def slow_fsync(tmp_path_factory):
    return build_shim("slow_fsync", tmp_path_factory.mktemp("shim"))


def test_live_file_grows_while_the_phase_runs(shm_scratch, slow_fsync):
    """ior -Y syncs after every write; the shim makes each sync last DELAY, so the write phase
    lasts TRANSFERS x DELAY, many intervals. The live file, read while the run goes on, holds
    more records at each look, before the phase is over; at the end it holds the --json file's
    interval records, line for line. --progress's lines come meanwhile."""
    delay, transfers, period = 0.05, 24, 0.1
    out, live = shm_scratch / "r.jsonl", shm_scratch / "live.jsonl"
    cmd = launch_command(2, ["ior", "-w", "-Y", "-F", "-t", "4k", "-b", f"{transfers * 4}k",
                             "-o", shm_scratch / "f", "--interval", period, "--live", live,
                             "--json", out, "--progress-interval", 0.2])
    env = mpi_env(preload_env(slow_fsync, {"SONDE_TEST_SYNC_DELAY": str(delay)}))
    seen = []
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            if live.exists():
                lines = live.read_text().splitlines()
                if not seen or len(lines) != seen[-1]:
                    seen.append(len(lines))
            time.sleep(0.01)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            kill_session(proc)
    assert proc.returncode == 0, stderr
    # --progress's lines go on alongside
    assert "sonde ior: write" in stderr, stderr
    records = read_jsonl(out)
    (m,) = [r for r in records if r["type"] == "measurement"]
    assert m["seconds"] >= transfers * delay
    # while the run went on, the file held 1, 2, 3 ... records, not all of them at once
    total = len([r for r in records if r["type"] == "interval"])
    assert total >= 8
    growing = [n for n in seen if 0 < n < total]
    assert len(growing) >= 3, seen
    assert [json.loads(line) for line in live.read_text().splitlines()] == \
        [r for r in records if r["type"] == "interval"]
    check_series(records, period)


def test_refusals(shm_scratch):
    # one line and exit 2: no file for the records; coll, which has no I/O phases
    for args, why in [(["ior", "-w", "--interval", 1, "-o", shm_scratch / "f"],
                       "--interval writes interval records: give --json or --live"),
                      (["coll", "--live", shm_scratch / "l", "Bcast"],
                       "coll has none to make a time series of")]:
        proc = run_sonde(args, np=1, check=False)
        assert proc.returncode == 2
        errors = [ln for ln in proc.stderr.splitlines() if ": error: " in ln]
        assert len(errors) == 1 and why in errors[0], proc.stderr
    assert not (shm_scratch / "l").exists()


def test_mib_without_mpi_live_only(shm_scratch):
    # mib -M runs without MPI: the series on this process's own clock, to --live alone
    live = shm_scratch / "live.jsonl"
    run_sonde(["mib", "-M", "-F", "-t", shm_scratch, "-s", "4k", "-l", 2000, "-L", 60,
               "--interval", INTERVAL, "--live", live], mpi=False)
    records = read_jsonl(live)
    size = os.path.getsize(shm_scratch / "mibData.00000000")
    assert size == 2000 * 4096
    for phase in ("write", "read"):
        iv = [r for r in records if r["phase"] == phase]
        assert iv and all(r["type"] == "interval" and r["ranks"] == 1 for r in iv)
        assert sum(r["bytes"] for r in iv) == size
        assert sum(r["ops"] for r in iv) == 2000
        assert [r["interval"] for r in iv] == list(range(len(iv)))
