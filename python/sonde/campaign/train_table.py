# SPDX-License-Identifier: BSD-3-Clause
"""A campaign's sonde train runs: each run's figures over its epochs (its summary record),
whether it counts (train_validity), and MLPerf Storage's training figure: the most emulated
accelerators (ranks) per node of a counted run whose every rank kept its accelerator
utilization at or above the threshold, per configuration (runs of another compute time, batch,
threshold or preset answer another question)."""

from ..results.names import TRAIN, Header, TrainExtra, TrainSummary
from . import argcheck, train_validity

COLUMNS = ["launch", "step", "ranks", "nodes", "epochs", "samples_per_s", "bandwidth_mib_s",
           "au_min", "au_mean", "au_threshold", "au_pass", "counted", "status"]
# the CSV also says why a run is not counted, which is too long for the printed table
CSV_COLUMNS = COLUMNS + ["not_counted_because"]


def rows(launches, load_run, run_dir, statuses, sonde=None):
    """One row per train launch that has a summary: its figures over every epoch, whether it
    counts ("yes" or "no", and why not) and its configuration. sonde: the binary that fills a
    preset's parameters (the campaign's)."""
    found = []
    presets = {}
    for ln in launches:
        if ln.workload != TRAIN.workload or ln.touch:
            continue
        run = load_run(run_dir, ln.id)
        summary = next((s for s in (run.summaries if run else [])
                        if s.get(TrainSummary.PHASE) == "train"), None)
        if summary is None:
            continue
        header = run.header or {}
        params = header.get(Header.PARAMS) or {}
        asked = tuple(params.get(k) for k in (TRAIN.PRESET, TRAIN.ACCELERATOR, TRAIN.DATA_DIR,
                                              TRAIN.CHECKPOINT_FOLDER)) + (
            header.get(Header.RANKS), header.get(Header.TASKS_PER_NODE))
        if asked not in presets:
            try:
                presets[asked] = train_validity.preset_params(sonde, run)
            except argcheck.Refused as e:
                presets[asked] = e
        problems = train_validity.problems(run, presets[asked])
        key, label = train_validity.configuration(params)
        threshold = summary[TrainExtra.AU_THRESHOLD]
        found.append({"launch": ln.id, "step": ln.step,
                      "ranks": header.get(Header.RANKS, ln.ranks),
                      "nodes": header.get(Header.NODES, ln.nodes or 1),
                      "epochs": summary[TrainSummary.EPOCHS],
                      "samples_per_s": summary[TrainExtra.SAMPLES_PER_S],
                      "bandwidth_mib_s": summary[TrainSummary.BANDWIDTH],
                      "au_min": summary[TrainExtra.AU_MIN],
                      "au_mean": summary[TrainExtra.AU_MEAN],
                      "au_threshold": threshold,
                      # every rank, the slowest one included, over the whole run; a run
                      # without compute time has no AU to judge (its au_pass is null)
                      "au_pass": ("not judged" if summary[TrainExtra.AU_PASS] is None else
                                  "yes" if summary[TrainExtra.AU_MIN] >= threshold else "no"),
                      "counted": "no" if problems else "yes",
                      "not_counted_because": "; ".join(problems),
                      "status": statuses.get(ln.id, ""),
                      "configuration": key, "label": label})
    return found


def most_fed(table):
    """The counted passing row with the most ranks per node (ties: the higher samples/s), or
    None. Call it on the rows of one configuration (by_configuration)."""
    passed = [r for r in table if r["au_pass"] == "yes" and r["counted"] == "yes"]
    return max(passed, key=lambda r: (r["ranks"] / r["nodes"], r["samples_per_s"]),
               default=None)


def by_configuration(table):
    """{configuration: rows} in the order the configurations first appear."""
    groups = {}
    for r in table:
        groups.setdefault(r["configuration"], []).append(r)
    return groups


def answer(table):
    """The sentences that state the figure for the train runs of table: one per configuration
    of counted runs, then the runs not counted and why."""
    lines = []
    for group in by_configuration(table).values():
        counted = [r for r in group if r["counted"] == "yes"]
        if not counted:
            continue
        label = group[0]["label"]
        best = most_fed(counted)
        if best is None:
            lines.append(f"{label}: no counted train run kept every rank's AU at or above the "
                         "threshold: the storage feeds none of the emulated accelerator counts "
                         "tried.")
            continue
        lines.append(f"{label}: most emulated accelerators per node with every rank's AU at "
                     f"or above {best['au_threshold']}: {best['ranks'] // best['nodes']} "
                     f"({best['launch']}, {best['samples_per_s']:.1f} samples/s); only the "
                     "counts tried are known.")
    if not lines:
        lines.append("No train run counts toward the accelerators a node keeps fed.")
    for r in table:
        if r["counted"] != "yes":
            lines.append(f"Not counted: {r['launch']}: {r['not_counted_because']}.")
    return "\n".join(lines)
