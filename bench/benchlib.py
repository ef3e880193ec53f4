# SPDX-License-Identifier: BSD-3-Clause
"""What bench cases share: the run context (rounds, their order, the same start state for every
run), result rows (medians, spreads, verdicts, the command lines both sides ran), tool runners."""

import functools
import json
import math
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from sonde.campaign.placement import mpirun_for

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
from launch_env import launch_env  # noqa: E402 (after the path is set)


class BenchError(RuntimeError):
    """A case that could not run (a tool missing, a run that failed)."""


_SUFFIX = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def size_from_env(name, default, unit):
    """A size from environment variable name (k/m/g/t suffixes), a positive multiple of unit."""
    text = os.environ.get(name, default).strip().lower()
    mult = _SUFFIX.get(text[-1:], 1)
    digits = text[:-1] if text[-1:] in _SUFFIX else text
    if not digits.isdigit() or int(digits) * mult < unit or int(digits) * mult % unit:
        raise BenchError(f"{name}={text}: need a multiple of {unit} bytes")
    return int(digits) * mult


def mpi_env(yield_when_idle=True):
    """Open MPI as root, oversubscribed, over shared memory and TCP. For I/O cases a rank
    waiting in a barrier or collective yields its core instead of spinning, so on a small machine
    it does not slow the rank still working (fio's jobs never spin); latency cases poll, as
    their references do."""
    tests = launch_env()
    tests.pop("OMPI_MCA_btl_vader_single_copy_mechanism", None)  # Open MPI's default path
    return {**os.environ, **tests,
            "OMPI_MCA_mpi_yield_when_idle": "1" if yield_when_idle else "0"}


@functools.cache
def mpirun(sonde):
    """The launcher for the sonde binary and the programs built with it (bench/):
    $SONDE_BENCH_MPIRUN, else the one of the MPI it is built with
    (sonde.campaign.placement.mpirun_for)."""
    return os.environ.get("SONDE_BENCH_MPIRUN") or mpirun_for(str(sonde))


@dataclass
class Context:
    build: Path  # the CMake build directory holding sonde and bench/ programs
    repeats: int  # measured rounds per case
    warmup: int  # rounds run first and discarded
    disk_repeats: int = 0  # measured rounds of rows on a disk (0: repeats)
    settle_s: float = 0.0  # pause before every run (see settle)
    smoke: bool = False  # one short round to show every case runs: no verdicts

    def program(self, name):
        p = self.build / "bench" / name
        if not p.exists():
            raise BenchError(f"{p} is missing: build first (make build)")
        return p

    def sonde(self):
        p = self.build / "sonde"
        if not p.exists():
            raise BenchError(f"{p} is missing: build first (make build)")
        return p

    def rounds(self, disk=False, rows=()):
        """(round index, measured?) for every round: the warm-up rounds, then looks of n measured
        rounds each (n: repeats, or disk_repeats for rows on a disk, whose figures swing more
        than memory's). After a look the rounds go on only while one of rows is noisy, up to
        LOOKS looks; the caller records each round before asking for the next."""
        n = (self.disk_repeats or self.repeats) if disk and not self.smoke else self.repeats
        yield from ((i, False) for i in range(self.warmup))
        looks = 1 if self.smoke else LOOKS
        for look in range(looks):
            if look and not any(r.verdict == "noisy" for r in rows):
                return
            yield from ((self.warmup + look * n + i, True) for i in range(n))

    def settle(self, drop_caches=False):
        """The same start state for every run of either tool: nothing dirty or under writeback
        (os.sync, then /proc/meminfo's Dirty + Writeback drained), the page cache dropped when
        the row reads from a disk and says so, then a pause of settle_s seconds (default none:
        a pause long enough for a VM to hand the previous run's freed memory back to its host
        makes every run write into fresh host memory, slower and noisier; bench/README.md)."""
        os.sync()  # Linux's sync waits for the writeback it starts; others may write meanwhile
        deadline = time.monotonic() + 30
        while _dirty_bytes() > WRITEBACK_SLACK and time.monotonic() < deadline:
            time.sleep(0.05)
        if drop_caches:
            try:
                with open("/proc/sys/vm/drop_caches", "w") as f:
                    f.write("3\n")
            except OSError as e:
                raise BenchError(f"cannot drop the page cache ({e}): rows that read from a "
                                 "disk start cold, which needs root") from e
        if self.settle_s > 0:
            time.sleep(self.settle_s)

    def in_fresh_dir(self, place, run, drop_caches=False):
        """Settles, then returns run(directory) for a new directory under place, removed
        afterwards: every run of either tool writes fresh files."""
        self.settle(drop_caches)
        work = tempfile.mkdtemp(prefix="sonde-bench-", dir=place)
        try:
            return run(work)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def fresh_pair(self, place, sonde, ref, drop_caches=False):
        """The runs of a comparison where each tool works in a fresh directory under place:
        sonde(directory) and ref(directory), each after settling."""
        return {"sonde": functools.partial(self.in_fresh_dir, place, sonde, drop_caches),
                "ref": functools.partial(self.in_fresh_dir, place, ref, drop_caches)}

    def compare(self, rows, disk, runs):
        """The rounds of one comparison: runs = {"sonde": fn, "ref": fn}, each fn returning
        {key: (value, command line)}; rows = {key: Row} gets the values of every measured round
        and the command lines of the last."""
        for i, measured in self.rounds(disk, rows.values()):
            got = self.in_order(i, runs)
            for key, row in rows.items():
                (s, scmd), (r, rcmd) = got["sonde"][key], got["ref"][key]
                row.record(measured, s, r, scmd, rcmd)

    def in_order(self, index, runs):
        """Runs the tools of one round, sonde first in even rounds and the reference first in odd
        ones, so that neither always starts on a machine the other just warmed (or dirtied).
        runs: {"sonde": fn, "ref": fn}; returns {who: fn()}."""
        order = ["sonde", "ref"] if index % 2 == 0 else ["ref", "sonde"]
        return {who: runs[who]() for who in order}


