# SPDX-License-Identifier: BSD-3-Clause
"""The POSIX backend's sequential write and read in 16 MiB transfers, against fio's psync
engine doing the same, on /dev/shm (memory) and on the disk.

Both tools write a fresh file in 16 MiB pwrite calls and fsync it at the end (fio's
end_fsync=1), then read it back in 16 MiB pread calls, through the page cache (direct=0). Both
figures are bytes over the I/O time: from the first transfer to the end of the last (and of the
fsync), the open and close outside (fio opens before its clock starts; bench/posix_seq.c times
the same span).

Each tool's round: settle (benchlib.Context.settle), write a fresh file, settle again, dropping
the page cache when the file is on a disk (so both read the disk; each tool also drops its file's
pages: fio invalidate=1, posix_seq posix_fadvise DONTNEED), read, remove the file. The tools
alternate which goes first.

The case `same_tool` runs posix_seq against itself in the same rounds: its ratios show whether
the harness favours either side of a round (their interval must hold 1) and how finely this
machine can resolve a ratio at all (the interval's width is the noise floor of every row).

Knobs: SONDE_BENCH_POSIX_SIZE (file size, default 1g), SONDE_BENCH_SHM_DIR (default /dev/shm),
SONDE_BENCH_DISK_DIR (default /var/tmp)."""

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
    remove,
    run_json,
    scratch_places,
    size_from_env,
)

MIB = 1 << 20
TRANSFER = "16m"
TARGET = 0.95


class PosixSeq:
    name = "posix_seq"
    description = "POSIX sequential write+fsync / read, 16 MiB transfers, vs fio psync"
    same_tool = False

    def run(self, ctx):
        size = size_from_env("SONDE_BENCH_POSIX_SIZE", "1g", 16 * MIB)
        places = scratch_places(3 * size)
        sonde = ctx.program("posix_seq")
        fio = None if self.same_tool else fio_path()
        rows = []
        for place in places:
            label = f"{place} ({fs_type(place)}), {size // MIB} MiB file"
            mine_rows = {op: Row(self.name, f"{op} {label}", "MiB/s",
                                 "posix_seq" if self.same_tool else "fio", TARGET,
                                 same_tool=self.same_tool)
                         for op in ("write", "read")}
            rows += mine_rows.values()
            path = os.path.join(place, f"sonde-bench-{os.getpid()}")
            disk = is_disk(place)
            mine = [[sonde, op, path, size, TRANSFER] for op in ("write", "read")]
            ours = partial(self._tool, ctx, path, disk, mine, self._posix_seq)
            if self.same_tool:
                theirs = ours
            else:
                argvs = [self._fio_argv(fio, op, path, size) for op in ("write", "read")]
                theirs = partial(self._tool, ctx, path, disk, argvs, partial(self._fio_rate, size))
            runs = {"sonde": ours, "ref": theirs}
            ctx.compare(mine_rows, disk, runs)
        return rows

    @staticmethod
    def _tool(ctx, path, disk, argvs, rate):
        """One tool's round: a fresh file written, then read (from the disk when it is on
        one); returns {phase: (rate, command line)}."""
        out = {}
        remove(path)
        try:
            for op, argv in zip(("write", "read"), argvs, strict=True):
                ctx.settle(drop_caches=disk and op == "read")
                out[op] = (rate(op, argv), command(argv))
        finally:
            remove(path)
        return out

    @staticmethod
    def _posix_seq(op, argv):
        a = run_json(argv, f"posix_seq {op}")
        return a["bytes"] / a["seconds"] / MIB

    @staticmethod
    def _fio_rate(size, op, argv):
        return fio_rate(argv, op, size, f"fio {op}")

    @staticmethod
    def _fio_argv(fio, op, path, size):
        argv = [fio, "--name=seq", f"--filename={path}", f"--rw={op}", "--bs=16m",
                f"--size={size}", *FIO_COMMON, *FIO_SAME_BUFFER]
        if op == "write":
            argv.append("--end_fsync=1")
        return argv


class SameTool(PosixSeq):
    name = "same_tool"
    description = ("posix_seq against itself: the harness's bias (ratio 1 in its interval) "
                   "and the machine's noise floor")
    same_tool = True


CASES = [PosixSeq(), SameTool()]
