# SPDX-License-Identifier: BSD-3-Clause
"""A campaign's sonde train runs: each run's figures over its epochs (its summary record), and
MLPerf Storage's training figure: the most emulated accelerators (ranks) per node of a run
whose every rank kept its accelerator utilization at or above the threshold."""

from ..results.names import TRAIN, TrainExtra, TrainSummary

COLUMNS = ["launch", "step", "ranks", "nodes", "epochs", "samples_per_s", "bandwidth_mib_s",
           "au_min", "au_mean", "au_threshold", "au_pass", "status"]


def rows(launches, load_run, run_dir, statuses):
    """One row per train launch that has a summary: its figures over every epoch."""
    found = []
    for ln in launches:
        if ln.workload != TRAIN.workload or ln.touch:
            continue
        run = load_run(run_dir, ln.id)
        summary = next((s for s in (run.summaries if run else [])
                        if s.get(TrainSummary.PHASE) == "train"), None)
        if summary is None:
            continue
        nodes = (run.header or {}).get("nodes", ln.nodes or 1)
        found.append({"launch": ln.id, "step": ln.step, "ranks": ln.ranks, "nodes": nodes,
                      "epochs": summary[TrainSummary.EPOCHS],
                      "samples_per_s": summary[TrainExtra.SAMPLES_PER_S],
                      "bandwidth_mib_s": summary[TrainSummary.BANDWIDTH],
                      "au_min": summary[TrainExtra.AU_MIN],
                      "au_mean": summary[TrainExtra.AU_MEAN],
                      "au_threshold": summary[TrainExtra.AU_THRESHOLD],
                      "au_pass": "yes" if summary[TrainExtra.AU_PASS] else "no",
                      "status": statuses.get(ln.id, "")})
    return found


def most_fed(table):
    """The passing row with the most ranks per node (ties: the higher samples/s), or None."""
    passed = [r for r in table if r["au_pass"] == "yes"]
    return max(passed, key=lambda r: (r["ranks"] / r["nodes"], r["samples_per_s"]),
               default=None)


def answer(table):
    """The sentence that states the figure for the train runs of table."""
    best = most_fed(table)
    if best is None:
        return ("No train run kept every rank's AU at or above its threshold: the storage "
                "feeds none of the emulated accelerator counts tried.")
    return (f"Most emulated accelerators per node with every rank's AU at or above "
            f"{best['au_threshold']}: {best['ranks'] // best['nodes']} ({best['launch']}, "
            f"{best['samples_per_s']:.1f} samples/s); only the counts tried are known.")
