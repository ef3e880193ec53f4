# SPDX-License-Identifier: BSD-3-Clause
"""sonde coll: mpiBench 1.5's output, parsed line by line with the field layout of the
reference (collectives.md 5.5), cross-checked against the JSON records of the same run."""

import csv
import json
import re
import statistics

import pytest
from conftest import OPEN_MPI, SPINS_UNDER_MPICH, read_jsonl, run_sonde
from sonde.results.names import COLL


def coll(args, **kw):
    return run_sonde(["coll"] + list(args), **kw)


MPIBENCH_OPS = ["Barrier", "Bcast", "Alltoall", "Alltoallv", "Allgather", "Allgatherv", "Gather",
                "Gatherv", "Scatter", "Allreduce", "Reduce"]
SONDE_OPS = ["Scatterv", "Reduce_scatter_block", "Reduce_scatter", "Scan", "Exscan", "Ibarrier",
             "Ibcast", "Ialltoall", "Iallgather", "Igather", "Iscatter", "Iallreduce", "Ireduce"]
REDUCTIONS = {"Allreduce", "Reduce", "Reduce_scatter_block", "Reduce_scatter", "Scan", "Exscan",
              "Iallreduce", "Ireduce"}
NO_SIZE = {"Barrier", "Ibarrier"}
UNCHECKED = NO_SIZE

# mpiBench's result line: "%-20.20s\tBytes:\t%8u\tIters:\t%7d\tAvg:\t%8.4f\tMin:\t%8.4f\t
# Max:\t%8.4f\tComm: %s\tRanks: %d"; sonde may append tab-separated fields after it.
NUM = r" *-?\d+\.\d{4}"
RESULT = re.compile(
    r"^(?P<op>.{20})\tBytes:\t(?P<bytes> *\d{1,})\tIters:\t(?P<iters> *\d+)\t"
    rf"Avg:\t(?P<avg>{NUM})\tMin:\t(?P<min>{NUM})\tMax:\t(?P<max>{NUM})\t"
    r"Comm: (?P<comm>[^\t]+)\tRanks: (?P<ranks>\d+)(?P<rest>(\t.*)?)$")


def parse(stdout, np):
    """Checks the frame line by line and returns the result lines as dicts."""
    lines = stdout.splitlines()
    assert lines[0] == "START mpiBench v1.5"
    for k in range(np):
        assert re.fullmatch(rf"{k} : \S+", lines[1 + k]), lines[1 + k]
    assert lines[1 + np].startswith("Settings:\t")
    assert "Bytes:" not in lines[1 + np]
    assert re.fullmatch(r"Message buffers \(KB\):\t\d+", lines[-2]), lines[-2]
    assert lines[-1] == "END mpiBench"
    results = []
    for line in lines[2 + np:-2]:
        m = RESULT.match(line)
        assert m, f"not a result line: {line!r}"
        # Widths as mpiBench prints them.
        assert len(m["bytes"]) >= 8 and len(m["iters"]) >= 7 and len(m["avg"]) >= 8
        r = {k: m[k] for k in ("comm", "rest")}
        r["op"] = m["op"].rstrip()
        r["bytes"], r["iters"], r["ranks"] = int(m["bytes"]), int(m["iters"]), int(m["ranks"])
        r["avg"], r["min"], r["max"] = float(m["avg"]), float(m["min"]), float(m["max"])
        assert r["min"] <= r["avg"] <= r["max"]
        results.append(r)
    return results


def settings(stdout, np):
    line = stdout.splitlines()[1 + np]
    return dict(f.split("=", 1) for f in line.split("\t")[1:])


def sizes(begin, end):
    s = begin
    while s <= end:
        yield s
        s = s * 2 if s else 1


def expected_rows(ops, begin, end):
    rows = []
    for op in ops:
        if op in NO_SIZE:
            rows.append((op, 0))
        else:
            rows += [(op, s) for s in sizes(begin, end) if op not in REDUCTIONS or s >= 8]
    return rows


def measurements(path):
    return [r for r in read_jsonl(path) if r["type"] == "measurement"]


