# SPDX-License-Identifier: BSD-3-Clause
"""sonde mib: limits, files, cross-task reads, result line, profiles, rates.

Every figure sonde prints is cross-checked against the files it wrote and the JSON records.
"""

import os
import re
import shutil
import subprocess

import pytest
from conftest import SONDE, read_jsonl, run_sonde
from preload import build_shim, preload_env

# mib's result line, "%s %6d %4d%c %5d %5d %10.2f %10.2f": ctime, tasks, xfer, call limit, time
# limit, write and read MB/s (a number wider than its field pushes the rest right, as printf does).
RESULT = re.compile(
    r"^(?P<date>\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}) "
    + r"(?P<tasks> {0,5}\d+) (?P<xfer> {0,3}\d+[kM]) (?P<calls> {0,4}\d+) (?P<time> {0,4}\d+) "
    + r"(?P<write> {0,7}\d+\.\d\d) (?P<read> {0,7}\d+\.\d\d)$")


def _check_widths(m):
    for name, width in (("tasks", 6), ("xfer", 5), ("calls", 5), ("time", 5), ("write", 10),
                        ("read", 10)):
        assert len(m[name]) == width or (len(m[name]) > width and m[name][0] != " "), m[0]


HEADER = [
    "          date            tasks  xfer  call  time      write       read",
    "                                      limit limit       MB/s       MB/s",
    "------------------------ ------ ----- ----- ----- ---------- ----------",
]


def result_line(stdout):
    lines = [m for m in map(RESULT.match, stdout.splitlines()) if m]
    assert len(lines) == 1, stdout
    _check_widths(lines[0])
    return lines[0]


def measurements(json_path):
    return {r["phase"]: r for r in read_jsonl(json_path) if r["type"] == "measurement"}


def read_profile(path, tasks):
    """Rows of floats; every line ends with a tab after each of its `tasks` values."""
    rows = []
    with open(path) as f:
        for line in f:
            assert line.endswith("\t\n"), repr(line)
            cells = line[:-1].split("\t")
            assert cells[-1] == "" and len(cells) == tasks + 1, repr(line)
            rows.append([float(c) for c in cells[:-1]])
    return rows


@pytest.mark.parametrize("np_", [1, 2, 4])
def test_call_limit_files_profiles_and_rates(shm_scratch, np_):
    calls, size = 16, 64 * 1024
    data = shm_scratch / "data"
    data.mkdir()
    prof = shm_scratch / "prof"
    js = shm_scratch / "r.jsonl"
    out = run_sonde(["mib", "-F", "-t", data, "-l", calls, "-s", "64k", "-H", "-p", prof,
                     "--json", js], np=np_)
    lines = out.stdout.splitlines()
    assert lines[:3] == HEADER
    m = result_line(out.stdout)
    assert int(m["tasks"]) == np_ and m["xfer"].strip() == "64k"
    assert int(m["calls"]) == calls and int(m["time"]) == 60

    # Exactly l calls per task: one file per task of l x s bytes.
    files = sorted(os.listdir(data))
    assert files == [f"mibData.{i:08d}" for i in range(np_)]
    for f in files:
        assert (data / f).stat().st_size == calls * size

    rec = measurements(js)
    for phase, col in (("write", "write"), ("read", "read")):
        r = rec[phase]
        assert r["bytes"] == np_ * calls * size
        assert r["ops"] == np_ * calls
        assert r["extra"]["calls_per_task"] == [calls] * np_
        assert r["extra"]["stopped_by"] == ["call"] * np_
        # The printed rate is the recorded one: MiB over the phase seconds.
        assert float(m[col]) == pytest.approx(r["bytes"] / 2**20 / r["seconds"], abs=0.006)
        assert r["latency"]["count"] == np_ * calls

        # Profile: row 0 the starts, one row per call, one column per task, each task's
        # times increasing, all within the phase as the rate measured it.
        rows = read_profile(f"{prof}.{phase}", np_)
        assert len(rows) == calls + 1
        for t in range(np_):
            col_t = [row[t] for row in rows]
            assert all(b > a for a, b in zip(col_t, col_t[1:], strict=False)), col_t
        first_start = min(rows[0])
        last_call = max(rows[-1])
        assert last_call - first_start <= r["seconds"] + 1e-3

    # The same profile in the JSON records.
    profs = [r for r in read_jsonl(js) if r["type"] == "profile" and r["phase"] == "read"]
    tasks_rec = [r for r in profs if r["part"] == "tasks"]
    assert len(tasks_rec) == 1 and tasks_rec[0]["calls"] == [calls] * np_
    ends = [row for r in profs if r["part"] == "calls" for row in r["end"]]
    assert len(ends) == calls
    text = read_profile(f"{prof}.read", np_)
    assert ends[-1] == pytest.approx(text[-1], abs=2e-6)

    # The latency summary is of the calls themselves: mean and max of end - start.
    starts = [row for r in profs if r["part"] == "calls" for row in r["start"]]
    durations = [e - s for srow, erow in zip(starts, ends, strict=True)
                 for s, e in zip(srow, erow, strict=True)]
    lat = rec["read"]["latency"]
    assert lat["count"] == len(durations)
    assert lat["mean"] == pytest.approx(sum(durations) / len(durations), abs=1e-6)
    assert lat["max"] == pytest.approx(max(durations), abs=1e-6)


