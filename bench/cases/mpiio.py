# SPDX-License-Identifier: BSD-3-Clause
"""sonde mpiio (the LANL MPI-IO Test) against fio doing the same I/O: 2 processes, 1 MiB
objects, type 1 (a file per process) and type 2 (one shared file, each process its own
contiguous region), write then read through the page cache, on /dev/shm and on the disk.

sonde: `mpiio -type 1|2 -nobj SIZE/1M -size 1M -touch 1 -chkdata 1`; its figure is the LANL
Write/Read Bandwidth as the JSON record gives its minimum: all bytes over the slowest process's
transfer time (from after the open to the last transfer's completion; the check is not timed),
the span fio's runtime covers (the Effective Bandwidth also counts the open and the close).
MPI-IO's independent transfers are MPI_File_iwrite_at/iread_at + wait, one object at a time.
fio: numjobs=2, bs=1m, no fsync (mpi_io_test syncs only with -sync), invalidate=0 for the read
(sonde reads what it just wrote, from the cache), and benchlib.FIO_COMMON; type 1:
filename_format=f.$jobnum; type 2: one filename, offset_increment=SIZE. Its rate is bytes over
its runtime. Each tool's round starts settled (benchlib.Context.settle) in a fresh directory;
the tools alternate which goes first.

Knobs: SONDE_BENCH_MPIIO_SIZE (bytes per process, default 256m), SONDE_BENCH_SHM_DIR,
SONDE_BENCH_DISK_DIR, SONDE_BENCH_MPIRUN (default: the launcher `sonde --version` names)."""

import os
from functools import partial

from benchlib import (
    FIO_COMMON,
    FIO_SAME_BUFFER,
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
OBJ = MIB
TASKS = 2
TARGET = 0.80


class Mpiio:
    name = "mpiio"
    description = "sonde mpiio types 1 (N-N) and 2 (N-1) vs fio, 2 processes, 1 MiB objects"

    def run(self, ctx):
        size = size_from_env("SONDE_BENCH_MPIIO_SIZE", "256m", OBJ)
        places = scratch_places(3 * TASKS * size)
        fio = fio_path()
        sonde = ctx.sonde()
        rows = []
        for place in places:
            for type_ in (1, 2):
                kind = "N-N" if type_ == 1 else "N-1"
                label = (f"type {type_} ({kind}) {place} ({fs_type(place)}), "
                         f"{TASKS} x {size // MIB} MiB, 1 MiB objects")
                mine_rows = {op: Row(self.name, f"{op} {label}", "MiB/s", "fio", TARGET)
                             for op in ("write", "read")}
                rows += mine_rows.values()
                runs = ctx.fresh_pair(place, partial(self._sonde, sonde, type_, size),
                                      partial(self._fio, fio, type_, size))
                ctx.compare(mine_rows, is_disk(place), runs)
        return rows

    @staticmethod
    def _sonde(sonde, type_, size, work):
        results = os.path.join(work, "r.jsonl")
        target = os.path.join(work, "f.%r" if type_ == 1 else "shared")
        argv = [mpirun(sonde), "-n", TASKS, sonde, "mpiio", "-type", type_,
                "-nobj", size // OBJ, "-size", OBJ, "-target", target, "-touch", 1,
                "-chkdata", 1, "--json", results]
        recs = sonde_measurements(argv, "sonde mpiio", results, expect_bytes=TASKS * size)
        return {phase: (rec["extra"]["raw_bandwidth_mib_s"]["min"], command(argv))
                for phase, rec in recs.items()}

    @staticmethod
    def _fio(fio, type_, size, work):
        out = {}
        for op in ("write", "read"):
            argv = [fio, "--name=mpiio", f"--directory={work}", f"--numjobs={TASKS}",
                    "--group_reporting", f"--rw={op}", f"--bs={OBJ}", f"--size={size}",
                    *FIO_COMMON, *FIO_SAME_BUFFER]
            if type_ == 1:
                argv.append("--filename_format=f.$jobnum")
            else:
                argv += ["--filename=shared", f"--offset_increment={size}"]
            if op == "read":
                argv.append("--invalidate=0")
            out[op] = (fio_rate(argv, op, TASKS * size, f"fio {op}"), command(argv))
        both = " ; ".join(cmd for _, cmd in out.values())
        return {op: (rate, both) for op, (rate, _) in out.items()}


CASES = [Mpiio()]
