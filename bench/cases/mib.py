# SPDX-License-Identifier: BSD-3-Clause
"""sonde mib against fio doing the same I/O: 2 processes, one file per process, sequential
512 KiB calls (mib's default call size), the write phase ending with an fsync, then the read of
a whole file per process, on /dev/shm and on the disk.

sonde: `mib -F -s 512k -l SIZE/512k -L 3600` (the call limit ends each phase); its rate is mib's:
all bytes over (latest end - earliest start), open and close excluded, the fsync included.
fio: numjobs=2, filename_format=f.$jobnum, bs=512k, end_fsync=1 for the write (and
benchlib.FIO_COMMON); its rate is bytes over its runtime. mib reads through the page cache (the
other task's file, written just before), so fio's read keeps the cache too (invalidate=0), and
no run drops the cache. Each tool's round starts settled (benchlib.Context.settle) in a fresh
directory; the tools alternate which goes first.

Per call, both sides rewrite a little of the buffer: sonde stamps one 8-byte word per 512 bytes
(mib's data names its offset), fio scrambles three (its default, kept here for that reason).

Knobs: SONDE_BENCH_MIB_SIZE (bytes per process, default 256m), SONDE_BENCH_SHM_DIR,
SONDE_BENCH_DISK_DIR, SONDE_BENCH_MPIRUN (default: the launcher `sonde --version` names)."""

import os
from functools import partial

from benchlib import (
    FIO_COMMON,
    Row,
    command,
    fio_path,
    fio_rate,
    fs_type,
    is_disk,
    mpirun,
    scratch_places,
    size_from_env,
    sonde_measurements,
)

MIB = 1 << 20
CALL = 512 * 1024
TASKS = 2
TARGET = 0.95


class Mib:
    name = "mib"
    description = "sonde mib (file per process, 512 KiB calls, fsync) vs fio, 2 processes"

    def run(self, ctx):
        size = size_from_env("SONDE_BENCH_MIB_SIZE", "256m", CALL)
        places = scratch_places(3 * TASKS * size)
        fio = fio_path()
        sonde = ctx.sonde()
        rows = []
        for place in places:
            label = f"{place} ({fs_type(place)}), {TASKS} x {size // MIB} MiB, 512 KiB calls"
            mine_rows = {op: Row(self.name, f"{op} {label}", "MiB/s", "fio", TARGET)
                         for op in ("write", "read")}
            rows += mine_rows.values()
            runs = ctx.fresh_pair(place, partial(self._sonde, sonde, size),
                                  partial(self._fio, fio, size))
            ctx.compare(mine_rows, is_disk(place), runs)
        return rows

    @staticmethod
    def _sonde(sonde, size, work):
        results = os.path.join(work, "r.jsonl")
        argv = [mpirun(sonde), "-n", TASKS, sonde, "mib", "-F", "-t", work, "-s", CALL,
                "-l", size // CALL, "-L", 3600, "--json", results]
        recs = sonde_measurements(argv, "sonde mib", results, expect_bytes=TASKS * size)
        return {phase: (rec["bandwidth_mib_s"], command(argv)) for phase, rec in recs.items()}

    @staticmethod
    def _fio(fio, size, work):
        out = {}
        for op in ("write", "read"):
            argv = [fio, "--name=mib", f"--directory={work}", f"--numjobs={TASKS}",
                    "--group_reporting", f"--rw={op}", f"--bs={CALL}", f"--size={size}",
                    "--filename_format=f.$jobnum", *FIO_COMMON,
                    "--end_fsync=1" if op == "write" else "--invalidate=0"]
            out[op] = (fio_rate(argv, op, TASKS * size, f"fio {op}"), command(argv))
        # one row's reference is both fio runs: the read needs the write's files
        both = " ; ".join(cmd for _, cmd in out.values())
        return {op: (rate, both) for op, (rate, _) in out.items()}


CASES = [Mib()]