@pytest.mark.parametrize("np_,missing,reader", [(4, 3, 1), (3, 2, 1), (2, 0, 1), (1, 0, 0)])
def test_cross_task_read_mapping(shm_scratch, np_, missing, reader):
    """Task i reads the file of task (i + n/2) mod n: remove one file, and exactly the task that
    reads it complains, naming it."""
    run_sonde(["mib", "-F", "-t", shm_scratch, "-l", 2, "-s", "4k", "-W"], np=np_)
    os.unlink(shm_scratch / f"mibData.{missing:08d}")
    out = run_sonde(["mib", "-F", "-t", shm_scratch, "-l", 2, "-s", "4k", "-R"], np=np_,
                    check=False)
    assert out.returncode == 2
    who = f"rank {reader}: " if np_ > 1 and reader else ""
    assert f"sonde mib: {who}error: No file: {shm_scratch}/mibData.{missing:08d}" in out.stderr


def test_every_file_read_once_then_removed(shm_scratch):
    """-r: each task removes the file it read; the mapping is a permutation, so all go."""
    out = run_sonde(["mib", "-F", "-t", shm_scratch, "-l", 3, "-s", "4k", "-r", "-p",
                     shm_scratch / "p"], np=4)
    result_line(out.stdout)
    assert sorted(os.listdir(shm_scratch)) == ["p.read", "p.write"]


def test_time_limit_stops_within_one_call(shm_scratch):
    """One-byte calls against -L 1: each task stops on its own clock, after the first call
    that ends past the limit; its file holds exactly its calls."""
    js = shm_scratch / "r.jsonl"
    data = shm_scratch / "d"
    data.mkdir()
    out = run_sonde(["mib", "-F", "-t", data, "-L", 1, "-l", 2**31 - 1, "-s", 1, "-I",
                     "--json", js], np=2)
    assert "Task 0 made" in out.stdout and "stopped by the time limit" in out.stdout
    rec = measurements(js)
    w, r = rec["write"], rec["read"]
    for i, calls in enumerate(w["extra"]["calls_per_task"]):
        assert calls > 1000
        assert (data / f"mibData.{i:08d}").stat().st_size == calls
    assert w["extra"]["stopped_by"] == ["time", "time"]
    assert r["extra"]["stopped_by"] == ["time", "time"]
    # Per task, last call end - start: at least L, and at most L plus that last call.
    slack = r["latency"]["max"] + 1e-3
    assert 1.0 <= r["per_rank"]["min"] and r["per_rank"]["max"] <= 1.0 + slack
    # The write phase also holds the fsync (of a file in memory: quick).
    slack = w["latency"]["max"] + 0.05
    assert 1.0 <= w["per_rank"]["min"] <= w["per_rank"]["max"] <= 1.0 + slack
    assert int(result_line(out.stdout)["time"]) == 1


def test_time_limit_zero_makes_one_call_per_task(shm_scratch):
    """-L 0 was refused; mib accepts it and each task makes exactly one call per phase (the
    limit is checked only after a call)."""
    js = shm_scratch / "r.jsonl"
    data = shm_scratch / "d"
    data.mkdir()
    out = run_sonde(["mib", "-F", "-t", data, "-L", 0, "-s", "64k", "-H", "-P", "--json", js],
                    np=2)
    rec = measurements(js)
    for phase in ("write", "read"):
        assert rec[phase]["extra"]["calls_per_task"] == [1, 1]
        assert rec[phase]["extra"]["stopped_by"] == ["time", "time"]
    assert [(data / f"mibData.{i:08d}").stat().st_size for i in (0, 1)] == [65536, 65536]
    assert int(result_line(out.stdout)["time"]) == 0


