# SPDX-License-Identifier: BSD-3-Clause
"""sonde ior: -O summaryFormat JSON/CSV, saveRankPerformanceDetailsCSV, -f scripts, presets,
MPI-IO hints, and bad input (one line, non-zero exit, no hang) on 1 and 4 ranks."""

import csv
import json

import pytest
from conftest import run_sonde

SMALL = ["-t", "16k", "-b", "64k"]


def ior(args, **kw):
    return run_sonde(["ior", *args], **kw)


def test_summary_json_file(shm_scratch):
    out = shm_scratch / "summary.json"
    proc = ior(["-w", "-r", "-i", "2", *SMALL, "-O", f"summaryFormat=JSON,summaryFile={out}",
                "-o", shm_scratch / "j"], np=2)
    assert "Summary of all tests:" in proc.stdout  # the log stays on stdout
    doc = json.load(open(out))
    assert set(doc) >= {"Version", "Began", "Command line", "Machine", "tests", "summary",
                        "Finished"}
    test = doc["tests"][0]
    assert test["Parameters"]["transferSize"] == 16384
    assert test["Options"]["xfersize"] == "16384 bytes"
    assert [r["access"] for r in test["Results"]] == ["write", "read", "write", "read"]
    for r in test["Results"]:
        assert set(r) == {"access", "bwMiB", "blockKiB", "xferKiB", "iops", "latency",
                          "openTime", "wrRdTime", "closeTime", "totalTime"}
    ops = {s["operation"]: s for s in doc["summary"]}
    bws = [r["bwMiB"] for r in test["Results"] if r["access"] == "write"]
    assert ops["write"]["bwMaxMIB"] == pytest.approx(max(bws), abs=1e-3)
    assert ops["write"]["xsizeMiB"] == pytest.approx(0.125)
    assert test["max"]["writeMiB"] == pytest.approx(max(bws), abs=1e-3)


def test_summary_json_on_stdout(shm_scratch):
    proc = ior(["-w", *SMALL, "-O", "summaryFormat=JSON", "-o", shm_scratch / "k"], np=2)
    doc = json.loads(proc.stdout)  # nothing else on stdout
    assert doc["summary"][0]["operation"] == "write"


def test_summary_csv_and_rank_details(shm_scratch):
    out, ranks = shm_scratch / "s.csv", shm_scratch / "ranks.csv"
    ior(["-w", "-r", "-i", "2", *SMALL, "-O", f"summaryFormat=CSV,summaryFile={out}", "-O",
         f"saveRankPerformanceDetailsCSV={ranks}", "-o", shm_scratch / "c"], np=2)
    rows = list(csv.reader(open(out)))
    assert rows[0] == ["access", "bw(MiB/s)", "IOPS", "Latency", "block(KiB)", "xfer(KiB)",
                       "open(s)", "wr/rd(s)", "close(s)", "total(s)", "numTasks", "iter"]
    assert [(r[0], r[-1]) for r in rows[1:]] == [("write", "0"), ("read", "0"), ("write", "1"),
                                                 ("read", "1")]
    per_rank = list(csv.DictReader(open(ranks)))
    assert len(per_rank) == 2 * 2 * 2
    assert {r["rank"] for r in per_rank} == {"0", "1"}
    for r in per_rank:
        # bytes per rank = 64 KiB; throughput = bytes / runtime
        assert 65536 / float(r["throughput"]) == pytest.approx(float(r["runtime"]), abs=1e-6)


def test_script_runs_each_test(shm_scratch):
    script = shm_scratch / "s.ior"
    script.write_text(f"""# two tests; the second inherits the first's settings
IOR START
  api=POSIX
  testFile={shm_scratch / 'sf'}
  transferSize=16k
  blockSize=64k
  writeFile=1
  RUN
  filePerProc=1
  readFile=1
  repetitions=2
  RUN
IOR STOP
""")
    proc = ior(["-f", script], np=2)
    lines = proc.stdout.splitlines()
    summary = lines[lines.index("Summary of all tests:") + 2:]
    rows = [ln.split() for ln in summary if ln.startswith(("write", "read"))]
    # Test#, fPP and reps columns of each row
    assert [(r[0], r[12], r[16], r[15]) for r in rows] == [
        ("write", "0", "0", "1"), ("write", "1", "1", "2"), ("read", "1", "1", "2")]


