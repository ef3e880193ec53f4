"""sonde ior's easy and hard patterns (the JUPITER variants, scaled down) against fio doing the
same I/O with the same number of processes, on /dev/shm and on the disk.

easy: file per process, 16 MiB transfers, one block per rank (sonde: -F -t 16m -b SIZE -s 1 -e;
fio: numjobs=2, one file per job, bs=16m, end_fsync=1). hard: one shared file, 4 KiB transfers
interleaved between ranks (sonde: -t 4k -b 4k -s N -e; fio: rw=write:4k, offset_increment=4k,
so job k writes every other 4 KiB block starting at k x 4 KiB, end_fsync=1). Both through the page
cache (psync, direct=0, fallocate=none). Before reading, sonde drops the files' cached pages
(--drop-cache) as fio does (invalidate=1). sonde's figure is IOR's bandwidth: bytes over total
time, open and close included; fio's is bytes over its runtime.

Knobs: SONDE_BENCH_IOR_EASY (bytes per rank, default 512m), SONDE_BENCH_IOR_HARD (bytes per rank,
default 64m), SONDE_BENCH_SHM_DIR, SONDE_BENCH_DISK_DIR, SONDE_BENCH_MPIRUN (default: the
launcher `sonde --version` names)."""

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
        patterns = {"easy": easy, "hard": hard}
        rows = {}
        for place in places:
            for pat, size in patterns.items():
                label = f"{place} ({fs_type(place)}), {RANKS} x {size // MIB} MiB"
                for op in ("write", "read"):
                    rows[place, pat, op] = Row(self.name, f"{pat} {op} {label}", "MiB/s", "fio",
                                               TARGET)
        for _, measured in ctx.rounds():
            for place in places:
                for pat, size in patterns.items():
                    work = tempfile.mkdtemp(prefix="sonde-bench-ior-", dir=place)
                    try:
                        mine = self._sonde(sonde, pat, size, work)
                        theirs = self._fio(fio, pat, size, work)
                    finally:
                        shutil.rmtree(work, ignore_errors=True)
                    if measured:
                        for op in ("write", "read"):
                            rows[place, pat, op].sonde.append(mine[op])
                            rows[place, pat, op].ref.append(theirs[op])
        return list(rows.values())

    @staticmethod
    def _sonde(sonde, pat, size, work):
        results = os.path.join(work, "r.jsonl")
        geometry = (["-F", "-t", "16m", "-b", str(size), "-s", "1"] if pat == "easy" else
                    ["-t", "4k", "-b", "4k", "-s", str(size // 4096)])
        argv = [mpirun(sonde), "-n", str(RANKS), str(sonde),
                "ior", "-w", "-r", "-e", "-g", "--drop-cache", *geometry, "-o",
                os.path.join(work, "s"), "--json", results]
        proc = subprocess.run(argv, capture_output=True, text=True, env=mpi_env())
        if proc.returncode != 0:
            raise BenchError(f"sonde ior failed ({proc.returncode}): {' '.join(argv)}\n"
                             f"{proc.stderr.strip()[-500:]}")
        out = {}
        with open(results) as f:
            for line in f:
                rec = json.loads(line)
                if rec["type"] == "measurement":
                    if rec["bytes"] != RANKS * size:
                        raise BenchError(f"sonde ior {pat} {rec['phase']}: {rec['bytes']} bytes")
                    out[rec["phase"]] = rec["bandwidth_mib_s"]
        return out

    @staticmethod
    def _fio(fio, pat, size, work):
        out = {}
        for op in ("write", "read"):
            argv = [fio, "--name=ior", f"--directory={work}", f"--numjobs={RANKS}",
                    "--group_reporting", "--ioengine=psync", "--direct=0", "--fallocate=none",
                    "--output-format=json"]
            if pat == "easy":
                argv += [f"--rw={op}", "--bs=16m", f"--size={size}",
                         "--filename_format=f.$jobnum"]
            else:
                argv += [f"--rw={op}:4k", "--bs=4k", f"--size={RANKS * size}",
                         f"--io_size={size}", "--offset_increment=4k", "--filename=shared"]
            if op == "write":
                argv.append("--end_fsync=1")
            job = run_json(argv, "fio")["jobs"][0]
            if job["error"]:
                raise BenchError(f"fio {pat} {op}: error {job['error']}")
            stats = job[op]
            if stats["io_bytes"] != RANKS * size or stats["runtime"] <= 0:
                raise BenchError(f"fio {pat} {op}: moved {stats['io_bytes']} of "
                                 f"{RANKS * size} bytes")
            out[op] = stats["io_bytes"] / (stats["runtime"] / 1000) / MIB
        return out


CASES = [Ior()]