def test_intermediate_values_match_records(shm_scratch):
    js = shm_scratch / "r.jsonl"
    d = shm_scratch / "d"
    d.mkdir()
    out = run_sonde(["mib", "-F", "-t", d, "-l", 8, "-s", "128k", "-I", "-E", "-S", "-P",
                     "--json", js], np=2)
    text = out.stdout
    assert 'Testing a file system of type "TMPFS_MAGIC" (f_type = 0x1021994)' in text
    assert re.search(r"\n\nmib-1\.9\.8-\S+  \w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}\n\n", text)
    assert f"testdir                  = {d}\n" in text
    assert "call_size                = 131072\n" in text
    assert "tasks                    = 2\n" in text
    assert "\nwrite phase\nshould last about this long" + "-" * 22 + ">\n" in text
    rec = measurements(js)
    for phase, verb in (("write", "written"), ("read", "read")):
        assert f"Call 8 was the last {phase} recorded" in text
        mb, secs = re.search(rf"([\d.]+) MB {verb} in ([\d.]+) seconds", text).groups()
        assert float(mb) == pytest.approx(rec[phase]["bytes"] / 2**20)
        assert float(secs) == pytest.approx(rec[phase]["seconds"], abs=2e-6)
        rate = float(re.search(rf"Aggregate {phase} rate = +([\d.]+)", text).group(1))
        assert rate == pytest.approx(rec[phase]["bytes"] / 2**20 / rec[phase]["seconds"],
                                     abs=0.006)
    # -P: 48 stars at most per phase (call limit reached: the bar fills).
    bars = re.findall(r"-->\n(\**)\n", text)
    assert len(bars) == 2 and all(0 < len(b) <= 48 for b in bars)


def test_write_only_then_read_only_and_xfer_column(shm_scratch):
    out = run_sonde(["mib", "-F", "-t", shm_scratch, "-l", 2, "-s", "2m", "-W"], np=2)
    m = result_line(out.stdout)
    assert m["xfer"].strip() == "2M" and float(m["write"]) > 0 and float(m["read"]) == 0
    out = run_sonde(["mib", "-F", "-t", shm_scratch, "-l", 2, "-s", "1m", "-R"], np=2)
    m = result_line(out.stdout)
    assert m["xfer"].strip() == "1024k" and float(m["write"]) == 0 and float(m["read"]) > 0
    # -W and -R together: both phases.
    out = run_sonde(["mib", "-F", "-t", shm_scratch, "-l", 1, "-s", "4k", "-W", "-R"], np=1)
    m = result_line(out.stdout)
    assert float(m["write"]) > 0 and float(m["read"]) > 0


def test_new_flag_replaces_longer_old_file(shm_scratch):
    """Without -n the old, longer file keeps its tail (mib opens without O_TRUNC); with -n
    it is removed first."""
    run_sonde(["mib", "-F", "-t", shm_scratch, "-l", 4, "-s", "4k", "-W"])
    f = shm_scratch / "mibData.00000000"
    run_sonde(["mib", "-F", "-t", shm_scratch, "-l", 1, "-s", "4k", "-W"])
    assert f.stat().st_size == 4 * 4096
    run_sonde(["mib", "-F", "-t", shm_scratch, "-l", 1, "-s", "4k", "-W", "-n"])
    assert f.stat().st_size == 4096


def test_random_reads_options(shm_scratch):
    """-b takes its granularity attached or separate; the reads land on whole calls of the
    writer's data (--verify passes) anywhere in the file: twice as many calls as the file
    holds, and none reads past its end, where sequential reads do."""
    run_sonde(["mib", "-F", "-t", shm_scratch, "-l", 64, "-s", "4k", "-W"])
    out = run_sonde(["mib", "-F", "-t", shm_scratch, "-l", 128, "-s", "4k", "-R", "-I"])
    assert "64 short reads" in out.stdout
    for b in (["-b4096"], ["-b", "4096"], ["--random_reads=4096"]):
        out = run_sonde(["mib", "-F", "-t", shm_scratch, "-l", 128, "-s", "4k", "-R", "-E",
                         "-I", "--verify"] + b)
        assert "random_reads             = 4096\n" in out.stdout
        assert "short reads" not in out.stdout
        assert "0.500000 MB read" in out.stdout
    out = run_sonde(["mib", "-F", "-t", shm_scratch, "-l", 64, "-s", "4k", "-R", "-E", "-b"])
    assert "random_reads             = 1\n" in out.stdout


