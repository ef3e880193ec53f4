# SPDX-License-Identifier: BSD-3-Clause
"""sonde mdtest against the machine's own metadata rate: a plain C loop (bench/mdtest_ref.c) of
open/close, stat and unlink doing the same work, 2 ranks, each in a directory of its own, on
/dev/shm and on the disk.

sonde: `mdtest -n N -F -u -C -T -r -d DIR` (create, stat and remove of N empty files per rank,
each phase between barriers); its rates are the records' ops_per_s (mdtest's: files of all
ranks over the slowest rank's time), per-item latencies recorded, as every run records them.
mdtest_ref: the same files, names, directories (as deep as sonde's tree) and phases, with the
same barriers and rate, and nothing else (snprintf of the path, the system calls). The ratio is
the cost of sonde's bookkeeping. Each tool's run starts settled (benchlib.Context.settle) in a
fresh directory; the tools alternate which goes first.

Knobs: SONDE_BENCH_MDTEST_ITEMS (files per rank, default 20000), SONDE_BENCH_SHM_DIR,
SONDE_BENCH_DISK_DIR, SONDE_BENCH_MPIRUN."""

import json
import os
from functools import partial

from benchlib import BenchError, Row, command, fs_type, is_disk, mpirun, run_mpi, scratch_places

RANKS = 2
TARGET = 0.95
PHASES = {"create": "file-create", "stat": "file-stat", "remove": "file-remove"}


def _items():
    text = os.environ.get("SONDE_BENCH_MDTEST_ITEMS", "20000")
    if not text.isdigit() or int(text) < 1:
        raise BenchError(f"SONDE_BENCH_MDTEST_ITEMS={text}: need a whole number >= 1")
    return int(text)


class Mdtest:
    name = "mdtest"
    description = "sonde mdtest create/stat/remove vs a plain open/close, stat, unlink loop"

    def run(self, ctx):
        items = _items()
        places = scratch_places(64 << 20)
        sonde, ref = ctx.sonde(), ctx.program("mdtest_ref")
        launcher = mpirun(sonde)
        rows = []
        for place in places:
            label = f"{place} ({fs_type(place)}), {RANKS} ranks x {items} files"
            mine_rows = {op: Row(self.name, f"{op} {label}", "files/s", "mdtest_ref loop",
                                 TARGET) for op in PHASES}
            rows += mine_rows.values()
            runs = ctx.fresh_pair(place, partial(self._sonde, launcher, sonde, items),
                                  partial(self._ref, launcher, ref, items))
            ctx.compare(mine_rows, is_disk(place), runs)
        return rows

    @staticmethod
    def _sonde(launcher, sonde, items, work):
        results = os.path.join(work, "r.jsonl")
        argv = [sonde, "mdtest", "-n", items, "-F", "-u", "-C", "-T", "-r",
                "-d", os.path.join(work, "md"), "--json", results]
        run_mpi(launcher, RANKS, argv, "sonde mdtest")
        with open(results) as f:
            recs = [json.loads(line) for line in f if line.strip()]
        out = {}
        for op, phase in PHASES.items():
            ms = [r for r in recs if r["type"] == "measurement" and r["phase"] == phase]
            if len(ms) != 1 or ms[0]["ops"] != RANKS * items:
                raise BenchError(f"sonde mdtest {phase}: unexpected records {ms}")
            out[op] = (ms[0]["ops_per_s"], command([launcher, "-n", RANKS, *argv]))
        return out

    @staticmethod
    def _ref(launcher, ref, items, work):
        argv = [ref, work, items]
        rates = json.loads(run_mpi(launcher, RANKS, argv, "mdtest_ref"))
        return {op: (rates[op], command([launcher, "-n", RANKS, *argv])) for op in PHASES}


CASES = [Mdtest()]
