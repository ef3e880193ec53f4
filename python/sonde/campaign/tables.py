# SPDX-License-Identifier: BSD-3-Clause
"""What a finished campaign says: every launch's verdict under its rules, a summary table of
phases, the IOR README's result table and score; printed and saved as CSV."""

import csv
import json
import subprocess
from pathlib import Path

from .. import results as _results
from ..results.names import COLL, FIND, IOR, MDTEST, COLLExtra, Measurement
from . import defaults as _defaults
from . import rules as _rules
from . import scores, train_table

METADATA_WORKLOADS = (MDTEST.workload, FIND.workload)
SUMMARY_COLUMNS = ["launch", "step", "variant", "ranks", "nodes", "phase", "iterations",
                   "bw_mean_mib_s", "bw_max_mib_s", "bw_min_mib_s", "mean_s", "status",
                   "params"]
# Collectives have no bandwidth worth averaging over message sizes: their table gives the
# latency (mpiBench's average over ranks, microseconds) at the smallest and the largest size.
# Metadata workloads (mdtest, find): their figure is operations per second; the bandwidth of
# a phase that moved no bytes does not exist, so it is not a column of 0.0.
METADATA_COLUMNS = ["launch", "step", "ranks", "nodes", "phase", "iterations",
                    "ops_mean_per_s", "ops_max_per_s", "ops_min_per_s", "mean_s", "status"]
COLL_COLUMNS = ["launch", "step", "ranks", "nodes", "operation", "timing", "sizes",
                "smallest_bytes", "smallest_us", "largest_bytes", "largest_us", "status"]


def load_run(run_dir, launch_id):
    path = Path(run_dir) / launch_id / "results.jsonl"
    if not path.exists():
        return None
    runs = _results.load(path)
    return runs[-1] if runs else None


def coll_rows(run, base):
    """One row per operation (and communicator) of a coll run: latency at the smallest and
    the largest message size."""
    by_op = {}
    for m in run.measurements:
        p = m.get(Measurement.PARAMS, {})
        by_op.setdefault((m[Measurement.PHASE], p.get(COLL.COMM)), []).append(m)
    rows = []
    for (op, comm), ms in by_op.items():
        ms.sort(key=lambda m: m[Measurement.PARAMS].get(COLL.SIZE, 0))
        small, large = ms[0], ms[-1]
        operation = op if comm in (None, "MPI_COMM_WORLD") else f"{op} ({comm})"
        rows.append(dict(base, operation=operation,
                         timing=small[Measurement.PARAMS].get(COLL.TIMING),
                         sizes=len(ms),
                         smallest_bytes=small[Measurement.PARAMS].get(COLL.SIZE),
                         smallest_us=small[Measurement.EXTRA].get(COLLExtra.AVG_US),
                         largest_bytes=large[Measurement.PARAMS].get(COLL.SIZE),
                         largest_us=large[Measurement.EXTRA].get(COLLExtra.AVG_US)))
    return rows


def binary_defaults(suite, sonde):
    """The defaults of the parameters of the ior launches that fixed_parameters judges, as
    the binary of the run sets them (the error when it cannot say: the rule then cannot be
    evaluated, and names it)."""
    out = {}
    if not sonde:
        return out
    wanted = {ln.workload for ln in suite.launches
              if "fixed_parameters" in ln.rules and ln.workload == IOR.workload}
    for workload in wanted:
        try:
            out[workload] = _defaults.binary_defaults(sonde, workload)
        except (ValueError, OSError, subprocess.SubprocessError) as e:
            out[workload] = e  # the rule says why it cannot be evaluated
    return out


def metadata_rows(run, base):
    """One row per phase of an mdtest or find run: operations per second over its
    iterations."""
    rows = []
    for phase in dict.fromkeys(m[Measurement.PHASE] for m in run.measurements):
        ms = [m for m in run.measurements if m[Measurement.PHASE] == phase]
        rates = [m["ops_per_s"] for m in ms if m.get("ops") and m.get("ops_per_s") is not None]
        rows.append(dict(base, phase=phase, iterations=len(ms),
                         ops_mean_per_s=sum(rates) / len(rates) if rates else None,
                         ops_max_per_s=max(rates, default=None),
                         ops_min_per_s=min(rates, default=None),
                         mean_s=sum(m[Measurement.SECONDS] for m in ms) / len(ms)))
    return rows


def evaluate(suite, manifest):
    """Summary rows, IOR rows, per-launch verdicts, coll rows (whose figure is latency) and
    metadata rows (mdtest, find: operations per second) of a run directory."""
    summary, ior, verdicts, coll, metadata = [], [], {}, [], []
    defaults = binary_defaults(suite, manifest.data.get("sonde"))
    for ln in suite.launches:
        if ln.touch:
            continue
        run = load_run(manifest.run_dir, ln.id)
        vs, status = _rules.evaluate(ln, run, suite.settings, suite.reduced_scale, defaults)
        verdicts[ln.id] = {"status": status, "rules": [v.as_dict() for v in vs]}
        params = " ".join(f"{k}={v}" for k, v in sorted(ln.params.items()))
        header = (run.header or {}) if run else {}
        base = {"launch": ln.id, "step": ln.step, "variant": ln.variant or "",
                "ranks": ln.ranks, "nodes": header.get("nodes", ln.nodes or 1),
                "status": status, "params": params}
        if ln.workload == COLL.workload:
            coll.extend(coll_rows(run, base) if run else [])
            continue
        if ln.workload in METADATA_WORKLOADS and run is not None and run.measurements:
            metadata.extend(metadata_rows(run, base))
            continue
        phases = []
        for m in run.measurements if run else []:
            if m["phase"] not in phases:
                phases.append(m["phase"])
        for phase in phases:
            f = _rules.phase_figures(run, phase)
            n = sum(1 for m in run.measurements if m["phase"] == phase)
            summary.append(dict(base, phase=phase, iterations=n,
                                bw_mean_mib_s=f["mean"] if f else None,
                                bw_max_mib_s=f["max"] if f else None,
                                bw_min_mib_s=f["min"] if f else None,
                                mean_s=f["mean_s"] if f else None))
        if not phases:
            summary.append(dict(base, phase="-", iterations=0, bw_mean_mib_s=None,
                                bw_max_mib_s=None, bw_min_mib_s=None, mean_s=None))
        if ln.workload == "ior" and run is not None:
            ior.append(dict(_rules.ior_table_row(ln, run, status), params=params))
    return summary, ior, verdicts, coll, metadata