WRITEBACK_SLACK = 4 << 20  # bytes dirty or under writeback that count as drained


def _dirty_bytes():
    total = 0
    with open("/proc/meminfo") as f:
        for line in f:
            key, value = line.split(":", 1)
            if key in ("Dirty", "Writeback"):
                total += int(value.split()[0]) * 1024
    return total


def command(argv):
    """A command line as a reader can paste it into a shell."""
    return shlex.join(str(a) for a in argv)


# A row reaching across its target gets more rounds: up to LOOKS looks at its rounds, each
# judged with an interval of CONFIDENCE, so that the chance of a wrong verdict over all the
# looks stays at most WRONG_VERDICT (Bonferroni: a look errs one way only, with chance at most
# (1 - CONFIDENCE) / 2). With 3 looks each interval is 93.3 %: the 2nd to 8th of 9 rounds, the
# 4th to 12th of 15, the same as one look at 90 % gave.
LOOKS = 3
WRONG_VERDICT = 0.10
CONFIDENCE = 1 - 2 * WRONG_VERDICT / LOOKS


def median_interval(samples, confidence=CONFIDENCE):
    """A distribution-free interval for the median of samples: the k-th smallest and k-th
    largest, k the largest rank for which the chance that fewer than k samples fall below the
    median, 2^-n * sum(C(n, i), i < k), is at most (1 - confidence) / 2 (the sign test's
    order statistics). At CONFIDENCE (93.3 %) that is the whole range of 5 or 8 samples, the
    2nd to 8th of 9, the 4th to 12th of 15, the 5th to 14th of 18, the 9th to 19th of 27;
    fewer than 5 samples get the whole range, which then holds the median less surely."""
    ordered = sorted(samples)
    n, tail, below, k = len(ordered), (1 - confidence) / 2, 0, 1
    for i in range(n):
        below += math.comb(n, i)
        if below / 2**n > tail:
            k = max(i, 1)  # P(fewer than i below) <= tail; i + 1 already exceeds it
            break
    return ordered[k - 1], ordered[n - k]


