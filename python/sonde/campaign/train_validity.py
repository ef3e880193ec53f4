# SPDX-License-Identifier: BSD-3-Clause
"""Whether a sonde train run counts toward MLPerf Storage's training figure (the most emulated
accelerators per node that keep AU at or above the threshold), judged on what the run did: its
end record, its epoch measurements and the parameters its header holds as the binary parsed
them. The rules judged (docs/workloads/train.md, "How many accelerators a node keeps fed"):

- the run finished: an end record with exit code 0 (a run that stopped or found bad data is no
  figure, even when its summary says pass);
- every epoch the run asked for was measured, and each read the whole dataset;
- the same number of ranks (accelerators) on every node (MLPerf Storage: "every host node must
  run the same number of simulated accelerators");
- no --verify (the checks pause the readers: not the run MLPerf Storage measures), no
  --generate in the run (the dataset is generated before the runs, its pages not in the
  clients' memory), a compute time above 0 (AU of no compute measures no accelerator);
- with --preset: every parameter is the preset's for its --accelerator, as the binary fills it,
  except those MLPerf Storage's CLOSED division lets a submitter set (ALTERABLE).

Not judged: the dataset's size against the clients' memory and the 500 steps per epoch, the
warm-up run and the five runs of a result.
"""

import json

from ..results.names import TRAIN, End, Header, Measurement, TrainExtra
from . import argcheck

# MLPerf Storage v2.0 (Submission guidelines, 10.1, Table 2: alterable parameters for CLOSED
# submissions) by sonde's record names: dataset.num_files_train, num_subfolders_train,
# data_folder, reader.read_threads, transfer_size, prefetch_size, checkpoint.checkpoint_folder.
ALTERABLE = frozenset((TRAIN.NUM_FILES, TRAIN.NUM_SUBFOLDERS, TRAIN.DATA_DIR,
                       TRAIN.READ_THREADS, TRAIN.TRANSFER_SIZE, TRAIN.PREFETCH,
                       TRAIN.CHECKPOINT_FOLDER))


def _params(run):
    return (run.header or {}).get(Header.PARAMS) or {}


def preset_params(sonde, run):
    """The params the binary fills for the run's --preset and --accelerator on the run's ranks
    (with its data and checkpoint folders, which the preset's checkpoint depends on); None for
    a run without a preset. Raises argcheck.Refused when the binary cannot say."""
    params = _params(run)
    preset = params.get(TRAIN.PRESET)
    if not preset:
        return None
    if not sonde:
        raise argcheck.Refused("the campaign names no sonde binary to fill the preset")
    args = ["-d", params.get(TRAIN.DATA_DIR) or ".", "--train", "--preset", preset]
    if params.get(TRAIN.ACCELERATOR):
        args += ["--accelerator", params[TRAIN.ACCELERATOR]]
    if params.get(TRAIN.CHECKPOINT_FOLDER):
        args += ["--checkpoint-folder", params[TRAIN.CHECKPOINT_FOLDER]]
    header = run.header or {}
    return argcheck.parse(sonde, TRAIN.workload, args, header.get(Header.RANKS) or 1,
                          header.get(Header.TASKS_PER_NODE) or 1)


def _epochs(run):
    return [m for m in run.measurements if m[Measurement.PHASE] == "train"]


def _ended(run):
    if run.end is None:
        return ["the run did not finish (no end record)"]
    code = run.end.get(End.EXIT_CODE)
    if code == 0:
        return []
    return [f"exit code {code}" + (f" ({run.ending})" if run.ending else "")]


def _every_epoch(run, params):
    epochs = _epochs(run)
    want = params.get(TRAIN.EPOCHS)
    out = []
    if want is None or len(epochs) != want:
        out.append(f"{len(epochs)} of {want} epochs measured")
    dataset = (params.get(TRAIN.NUM_FILES) or 0) * (params.get(TRAIN.SAMPLES_PER_FILE) or 0)
    for m in epochs:
        samples = m[Measurement.EXTRA].get(TrainExtra.SAMPLES)
        if samples != dataset:
            out.append(f"epoch {m[Measurement.ITERATION]} read {samples} of the dataset's "
                       f"{dataset} samples")
    return out


def _placement(run):
    counts = (run.header or {}).get(Header.TASKS_ON_NODE)
    if not counts:
        return [f"{Header.TASKS_ON_NODE} is missing from the header record"]
    if len(set(counts)) == 1:
        return []
    return [f"ranks per node differ ({', '.join(map(str, counts))}): MLPerf Storage runs the "
            "same number of accelerators on every node"]


def _workload(params):
    out = []
    if params.get(TRAIN.VERIFY):
        out.append("--verify: the readers stand still while samples are checked, a run "
                   "unlike the one measured for publication")
    if params.get(TRAIN.GENERATE):
        out.append("--generate in the same run: the dataset was just written (its pages may be "
                   "in memory), where MLPerf Storage generates it before the runs")
    if not (params.get(TRAIN.COMPUTE_TIME) or 0) > 0:
        out.append(f"compute time {params.get(TRAIN.COMPUTE_TIME)}: AU of no compute measures "
                   "no accelerator")
    return out


def _against_preset(params, preset):
    """Every parameter outside ALTERABLE that differs from the preset's, named."""
    name = f"--preset {params.get(TRAIN.PRESET)} --accelerator {params.get(TRAIN.ACCELERATOR)}"
    out = []
    for key in sorted(set(params) | set(preset)):
        if key in ALTERABLE or params.get(key) == preset.get(key):
            continue
        out.append(f"{key} {json.dumps(params.get(key))}, where {name} sets "
                   f"{json.dumps(preset.get(key))} (fixed in MLPerf Storage's CLOSED division)")
    return out


def problems(run, preset):
    """Why the run does not count toward the figure (empty: it counts). preset: the params the
    binary fills for its preset (preset_params), None without one, or the error that kept the
    binary from saying."""
    params = _params(run)
    out = _ended(run) + _every_epoch(run, params) + _placement(run) + _workload(params)
    if isinstance(preset, Exception):
        out.append(f"the preset's parameters cannot be read: {preset}")
    elif preset is not None:
        out += _against_preset(params, preset)
    return out


def configuration(params):
    """(key, label) of what a run's figure is a figure of: runs of different keys never answer
    one question. With a preset: the preset, accelerator and threshold; without one: every
    parameter MLPerf Storage does not let vary (the label names the compute time, batch and
    threshold)."""
    threshold = params.get(TRAIN.AU_THRESHOLD)
    fixed = {k: v for k, v in sorted(params.items()) if k not in ALTERABLE}
    key = json.dumps(fixed, sort_keys=True)
    if params.get(TRAIN.PRESET):
        return key, (f"--preset {params[TRAIN.PRESET]} --accelerator "
                     f"{params.get(TRAIN.ACCELERATOR)}, AU threshold {threshold}")
    return key, (f"no --preset (not one of MLPerf Storage's workloads): compute time "
                 f"{params.get(TRAIN.COMPUTE_TIME)} s per batch of "
                 f"{params.get(TRAIN.BATCH_SIZE)}, AU threshold {threshold}")
