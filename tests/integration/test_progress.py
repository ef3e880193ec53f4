# SPDX-License-Identifier: BSD-3-Clause
"""--progress (src/core/progress.c), every workload: the live line's figures, read from the lines
`--progress-interval 0` writes on stderr at every step (stderr a pipe, as in a batch log), are
plausible (within a phase the amount only grows and never passes the total; the last line of a
phase bounded by its amount is the amount the phase's record holds, so the line's estimate from
rank 0 agrees with the real reduction), and the run's report is the one the same command writes
without the option: the same stdout apart from timings, the same amounts in its records, and the
same stderr once the progress lines are taken out. On a terminal (Open MPI, started under
script(1)) the line is redrawn in place and erased before the report goes on."""

import re
import shutil
import subprocess

import pytest
from bounded import run_bounded
from conftest import OPEN_MPI, launch_command, mpi_env, read_jsonl, run_sonde

UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
         "": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
AMOUNT = r"([\d.]+) ?((?:[KMGT]i)?B|[kMGT]?)"
LINE = re.compile(rf"^sonde (\w+): ([\w-]+)(?: +(\d+)%)?  {AMOUNT}(?: of {AMOUNT})?  "
                  rf"{AMOUNT}/s(?:  \d+:\d\d(?::\d\d)? left)?$")


def amount(number, unit):
    return float(number) * UNITS[unit]


# workload, ranks, arguments (WORK: the test's directory), the unit its phases count in
CASES = {
    "ior": (2, ["-w", "-r", "-t", "16k", "-b", "64k", "-s", "2", "-o", "WORK/f"], "bytes"),
    "mib": (2, ["-F", "-t", "WORK", "-s", "4k", "-l", "4", "-L", "30"], "bytes"),
    "mpiio": (2, ["-type", "1", "-nobj", "4", "-size", "64K", "-target", "WORK/m.%r"], "bytes"),
    "mpiio-aggregating": (2, ["-type", "3", "-nobj", "4", "-size", "64K", "-target",
                              "WORK/a.%r"], "bytes"),
    "btio": (1, ["--method", "1", "--dumps", "3", "--grid", "12x12x12", "--dir", "WORK"],
             "bytes"),
    "mdtest": (2, ["-n", "3", "-d", "WORK/md"], "ops"),
    "find": (2, ["SRC"], None),
    "coll": (2, ["-e", "16", "Bcast", "Allreduce"], "tests"),
    "train": (2, ["-d", "WORK", "--generate", "--train", "--num-files", "4", "--record-size",
                  "16k"], "bytes"),
    "train-checkpoint": (2, ["-d", "WORK", "--checkpoint-folder", "WORK/ckpt", "--model-size",
                             "4m", "--checkpoint-type", "all_ranks", "--checkpoint-writes", "2",
                             "--checkpoint-reads", "1"], "bytes"),
}


def timings_masked(text):
    """stdout without the option (in the echoed command line) and the environment (mpiio lists
    it), with every number (rates, times, dates) as N and runs of blanks as one."""
    text = re.sub(r" '?--progress-interval'? '?0'?", "", text)
    text = re.sub(r"\b[A-Z]\w*=\S*", "", text)
    return re.sub(r"\s+", " ", re.sub(r"\d[\d.:e+-]*", "N", text))


def run(case, tmp_path, progress):
    """The case's run in tmp_path/work, made afresh, so that both runs name the same paths."""
    np, args, _ = CASES[case]
    work = tmp_path / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    if case == "find":  # a small tree of its own to scan
        for d in range(3):
            (work / "tree" / f"d{d}").mkdir(parents=True)
            for f in range(20):
                (work / "tree" / f"d{d}" / f"f{f}").write_text("x")
    args = [a.replace("WORK", str(work)).replace("SRC", str(work / "tree")) for a in args]
    results = work / "r.jsonl"
    extra = ["--progress-interval", "0"] if progress else []
    out = run_sonde([case.split("-")[0], *args, "--json", results, *extra], np=np, cwd=work)
    return out, read_jsonl(results)