# MPICH's ranks spin when they outnumber the cores (conftest.SPINS_UNDER_MPICH): 3 there.
@pytest.mark.parametrize("np", [1, 2, *([4, 6] if OPEN_MPI else [3])])
def test_every_operation_in_order(np, tmp_path):
    out = tmp_path / "r.jsonl"
    p = coll(["-e", "64", "-i", "10", "--json", out], np=np)
    results = parse(p.stdout, np)
    assert [(r["op"], r["bytes"]) for r in results] == expected_rows(MPIBENCH_OPS, 0, 64)
    for r in results:
        assert r["iters"] == 10 and r["ranks"] == np and r["comm"] == "MPI_COMM_WORLD"
        assert r["rest"] == ""  # the default kernel prints exactly mpiBench's fields
    s = settings(p.stdout, np)
    assert s["begin"] == "0" and s["end"] == "64" and s["iterations"] == "10"
    assert s["timing"] == "barrier" and s["time_limit_us"] == "0"

    records = read_jsonl(out)  # each record validated against the results schema
    ms = measurements(out)
    assert len(ms) == len(results)
    for r, m in zip(results, ms, strict=False):
        assert m["phase"] == r["op"] and m["params"][COLL.SIZE] == r["bytes"]
        assert m["ops"] == r["iters"] == m["params"][COLL.ITERATIONS]
        assert m["params"][COLL.COMM] == "MPI_COMM_WORLD" and m["params"][COLL.COMM_RANKS] == np
        # The printed figures are the record's, rounded to 4 decimals.
        for k in ("avg", "min", "max"):
            assert abs(m["extra"][f"{k}_us"] - r[k]) <= 0.00006
        assert m["per_rank"]["n"] == np
        assert m["per_rank"]["mean"] == pytest.approx(m["extra"]["avg_us"] * 1e-6 * m["ops"])
        assert m["latency"]["count"] == np
        assert m["params"][COLL.DATATYPE] == ("MPI_DOUBLE" if r["op"] in REDUCTIONS
                                              else "MPI_BYTE")
        assert m["params"][COLL.COUNT] == (r["bytes"] // 8 if r["op"] in REDUCTIONS
                                           else r["bytes"])
    header = records[0]
    assert header["type"] == "header" and header["params"][COLL.ITERATIONS] == 10
    assert header["params"][COLL.OPERATIONS] == MPIBENCH_OPS
    assert records[-1]["type"] == "end" and records[-1]["exit_code"] == 0


def test_defaults_are_the_readme_ones():
    p = coll(["Barrier", "Allreduce"], np=2)
    results = parse(p.stdout, 2)
    s = settings(p.stdout, 2)
    assert (s["begin"], s["end"], s["iterations"], s["time_limit_us"], s["mem_limit"]) == \
        ("0", "1024", "1000", "0", str(1 << 30))
    assert [(r["op"], r["bytes"]) for r in results] == expected_rows(["Barrier", "Allreduce"],
                                                                       0, 1024)
    assert all(r["iters"] == 1000 for r in results)
    # Send + receive buffers of 1K x 2 ranks and four int arrays of 2 ranks.
    kb = int(p.stdout.splitlines()[-2].split("\t")[1])
    assert kb == (2 * 1024 * 2 + 4 * 4 * 2) // 1024


def test_names_case_insensitive_and_fixed_order():
    p = coll(["-e", "8", "-i", "5", "reduce", "BCAST", "barrier"], np=2)
    assert [r["op"] for r in parse(p.stdout, 2)] == ["Barrier"] + ["Bcast"] * 5 + ["Reduce"]


def test_sizes_from_b_doubling_and_mpibench_byte_strings():
    p = coll(["-b3", "-e", "50", "-i", "5", "Bcast", "Reduce"], np=2)
    got = [(r["op"], r["bytes"]) for r in parse(p.stdout, 2)]
    assert got == [("Bcast", s) for s in (3, 6, 12, 24, 48)] + \
        [("Reduce", s) for s in (12, 24, 48)]
    p = coll(["-b", ".5kb", "-e2K", "-i", "2", "Scatter"], np=2)
    assert [r["bytes"] for r in parse(p.stdout, 2)] == [512, 1024, 2048]


