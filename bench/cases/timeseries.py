# SPDX-License-Identifier: BSD-3-Clause
"""--interval's time series and --live's reductions cost the timed loop a comparison, three
additions and a histogram update per transfer, a histogram allocated per interval, and with
--live an MPI_Ireduce per interval and four tests of it per interval (src/core/timeseries.h):
sonde ior with `--interval 1 --live FILE` against the same command without them.

ior hard on /dev/shm, where a transfer costs least and the telemetry weighs most: 2 ranks, one
shared file, 4 KiB transfers, 64 MiB per rank written and read over and over for
SONDE_BENCH_TIMESERIES_SECONDS (default 4) by minTimeDuration (`-w -r -t 4k -b 4k -s 16384 -O
minTimeDuration=S`): several 1 s intervals per phase. The figure is bytes over the record's
wrrd_s (the transfers). The target is 0.98, issue 28's bound on what the telemetry may cost a
call; on this machine, whose equal runs' intervals are 4-21 % wide (bench/README.md), a row may
be noisy rather than decided. Knobs: SONDE_BENCH_SHM_DIR, SONDE_BENCH_MPIRUN."""

import os
from functools import partial

from benchlib import Row, command, mpirun, scratch_places, sonde_measurements

MIB = 1 << 20
RANKS = 2
SEGMENTS = 16384  # 64 MiB of 4 KiB transfers per rank
TARGET = 0.98


class TimeSeries:
    name = "timeseries"
    description = "sonde ior hard (4 KiB, shared file) with --interval 1 --live vs without"

    def run(self, ctx):
        seconds = int(os.environ.get("SONDE_BENCH_TIMESERIES_SECONDS", "1" if ctx.smoke else "4"))
        place = scratch_places(3 * RANKS * SEGMENTS * 4096, disk=False)[0]
        label = f"{place}, {RANKS} x 64 MiB, 4 KiB transfers, {seconds} s phases"
        rows = {op: Row(self.name, f"{op} {label}", "MiB/s", "without --interval", TARGET)
                for op in ("write", "read")}
        sonde = ctx.sonde()
        runs = ctx.fresh_pair(place, partial(self._sonde, sonde, seconds, True),
                              partial(self._sonde, sonde, seconds, False))
        ctx.compare(rows, False, runs)
        return list(rows.values())

    @staticmethod
    def _sonde(sonde, seconds, telemetry, work):
        results = os.path.join(work, "r.jsonl")
        argv = [mpirun(sonde), "-n", RANKS, sonde, "ior", "-w", "-r", "-t", "4k", "-b", "4k",
                "-s", SEGMENTS, "-O", f"minTimeDuration={seconds}", "-o",
                os.path.join(work, "s"), "--json", results]
        if telemetry:
            argv += ["--interval", "1", "--live", os.path.join(work, "live.jsonl")]
        recs = sonde_measurements(argv, "sonde ior" + " --interval 1 --live" * telemetry,
                                  results)
        return {op: (rec["bytes"] / rec["extra"]["wrrd_s"] / MIB, command(argv))
                for op, rec in recs.items()}


CASES = [TimeSeries()]