def amounts(records):
    return [(r["phase"], r.get("iteration"), r["bytes"], r["ops"]) for r in records
            if r["type"] == "measurement"]


@pytest.mark.parametrize("case", CASES)
def test_lines_plausible_and_report_unchanged(case, tmp_path):
    workload, unit = case.split("-")[0], CASES[case][2]
    off, off_records = run(case, tmp_path, False)
    on, on_records = run(case, tmp_path, True)

    lines = [ln for ln in on.stderr.splitlines() if ln.startswith(f"sonde {workload}: ")
             and "error" not in ln and "warning" not in ln]
    assert lines, on.stderr
    # the report: stdout, records and other stderr lines as without --progress
    assert timings_masked(on.stdout) == timings_masked(off.stdout)
    assert amounts(on_records) == amounts(off_records)
    assert [ln for ln in on.stderr.splitlines() if ln not in lines] == off.stderr.splitlines()
    assert not [ln for ln in off.stderr.splitlines() if LINE.match(ln)]

    phases = {}
    for ln in lines:
        m = LINE.match(ln)
        assert m, ln
        label, pct = m.group(2), m.group(3)
        done = amount(m.group(4), m.group(5))
        total = amount(m.group(6), m.group(7)) if m.group(6) else None
        seen = phases.setdefault(label, [])
        if seen:
            assert done >= seen[-1][0], (ln, seen[-1])
        if total is not None:
            assert done <= total, ln
            # the percentage is the amount's (no phase here has a deadline)
            assert abs(int(pct) - 100 * done / total) <= 2, ln
        seen.append((done, total))

    records = [r for r in on_records if r["type"] == "measurement"]
    if unit == "tests":
        # one record per test; the line counts them all
        assert phases["tests"][-1] == (len(records), len(records))
        return
    if unit is None:
        return  # find: no amount known beforehand, so nothing to end at
    measured = {r["phase"]: r for r in records}
    for label, seen in phases.items():
        done, total = seen[-1]
        assert done == total, (label, seen[-1])
        if label in measured:
            # rank 0's count times the ranks doing as much: the phase's real figure
            figure = measured[label][unit]
            assert done == pytest.approx(figure, rel=0.005), (label, done, figure)
    assert set(measured) <= set(phases), (set(measured), set(phases))


LIVE = re.compile(r"\r(write|read)  *\d+%  [\d.]+ [KMGT]?i?B( of [\d.]+ [KMGT]?i?B)?  "
                  r"[\d.]+ [KMGT]?i?B/s(  \d+:\d\d left)?\x1b\[K")


@pytest.mark.skipif(shutil.which("script") is None, reason="needs script(1)")
@pytest.mark.skipif(not OPEN_MPI, reason="Open MPI's local ranks keep the terminal")
def test_live_line_redrawn_and_erased_on_a_terminal(tmp_path):
    """ior's write stopped by its stonewall after 2 s, under script(1): the line is drawn at
    1 s and every quarter second after, 1.0, 1.25, 1.5 and 1.75 s (and 2.0 when a transfer ends
    after it before the stonewall stops the phase; the clock is read every few transfers, so a
    draw due at the stonewall itself may not come), then erased. -Y (fsync per write) keeps the
    file small."""
    typescript = tmp_path / "typescript"
    args = ["ior", "--progress", "-w", "-D", "2", "-t", "4k", "-b", "4k", "-s", "100000000",
            "-Y", "-o", tmp_path / "f"]
    cmd = " ".join(f"'{a}'" for a in launch_command(2, args))
    run_bounded(["script", "-qfec", cmd, str(typescript)], env=mpi_env(),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=True, timeout=120)
    out = typescript.read_bytes().decode(errors="replace")
    draws = LIVE.findall(out)
    assert 3 <= len(draws) <= 5, out[-2000:]
    # erased before anything else is written: the report's lines follow a cleared line
    after = out.split("\r\x1b[K")[-1]
    assert not LIVE.search(after)
    assert re.search(r"^write +\d", after, re.MULTILINE), after
