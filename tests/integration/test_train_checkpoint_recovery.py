# SPDX-License-Identifier: BSD-3-Clause
"""sonde train's checkpoint-only pacing and recovery, as DLIO's time_between_checkpoints and
recovery_rank_shift: on two "nodes" (UTS namespaces), each rank's reads logged by an LD_PRELOAD
shim in a log named after its node and rank, the files it read against the shards that the rank
one node further on wrote (the header's placement), every byte verified against the pattern of
that shard; the gaps between checkpoints recomputed from their own time series; and the
options' checks."""

import json
import os
import time
from collections import defaultdict

import pytest
from conftest import MULTI_NODE, SONDE, read_jsonl, run_sonde
from faultlib import error_lines
from preload import build_shim, preload_env
from read_log import logged_reads
from sonde.results import names
from test_train_checkpoint import check_extra, checkpoint_args, expected_files, measurements

PACE = 0.3  # --time-between-checkpoints
INTERVAL = 0.05  # --interval: each checkpoint's own time series gives its span
# each process logs its reads to <base>.<node>.<world rank>.<pid> (Open MPI names the rank)
NAMED_LOG = 'SONDE_TEST_READ_LOG="$0.$(uname -n).$OMPI_COMM_WORLD_RANK" exec "$@"'


@pytest.fixture(scope="module")
def read_log_shim(tmp_path_factory):
    return build_shim("logged_read", tmp_path_factory.mktemp("shim"))


def reads_by_rank(base):
    """{world rank: (node, [(path, offset, length), ...])} from the shim's logs."""
    found = {}
    for suffix, calls in logged_reads(base).items():
        node, rank, _pid = suffix.rsplit(".", 2)
        found[int(rank)] = (node, [(p, o, n) for p, o, n, _ in calls])
    return found


def spans(results, phase):
    """{iteration: (start, end)} of a phase's interval records on the run clock: the first
    interval starts at the phase's start, the last ends at its end."""
    series = defaultdict(list)
    for r in read_jsonl(results):
        if r["type"] == "interval" and r["phase"] == phase:
            series[r["iteration"]].append(r)
    return {k: (min(r["clock_s"] for r in v), max(r["clock_s"] + r["seconds"] for r in v))
            for k, v in series.items()}


@MULTI_NODE[0]
@MULTI_NODE[1]
def test_paced_checkpoints_are_read_back_by_the_other_node(shm_scratch, tmp_path, read_log_shim):
    """4 ranks on nodeA and nodeB, 2 each: 2 checkpoints written then read, each after 0.3 s of
    emulated compute; rank r reads the shards rank (r + 2) % 4 wrote, on the other node."""
    folder = shm_scratch / "ckpt"
    results = tmp_path / "r.jsonl"
    base = tmp_path / "reads"
    model, layers, ranks, per_node = 40000, 2, 4, 2
    env = preload_env(read_log_shim, {"SONDE_TEST_READ_MATCH": f"{folder}/"})
    args = checkpoint_args(folder, model, layers, "all_ranks", False, "--checkpoint-writes", 2,
                           "--checkpoint-reads", 2, "--checkpoint-verify",
                           "--time-between-checkpoints", PACE, "--recovery-rank-shift",
                           "--interval", INTERVAL, "--json", results)
    began = time.monotonic()
    run_sonde(["-c", NAMED_LOG, base, SONDE, *args], np=ranks, hosts="nodeA:2,nodeB:2",
              program="/bin/sh", env=env)
    took = time.monotonic() - began
    # four checkpoints, each after its compute: the launch took at least that long
    assert took >= 4 * PACE

    header = read_jsonl(results)[0]
    params = header["params"]
    assert params[names.TRAIN.TIME_BETWEEN_CHECKPOINTS] == PACE
    assert params[names.TRAIN.RECOVERY_RANK_SHIFT] is True
    node_of = [header["hostnames"][n] for n in header["node_of_rank"]]
    assert sorted(node_of) == ["nodeA", "nodeA", "nodeB", "nodeB"]

    # what each rank read, as the shim saw it: the shards of the rank per_node further on
    # (another node), every byte of them, in both checkpoints; nothing of its own node's
    sizes = {name: length for name, (_, length) in expected_files(model, layers, ranks,
                                                                   False).items()}
    logs = reads_by_rank(base)
    assert sorted(logs) == list(range(ranks))
    for rank, (node, calls) in logs.items():
        assert node == node_of[rank]
        source = (rank + per_node) % ranks
        assert node_of[source] != node
        got = defaultdict(int)
        for path, _, length in calls:
            got[os.path.relpath(path, folder)] += length
        assert dict(got) == {f"checkpoint-{k}/layer-{layer}-shard-{source}":
                             sizes[f"layer-{layer}-shard-{source}"]
                             for k in (0, 1) for layer in range(layers)}, rank

    writes = measurements(results, names.TrainCheckpoint.WRITE)
    reads = measurements(results, names.TrainCheckpoint.READ)
    assert [r["iteration"] for r in writes] == [0, 1] == [r["iteration"] for r in reads]
    for rec in writes + reads:
        check_extra(rec)
        assert rec["bytes"] == model
        assert rec["extra"][names.TrainCheckpoint.COMPUTE_BEFORE_S] >= PACE
    for rec in reads:
        # the pattern of the shard a rank read is its writer's: a read of its own would differ
        assert rec["verify"] == {"checked": True, "errors": 0, "bytes_checked": model}
        assert rec["extra"][names.TrainCheckpointRead.RANK_SHIFT] == per_node

    # the compute lies between the checkpoints, outside each one's span: from one's end to the
    # next one's start at least the pace, on the run clock of their time series
    ordered = ([spans(results, names.TrainCheckpoint.WRITE)[k] for k in (0, 1)]
               + [spans(results, names.TrainCheckpoint.READ)[k] for k in (0, 1)])
    for (_, end), (start, _) in zip(ordered, ordered[1:], strict=False):
        assert start - end >= PACE * 0.99, ordered
    for rec, (start, end) in zip(writes + reads, ordered, strict=True):
        assert rec["seconds"] <= end - start + 5e-3
    for rec, (start, end) in zip(writes, ordered[:2], strict=True):
        # the same span as the time series sees it (each taken at its own call)
        assert rec["extra"][names.TrainCheckpointWrite.STALL_S] == pytest.approx(end - start,
                                                                                 abs=5e-3)


