# SPDX-License-Identifier: BSD-3-Clause
"""sonde coll's per-call kernel against a minimal loop timing the same collective the same way,
both in one launch of bench/coll_pair.c, taking turns: per iteration MPI_Barrier, then the call
alone between two MPI_Wtime; mean time per call averaged over ranks. Bcast, Allreduce and
Alltoall at 8 B, 64 KiB and 1 MiB on 2 ranks.

Why one launch: whole launches of a 2-rank program here land in one of two modes about 2x apart
(an 8-byte Bcast: 0.15 or 0.34 us) and launches within a mode still differ by 5-7 %; with a
launch per tool, 27 rounds could not tell whether sonde was within 5 % at 8 B and 64 KiB
(bench/README.md). In one launch both kernels share the mode, the buffers and the MPI state.

sonde's side is coll_measure, the function `sonde coll --per-call -i N` times with: one call to
prime, five to estimate, N measured through sonde's operation table. The bare loop writes the
MPI call out and warms up with 6 calls. Both run after sonde's start-up split of
MPI_COMM_WORLD (with Open MPI 4.1 the first communicator created leaves the libnbc progress
function registered for every later poll). Each round is one launch of PAIRS turns, the side
going first alternating from turn to turn and from round to round; the round's figures are
each side's median over its turns. Ranks poll while they wait (mpi_yield_when_idle=0), as OSU
and IMB run: with 2 ranks on at least 2 cores nothing else needs the cores, and a yield per
poll would time the scheduler. Rows compare calls per second (1 / time per call), so higher is
better for sonde.

Knobs: SONDE_BENCH_MPIRUN (default: the launcher `sonde --version` names),
SONDE_BENCH_COLL_SCALE (factor on the iteration counts, default 1)."""

import json
import os
import statistics

from benchlib import BenchError, Row, command, mpirun, run_mpi

RANKS = 2
TARGET = 0.95
OPS = ["Bcast", "Allreduce", "Alltoall"]
# (bytes, iterations): enough calls for a stable mean, few enough for a short case.
SIZES = [(8, 5000), (64 * 1024, 1000), (1024 * 1024, 200)]
# Turns of each side per launch: an even number, so that each side goes first in as many turns
# as second. With 9 turns the side that started a launch went first 5 times and its median was
# a first-in-turn figure: an 8-byte Alltoall's round ratios swung 0.93 / 1.03 with the starting
# side. With 10 they swing 0.96 / 1.03; what remains goes with the side that starts the launch,
# which alternates from round to round.
PAIRS = 10


class CollPerCall:
    name = "coll_percall"
    description = "sonde coll's per-call kernel vs a minimal barrier+call loop, one launch, 2 ranks"

    def run(self, ctx):
        pair = ctx.program("coll_pair")
        launcher = mpirun(ctx.sonde())
        scale = float(os.environ.get("SONDE_BENCH_COLL_SCALE", "1"))
        sizes = [(size, max(10, int(iters * scale))) for size, iters in SIZES]
        pairs = 1 if ctx.smoke else PAIRS
        rows = []
        for op in OPS:
            for size, iters in sizes:
                row = Row(self.name, f"{op} {size} B, {RANKS} ranks, {iters} calls", "calls/s",
                          "bare loop, same launch", TARGET)
                rows.append(row)
                for i, measured in ctx.rounds(rows=[row]):
                    first = "sonde" if i % 2 == 0 else "ref"
                    argv = [pair, op, size, iters, pairs, first]
                    got = json.loads(run_mpi(launcher, RANKS, argv, "coll_pair",
                                             yield_when_idle=False))
                    if len(got["sonde_us"]) != pairs or len(got["ref_us"]) != pairs:
                        raise BenchError(f"coll_pair {op} {size}: {got}")
                    cmd = command([launcher, "-n", RANKS, *argv])
                    row.record(measured, 1e6 / statistics.median(got["sonde_us"]),
                               1e6 / statistics.median(got["ref_us"]), cmd, cmd)
        return rows


CASES = [CollPerCall()]
