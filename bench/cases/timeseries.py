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

from benchlib import ior_hard_option_rows

TARGET = 0.98


class TimeSeries:
    name = "timeseries"
    description = "sonde ior hard (4 KiB, shared file) with --interval 1 --live vs without"

    def run(self, ctx):
        seconds = int(os.environ.get("SONDE_BENCH_TIMESERIES_SECONDS", "1" if ctx.smoke else "4"))
        return ior_hard_option_rows(
            ctx, self, seconds, ["--interval", "1", "--live", "{work}/live.jsonl"],
            "without --interval", TARGET)


CASES = [TimeSeries()]