@pytest.mark.parametrize("np,expect", [
    (4, [("MPI_COMM_WORLD", 4), ("CartDim-1of2", 2), ("CartDim-2of2", 2), ("PartSize-4", 4),
         ("PartSize-2", 2)]),
    pytest.param(6, [("MPI_COMM_WORLD", 6), ("CartDim-1of2", 3), ("CartDim-2of2", 2),
                     ("PartSize-6", 6), ("PartSize-3", 3)], marks=SPINS_UNDER_MPICH),
])
def test_cartesian_and_partition_communicators(np, expect, tmp_path):
    out = tmp_path / "r.jsonl"
    p = coll(["-d", "2", "-p", "2", "-e", "16", "-i", "5", "-c", "Barrier", "Alltoall",
                   "Gatherv", "--json", out], np=np)
    results = parse(p.stdout, np)
    comms = []
    for r in results:
        if not comms or comms[-1] != (r["comm"], r["ranks"]):
            comms.append((r["comm"], r["ranks"]))
    assert comms == expect
    per_comm = expected_rows(["Barrier", "Alltoall", "Gatherv"], 0, 16)
    assert len(results) == len(expect) * len(per_comm)
    ms = measurements(out)
    assert [(m["params"][COLL.COMM], m["params"][COLL.COMM_RANKS]) for m in ms] == \
        [(r["comm"], r["ranks"]) for r in results]
    assert all(m["verify"]["errors"] == 0 for m in ms)
    # mpiBench gathers every world rank's time, also for sub-communicator tests.
    assert all(m["per_rank"]["n"] == np for m in ms)


@pytest.mark.parametrize("np,flag", [(2, "-C"), (4 if OPEN_MPI else 2, "-c")])
def test_checks_pass_on_every_operation(np, flag, tmp_path):
    out = tmp_path / "r.jsonl"
    p = coll([flag, "-e", "256", "-i", "6", "all", "--json", out], np=np)
    results = parse(p.stdout, np)
    assert [r["op"] for r in results if r["bytes"] == 256] == \
        [op for op in MPIBENCH_OPS + SONDE_OPS if op not in NO_SIZE]
    ms = measurements(out)
    for m in ms:
        checked = m["phase"] not in UNCHECKED
        assert m["verify"]["checked"] is checked, m["phase"]
        assert m["verify"]["errors"] == 0
        if checked:
            # At least the send spans (size x ranks bytes on every rank) of the last iteration.
            size = m["params"]["size"]
            assert m["verify"]["bytes_checked"] >= size * np * np, m["phase"]


# (flag, operation, rank whose received byte is corrupted, source rank named in the message;
# None for reductions, whose message gives the expected and found sums)
CORRUPT_CASES = [
    ("-c", "Bcast", 1, 0), ("-c", "Alltoall", 1, 0), ("-c", "Alltoallv", 1, 0),
    ("-C", "Allgather", 1, 0), ("-c", "Allgatherv", 0, 1), ("-c", "Gather", 0, 0),
    ("-c", "Gatherv", 0, 1), ("-c", "Scatter", 1, 0), ("-c", "Scatterv", 1, 0),
    ("-C", "Ibcast", 1, 0), ("-c", "Ialltoall", 0, 0),
    ("-c", "Allreduce", 1, None), ("-C", "Reduce", 0, None), ("-c", "Scan", 1, None),
    ("-c", "Reduce_scatter_block", 1, None), ("-c", "Iallreduce", 0, None),
]


@pytest.mark.parametrize("flag,op,rank,src", CORRUPT_CASES)
def test_corruption_is_reported_with_rank_and_offset(flag, op, rank, src, tmp_path):
    out = tmp_path / "r.jsonl"
    p = coll([flag, "-b", "8", "-e", "16", "-i", "5", op, "--json", out], np=2,
             env={"SONDE_TEST_CORRUPT_RECV": f"{rank}:0"}, check=False, timeout=60)
    assert p.returncode == 3, p.stdout + p.stderr
    where = f"Receive buffer corruption detected on rank {rank} at rbuffer[0]"
    if src is None:
        assert re.search(re.escape(where) + r" \(reduction: expected [\d.]+, found [\d.e+-]+\)",
                         p.stdout), p.stdout
    else:
        assert f"{where} from rank {src}" in p.stdout
    assert "test hook SONDE_TEST_CORRUPT_RECV" in p.stderr
    assert "data check failed" in p.stderr
    assert "END mpiBench" not in p.stdout
    ms = measurements(out)
    assert ms[-1]["phase"] == op and ms[-1]["verify"]["errors"] > 0
    assert read_jsonl(out)[-1]["exit_code"] == 3


def test_corruption_outside_the_received_data_is_not_reported():
    # Rank 1's receive buffer beyond what Bcast delivers is never compared.
    p = coll(["-c", "-e", "4", "-i", "5", "Bcast"], np=2,
                  env={"SONDE_TEST_CORRUPT_RECV": "1:6"})
    assert "corruption" not in p.stdout