def test_a_shift_on_one_node_is_refused_before_any_checkpoint(tmp_path):
    folder = tmp_path / "ckpt"
    proc = run_sonde(checkpoint_args(folder, 4096, 1, "all_ranks", False, "--checkpoint-writes",
                                     1, "--checkpoint-reads", 1, "--recovery-rank-shift"),
                     np=2, check=False)
    assert proc.returncode == 2, proc.stderr
    (line,) = error_lines(proc.stderr)
    assert "--recovery-rank-shift: all 2 ranks are on one node" in line
    assert not folder.exists()


CKPT_ONLY = ["--checkpoint-writes", 1, "--checkpoint-reads", 1, "--checkpoint-folder", "c",
             "--model-size", "1m"]


@pytest.mark.once
@pytest.mark.parametrize("ranks,per_node,args,words", [
    (2, 1, [*CKPT_ONLY, "--time-between-checkpoints", -1],
     "option --time-between-checkpoints: -1 is not a time of 0 seconds or more"),
    (2, 1, ["--train", "--epochs-between-checkpoints", 1, "--checkpoint-folder", "c",
            "--model-size", "1m", "--time-between-checkpoints", 0],
     "--time-between-checkpoints paces checkpoint-only runs"),
    (2, 1, ["--time-between-checkpoints", 1],
     "--time-between-checkpoints: no checkpoint is asked for"),
    (1, 1, [*CKPT_ONLY, "--recovery-rank-shift"],
     "--recovery-rank-shift: all 1 rank is on one node"),
    (4, 4, [*CKPT_ONLY, "--recovery-rank-shift"],
     "--recovery-rank-shift: all 4 ranks are on one node"),
    (3, 2, [*CKPT_ONLY, "--recovery-rank-shift"],
     "--recovery-rank-shift: the nodes hold 1 to 2 ranks"),
    (2, 1, ["--checkpoint-writes", 1, "--checkpoint-folder", "c", "--model-size", "1m",
            "--recovery-rank-shift"], "--recovery-rank-shift applies to checkpoint reads"),
])
def test_bad_pacing_and_shift_are_one_line(ranks, per_node, args, words):
    proc = run_sonde(["--parse-only", ranks, per_node, "train", "-d", "/nonexistent", *args],
                     mpi=False, check=False)
    assert proc.returncode == 2, proc.stderr
    (line,) = error_lines(proc.stderr)
    assert words in line


@pytest.mark.once
def test_a_shift_over_two_nodes_and_a_preset_pace_are_the_params():
    """4 ranks, 2 a node, fill the nodes in order: the shift is accepted; MLPerf Storage's
    llama3 files pace their checkpoint-only runs by 5 s, which a --checkpoint-preset fills
    (the option given wins)."""
    T = names.TRAIN

    def params(*args):
        proc = run_sonde(["--parse-only", 4, 2, "train", "-d", "/nonexistent", *args],
                         mpi=False, check=False)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)["params"]

    p = params(*CKPT_ONLY, "--recovery-rank-shift")
    assert (p[T.RECOVERY_RANK_SHIFT], p[T.TIME_BETWEEN_CHECKPOINTS]) == (True, 0)
    ckpt = ["--checkpoint-writes", 1, "--checkpoint-folder", "c"]
    assert params(*ckpt, "--checkpoint-preset", "llama3-8b")[T.TIME_BETWEEN_CHECKPOINTS] == 5
    assert params(*ckpt, "--checkpoint-preset", "llama3-8b", "--time-between-checkpoints",
                  0.5)[T.TIME_BETWEEN_CHECKPOINTS] == 0.5
