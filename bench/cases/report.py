# SPDX-License-Identifier: BSD-3-Clause
"""sonde-report on 10^7 per-call profile records: the whole command (Python start, loading,
numpy aggregation, the page and its PNGs) against the budget of 10 seconds for 10^7 records.

The records are a real profiled run, made once per bench run: `mib -F -p` on 4 tasks of
1 250 000 calls of 16 bytes each in both phases (4 x 1 250 000 x 2 = 10^7 (start, end) pairs,
about 300 MB of JSON), on /dev/shm (SONDE_BENCH_SHM_DIR). Each round times
`sonde-report FILE -o OUT` from start to exit; the row's figure is the budget over that time
(10 s / run time), against 1: a ratio of 1 or more is a report made within 10 s. Fewer records
(the knob) keep the same 10 s budget.

Knobs: SONDE_BENCH_REPORT_RECORDS (profile records in all, default 10000000, a multiple of 8),
SONDE_BENCH_SHM_DIR, SONDE_BENCH_DISK_DIR, SONDE_BENCH_MPIRUN."""

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import BenchError, Row, mpi_env, mpirun, scratch_places

TASKS = 4
BUDGET_SECONDS = 10.0
BUDGET_RECORDS = 10_000_000


class Report:
    name = "report"
    description = "sonde-report of 10^7 profile records (budget: 10 s)"

    def run(self, ctx):
        records = int(os.environ.get("SONDE_BENCH_REPORT_RECORDS", BUDGET_RECORDS))
        if records < 8 or records % (2 * TASKS):
            raise BenchError(f"SONDE_BENCH_REPORT_RECORDS={records}: need a multiple of 8")
        calls = records // (2 * TASKS)
        place = scratch_places(records * 40, disk=False)[0]
        work = Path(tempfile.mkdtemp(prefix="sonde-bench-report-", dir=place))
        row = Row(self.name, f"{records} profile records ({TASKS} tasks x {calls} calls x 2 "
                  f"phases), {place}", "10 s / run time", "the 10 s budget", 1.0)
        try:
            results = self._profiled_run(ctx.sonde(), work, calls)
            argv = [sys.executable, "-m", "sonde.report", str(results), "-o",
                    str(work / "report.html")]
            for _, measured in ctx.rounds(rows=[row]):
                ctx.settle()
                t0 = time.monotonic()
                proc = subprocess.run(argv, capture_output=True, text=True)
                seconds = time.monotonic() - t0
                if proc.returncode != 0:
                    raise BenchError(f"sonde-report failed ({proc.returncode}): "
                                     f"{proc.stderr.strip()[-500:]}")
                row.record(measured, BUDGET_SECONDS / seconds, 1.0, " ".join(argv),
                           f"{BUDGET_SECONDS:g} s for {BUDGET_RECORDS} records")
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return [row]

    @staticmethod
    def _profiled_run(sonde, work, calls):
        results = work / "profile.jsonl"
        argv = [mpirun(sonde), "-n", str(TASKS), str(sonde), "mib", "-F", "-t", str(work),
                "-s", "16", "-l", str(calls), "-L", "3600", "-p", str(work / "profile"),
                "--json", str(results)]
        proc = subprocess.run(argv, capture_output=True, text=True, env=mpi_env())
        if proc.returncode != 0:
            raise BenchError(f"sonde mib failed ({proc.returncode}): {' '.join(argv)}\n"
                             f"{proc.stderr.strip()[-500:]}")
        for f in work.glob("mibData.*"):
            f.unlink()
        return results


CASES = [Report()]
