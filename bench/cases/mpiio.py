"""sonde mpiio (the LANL MPI-IO Test) against fio doing the same I/O: 2 processes, 1 MiB
objects, type 1 (a file per process) and type 2 (one shared file, each process its own
contiguous region), write then read through the page cache, on /dev/shm and on the disk.

sonde: `mpiio -type 1|2 -nobj SIZE/1M -size 1M -touch 1 -chkdata 1`; its rate is the LANL
Effective Bandwidth as the JSON record gives it: all bytes over the slowest process's time from
open to close (the check is not timed). MPI-IO's independent transfers are
MPI_File_iwrite_at/iread_at + wait, one object at a time.
fio: numjobs=2, ioengine=psync, bs=1m, direct=0, fallocate=none, no fsync (mpi_io_test syncs
only with -sync), invalidate=0 for the read (sonde reads what it just wrote, from the cache);
type 1: filename_format=f.$jobnum; type 2: one filename, offset_increment=SIZE. Its rate is bytes
over its runtime.

Knobs: SONDE_BENCH_MPIIO_SIZE (bytes per process, default 256m), SONDE_BENCH_SHM_DIR,
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
        rows = {}
        for place in places:
            for type_ in (1, 2):
                kind = "N-N" if type_ == 1 else "N-1"
                label = (f"type {type_} ({kind}) {place} ({fs_type(place)}), "
                         f"{TASKS} x {size // MIB} MiB, 1 MiB objects")
                for op in ("write", "read"):
                    rows[place, type_, op] = Row(self.name, f"{op} {label}", "MiB/s", "fio",
                                                 TARGET)
        for _, measured in ctx.rounds():
            for place in places:
                for type_ in (1, 2):
                    work = tempfile.mkdtemp(prefix="sonde-bench-mpiio-", dir=place)
                    try:
                        mine = self._sonde(sonde, type_, size, work)
                        shutil.rmtree(work, ignore_errors=True)
                        os.mkdir(work)
                        theirs = self._fio(fio, type_, size, work)
                    finally:
                        shutil.rmtree(work, ignore_errors=True)
                    if measured:
                        for op in ("write", "read"):
                            rows[place, type_, op].sonde.append(mine[op])
                            rows[place, type_, op].ref.append(theirs[op])
        return list(rows.values())

    @staticmethod
    def _sonde(sonde, type_, size, work):
        results = os.path.join(work, "r.jsonl")
        target = os.path.join(work, "f.%r" if type_ == 1 else "shared")
        argv = [mpirun(sonde), "-n", str(TASKS), str(sonde),
                "mpiio", "-type", str(type_), "-nobj", str(size // OBJ), "-size", str(OBJ),
                "-target", target, "-touch", "1", "-chkdata", "1", "--json", results]
        proc = subprocess.run(argv, capture_output=True, text=True, env=mpi_env())
        if proc.returncode != 0:
            raise BenchError(f"sonde mpiio failed ({proc.returncode}): {' '.join(argv)}\n"
                             f"{proc.stderr.strip()[-500:]}")
        out = {}
        with open(results) as f:
            for line in f:
                rec = json.loads(line)
                if rec["type"] == "measurement":
                    if rec["bytes"] != TASKS * size:
                        raise BenchError(f"sonde mpiio {rec['phase']}: {rec['bytes']} bytes")
                    out[rec["phase"]] = rec["bandwidth_mib_s"]
        return out

    @staticmethod
    def _fio(fio, type_, size, work):
        out = {}
        for op in ("write", "read"):
            argv = [fio, "--name=mpiio", f"--directory={work}", f"--numjobs={TASKS}",
                    "--group_reporting", "--ioengine=psync", "--direct=0", "--fallocate=none",
                    f"--rw={op}", f"--bs={OBJ}", f"--size={size}", "--output-format=json"]
            if type_ == 1:
                argv.append("--filename_format=f.$jobnum")
            else:
                argv += ["--filename=shared", f"--offset_increment={size}"]
            if op == "read":
                argv.append("--invalidate=0")
            job = run_json(argv, "fio")["jobs"][0]
            if job["error"]:
                raise BenchError(f"fio {op}: error {job['error']}")
            stats = job[op]
            if stats["io_bytes"] != TASKS * size or stats["runtime"] <= 0:
                raise BenchError(f"fio {op}: moved {stats['io_bytes']} of {TASKS * size} bytes")
            out[op] = stats["io_bytes"] / (stats["runtime"] / 1000) / MIB
        return out


CASES = [Mpiio()]