@dataclass
class Row:
    """One comparison: samples of sonde and of a reference tool for one variant of a case, one
    of each per round (the two runs of a round alternate, see Context.in_order)."""

    case: str
    variant: str
    unit: str
    reference: str  # the tool sonde is compared with ("fio")
    target: float  # the lowest acceptable ratio sonde / reference
    sonde: list = field(default_factory=list)
    ref: list = field(default_factory=list)
    sonde_cmd: str = ""  # what each side ran in the last round (paths of that round)
    ref_cmd: str = ""
    smoke: bool = False
    same_tool: bool = False  # both sides run the reference: the row measures the harness
    # the ratio must also be at most 1 / target: sonde with an option against sonde without,
    # where the option must change nothing (a figure raised by it is as wrong as one lowered)
    two_sided: bool = False

    @property
    def sonde_median(self):
        return statistics.median(self.sonde)

    @property
    def ref_median(self):
        return statistics.median(self.ref)

    @property
    def round_ratios(self):
        """sonde / reference of each round: two runs moments apart, so that what drifts on the
        machine (a host's memory bandwidth, a disk's cache) divides out."""
        return [s / r for s, r in zip(self.sonde, self.ref, strict=True)]

    @property
    def ratio(self):
        return statistics.median(self.round_ratios)

    @property
    def interval(self):
        """Where the ratio lies, CONFIDENCE sure (median_interval of the round ratios)."""
        return median_interval(self.round_ratios)

    @staticmethod
    def _spread(samples):
        """(max - min) / median over the measured rounds."""
        return (max(samples) - min(samples)) / statistics.median(samples)

    @property
    def sonde_spread(self):
        return self._spread(self.sonde)

    @property
    def ref_spread(self):
        return self._spread(self.ref)

    @property
    def target_text(self):
        """The target as the tables print it: the lowest ratio, or the range of a two_sided
        row."""
        if self.two_sided:
            return f"{self.target:.2f}-{1 / self.target:.2f}"
        return f"{self.target:.2f}"

    @property
    def verdict(self):
        """pass when the ratio's interval lies at or above the target, FAIL when it lies below,
        noisy when it reaches across: the rounds cannot tell which side the ratio is on. A
        two_sided row also needs the interval at or below 1 / target (FAIL when it lies above,
        noisy when it reaches across). A row of the reference against itself (same_tool) passes
        when its interval holds 1 (neither side of a round is favoured) and FAILs when it does
        not. smoke in a smoke run."""
        if self.smoke:
            return "smoke"
        low, high = self.interval
        if self.same_tool:
            return "pass" if low <= 1 <= high else "FAIL"
        ceiling = 1 / self.target if self.two_sided else math.inf
        if low >= self.target and high <= ceiling:
            return "pass"
        return "FAIL" if high < self.target or low > ceiling else "noisy"

    @property
    def passed(self):
        return self.verdict in ("pass", "smoke")

    def record(self, measured, sonde, ref, sonde_cmd, ref_cmd):
        """One round: the samples when measured, and the command lines either way."""
        self.sonde_cmd, self.ref_cmd = sonde_cmd, ref_cmd
        if measured:
            self.sonde.append(sonde)
            self.ref.append(ref)

    def as_dict(self):
        return {
            "case": self.case, "variant": self.variant, "unit": self.unit,
            "reference": self.reference, "target": self.target, "two_sided": self.two_sided,
            "sonde_median": self.sonde_median, "ref_median": self.ref_median,
            "sonde_spread": self.sonde_spread, "ref_spread": self.ref_spread,
            "rounds": len(self.sonde), "round_ratios": self.round_ratios, "ratio": self.ratio,
            "interval": list(self.interval), "verdict": self.verdict,
            "sonde_samples": self.sonde, "ref_samples": self.ref,
            "sonde_command": self.sonde_cmd, "ref_command": self.ref_cmd,
        }


def run_mpi(launcher, ranks, argv, what, yield_when_idle=True):
    """Runs argv on ranks processes under launcher (mpi_env); returns its standard output."""
    cmd = [launcher, "-n", ranks, *argv]
    proc = subprocess.run([str(a) for a in cmd], capture_output=True, text=True,
                          env=mpi_env(yield_when_idle))
    if proc.returncode != 0:
        raise BenchError(f"{what} failed ({proc.returncode}): {command(cmd)}\n"
                         f"{proc.stderr.strip()[-500:]}")
    return proc.stdout


