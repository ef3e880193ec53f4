# SPDX-License-Identifier: BSD-3-Clause
"""What --interval 1 and --live cost each call of the timed loop, measured in one launch: the
ior hard loop on /dev/shm (2 ranks, 4 KiB pwrites interleaved in one shared file), per call a
clock read, the write, a clock read, the time series' call and the kept latency sample, as sonde
ior's transfer loop makes them. bench/series_pair.c runs each "on" turn as a recorded phase of
sonde's time series (a histogram per interval, an MPI_Ireduce posted per interval and tested,
the records written to a live file after the turn) and each "off" turn with the same call and
no phase recording, which is what a run without --interval pays; the sides take turns of CALLS
calls in the same processes, the side going first alternating from turn to turn and from round
to round, so the launch's speed divides out (the hist_add case's design). The round's figures
are each side's median over its turns, as calls per second. The target is 0.98, issue 28's
bound on what the telemetry may cost a call. The case `timeseries` measures the same cost end to
end (two launches of sonde ior per round), which this machine resolves only to a few percent.

Knobs: SONDE_BENCH_SHM_DIR, SONDE_BENCH_MPIRUN, SONDE_BENCH_SERIES_CALLS (calls per turn,
default 600000: about two seconds, so each turn crosses interval boundaries)."""

import os

from benchlib import BenchError, Row, pair_rounds, scratch_places

RANKS = 2
TARGET = 0.98
PAIRS = 5
INTERVAL_S = "1"


class SeriesCall:
    name = "series_call"
    description = "--interval 1 --live vs without, per call, ior hard loop on tmpfs, one launch"

    def run(self, ctx):
        calls = int(os.environ.get("SONDE_BENCH_SERIES_CALLS",
                                   "20000" if ctx.smoke else "600000"))
        pairs = 1 if ctx.smoke else PAIRS
        place = scratch_places(RANKS * calls * 4096, disk=False)[0]
        row = Row(self.name,
                  f"{place}, {RANKS} ranks, 4 KiB pwrites, {calls} calls a turn, "
                  f"{INTERVAL_S} s intervals",
                  "calls/s", "without --interval, same launch", TARGET)
        path = os.path.join(place, f"sonde-bench-series-{os.getpid()}")
        live = path + ".live.jsonl"

        def every_recorded_turn_wrote(got):
            # the warm-up and one turn per pair are recorded: each wrote its intervals
            if got["intervals"] < pairs + 1:
                raise BenchError(f"series_pair: {got['intervals']} interval records for "
                                 f"{pairs + 1} recorded turns")

        return pair_rounds(ctx, row, ctx.program("series_pair"),
                           lambda first: [path, live, INTERVAL_S, calls, pairs, first],
                           ("on", "off"), pairs, [path, live], every_recorded_turn_wrote,
                           ranks=RANKS)


CASES = [SeriesCall()]