def test_iterations_obey_i_and_t(tmp_path):
    out = tmp_path / "r.jsonl"
    # -i alone is always honoured (mpiBench 1.5 still applied its 50 ms limit).
    coll(["-i", "3000", "Barrier", "--json", out], np=2)
    # A limit far above the loop time leaves -i in charge.
    coll(["-i", "20", "-t", "1000000000", "-e", "8", "Bcast", "--json", out], np=2)
    # A 1 us limit cannot fit more than the 5-iteration estimate: that is what is reported.
    # (64 KiB and up: an Alltoall of 0 bytes has taken under 0.17 us here, and six fitted.)
    coll(["-i", "1000", "-t", "1", "-b", "64K", "-e", "1M", "Alltoall", "--json", out], np=2)
    # A 1 ms limit cuts a million iterations of anything.
    coll(["-i", "1000000", "-t", "1000", "Barrier", "--json", out], np=2)
    # Fewer iterations than the estimate uses: -i still wins.
    coll(["-i", "3", "-e", "2", "Gather", "--json", out], np=2)
    ms = measurements(out)
    assert [m["ops"] for m in ms[:1]] == [3000]
    assert [m["ops"] for m in ms[1:6]] == [20] * 5
    assert [m["ops"] for m in ms[6:11]] == [5] * 5
    assert all(m["params"][COLL.ESTIMATE_ONLY] for m in ms[6:11])
    assert not any(m["params"][COLL.ESTIMATE_ONLY] for m in ms[:6])
    assert 5 <= ms[11]["ops"] < 1000000
    assert [m["ops"] for m in ms[12:]] == [3, 3, 3]
    assert all(m["latency"]["count"] == 2 for m in ms)


def test_timing_modes(tmp_path):
    out = tmp_path / "r.jsonl"
    p = coll(["--no-barrier", "-e", "4", "-i", "10", "Bcast", "--json", out], np=2)
    assert all(r["rest"] == "\tTiming: no-barrier" for r in parse(p.stdout, 2))
    p = coll(["--per-call", "--percentiles", "-e", "4", "-i", "10", "Bcast", "Barrier",
                   "--json", out], np=2)
    for r in parse(p.stdout, 2):
        m = re.fullmatch(rf"\tTiming: per-call\tP50:\t({NUM})\tP90:\t({NUM})\tP99:\t({NUM})"
                         rf"\tPMax:\t({NUM})", r["rest"])
        assert m, r["rest"]
        p50, p90, p99, pmax = (float(x) for x in m.groups())
        assert p50 <= p90 <= p99 <= pmax
    ms = measurements(out)
    assert [m["params"][COLL.TIMING] for m in ms] == ["no-barrier"] * 4 + ["per-call"] * 5
    for m in ms[4:]:
        # One sample per call on every rank.
        assert m["latency"]["count"] == m["ops"] * 2
        assert m["latency"]["mean"] * 1e6 == pytest.approx(m["extra"]["avg_us"])


def test_percentiles_in_the_loop_kernel(tmp_path):
    out = tmp_path / "r.jsonl"
    p = coll(["--percentiles", "-c", "-e", "8", "-i", "20", "Allgather", "--json", out], np=2)
    for r in parse(p.stdout, 2):
        assert r["rest"].startswith("\tP50:\t")  # the default kernel: no Timing field
    for m in measurements(out):
        # Per-iteration times of both ranks; they add up to the loop time.
        assert m["latency"]["count"] == 2 * m["ops"]
        assert m["latency"]["mean"] * 1e6 == pytest.approx(m["extra"]["avg_us"], rel=1e-9)
        assert m["latency"]["p50"] <= m["latency"]["max"]


def test_nonblocking_overlap(tmp_path):
    out = tmp_path / "r.jsonl"
    p = coll(["--overlap", "-b", "8", "-e", "64", "-i", "10", "Ibcast", "Iallreduce",
                   "--json", out], np=2)
    for r in parse(p.stdout, 2):
        m = re.fullmatch(r"\tOverlap\(%\):\t *(\d+\.\d\d)", r["rest"])
        assert m and 0 <= float(m[1]) <= 100
    for m in measurements(out):
        e = m["extra"]
        assert 0 <= e["overlap_pct"] <= 100
        assert e["compute_us"] > 0 and e["pure_us"] > 0 and e["overall_us"] >= e["compute_us"]