def run_json(argv, what, env=None):
    """Runs a program that prints one JSON document; returns it parsed."""
    proc = subprocess.run([str(a) for a in argv], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise BenchError(f"{what} failed ({proc.returncode}): {command(argv)}\n"
                         f"{proc.stderr.strip()[-500:]}")
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        raise BenchError(f"{what} printed no JSON: {proc.stdout[:200]!r}") from e


def fio_path():
    fio = shutil.which("fio")
    if not fio:
        raise BenchError("fio is not installed (make setup installs it)")
    return fio


# fio options every case gives: psync through the page cache, no preallocation (sonde allocates
# as it writes), no posix_fadvise hints (fio's default SEQUENTIAL hint doubles the readahead
# window of a disk read, and sonde's backends give none).
FIO_COMMON = ["--ioengine=psync", "--direct=0", "--fallocate=none", "--fadvise_hint=0",
              "--output-format=json"]
# fio rewrites three words of every 512-byte block of a buffer before each I/O by default
# (scramble_buffers); sonde's posix, ior and mpiio paths send one buffer unchanged, so their
# cases turn it off. sonde mib stamps one word per 512 bytes of each call (its data names its
# offset), so the mib case keeps fio's scrambling: both rewrite a little of every block.
FIO_SAME_BUFFER = ["--scramble_buffers=0"]


def fio_rate(argv, op, expect_bytes, what):
    """Runs one fio job (group reporting for several processes) and returns its rate in MiB/s:
    bytes over fio's runtime (its I/O time, open excluded, end_fsync included). fio reports the
    runtime in whole milliseconds rounded up (backend.c, update_runtime), so the time lies in
    (runtime - 1, runtime] ms: the middle is taken, an unbiased estimate, where the runtime
    itself understated fio's rate by up to 1 ms (4 % of a 25 ms read from the page cache)."""
    job = run_json(argv, what)["jobs"][0]
    if job["error"]:
        raise BenchError(f"{what}: error {job['error']}: {command(argv)}")
    stats = job[op]
    if stats["io_bytes"] != expect_bytes or stats["runtime"] <= 0:
        raise BenchError(f"{what}: moved {stats['io_bytes']} of {expect_bytes} bytes: "
                         f"{command(argv)}")
    return stats["io_bytes"] / ((stats["runtime"] - 0.5) / 1000) / (1 << 20)


def sonde_measurements(argv, what, results, env=None, expect_bytes=None):
    """Runs a sonde launch that writes --json results; returns its measurement records by
    phase (each checked to have moved expect_bytes, when given)."""
    proc = subprocess.run([str(a) for a in argv], capture_output=True, text=True,
                          env=env or mpi_env())
    if proc.returncode != 0:
        raise BenchError(f"{what} failed ({proc.returncode}): {command(argv)}\n"
                         f"{proc.stderr.strip()[-500:]}")
    out = {}
    with open(results) as f:
        for line in f:
            rec = json.loads(line)
            if rec["type"] != "measurement":
                continue
            if expect_bytes is not None and rec["bytes"] != expect_bytes:
                raise BenchError(f"{what} {rec['phase']}: moved {rec['bytes']} of "
                                 f"{expect_bytes} bytes: {command(argv)}")
            out[rec["phase"]] = rec
    return out


def is_disk(place):
    return fs_type(place) != "tmpfs"


def fs_type(path):
    """The file-system type of path from /proc/self/mounts (longest matching mount point)."""
    path = os.path.realpath(path)
    best, kind = "", "unknown"
    with open("/proc/self/mounts") as f:
        for line in f:
            _, mount, fstype = line.split()[:3]
            mount = mount.replace("\\040", " ")
            inside = path == mount or path.startswith(mount.rstrip("/") + "/")
            if inside and len(mount) >= len(best):
                best, kind = mount, fstype
    return kind


def remove(*paths):
    for p in paths:
        try:
            os.unlink(p)
        except FileNotFoundError:
            pass


def scratch_places(free_bytes, disk=True):
    """Where cases write: tmpfs (SONDE_BENCH_SHM_DIR, /dev/shm) and, when disk, a disk
    directory (SONDE_BENCH_DISK_DIR, /var/tmp); each must exist with free_bytes free."""
    places = [os.environ.get("SONDE_BENCH_SHM_DIR", "/dev/shm")]
    if disk:
        places.append(os.environ.get("SONDE_BENCH_DISK_DIR", "/var/tmp"))
    for place in places:
        if not os.path.isdir(place):
            raise BenchError(f"{place} is not a directory")
        if shutil.disk_usage(place).free < free_bytes:
            raise BenchError(f"{place}: less than {free_bytes >> 20} MiB free")
    return places


# ---- ior hard on tmpfs, with an option and without -----------------------------------------

IOR_HARD_RANKS = 2
IOR_HARD_SEGMENTS = 16384  # 64 MiB of 4 KiB transfers per rank


def ior_hard_option_rows(ctx, case, seconds, options, reference, target, wrap=list):
    """The rows (write, read) of sonde ior hard on /dev/shm, where a transfer costs least and
    what a loop adds weighs most, with options against the same command without: 2 ranks, one
    shared file, 4 KiB transfers, 64 MiB per rank written and read over and over for seconds by
    minTimeDuration (`-w -r -t 4k -b 4k -s 16384 -O minTimeDuration=S`). The figure is bytes
    over the record's wrrd_s (the transfers). wrap(argv) is the command that runs a launch
    (script(1), for a terminal)."""
    place = scratch_places(3 * IOR_HARD_RANKS * IOR_HARD_SEGMENTS * 4096, disk=False)[0]
    label = f"{place}, {IOR_HARD_RANKS} x 64 MiB, 4 KiB transfers, {seconds} s phases"
    rows = {op: Row(case.name, f"{op} {label}", "MiB/s", reference, target)
            for op in ("write", "read")}
    sonde = ctx.sonde()
    runs = ctx.fresh_pair(place, functools.partial(_ior_hard, sonde, seconds, options, wrap),
                          functools.partial(_ior_hard, sonde, seconds, [], wrap))
    ctx.compare(rows, False, runs)
    return list(rows.values())


def _ior_hard(sonde, seconds, options, wrap, work):
    results = os.path.join(work, "r.jsonl")
    argv = [mpirun(sonde), "-n", IOR_HARD_RANKS, sonde, "ior", "-w", "-r", "-t", "4k", "-b", "4k",
            "-s", IOR_HARD_SEGMENTS, "-O", f"minTimeDuration={seconds}", "-o",
            os.path.join(work, "s"), "--json", results]
    argv += [str(o).replace("{work}", work) for o in options]
    recs = sonde_measurements(wrap(argv), "sonde ior " + " ".join(map(str, argv[4:])), results)
    return {op: (rec["bytes"] / rec["extra"]["wrrd_s"] / (1 << 20), command(argv))
            for op, rec in recs.items()}


def pair_rounds(ctx, row, program, argv_of, sides, pairs, files, check=None, ranks=2):
    """The rounds of a same-launch pair (bench/pair.h: hist_pair, series_pair, open_pair): one
    launch of program per round, argv_of(first) its arguments, where first names the side that
    goes first in the launch's first pair (sides[0] in even rounds, sides[1] in odd ones); rank
    0 prints {"<side>_ns": [the mean ns of each turn], ...}, pairs turns a side. The round's
    figures are each side's median turn as a rate per second, sides[0] as sonde's. files: what
    the launch writes, removed after it; check(got), when given, refuses a launch's output."""
    launcher = mpirun(ctx.sonde())
    for i, measured in ctx.rounds(rows=[row]):
        argv = [program, *argv_of(sides[i % 2])]
        try:
            got = json.loads(run_mpi(launcher, ranks, argv, os.path.basename(program)))
        finally:
            for name in files:
                if os.path.exists(name):
                    os.unlink(name)
        if any(len(got[f"{side}_ns"]) != pairs for side in sides):
            raise BenchError(f"{os.path.basename(program)}: {got}")
        if check:
            check(got)
        cmd = command([launcher, "-n", ranks, *argv])
        row.record(measured, 1e9 / statistics.median(got[f"{sides[0]}_ns"]),
                   1e9 / statistics.median(got[f"{sides[1]}_ns"]), cmd, cmd)
    return [row]
