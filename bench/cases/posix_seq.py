"""The POSIX backend's sequential write and read in 16 MiB transfers, against fio's psync
engine doing the same, on /dev/shm (memory) and on the disk.

Both tools write a fresh file in 16 MiB pwrite calls and fsync it at the end (fio's
end_fsync=1), then read it back in 16 MiB pread calls, through the page cache (direct=0).
fio's fallocate is off: by default fio preallocates the file before its clock starts, which on
tmpfs moves the cost of allocating the pages out of the timed write, while sonde (like IOR)
allocates as it writes.

Knobs: SONDE_BENCH_POSIX_SIZE (file size, default 1g), SONDE_BENCH_SHM_DIR (default /dev/shm),
SONDE_BENCH_DISK_DIR (default /var/tmp).

Reads start with the file dropped from the page cache (fio: invalidate=1, its default;
posix_seq: posix_fadvise DONTNEED before it opens), so on the disk both read the disk."""

import os

from benchlib import (
    BenchError,
    Row,
    fio_path,
    fs_type,
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

    def run(self, ctx):
        size = size_from_env("SONDE_BENCH_POSIX_SIZE", "1g", 16 * MIB)
        places = scratch_places(3 * size)
        sonde = ctx.program("posix_seq")
        fio = fio_path()
        rows = {}
        for place in places:
            label = f"{place} ({fs_type(place)}), {size // MIB} MiB file"
            for op in ("write", "read"):
                rows[place, op] = Row(self.name, f"{op} {label}", "MiB/s", "fio", TARGET)

        for _, measured in ctx.rounds():
            for place in places:
                mine = os.path.join(place, f"sonde-bench-{os.getpid()}.sonde")
                theirs = os.path.join(place, f"sonde-bench-{os.getpid()}.fio")
                remove(mine, theirs)  # a fresh file for every write
                try:
                    for op in ("write", "read"):
                        a = run_json([sonde, op, mine, size, TRANSFER], "posix_seq")
                        b = self._fio(fio, op, theirs, size)
                        if measured:
                            rows[place, op].sonde.append(a["bytes"] / a["seconds"] / MIB)
                            rows[place, op].ref.append(b)
                finally:
                    remove(mine, theirs)
        return list(rows.values())

    @staticmethod
    def _fio(fio, op, path, size):
        argv = [fio, "--name=seq", f"--filename={path}", f"--rw={op}", "--bs=16m",
                f"--size={size}", "--ioengine=psync", "--direct=0", "--fallocate=none",
                "--output-format=json"]
        if op == "write":
            argv.append("--end_fsync=1")
        job = run_json(argv, "fio")["jobs"][0]
        if job["error"]:
            raise BenchError(f"fio {op} {path}: error {job['error']}")
        stats = job[op]
        if stats["io_bytes"] != size or stats["runtime"] <= 0:
            raise BenchError(f"fio {op} {path}: moved {stats['io_bytes']} of {size} bytes")
        return stats["io_bytes"] / (stats["runtime"] / 1000) / MIB


CASES = [PosixSeq()]