def test_mem_limit_cut_is_reported():
    p = coll(["-e", "1M", "-m", "1M", "-i", "2", "Bcast"], np=2)
    assert [r["bytes"] for r in parse(p.stdout, 2)][-1] == 262144
    warn = [ln for ln in p.stderr.splitlines() if "warning" in ln]
    assert len(warn) == 1 and "262144" in warn[0] and "-m 1048576" in warn[0]
    assert settings(p.stdout, 2)["end"] == "262144"


def test_csv_rows(tmp_path):
    out = tmp_path / "r.csv"
    p = coll(["-e", "16", "-i", "5", "Allgather", "Reduce", "--csv", out], np=2)
    results = parse(p.stdout, 2)
    with open(out) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(results)
    for r, row in zip(results, rows, strict=True):
        assert (row["workload"], row["phase"], int(row["ops"])) == ("coll", r["op"], r["iters"])
        assert (int(row["ranks"]), int(row["nodes"])) == (2, 1)
        # The row carries mpiBench's avg/min/max microseconds (printed to 3 decimals).
        extra = json.loads(row["extra"])
        for k in ("avg", "min", "max"):
            assert extra[f"{k}_us"] == pytest.approx(r[k], abs=6e-4)


BAD_INPUT = [
    (["-x"], "unknown option -x"),
    (["-m", "-1"], "option -m"),
    (["-i", "0"], "option -i"),
    (["-b", "junk"], "option -b"),
    (["-b", "-5"], "option -b"),
    (["-e", "-1K"], "option -e"),
    (["-e", "1.5"], "option -e"),
    (["-b", "2K", "-e", "1K"], "-b 2048 is larger than -e 1024"),
    (["-d", "7"], "-d 7"),
    (["-p", "7"], "-p 7"),
    (["Bcast", "foo"], "unknown operation 'foo'"),
    (["-o", "100"], "option -o"),
    (["--no-barrier", "--per-call"], "choose one"),
    (["--overlap", "Bcast"], "--overlap"),
    (["-e", "3G", "-m", "100G"], "large-count"),
    (["-i"], "needs a value"),
    # A value too large says so, with the limit (one range check for every option).
    (["-i", "2147483648"], "option -i: '2147483648': too large (at most 2147483647)"),
    (["-i", "9999999999"], "option -i: '9999999999': too large (at most 2147483647)"),
    (["-d", "99999999999"], "option -d: '99999999999': too large (at most 2147483647)"),
    (["-t", "99999999999999999999"], "too large (at most 9223372036854775807)"),
]


# Every case on 4 ranks; on 1 rank those that take different paths (parser, sizes, checks
# against the rank count, operation names).
BAD_INPUT_CASES = [(4, a, m) for a, m in BAD_INPUT] + \
    [(1, a, m) for a, m in BAD_INPUT if a[0] in ("-x", "-i", "-b", "-d", "Bcast")]


@pytest.mark.parametrize("np,args,message", BAD_INPUT_CASES)
def test_bad_input(np, args, message):
    p = coll(args, np=np, check=False, timeout=60)
    assert p.returncode == 2, p.stderr
    errors = [ln for ln in p.stderr.splitlines() if ln.startswith("sonde coll: error:")]
    assert len(errors) == 1, p.stderr
    assert message in errors[0]
    assert "START" not in p.stdout


def medians_over_small_sizes(stdout, field):
    """Median over the sizes 8 B .. 1 KiB of one figure of every Bcast line."""
    values = []
    for line in stdout.splitlines():
        f = line.split("\t")
        if f[0].rstrip() == "Bcast" and 8 <= int(f[2]) <= 1024:
            values.append(float(f[f.index(field) + 1]))
    assert values
    return statistics.median(values)


def outside_by_sign_test(ratios, low, high):
    """Whether the median of the paired ratios lies outside [low, high] beyond doubt: every
    round's ratio is on the same side (the sign test's interval for a median over n rounds is
    their whole range, with confidence 1 - 2 / 2**n: 98.4 % at 7). Noise that makes single
    launches slow, whichever goes first, cannot line up every round on one side; a real
    inflation of every checked call does."""
    return min(ratios) > high or max(ratios) < low


