"""sonde mdtest against the machine's own metadata rate: a plain C loop (bench/mdtest_ref.c) of
open/close, stat and unlink doing the same work, 2 ranks, each in a directory of its own, on
/dev/shm and on the disk.

sonde: `mdtest -n N -F -u -C -T -r -d DIR` (create, stat and remove of N empty files per rank,
each phase between barriers); its rates are the records' ops_per_s (mdtest's: files of all
ranks over the slowest rank's time), per-item latencies recorded, as every run records them.
mdtest_ref: the same files, names and phases, with the same barriers and rate, and nothing else
(snprintf of the path, the system calls). The ratio is the cost of sonde's bookkeeping.

Knobs: SONDE_BENCH_MDTEST_ITEMS (files per rank, default 20000), SONDE_BENCH_SHM_DIR,
SONDE_BENCH_DISK_DIR, SONDE_BENCH_MPIRUN."""

import json
import os
import shutil
import tempfile

from benchlib import BenchError, Row, fs_type, mpirun, run_mpi, scratch_places

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
        rows = {}
        for place in places:
            label = f"{place} ({fs_type(place)}), {RANKS} ranks x {items} files"
            for op in PHASES:
                rows[place, op] = Row(self.name, f"{op} {label}", "files/s", "mdtest_ref loop",
                                      TARGET)
        for _, measured in ctx.rounds():
            for place in places:
                work = tempfile.mkdtemp(prefix="sonde-bench-mdtest-", dir=place)
                try:
                    mine = self._sonde(launcher, sonde, items, work)
                    theirs = json.loads(run_mpi(launcher, RANKS, [ref, work, items],
                                                "mdtest_ref"))
                finally:
                    shutil.rmtree(work, ignore_errors=True)
                if measured:
                    for op in PHASES:
                        rows[place, op].sonde.append(mine[op])
                        rows[place, op].ref.append(theirs[op])
        return list(rows.values())

    @staticmethod
    def _sonde(launcher, sonde, items, work):
        results = os.path.join(work, "r.jsonl")
        run_mpi(launcher, RANKS, [sonde, "mdtest", "-n", items, "-F", "-u", "-C", "-T", "-r",
                                  "-d", os.path.join(work, "md"), "--json", results],
                "sonde mdtest")
        with open(results) as f:
            recs = [json.loads(line) for line in f if line.strip()]
        out = {}
        for op, phase in PHASES.items():
            ms = [r for r in recs if r["type"] == "measurement" and r["phase"] == phase]
            if len(ms) != 1 or ms[0]["ops"] != RANKS * items:
                raise BenchError(f"sonde mdtest {phase}: unexpected records {ms}")
            out[op] = ms[0]["ops_per_s"]
        return out


CASES = [Mdtest()]
