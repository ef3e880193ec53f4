"""sonde mib against fio doing the same I/O: 2 processes, one file per process, sequential
512 KiB calls (mib's default call size), the write phase ending with an fsync, then the read of
a whole file per process, on /dev/shm and on the disk.

sonde: `mib -F -s 512k -l SIZE/512k -L 3600` (the call limit ends each phase); its rate is mib's:
all bytes over (latest end - earliest start), open and close excluded, the fsync included.
fio: numjobs=2, filename_format=f.$jobnum, ioengine=psync, bs=512k, direct=0, fallocate=none,
end_fsync=1 for the write; its rate is bytes over its runtime. mib reads through the page cache
(the other task's file, written just before), so fio's read keeps the cache too (invalidate=0).

Knobs: SONDE_BENCH_MIB_SIZE (bytes per process, default 256m), SONDE_BENCH_SHM_DIR,
SONDE_BENCH_DISK_DIR, SONDE_BENCH_MPIRUN (default: the launcher `sonde --version` names)."""

import json
import os
import shutil
import subprocess
import tempfile

from benchlib import (
    BenchError,
    Row,
    fio_path,
    fs_type,
    mpi_env,
    mpirun,
    run_json,
    scratch_places,
    size_from_env,
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
        rows = {}
        for place in places:
            label = f"{place} ({fs_type(place)}), {TASKS} x {size // MIB} MiB, 512 KiB calls"
            for op in ("write", "read"):
                rows[place, op] = Row(self.name, f"{op} {label}", "MiB/s", "fio", TARGET)
        for _, measured in ctx.rounds():
            for place in places:
                work = tempfile.mkdtemp(prefix="sonde-bench-mib-", dir=place)
                try:
                    mine = self._sonde(sonde, size, work)
                    shutil.rmtree(work, ignore_errors=True)
                    os.mkdir(work)
                    theirs = self._fio(fio, size, work)
                finally:
                    shutil.rmtree(work, ignore_errors=True)
                if measured:
                    for op in ("write", "read"):
                        rows[place, op].sonde.append(mine[op])
                        rows[place, op].ref.append(theirs[op])
        return list(rows.values())

    @staticmethod
    def _sonde(sonde, size, work):
        results = os.path.join(work, "r.jsonl")
        argv = [mpirun(sonde), "-n", str(TASKS), str(sonde),
                "mib", "-F", "-t", work, "-s", str(CALL), "-l", str(size // CALL), "-L", "3600",
                "--json", results]
        proc = subprocess.run(argv, capture_output=True, text=True, env=mpi_env())
        if proc.returncode != 0:
            raise BenchError(f"sonde mib failed ({proc.returncode}): {' '.join(argv)}\n"
                             f"{proc.stderr.strip()[-500:]}")
        out = {}
        with open(results) as f:
            for line in f:
                rec = json.loads(line)
                if rec["type"] == "measurement":
                    if rec["bytes"] != TASKS * size:
                        raise BenchError(f"sonde mib {rec['phase']}: {rec['bytes']} bytes")
                    out[rec["phase"]] = rec["bandwidth_mib_s"]
        return out

    @staticmethod
    def _fio(fio, size, work):
        out = {}
        for op in ("write", "read"):
            argv = [fio, "--name=mib", f"--directory={work}", f"--numjobs={TASKS}",
                    "--group_reporting", "--ioengine=psync", "--direct=0", "--fallocate=none",
                    f"--rw={op}", f"--bs={CALL}", f"--size={size}",
                    "--filename_format=f.$jobnum", "--output-format=json"]
            argv.append("--end_fsync=1" if op == "write" else "--invalidate=0")
            job = run_json(argv, "fio")["jobs"][0]
            if job["error"]:
                raise BenchError(f"fio {op}: error {job['error']}")
            stats = job[op]
            if stats["io_bytes"] != TASKS * size or stats["runtime"] <= 0:
                raise BenchError(f"fio {op}: moved {stats['io_bytes']} of {TASKS * size} bytes")
            out[op] = stats["io_bytes"] / (stats["runtime"] / 1000) / MIB
        return out


CASES = [Mib()]