@pytest.mark.timing  # the sanitizers distort it, another leg's launches too
@pytest.mark.parametrize("flag,kernel", [("-c", []), ("-C", []), ("-C", ["--per-call"])])
def test_checks_leave_the_timings_alone(flag, kernel):
    """The issue's command line, `-b 8 -e 1M -i 20 -C Bcast`, read 552 us at 8 B against 0.92 us
    unchecked: every checked call filled and checked the whole 2 MiB buffer, and the other
    rank's untimed work became waiting time inside the next timed call. Checked and unchecked
    launches alternate (which goes first swaps every round), each round gives the ratio of two
    launches made moments apart, and the test fails only when every round says the checked
    launch is more than 1.15x slower (or under 0.7x: -C in the loop kernel times each call
    alone after a barrier, which measures slightly faster than back-to-back calls). A load
    burst slows single launches (ratios of 2.6 seen on 2 cores under a parallel build) and made
    the former rule, the ratio of each side's fastest launch, fail 1 run in 3 at load 1.3; it
    cannot slow the checked launch of all seven rounds. Smaller inflations (x1.24 at 8 B - 1 KiB
    with -c on a quiet machine, once) are a speed question for a quiet machine: make bench's
    coll_percall case."""
    base = ["-b", "8", "-e", "1M", "-i", "20"] + kernel
    ratios = []
    for rnd in range(7):
        medians = {}
        for checked in ((False, True) if rnd % 2 == 0 else (True, False)):
            p = coll(base + ([flag] if checked else []) + ["Bcast"], np=2)
            medians[checked] = medians_over_small_sizes(p.stdout, "Avg:")
        ratios.append(medians[True] / medians[False])
    assert not outside_by_sign_test(ratios, 0.7, 1.15), ratios


def test_sign_test_decision():
    """The decision above, on figures made up for it: one outlier either way, or a noisy
    spread around 1, is no verdict; an inflation in every round is."""
    assert not outside_by_sign_test([1.0, 2.6, 0.98, 1.02, 1.1, 0.95, 1.01], 0.7, 1.15)
    assert not outside_by_sign_test([1.3, 1.4, 1.2, 1.25, 1.0, 1.3, 1.6], 0.7, 1.15)
    assert outside_by_sign_test([1.24, 1.3, 1.2, 1.25, 1.19, 1.3, 1.6], 0.7, 1.15)
    assert outside_by_sign_test([600.0] * 7, 0.7, 1.15)
    assert outside_by_sign_test([0.5, 0.6, 0.4, 0.65, 0.5, 0.6, 0.3], 0.7, 1.15)


@pytest.mark.timing  # the sanitizers distort it, another leg's launches too
@pytest.mark.parametrize("slow_rank", [0, 1])
@pytest.mark.parametrize("kernel", [[], ["--no-barrier"]])
def test_a_slow_check_stays_out_of_the_next_timed_call(slow_rank, kernel):
    """Every check made 200 ms slower on purpose on one rank (test hook): without the barrier
    that follows every check, the other rank waits those 200 ms inside its next timed call, so
    half the calls read about 200 ms; with it, they stay at the call's own microseconds. The
    90th percentile over both ranks' calls tells the two apart: the bound, 100 ms, stays above
    what the scheduler of a loaded machine adds to a call (on 2 cores with a dozen runnable
    processes, the rank that spun in the barrier meanwhile can wait some 40-60 ms for its core)."""
    p = coll(["-C", "-b", "8", "-e", "8", "-i", "6", "--percentiles"] + kernel +
             ["Bcast", "Allreduce"], np=2, env={"SONDE_TEST_SLOW_CHECK": f"{slow_rank}:200000"})
    assert "test hook SONDE_TEST_SLOW_CHECK is set" in p.stderr
    rows = parse(p.stdout, 2)
    assert [r["op"] for r in rows] == ["Bcast", "Allreduce"]
    for r in rows:
        p90 = float(r["rest"].split("P90:\t")[1].split("\t")[0])
        assert p90 < 100000, (r["op"], p90, p.stdout)


def test_checks_touch_only_the_size_under_test(tmp_path):
    """bytes_checked counts what the checks compared: per call the send span (count x ranks)
    and what was received, never the whole buffer sized for -e."""
    out = tmp_path / "r.jsonl"
    coll(["-c", "-b", "8", "-e", "1M", "-i", "10", "Bcast", "--json", out], np=2)
    ms = {m["params"]["size"]: m for m in measurements(out)}
    # Prime (1 call), estimate (5) and measurement (5): the last call of each is checked.
    # Rank 0 (root) checks its 2 x 8 send bytes and the 8 it sends; rank 1 its send span and
    # the 8 bytes it received.
    assert ms[8]["verify"]["bytes_checked"] == 3 * 2 * (16 + 8)
    assert ms[1048576]["verify"]["bytes_checked"] == 3 * 2 * (2 * 1048576 + 1048576)


