# SPDX-License-Identifier: BSD-3-Clause
"""sonde btio, the NAS BT-IO pattern, against sonde ior moving the same bytes contiguously: what
the pattern costs. 4 ranks (BTIO needs a square), one shared file on /dev/shm, grids 64^3 and
128^3, each of BTIO's four methods, write then read.

sonde btio: `--mode rw --method M --grid GxGxG --dumps D` (verification on, untimed); its figure
is BTIO's bandwidth: X*Y*Z*40*dumps bytes over the time from a barrier to the last rank's close,
set-up included. sonde ior: `-a MPIIO -c -w -r -t B -b B -s D` with B = X*Y*Z*40/4, so each rank
writes one contiguous block of the same size per dump into one shared file with collective
MPI-IO, the same bytes in the same number of collective calls; its figure is IOR's bandwidth
(open and close included). The ratio btio/ior is the price of BTIO's non-contiguous cells; the
target only flags a collapse, it is not a speed goal for the pattern. Every launch starts settled
(benchlib.Context.settle) in a fresh directory; in each round the ior launch and the four btio
launches alternate which go first.

Knobs: SONDE_BENCH_BTIO_GRIDS (comma list of cube edges, default 64,128),
SONDE_BENCH_BTIO_MIB (MiB per run, rounded to whole dumps, default 160), SONDE_BENCH_SHM_DIR,
SONDE_BENCH_MPIRUN (default: the launcher `sonde --version` names)."""

import os
import shutil
from functools import partial

from benchlib import (
    BenchError,
    Row,
    command,
    fs_type,
    mpirun,
    scratch_places,
    sonde_measurements,
)

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


class Btio:
    name = "btio"
    description = "sonde btio methods 0..3 vs sonde ior writing the same bytes, 4 ranks"

    def run(self, ctx):
        grids = _grids()
        budget = int(os.environ.get("SONDE_BENCH_BTIO_MIB", "160")) * MIB
        sonde = ctx.sonde()
        place = scratch_places(0, disk=False)[0]
        launcher = mpirun(sonde)
        rows = []
        for g in grids:
            record = g * g * g * 40
            dumps = max(1, budget // record)
            if shutil.disk_usage(place).free < 3 * dumps * record:
                raise BenchError(f"{place}: not enough free space for {g}^3 x {dumps} dumps")
            mine_rows = {}
            for m, name in METHODS.items():
                for op in ("write", "read"):
                    label = (f"{op} method {m} ({name}), {g}^3 x {dumps} dumps "
                             f"= {dumps * record // MIB} MiB, {RANKS} ranks, {place} "
                             f"({fs_type(place)})")
                    mine_rows[m, op] = Row(self.name, label, "MiB/s",
                                           "sonde ior -a MPIIO -c, same bytes", TARGET)
            rows += mine_rows.values()
            launch = [launcher, "-n", RANKS, sonde]
            runs = {"sonde": partial(self._btio_all, ctx, place, launch, g, dumps),
                    "ref": partial(ctx.in_fresh_dir, place,
                                   partial(self._ior, launch, record // RANKS, dumps))}
            for i, measured in ctx.rounds(rows=mine_rows.values()):
                got = ctx.in_order(i, runs)
                ref, ref_cmd = got["ref"]
                for m in METHODS:
                    mine, cmd = got["sonde"][m]
                    for op in ("write", "read"):
                        if mine[op]["bytes"] != ref[op]["bytes"]:
                            raise BenchError(f"btio moved {mine[op]['bytes']} bytes, ior "
                                             f"{ref[op]['bytes']}: {cmd}")
                        if op == "read" and mine[op]["verify"]["errors"]:
                            raise BenchError(f"sonde btio method {m}: verification failed: "
                                             f"{cmd}")
                        mine_rows[m, op].record(measured, mine[op]["bandwidth_mib_s"],
                                                ref[op]["bandwidth_mib_s"], cmd, ref_cmd)
        return rows

    @staticmethod
    def _ior(launch, block, dumps, work):
        results = os.path.join(work, "ior.jsonl")
        argv = launch + ["ior", "-a", "MPIIO", "-c", "-w", "-r", "-t", block, "-b", block,
                         "-s", dumps, "-o", os.path.join(work, "ior.dat"), "--json", results]
        return sonde_measurements(argv, "sonde ior", results), command(argv)

    @staticmethod
    def _btio(launch, method, g, dumps, work):
        results = os.path.join(work, f"btio{method}.jsonl")
        argv = launch + ["btio", "--mode", "rw", "--method", method, "--grid", f"{g}x{g}x{g}",
                         "--dumps", dumps, "--dir", work, "--json", results]
        return sonde_measurements(argv, "sonde btio", results), command(argv)

    def _btio_all(self, ctx, place, launch, g, dumps):
        return {m: ctx.in_fresh_dir(place, partial(self._btio, launch, m, g, dumps))
                for m in METHODS}


CASES = [Btio()]
