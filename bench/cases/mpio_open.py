# SPDX-License-Identifier: BSD-3-Clause
"""What the look for a semaphore Open MPI left taken costs each MPI-IO open (src/io/
ompio_semaphore.h): sonde's timed opens (ior -a MPIIO/HDF5/NCMPI, mpiio, btio) include it.
bench/open_pair.c opens and closes one shared file on /dev/shm collectively on 2 ranks, the side
"on" with sonde's look on rank 0 before each open (one failed open(2) on a healthy node), the side
"off" without (the look is made as sonde makes it: once per file name and process, so the warm-up
turn's first open pays the failed open(2) and every other open a comparison); the sides take turns
of OPENS opens in the same processes, the side going first alternating from turn to turn and from
round to round, so the launch's speed divides out (the hist_add case's design). The round's figures
are each side's median over its turns, as opens per second. The target is 0.99: the look may cost an
open at most 1 %.

Knobs: SONDE_BENCH_SHM_DIR, SONDE_BENCH_MPIRUN, SONDE_BENCH_OPENS (opens per turn, default 200)."""

import os

from benchlib import Row, pair_rounds, scratch_places

RANKS = 2
TARGET = 0.99
PAIRS = 5


class MpioOpen:
    name = "mpio_open"
    description = "MPI-IO open and close with sonde's look for a dead OMPIO semaphore vs without"

    def run(self, ctx):
        opens = int(os.environ.get("SONDE_BENCH_OPENS", "20" if ctx.smoke else "200"))
        pairs = 1 if ctx.smoke else PAIRS
        place = scratch_places(1 << 20, disk=False)[0]
        row = Row(self.name, f"{place}, {RANKS} ranks, one shared file, {opens} opens a turn",
                  "opens/s", "without the look, same launch", TARGET)
        path = os.path.join(place, f"sonde-bench-open-{os.getpid()}")
        return pair_rounds(ctx, row, ctx.program("open_pair"),
                           lambda first: [path, opens, pairs, first], ("on", "off"), pairs,
                           [path], ranks=RANKS)


CASES = [MpioOpen()]