def test_m_0_runs_size_0():
    """mpiBench accepts -m 0: the largest size halves down to 0, and only size 0 runs."""
    p = coll(["-m", "0", "-i", "5", "Bcast", "Gather", "Allreduce"], np=2)
    rows = parse(p.stdout, 2)
    assert [(r["op"], r["bytes"]) for r in rows] == [("Bcast", 0), ("Gather", 0)]
    assert settings(p.stdout, 2)["end"] == "0"
    assert "-m 0: sizes above 0 bytes not run" in p.stderr


def test_c_next_to_C_is_accepted_with_a_warning():
    """mpiBench took -c and -C together; -C checks every iteration, so -c adds nothing."""
    p = coll(["-c", "-C", "-e", "8", "-i", "5", "Bcast"], np=2)
    warn = [ln for ln in p.stderr.splitlines() if "warning" in ln]
    assert warn == ["sonde coll: warning: -c has no effect here: it adds nothing to -C, which "
                    "checks every iteration"]
    assert settings(p.stdout, 2)["check"] == "every"
    p = coll(["-c", "-e", "8", "-i", "5", "Bcast"], np=2)
    assert "warning" not in p.stderr


def v_counts(op, rank, n, count):
    """Elements rank receives in mpiBench's v-variants (reference 5.6)."""
    chunk = max(1, count // n)
    if op == "Alltoallv":
        return sum(((k + rank) * chunk) % (count + 1) for k in range(n))
    if op == "Gatherv" and rank != 0:
        return 0
    return sum((i * chunk) % (count + 1) for i in range(n))


@pytest.mark.parametrize("np", [3, 4])
def test_v_variant_counts_follow_mpibench(np, tmp_path):
    # With -c each rank checks three calls (prime, estimate, measured): its whole send buffer
    # (size x ranks bytes) and exactly the bytes the v-counts deliver to it.
    out = tmp_path / "r.jsonl"
    size = 64
    coll(["-c", "-b", size, "-e", size, "-i", "10", "Alltoallv", "Allgatherv", "Gatherv",
          "--json", out], np=np)
    for m in measurements(out):
        want = sum(3 * (size * np + v_counts(m["phase"], r, np, size)) for r in range(np))
        assert m["verify"]["bytes_checked"] == want, m["phase"]


def test_malformed_test_hook_is_bad_input():
    p = coll(["-c", "Bcast"], np=2, env={"SONDE_TEST_CORRUPT_RECV": "1"}, check=False,
             timeout=60)
    assert p.returncode == 2
    errors = [ln for ln in p.stderr.splitlines() if ln.startswith("sonde coll: error:")]
    assert len(errors) == 1 and "SONDE_TEST_CORRUPT_RECV='1'" in errors[0]


def overlap_from_times(e):
    """docs/workloads/coll.md: 100 x (1 - (overall - compute) / pure), clamped to [0, 100]."""
    pct = 100 * (1 - (e["overall_us"] - e["compute_us"]) / e["pure_us"])
    return min(100.0, max(0.0, pct))


def test_overlap_recomputed_from_its_times(tmp_path):
    """On one rank the record's compute, pure and overall times are the world's (they are rank
    0's), so its overlap_pct is theirs, recomputed here; the printed column is the same figure
    to two decimals."""
    out = tmp_path / "r.jsonl"
    p = coll(["--overlap", "-b", "8", "-e", "4K", "-i", "20", "Ibcast", "Iallreduce",
              "Ialltoall", "--json", out], np=1)
    records = measurements(out)
    assert len(records) == 3 * 10
    for m in records:
        assert m["extra"]["overlap_pct"] == pytest.approx(overlap_from_times(m["extra"]),
                                                          abs=1e-9), m["extra"]
    printed = [float(re.fullmatch(r"\tOverlap\(%\):\t *(\d+\.\d\d)", r["rest"])[1])
               for r in parse(p.stdout, 1)]
    assert printed == pytest.approx([overlap_from_times(m["extra"]) for m in records],
                                    abs=0.0051)
