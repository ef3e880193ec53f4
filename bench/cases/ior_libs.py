# SPDX-License-Identifier: BSD-3-Clause
"""sonde ior on the library backends (-a HDF5, -a NCMPI) against IOR itself on the same command
line, on tmpfs: the reference is IOR built with them (github.com/hpc/ior, `./configure --with-hdf5
--with-ncmpi`, no Debian package), named by SONDE_BENCH_IOR; without it the case has no rows and
says so on its line (make bench runs without an IOR).

Both tools print IOR's results table; the figure is each one's bw(MiB/s) column for the write
and the read (IOR's bandwidth: the bytes over open, transfers and close), the same span on both
sides. 2 ranks, 1 MiB transfers, SONDE_BENCH_IOR_LIBS bytes per rank (default 256m): a shared
file and a file per process for HDF5, a shared file for NCMPI (IOR has no -F there).

Knobs: SONDE_BENCH_IOR (the IOR binary), SONDE_BENCH_IOR_LIBS, SONDE_BENCH_SHM_DIR,
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
# (row label, ior arguments before the sizes)
PATTERNS = [
    ("HDF5 shared", ["-a", "HDF5"]),
    ("HDF5 file per process", ["-a", "HDF5", "-F"]),
    ("NCMPI shared", ["-a", "NCMPI"]),
]
ROW = re.compile(r"^(write|read)\s+([0-9.]+)\s", re.MULTILINE)


def ior_path():
    """The IOR binary, None when SONDE_BENCH_IOR is not set; an error when it names none."""
    ior = os.environ.get("SONDE_BENCH_IOR")
    if ior and not os.access(ior, os.X_OK):
        raise BenchError(f"SONDE_BENCH_IOR={ior} is no executable IOR")
    return ior


def rates(out, what, argv):
    got = {op: float(bw) for op, bw in ROW.findall(out)}
    if set(got) != {"write", "read"}:
        raise BenchError(f"{what}: no write and read rows: {command(argv)}\n{out[-500:]}")
    return {op: (bw, command(argv)) for op, bw in got.items()}


class IorLibs:
    name = "ior_libs"
    description = "sonde ior -a HDF5 and -a NCMPI vs IOR built with them, 2 processes, tmpfs"

    def run(self, ctx):
        ior = ior_path()
        if not ior:
            print("bench: ior_libs: no rows: set SONDE_BENCH_IOR to an IOR built --with-hdf5 "
                  "--with-ncmpi", flush=True)
            return []
        size = size_from_env("SONDE_BENCH_IOR_LIBS", "256m", MIB)
        (place,) = scratch_places(3 * RANKS * size, disk=False)
        sonde = ctx.sonde()
        rows = []
        for label, args in PATTERNS:
            mine = {op: Row(self.name, f"{label} {op} {place}, {RANKS} x {size // MIB} MiB",
                            "MiB/s", "IOR", TARGET) for op in ("write", "read")}
            rows += mine.values()
            argv = [*args, "-w", "-r", "-e", "-t", "1m", "-b", size, "-s", 1]
            runs = ctx.fresh_pair(place, partial(self._run, [sonde, "ior"], sonde, argv),
                                  partial(self._run, [ior], sonde, argv))
            ctx.compare(mine, False, runs)
        return rows

    @staticmethod
    def _run(program, sonde, args, work):
        argv = [*program, *args, "-o", os.path.join(work, "f")]
        out = run_mpi(mpirun(sonde), RANKS, argv, command(argv))
        return rates(out, program[0], argv)


CASES = [IorLibs()]
