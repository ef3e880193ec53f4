"""sonde btio, the NAS BT-IO pattern, against sonde ior moving the same bytes contiguously: what
the pattern costs. 4 ranks (BTIO needs a square), one shared file on /dev/shm, grids 64^3 and
128^3, each of BTIO's four methods, write then read.

sonde btio: `--mode rw --method M --grid GxGxG --dumps D` (verification on, untimed); its figure
is BTIO's bandwidth: X*Y*Z*40*dumps bytes over the time from a barrier to the last rank's close,
set-up included. sonde ior: `-a MPIIO -c -w -r -t B -b B -s D` with B = X*Y*Z*40/4, so each rank
writes one contiguous block of the same size per dump into one shared file with collective
MPI-IO, the same bytes in the same number of collective calls; its figure is IOR's bandwidth
(open and close included). The ratio btio/ior is the price of BTIO's non-contiguous cells; the
target only flags a collapse, it is not a speed goal for the pattern.

Knobs: SONDE_BENCH_BTIO_GRIDS (comma list of cube edges, default 64,128),
SONDE_BENCH_BTIO_MIB (MiB per run, rounded to whole dumps, default 160), SONDE_BENCH_SHM_DIR,
SONDE_BENCH_MPIRUN (default: the launcher `sonde --version` names)."""

import json
import os
import shutil
import subprocess
import tempfile

from benchlib import BenchError, Row, fs_type, mpi_env, mpirun, scratch_places

MIB = 1 << 20
RANKS = 4
TARGET = 0.10
METHODS = {0: "MPI collective", 1: "MPI independent", 2: "PnetCDF blocking",
           3: "PnetCDF non-blocking"}


def _grids():
    text = os.environ.get("SONDE_BENCH_BTIO_GRIDS", "64,128")
    try:
        grids = [int(g) for g in text.split(",")]
    except ValueError:
        grids = []
    if not grids or min(grids) < 6:
        raise BenchError(f"SONDE_BENCH_BTIO_GRIDS={text}: need cube edges of at least 6")
    return grids


def _measurements(argv, what, results):
    proc = subprocess.run([str(a) for a in argv], capture_output=True, text=True, check=False,
                          env=mpi_env())
    if proc.returncode != 0:
        raise BenchError(f"{what} failed ({proc.returncode}): {' '.join(map(str, argv))}\n"
                         f"{proc.stderr.strip()[-500:]}")
    out = {}
    with open(results) as f:
        for line in f:
            rec = json.loads(line)
            if rec["type"] == "measurement":
                out[rec["phase"]] = rec
    return out


class Btio:
    name = "btio"
    description = "sonde btio methods 0..3 vs sonde ior writing the same bytes, 4 ranks"

    def run(self, ctx):
        grids = _grids()
        budget = int(os.environ.get("SONDE_BENCH_BTIO_MIB", "160")) * MIB
        sonde = ctx.sonde()
        place = scratch_places(0, disk=False)[0]
        launcher = mpirun(sonde)
        plan, rows = [], {}
        for g in grids:
            record = g * g * g * 40
            dumps = max(1, budget // record)
            if shutil.disk_usage(place).free < 3 * dumps * record:
                raise BenchError(f"{place}: not enough free space for {g}^3 x {dumps} dumps")
            plan.append((g, dumps))
            for m, name in METHODS.items():
                for op in ("write", "read"):
                    label = (f"{op} method {m} ({name}), {g}^3 x {dumps} dumps "
                             f"= {dumps * record // MIB} MiB, {RANKS} ranks, {place} "
                             f"({fs_type(place)})")
                    rows[g, m, op] = Row(self.name, label, "MiB/s",
                                         "sonde ior -a MPIIO -c, same bytes", TARGET)
        for _, measured in ctx.rounds():
            for g, dumps in plan:
                block = g * g * g * 40 // RANKS
                work = tempfile.mkdtemp(prefix="sonde-bench-btio-", dir=place)
                try:
                    results = os.path.join(work, "ior.jsonl")
                    ior = _measurements(
                        [launcher, "-n", RANKS, sonde, "ior", "-a", "MPIIO", "-c", "-w", "-r",
                         "-t", block, "-b", block, "-s", dumps, "-o",
                         os.path.join(work, "ior.dat"), "--json", results], "sonde ior",
                        results)
                    mine = {}
                    for m in METHODS:
                        results = os.path.join(work, f"btio{m}.jsonl")
                        mine[m] = _measurements(
                            [launcher, "-n", RANKS, sonde, "btio", "--mode", "rw", "--method", m,
                             "--grid", f"{g}x{g}x{g}", "--dumps", dumps, "--dir", work,
                             "--json", results], "sonde btio", results)
                        for name in ("btio.mpi", "btio.nc"):
                            if os.path.exists(os.path.join(work, name)):
                                os.unlink(os.path.join(work, name))
                finally:
                    shutil.rmtree(work, ignore_errors=True)
                if not measured:
                    continue
                for m in METHODS:
                    for op in ("write", "read"):
                        rec, ref = mine[m][op], ior[op]
                        if rec["bytes"] != ref["bytes"]:
                            raise BenchError(f"btio moved {rec['bytes']} bytes, ior "
                                             f"{ref['bytes']}")
                        if op == "read" and rec["verify"]["errors"]:
                            raise BenchError(f"sonde btio method {m}: verification failed")
                        rows[g, m, op].sonde.append(rec["bandwidth_mib_s"])
                        rows[g, m, op].ref.append(ref["bandwidth_mib_s"])
        return list(rows.values())


CASES = [Btio()]
