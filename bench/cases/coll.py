"""sonde coll --per-call against a minimal reference loop (bench/coll_ref.c) timing the same
collective the same way: per iteration MPI_Barrier, then the call alone between two MPI_Wtime;
mean time per call averaged over ranks. Bcast, Allreduce and Alltoall at 8 B, 64 KiB and 1 MiB on
2 ranks, one launch per (tool, operation, size), the tools alternating.

sonde: `coll --per-call -b S -e S -i N <op> --json F` (its Avg, extra.avg_us); it primes with 1
call and estimates with 5 before the N measured ones, so the reference warms up with 6 calls.
Both fill the send buffer as sonde does (mpiBench's byte pattern; whole numbers for Allreduce).
Rows compare calls per second (1 / Avg), so higher is better for sonde.

Knobs: SONDE_BENCH_MPIRUN (default: the launcher `sonde --version` names)."""

import json
import os
import tempfile

from benchlib import BenchError, Row, mpirun, run_mpi
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
        rows = {(op, size): Row(self.name, f"{op} {size} B, {RANKS} ranks, {iters} calls",
                                "calls/s", "coll_ref loop", TARGET)
                for op in OPS for size, iters in SIZES}
        for _, measured in ctx.rounds():
            for op in OPS:
                for size, iters in SIZES:
                    mine = self._sonde(launcher, sonde, op, size, iters)
                    theirs = self._ref(launcher, ref, op, size, iters)
                    if measured:
                        rows[op, size].sonde.append(1e6 / mine)
                        rows[op, size].ref.append(1e6 / theirs)
        return list(rows.values())

    @staticmethod
    def _sonde(launcher, sonde, op, size, iters):
        with tempfile.TemporaryDirectory(prefix="sonde-bench-coll-") as d:
            path = os.path.join(d, "r.jsonl")
            run_mpi(launcher, RANKS, [sonde, "coll", "--per-call", "-b", size, "-e", size, "-i",
                                      iters, op, "--json", path], "sonde coll")
            with open(path) as f:
                recs = [json.loads(line) for line in f if line.strip()]
        ms = [r for r in recs if r["type"] == "measurement"]
        if len(ms) != 1 or ms[0]["ops"] != iters or ms[0]["params"][COLL.SIZE] != size:
            raise BenchError(f"sonde coll {op} {size}: unexpected records {ms}")
        return ms[0]["extra"]["avg_us"]

    @staticmethod
    def _ref(launcher, ref, op, size, iters):
        out = run_mpi(launcher, RANKS, [ref, op, size, iters, WARMUP_CALLS], "coll_ref")
        rec = json.loads(out)
        if rec["iterations"] != iters:
            raise BenchError(f"coll_ref {op} {size}: {rec}")
        return rec["avg_us"]


CASES = [CollPerCall()]
