# SPDX-License-Identifier: BSD-3-Clause
"""sonde ior -a MMAP against IOR's own MMAP backend: the same command line, 2 ranks, on /dev/shm.

IOR is not part of sonde: SONDE_BENCH_IOR names an IOR binary built with its MMAP backend
(github.com/hpc/ior: ./bootstrap && ./configure --with-mmap && make; the case cannot run
without it). Both tools run `-a MMAP -w -r -e -t 1m -b SIZE -s 1` on a shared file
(SONDE_BENCH_IOR_MMAP bytes per rank, default 256m): each file is sized with ftruncate and
mapped whole at its open, and each transfer is a memcpy into or out of the mapping. The figure
is each tool's own bandwidth, bw(MiB/s) of its Results row, the same formula in both (bytes over
the phase's open to close, -e's msync in), read from the text both print. Target 0.97: the
same system calls on both sides (tests/integration/test_ior_mmap.py), so only the loops around
the copies differ. Knobs: SONDE_BENCH_IOR, SONDE_BENCH_IOR_MMAP, SONDE_BENCH_SHM_DIR,
SONDE_BENCH_MPIRUN."""

import os
import re
from functools import partial

from benchlib import (
    BenchError,
    Row,
    command,
    mpirun,
    run_mpi,
    scratch_places,
    size_from_env,
)

MIB = 1 << 20
RANKS = 2
TARGET = 0.97
ROW = re.compile(r"^(write|read)\s+(\d+\.\d+)\s", re.MULTILINE)


def ior_binary():
    path = os.environ.get("SONDE_BENCH_IOR")
    if not path or not os.access(path, os.X_OK):
        raise BenchError("SONDE_BENCH_IOR must name an IOR binary built with --with-mmap "
                         "(bench/cases/ior_mmap.py says how)")
    return path


def bandwidths(launcher, argv, what):
    """{phase: (MiB/s of its Results row, command line)} of argv run on RANKS ranks."""
    out = run_mpi(launcher, RANKS, argv, what)
    cmd = command([launcher, "-n", RANKS, *argv])
    if "ERROR" in out or "WARNING: Incorrect" in out:
        raise BenchError(f"{what} reported an error: {cmd}\n{out[-2000:]}")
    rates = {}
    for phase, bw in ROW.findall(out):
        rates.setdefault(phase, float(bw))  # the Results row comes before the summary's
    if set(rates) != {"write", "read"}:
        raise BenchError(f"{what}: no write and read rows in its output: {cmd}")
    return {phase: (bw, cmd) for phase, bw in rates.items()}


class IorMmap:
    name = "ior_mmap"
    description = "sonde ior -a MMAP vs IOR -a MMAP, the same command, 2 ranks, shared file"

    def run(self, ctx):
        ior = ior_binary()
        size = size_from_env("SONDE_BENCH_IOR_MMAP", "32m" if ctx.smoke else "256m", MIB)
        place = scratch_places(3 * RANKS * size, disk=False)[0]
        label = f"{place}, {RANKS} x {size // MIB} MiB, 1 MiB transfers"
        rows = {op: Row(self.name, f"MMAP {op} {label}", "MiB/s", "IOR -a MMAP", TARGET)
                for op in ("write", "read")}
        sonde = ctx.sonde()
        runs = ctx.fresh_pair(place, partial(self._run, [sonde, "ior"], sonde, size, "sonde"),
                              partial(self._run, [ior], sonde, size, "IOR"))
        ctx.compare(rows, False, runs)
        return list(rows.values())

    @staticmethod
    def _run(tool, sonde, size, what, work):
        argv = [*tool, "-a", "MMAP", "-w", "-r", "-e", "-t", "1m", "-b", size, "-s", 1, "-o",
                os.path.join(work, "f")]
        return bandwidths(mpirun(sonde), argv, f"{what} ior -a MMAP")


CASES = [IorMmap()]