def _cell(v):
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.1f}" if abs(v) >= 100 else f"{v:.3f}"
    return str(v)


def format_table(rows, columns):
    cells = [[_cell(r.get(c)) for c in columns] for r in rows]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns)]
    lines = [" | ".join(c.rjust(w) for c, w in zip(columns, widths, strict=False)),
             "-|-".join("-" * w for w in widths)]
    lines += [" | ".join(v.rjust(w) for v, w in zip(row, widths, strict=False)) for row in cells]
    return "\n".join(lines)


def write_csv(rows, columns, path):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({c: r.get(c) for c in columns})


IOR_EXTRA = ["launch", "variant", "nodes", "ranks", "tasks_per_node", "status", "params"]


def report(suite, manifest, out):
    """Prints the tables and the JUPITER score when the suite carries its rules (scores.py),
    and saves the tables and verdicts beside the manifest."""
    summary, ior, verdicts, coll, metadata = evaluate(suite, manifest)
    run_dir = manifest.run_dir
    write_csv(summary, SUMMARY_COLUMNS, run_dir / "summary.csv")
    (run_dir / "verdicts.json").write_text(json.dumps(verdicts, indent=1) + "\n")
    print(f"\nSuite {suite.name}: {len(suite.launches)} launches"
          + (f" at scale {suite.scale} (reduced scale: not compliant)"
             if suite.reduced_scale else ""), file=out)
    print(format_table(summary, SUMMARY_COLUMNS), file=out)
    if metadata:
        write_csv(metadata, METADATA_COLUMNS, run_dir / "metadata-summary.csv")
        print("\nMetadata (operations per second):", file=out)
        print(format_table(metadata, METADATA_COLUMNS), file=out)
    if coll:
        write_csv(coll, COLL_COLUMNS, run_dir / "coll-summary.csv")
        print("\nCollectives (latency in microseconds, mean over ranks, at the smallest and the "
              "largest message size):", file=out)
        print(format_table(coll, COLL_COLUMNS), file=out)
    trains = train_table.rows(suite.launches, load_run, run_dir,
                              {k: v["status"] for k, v in verdicts.items()},
                              manifest.data.get("sonde"))
    if trains:
        write_csv(trains, train_table.CSV_COLUMNS, run_dir / "train-summary.csv")
        print("\nTraining (sonde train, over every epoch; AU per rank against the threshold):",
              file=out)
        print(format_table(trains, train_table.COLUMNS), file=out)
        print(train_table.answer(trains), file=out)
    if ior:
        cols = _rules.IOR_TABLE + IOR_EXTRA
        write_csv(ior, cols, run_dir / "ior-table.csv")
        print("\nIOR results (MiB/s, seconds):", file=out)
        print(format_table(ior, cols), file=out)
    if scores.JUPITER in scores.of_suite(suite):
        print_score(_rules.score(ior), out)
    loose = _rules.loosened(suite.settings)
    if loose:
        print(f"\nRule settings easier than the seed's: {', '.join(loose)}", file=out)
    # a step that frees parameters has its fixed_parameters verdict shown even when it passed:
    # the reasons it gives for them are the suite's, for the reader to weigh
    freeing = {ln.id for ln in suite.launches if ln.free}
    for launch_id, v in verdicts.items():
        noted = [r for r in v["rules"] if r["verdict"] != _rules.PASS or r["advice"]
                 or (launch_id in freeing and r["rule"] == "fixed_parameters")]
        for r in noted:
            text = r["reason"] + (f" (advice: {r['advice']})" if r["advice"] else "")
            print(f"{launch_id}: {r['rule']}: {r['verdict']}: {text}", file=out)
    return summary, ior, verdicts, coll


def print_score(s, out):
    """The seed's score, the run it comes from, and the runs that are only qualitative."""
    if s.value is not None:
        print(f"\nScore RDbwmean+WRbwmean of the best easy POSIX run on more than "
              f"{_rules.SCORE_MIN_NODES - 1} nodes: {s.value:.1f} MiB/s ({s.row['launch']}, "
              f"{s.row['nodes']} nodes)", file=out)
    else:
        print(f"\nScore: none: {s.why_none}", file=out)
    for r in s.qualitative:
        print(f"  qualitative (on {r['nodes']} nodes, not scored): {r['launch']} "
              f"RDbwmean+WRbwmean {r['RDbwmean'] + r['WRbwmean']:.1f} MiB/s ({r['status']})",
              file=out)
