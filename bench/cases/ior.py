# SPDX-License-Identifier: BSD-3-Clause
"""sonde ior's easy and hard patterns (the JUPITER variants, scaled down) against fio doing the
same I/O with the same number of processes, on /dev/shm and on the disk.

easy: file per process, 16 MiB transfers, one block per rank (sonde: -F -t 16m -b SIZE -s 1 -e;
fio: numjobs=2, one file per job, bs=16m, end_fsync=1). hard: one shared file, 4 KiB transfers
interleaved between ranks (sonde: -t 4k -b 4k -s N -e; fio: rw=write:4k, offset_increment=4k,
so job k writes every other 4 KiB block starting at k x 4 KiB, end_fsync=1). Both through the page
cache (benchlib.FIO_COMMON). Before reading, sonde drops the files' cached pages (--drop-cache)
as fio does (invalidate=1).

The figures span the same work: sonde's is the bytes over IOR's wr/rd time (its JSON record's
wrrd_s: the earliest first transfer to the latest last transfer, -e's fsync inside), fio's the
bytes over its runtime (open excluded, end_fsync included). IOR's own bandwidth also counts the
open and the close, which fio's runtime does not. Each tool's round starts settled
(benchlib.Context.settle; on a disk the page cache is dropped first) in a fresh directory; the
tools alternate which goes first.

Knobs: SONDE_BENCH_IOR_EASY (bytes per rank, default 512m), SONDE_BENCH_IOR_HARD (bytes per rank,
default 64m), SONDE_BENCH_SHM_DIR, SONDE_BENCH_DISK_DIR, SONDE_BENCH_MPIRUN (default: the
launcher `sonde --version` names)."""

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
RANKS = 2
TARGET = 0.95


class Ior:
    name = "ior"
    description = "sonde ior easy (FPP 16 MiB) and hard (shared 4 KiB) vs fio, 2 processes"

    def run(self, ctx):
        easy = size_from_env("SONDE_BENCH_IOR_EASY", "512m", 16 * MIB)
        hard = size_from_env("SONDE_BENCH_IOR_HARD", "64m", 4096)
        places = scratch_places(3 * RANKS * max(easy, hard))
        fio = fio_path()
        sonde = ctx.sonde()
        rows = []
        for place in places:
            disk = is_disk(place)
            for pat, size in (("easy", easy), ("hard", hard)):
                label = f"{place} ({fs_type(place)}), {RANKS} x {size // MIB} MiB"
                mine_rows = {op: Row(self.name, f"{pat} {op} {label}", "MiB/s", "fio", TARGET)
                             for op in ("write", "read")}
                rows += mine_rows.values()
                runs = ctx.fresh_pair(place, partial(self._sonde, sonde, pat, size),
                                      partial(self._fio, fio, pat, size), drop_caches=disk)
                ctx.compare(mine_rows, disk, runs)
        return rows

    @staticmethod
    def _sonde(sonde, pat, size, work):
        results = os.path.join(work, "r.jsonl")
        geometry = (["-F", "-t", "16m", "-b", size, "-s", 1] if pat == "easy" else
                    ["-t", "4k", "-b", "4k", "-s", size // 4096])
        argv = [mpirun(sonde), "-n", RANKS, sonde, "ior", "-w", "-r", "-e", "-g", "--drop-cache",
                *geometry, "-o", os.path.join(work, "s"), "--json", results]
        recs = sonde_measurements(argv, f"sonde ior {pat}", results, expect_bytes=RANKS * size)
        return {phase: (rec["bytes"] / rec["extra"]["wrrd_s"] / MIB, command(argv))
                for phase, rec in recs.items()}

    @staticmethod
    def _fio(fio, pat, size, work):
        out = {}
        for op in ("write", "read"):
            argv = [fio, "--name=ior", f"--directory={work}", f"--numjobs={RANKS}",
                    "--group_reporting", *FIO_COMMON, *FIO_SAME_BUFFER]
            if pat == "easy":
                argv += [f"--rw={op}", "--bs=16m", f"--size={size}",
                         "--filename_format=f.$jobnum"]
            else:
                argv += [f"--rw={op}:4k", "--bs=4k", f"--size={RANKS * size}",
                         f"--io_size={size}", "--offset_increment=4k", "--filename=shared"]
            if op == "write":
                argv.append("--end_fsync=1")
            out[op] = (fio_rate(argv, op, RANKS * size, f"fio {pat} {op}"), command(argv))
        both = " ; ".join(cmd for _, cmd in out.values())
        return {op: (rate, both) for op, (rate, _) in out.items()}


CASES = [Ior()]
