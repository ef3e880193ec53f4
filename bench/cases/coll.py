# SPDX-License-Identifier: BSD-3-Clause
"""sonde coll --per-call against a minimal reference loop (bench/coll_ref.c) timing the same
collective the same way: per iteration MPI_Barrier, then the call alone between two MPI_Wtime;
mean time per call averaged over ranks. Bcast, Allreduce and Alltoall at 8 B, 64 KiB and 1 MiB on
2 ranks, one launch per (tool, operation, size), the tools alternating which goes first.

sonde: `coll --per-call -b S -e S -i N <op> --json F` (its Avg, extra.avg_us); it primes with 1
call and estimates with 5 before the N measured ones, so the reference warms up with 6 calls.
Both fill the send buffer as sonde does (mpiBench's byte pattern; whole numbers for Allreduce),
and both start with the same MPI state: sonde learns the node layout by splitting
MPI_COMM_WORLD (and freeing the result) before it measures, and with Open MPI 4.1 the first
communicator created leaves the libnbc component's progress function registered, called at
every progress poll for the rest of the run; coll_ref makes the same split (bench/README.md).
Ranks poll while they wait (mpi_yield_when_idle=0), as OSU and IMB run: with 2 ranks on at least
2 cores nothing else needs the cores, and a yield per poll would time the scheduler.
Rows compare calls per second (1 / Avg), so higher is better for sonde.

Knobs: SONDE_BENCH_MPIRUN (default: the launcher `sonde --version` names),
SONDE_BENCH_COLL_SCALE (factor on the iteration counts, default 1)."""

import json
import os
import tempfile
from functools import partial

from benchlib import BenchError, Row, command, mpirun, run_mpi
from sonde.names import COLL

RANKS = 2
TARGET = 0.95
OPS = ["Bcast", "Allreduce", "Alltoall"]
# (bytes, iterations): enough calls for a stable mean, few enough for a short case.
SIZES = [(8, 5000), (64 * 1024, 1000), (1024 * 1024, 200)]
WARMUP_CALLS = 6


class CollPerCall:
    name = "coll_percall"
    description = "sonde coll --per-call vs a minimal barrier+call timing loop, 2 ranks"

    def run(self, ctx):
        sonde = ctx.sonde()
        ref = ctx.program("coll_ref")
        launcher = mpirun(sonde)
        scale = float(os.environ.get("SONDE_BENCH_COLL_SCALE", "1"))
        sizes = [(size, max(10, int(iters * scale))) for size, iters in SIZES]
        rows = []
        for op in OPS:
            for size, iters in sizes:
                row = Row(self.name, f"{op} {size} B, {RANKS} ranks, {iters} calls", "calls/s",
                          "coll_ref loop", TARGET)
                rows.append(row)
                mine_argv = [sonde, "coll", "--per-call", "-b", size, "-e", size, "-i", iters, op]
                ref_argv = [ref, op, size, iters, WARMUP_CALLS]
                runs = {"sonde": partial(self._sonde, launcher, mine_argv, op, size, iters),
                        "ref": partial(self._ref, launcher, ref_argv, op, size, iters)}
                ctx.compare({"call": row}, False, runs)
        return rows

    @staticmethod
    def _sonde(launcher, argv, op, size, iters):
        with tempfile.TemporaryDirectory(prefix="sonde-bench-coll-") as d:
            path = os.path.join(d, "r.jsonl")
            argv = argv + ["--json", path]
            run_mpi(launcher, RANKS, argv, "sonde coll", yield_when_idle=False)
            with open(path) as f:
                recs = [json.loads(line) for line in f if line.strip()]
        ms = [r for r in recs if r["type"] == "measurement"]
        if len(ms) != 1 or ms[0]["ops"] != iters or ms[0]["params"][COLL.SIZE] != size:
            raise BenchError(f"sonde coll {op} {size}: unexpected records {ms}")
        return {"call": (1e6 / ms[0]["extra"]["avg_us"],
                         command([launcher, "-n", RANKS, *argv]))}

    @staticmethod
    def _ref(launcher, argv, op, size, iters):
        rec = json.loads(run_mpi(launcher, RANKS, argv, "coll_ref", yield_when_idle=False))
        if rec["iterations"] != iters:
            raise BenchError(f"coll_ref {op} {size}: {rec}")
        return {"call": (1e6 / rec["avg_us"], command([launcher, "-n", RANKS, *argv]))}


CASES = [CollPerCall()]