def read_offsets(directory, calls, size, args):
    """The offsets of the pread64 calls of size bytes that a one-task read phase of mib
    (-M, no MPI) makes in directory's file, seen by strace."""
    trace = directory / "trace"
    proc = subprocess.run(["strace", "-f", "-e", "trace=pread64", "-o", trace, SONDE, "mib",
                           "-M", "-F", "-t", directory, "-l", str(calls), "-s", str(size),
                           "-R", *map(str, args)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return [int(m) for m in re.findall(rf"pread64\(\d+, .*, {size}, (\d+)\)",
                                       trace.read_text())]


@pytest.mark.skipif(not shutil.which("strace"), reason="needs strace")
def test_random_offsets_seeded_and_in_steps(shm_scratch):
    """The offsets of -b gran: multiples of gran, whole calls inside the file, spread over it,
    the same for the same --seed and different for another."""
    run_sonde(["mib", "-M", "-F", "-t", shm_scratch, "-l", 256, "-s", "8k", "-W"], mpi=False)

    def offsets(seed):
        found = read_offsets(shm_scratch, 200, 8192, ["-b", "1k", "--seed", seed])
        assert len(found) == 200
        return found

    a, b, again = offsets(7), offsets(8), offsets(7)
    assert a == again and a != b
    assert all(o % 1024 == 0 and 0 <= o <= 256 * 8192 - 8192 for o in a)
    assert len(set(a)) > 150
    assert max(a) > 0.8 * 256 * 8192 and min(a) < 0.2 * 256 * 8192
    assert a != sorted(a)


@pytest.fixture(scope="module")
def slow_fsync(tmp_path_factory):
    return build_shim("slow_fsync", tmp_path_factory.mktemp("shim"))


@pytest.mark.parametrize("np_", [1, 2])
def test_write_phase_ends_at_the_fsyncs_end(shm_scratch, slow_fsync, np_):
    """docs/workloads/mib.md: the write phase ends when its fsync ends. An LD_PRELOAD shim makes
    every fsync last at least DELAY seconds, so the write phase (a few 4 KiB calls, well under
    DELAY otherwise) lasts at least DELAY; the read phase, which has no fsync, does not."""
    delay = 0.8
    env = preload_env(slow_fsync, {"SONDE_TEST_SYNC_DELAY": str(delay)})
    run_sonde(["mib", "-F", "-t", shm_scratch, "-l", 4, "-s", "4k", "-W", "-R", "--json",
               shm_scratch / "r.jsonl"], np=np_, env=env)
    rec = measurements(shm_scratch / "r.jsonl")
    assert rec["write"]["seconds"] >= delay, rec["write"]
    assert rec["read"]["seconds"] < delay, rec["read"]
    mbs = rec["write"]["bytes"] / 2**20 / rec["write"]["seconds"]
    assert mbs <= np_ * 4 * 4096 / 2**20 / delay


@pytest.mark.skipif(not shutil.which("strace"), reason="needs strace")
@pytest.mark.parametrize("calls,gran", [(4, 8192), (4, 4096), (4, 5120), (1, 8192), (1, 1024)])
def test_random_reads_draw_every_slot(shm_scratch, calls, gran):
    """-b gran reads at every k * gran whose whole call lies inside the file, the last such slot
    included; a file exactly one call long is read at offset 0 (only one slot: nothing to
    divide by zero). The slots are counted here from the file's size, not from sonde."""
    size = 8192
    run_sonde(["mib", "-M", "-F", "-t", shm_scratch, "-l", calls, "-s", size, "-W"],
              mpi=False)
    fsize = os.path.getsize(shm_scratch / "mibData.00000000")
    assert fsize == calls * size
    slots = set(range(0, fsize - size + 1, gran))
    found = read_offsets(shm_scratch, 200, size, ["-b", gran, "--seed", 3])
    assert len(found) == 200
    assert set(found) == slots
