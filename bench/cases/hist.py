# SPDX-License-Identifier: BSD-3-Clause
"""What the log-linear latency histogram's add costs a timed loop, against the log2 histogram's
add it replaced (src/core/stats.c), in the loop with the most calls per second: ior hard on
/dev/shm (2 ranks, 4 KiB pwrites interleaved in one shared file), per call a clock read, the
write, a clock read and the add. Both adds run in the same launch of bench/hist_pair.c, taking
turns of CALLS calls, the side going first alternating from turn to turn and from round to round
(the coll_percall case's reasons: a launch's speed divides out); the round's figures are each
side's median over its turns. The target is 0.98: the add is a few integer operations either
way, and the issue asks for the new one within 2 % of the old. Rows compare calls per second.

Knobs: SONDE_BENCH_SHM_DIR, SONDE_BENCH_MPIRUN, SONDE_BENCH_HIST_CALLS (calls per turn, default
50000)."""

import os

from benchlib import Row, pair_rounds, scratch_places

RANKS = 2
TARGET = 0.98
PAIRS = 10


class HistAdd:
    name = "hist_add"
    description = "log-linear histogram add vs the log2 add, ior hard loop on tmpfs, one launch"

    def run(self, ctx):
        calls = int(os.environ.get("SONDE_BENCH_HIST_CALLS", "5000" if ctx.smoke else "50000"))
        pairs = 1 if ctx.smoke else PAIRS
        place = scratch_places(RANKS * calls * 4096, disk=False)[0]
        row = Row(self.name, f"{place}, {RANKS} ranks, 4 KiB pwrites, {calls} calls a turn",
                  "calls/s", "log2 add, same launch", TARGET)
        path = os.path.join(place, f"sonde-bench-hist-{os.getpid()}")
        return pair_rounds(ctx, row, ctx.program("hist_pair"),
                           lambda first: [path, calls, pairs, first], ("new", "old"), pairs,
                           [path], ranks=RANKS)


CASES = [HistAdd()]