def test_preset_easy_and_hard(shm_scratch):
    proc = ior(["--preset", "jupiter-easy", "-b", "16m", "-o", shm_scratch / "e"], np=2)
    assert ("Preset              : jupiter-easy = ior -a POSIX -C -Q 2 -g -b 16777216 -t "
            f"16777216 -i 3 -o {shm_scratch / 'e'} -s 1 -r -w -v -F") in proc.stdout
    row = [ln.split() for ln in proc.stdout.splitlines() if ln.startswith("write ")][-1]
    assert row[14:18] == ["2", "3", "1", "1"]  # tPN reps fPP reord
    assert row[18] == "2"  # reordoff = tasks per node
    proc = ior(["--preset", "jupiter-hard", "-s", "64", "-o", shm_scratch / "h"], np=2)
    row = [ln.split() for ln in proc.stdout.splitlines() if ln.startswith("read ")][-1]
    assert row[16] == "0" and row[21:24] == ["64", "4096", "4096"]


# The cases run on 1 and 4 ranks; the others on 1.
BAD_BOTH = [
    (["-w", "-t", "3k", "-b", "4k"], "block size must be a multiple of transfer size"),
    (["-w", "-t", "0"], "test will not complete with zero transfer size"),
    (["-w", "-a", "FOO"], "unknown I/O backend 'FOO' (known: "),
    (["-w", "-o", "/nonexistent-dir/x"], "directory /nonexistent-dir of test file"),
    (["-r", "-o", "{tmp}/missing"], "cannot open {tmp}/missing"),
    (["--preset", "jupiter-easy", "-t", "1m"], "--preset jupiter-easy fixes -t 16m"),
]
BAD_ONE = [
    (["-w", "-c", "-a", "POSIX"], "-c (collective): the POSIX backend has no collective I/O"),
    (["--preset", "jupiter-hard", "-F"], "conflicts"),
    (["-w", "-N", "2"], "option -N is not supported by sonde"),
    (["-w", "-O", "bogus=1"], "unknown directive 'bogus'"),
    (["-w", "-U", "{tmp}/nohints"], "cannot open hints file"),
    (["-R", "-o", "{tmp}/x"], "use -G"),
]


@pytest.mark.parametrize("np,args,message",
                         [(n, a, m) for n in (1, 4) for a, m in BAD_BOTH] +
                         [(1, a, m) for a, m in BAD_ONE])
def test_bad_input(shm_scratch, np, args, message):
    args = [str(a).replace("{tmp}", str(shm_scratch)) for a in args]
    message = message.replace("{tmp}", str(shm_scratch))
    proc = ior(args, np=np, check=False, timeout=60)
    assert proc.returncode != 0
    errors = [ln for ln in proc.stderr.splitlines() if "error" in ln and "sonde" in ln]
    assert len(errors) == 1, proc.stderr
    assert message in errors[0]


def test_hints_file(shm_scratch):
    hints = shm_scratch / "hints"
    hints.write_text("IOR_HINT__MPI__romio_ds_write=disable\n")
    proc = ior(["-a", "MPIIO", "-w", "-r", "-U", hints, *SMALL, "-o", shm_scratch / "h"], np=2)
    assert "Summary of all tests:" in proc.stdout
    hints.write_text("romio_ds_write=disable\n")
    proc = ior(["-a", "MPIIO", "-w", "-U", hints, *SMALL, "-o", shm_scratch / "h"], np=2,
               check=False)
    assert proc.returncode == 2 and "is not IOR_HINT__MPI__key=value" in proc.stderr
