# SPDX-License-Identifier: BSD-3-Clause
"""sonde train's checkpoints: the files each layout makes (counted and sized with os.walk and
stat against the layout worked out here), their bytes against sonde's data pattern recomputed
here, the records' bytes against the bytes on disk, the read-back verified, a corrupted byte
caught (exit 3, the file and rank named), a full disk named (exit 1), checkpoints during
training, and the options' checks and presets (sonde --parse-only)."""

import json
import os

import pytest
from btio_util import GOLDEN, MASK, _mix64, _stream
from conftest import read_jsonl, run_sonde
from faultlib import error_lines, mount_tmpfs, umount
from sonde.results import names

SEED = 1  # sonde train's default --seed


def split(total, parts):
    """total bytes in parts, the first total % parts parts a byte more: (start, length)."""
    base, extra = divmod(total, parts)
    return [(k * base + min(k, extra), base + (k < extra)) for k in range(parts)]


def expected_files(model, layers, writers, shared):
    """{name: (offset in the checkpoint's bytes, length)} of one checkpoint's files."""
    if shared:
        return {"checkpoint": (0, model)}
    files = {}
    for layer, (lstart, lbytes) in enumerate(split(model, layers)):
        for shard, (sstart, sbytes) in enumerate(split(lbytes, writers)):
            files[f"layer-{layer}-shard-{shard}"] = (lstart + sstart, sbytes)
    return files


def pattern(stream, length):
    """sonde's data pattern (src/core/pattern.c) of a stream from offset 0, recomputed."""
    base = _mix64(SEED ^ _mix64((stream + GOLDEN) & MASK))
    words = (_mix64((base + (i + 1) * GOLDEN) & MASK) for i in range((length + 7) // 8))
    return b"".join(w.to_bytes(8, "little") for w in words)[:length]


def expected_bytes(name, index, length):
    if name == "checkpoint":
        return pattern(_stream(0, 0, index), length)
    layer, shard = (int(x) for x in name.split("-")[1::2])
    return pattern(_stream(shard, layer + 1, index), length)


def on_disk(folder):
    """{checkpoint folder name: {file name: size}} as os.walk and stat see them."""
    found = {}
    for top, _, files in os.walk(folder):
        for f in files:
            found.setdefault(os.path.basename(top), {})[f] = os.stat(os.path.join(top, f)).st_size
    return found


def measurements(path, phase):
    return [r for r in read_jsonl(path) if r["type"] == "measurement" and r["phase"] == phase]


def name_set(cls):
    return [v for k, v in vars(cls).items() if isinstance(v, names.Name)]


def check_extra(rec):
    """The extra of a checkpoint record has exactly the members sonde.results.names names,
    each of its type."""
    own = (names.TrainCheckpointWrite if rec["phase"] == names.TrainCheckpoint.WRITE
           else names.TrainCheckpointRead)
    expected = name_set(names.TrainCheckpoint) + name_set(own)
    assert sorted(rec["extra"]) == sorted(expected)
    for name in expected:
        assert name.typed(rec["extra"][name]), (name, rec["extra"])


def checkpoint_args(folder, model, layers, kind, shared, *more):
    args = ["train", "-d", folder.parent, "--checkpoint-folder", folder, "--model-size", model,
            "--num-layers", layers, "--checkpoint-type", kind, *more]
    return args + (["--checkpoint-shared-file"] if shared else [])


LAYOUTS = [  # (ranks, checkpoint type, shared file, layers)
    (2, "all_ranks", False, 3),
    (2, "rank_zero", False, 2),
    (3, "all_ranks", True, 2),
    (2, "rank_zero", True, 3),
]


@pytest.mark.parametrize("ranks,kind,shared,layers", LAYOUTS)
def test_checkpoint_files_sizes_and_bytes_match_the_layout(tmp_path, ranks, kind, shared,
                                                           layers):
    model = 300007  # no layer or shard divides it evenly
    folder = tmp_path / "ckpt"
    results = tmp_path / "r.json"
    proc = run_sonde(checkpoint_args(folder, model, layers, kind, shared,
                                     "--checkpoint-writes", 2, "--checkpoint-reads", 2,
                                     "--checkpoint-verify", "--json", results), np=ranks)
    # no dataset is used, so none is described: the run's line says what it does
    assert " files x " not in proc.stdout and "train" not in os.listdir(tmp_path)
    assert (f"checkpoints only, 2 written and 2 read, {model} bytes each, in {folder}; "
            f"{ranks} ranks") in proc.stdout
    writers = ranks if kind == "all_ranks" else 1
    want = expected_files(model, layers, writers, shared)
    disk = on_disk(folder)
    assert sorted(disk) == ["checkpoint-0", "checkpoint-1"]
    for index in (0, 1):
        assert disk[f"checkpoint-{index}"] == {n: ln for n, (_, ln) in want.items()}
        for name, (_, length) in want.items():
            data = (folder / f"checkpoint-{index}" / name).read_bytes()
            assert data == expected_bytes(name, index, length), (index, name)
    writes = measurements(results, names.TrainCheckpoint.WRITE)
    reads = measurements(results, names.TrainCheckpoint.READ)
    assert [r["iteration"] for r in writes] == [0, 1] == [r["iteration"] for r in reads]
    for rec in writes + reads:
        check_extra(rec)
        on_disk_bytes = sum(disk[f"checkpoint-{rec['iteration']}"].values())
        assert rec["bytes"] == on_disk_bytes == model
        assert rec["extra"]["files"] == len(want)
        assert rec["extra"]["writing_ranks"] == writers
        assert rec["seconds"] > 0
    for rec in writes:
        # training stands still from the opening barrier to the last close: at least as
        # long as any rank's own calls (two sums of different clock reads: equal spans may
        # differ in the last bit)
        assert rec["extra"]["stall_s"] >= rec["seconds"] * (1 - 1e-12)
    for rec in reads:
        assert rec["verify"] == {"checked": True, "errors": 0, "bytes_checked": model}
    end = read_jsonl(results)[-1]
    assert end["type"] == "end" and end["exit_code"] == 0


def test_a_corrupted_or_other_checkpoint_is_caught_naming_file_and_rank(tmp_path):
    folder = tmp_path / "ckpt"
    args = checkpoint_args(folder, 40000, 2, "all_ranks", False)
    run_sonde(args + ["--checkpoint-writes", 1], np=2)
    # a byte of rank 1's shard of layer 1, read back by rank 1 in a later run
    victim = folder / "checkpoint-0" / "layer-1-shard-1"
    data = bytearray(victim.read_bytes())
    data[1234] ^= 0xFF
    victim.write_bytes(bytes(data))
    results = tmp_path / "r.json"
    proc = run_sonde(args + ["--checkpoint-reads", 1, "--checkpoint-verify", "--json", results],
                     np=2, check=False)
    assert proc.returncode == 3, proc.stderr
    assert f"verify: rank 1: {victim}: offset 1234:" in proc.stderr
    (read,) = measurements(results, names.TrainCheckpoint.READ)
    assert read["verify"] == {"checked": True, "errors": 1, "bytes_checked": 40000}
    end = read_jsonl(results)[-1]
    assert end["exit_code"] == 3 and end["reason"] == "verification"
    # read with another layout (half the model size): the files' sizes say so, before a byte
    # is compared
    other = checkpoint_args(folder, 20000, 2, "all_ranks", False)
    proc = run_sonde(other + ["--checkpoint-reads", 1, "--checkpoint-verify"], np=2, check=False)
    assert proc.returncode == 2, proc.stderr
    (line,) = error_lines(proc.stderr)
    shard = folder / "checkpoint-0" / "layer-0-shard-0"
    assert f"{shard} holds 10000 bytes where this checkpoint's layout has 5000" in line


def test_a_missing_checkpoint_to_read_is_named_as_input(tmp_path):
    folder = tmp_path / "ckpt"
    proc = run_sonde(checkpoint_args(folder, 4096, 1, "rank_zero", False,
                                     "--checkpoint-reads", 1), np=2, check=False)
    assert proc.returncode == 2, proc.stderr
    (line,) = error_lines(proc.stderr)
    assert str(folder / "checkpoint-0" / "layer-0-shard-0") in line


@pytest.fixture
def small_fs():
    d = mount_tmpfs("1m", "a full file system")
    yield d
    umount(d)


@pytest.mark.parametrize("shared", [False, True])
def test_a_full_disk_is_one_line_naming_the_file(small_fs, tmp_path, shared):
    folder = small_fs / "ckpt"
    results = tmp_path / "r.json"
    proc = run_sonde(checkpoint_args(folder, "4m", 1, "all_ranks", shared,
                                     "--checkpoint-writes", 1, "--json", results),
                     np=2, check=False)
    assert proc.returncode == 1, proc.stderr
    (line,) = error_lines(proc.stderr)
    assert "No space left on device" in line and str(folder / "checkpoint-0") in line
    end = read_jsonl(results)[-1]
    assert end["reason"] == "io-error" and str(folder / "checkpoint-0") in end["path"]
    assert not measurements(results, names.TrainCheckpoint.WRITE)


def test_checkpoints_during_training_stall_it_and_read_back(tmp_path):
    folder = tmp_path / "ckpt"
    results = tmp_path / "r.json"
    proc = run_sonde(["train", "-d", tmp_path, "--generate", "--train", "--epochs", 2,
                      "--num-files", 4, "--record-size", "4k", "--batch-size", 1,
                      "--steps-between-checkpoints", 1, "--epochs-between-checkpoints", 1,
                      "--checkpoint-folder", folder, "--model-size", "64k", "--num-layers", 2,
                      "--checkpoint-type", "all_ranks", "--checkpoint-verify", "--interval", 0.01,
                      "--json", results],
                     np=2)
    # training describes its dataset (4 files of 1 sample of 4 KiB) before the checkpoints
    assert f"4 files x 1 samples of 4096 bytes (stdev 0), npy, in {tmp_path}/train" in proc.stdout
    assert "checkpoints only" not in proc.stdout
    writes = measurements(results, names.TrainCheckpoint.WRITE)
    # 2 steps per rank and epoch: a checkpoint after each, and one after each epoch
    assert [(w["extra"]["epoch"], w["extra"]["step"]) for w in writes] == [
        (0, 1), (0, 2), (0, 2), (1, 3), (1, 4), (1, 4)]
    assert [w["iteration"] for w in writes] == list(range(6))
    reads = measurements(results, names.TrainCheckpoint.READ)
    assert [r["iteration"] for r in reads] == list(range(6))
    assert all(r["verify"] == {"checked": True, "errors": 0, "bytes_checked": 65536}
               for r in reads)
    assert len(on_disk(folder)) == 6
    for w in writes:
        assert w["bytes"] == 65536 and w["extra"]["stall_s"] >= w["seconds"] * (1 - 1e-12) > 0
    # --interval: a checkpoint between steps is inside its epoch's time series (a time without
    # batches), whose intervals still hold every sample; one after an epoch has its own
    intervals = [r for r in read_jsonl(results) if r["type"] == "interval"]
    for e in measurements(results, "train"):
        assert sum(r["ops"] for r in intervals if r["phase"] == "train"
                   and r["iteration"] == e["iteration"]) == e["extra"]["samples"] == 2 * 2
    assert sorted({r["iteration"] for r in intervals
                   if r["phase"] == names.TrainCheckpoint.WRITE}) == [2, 5]


def parse_only(*args, ranks=2):
    return run_sonde(["--parse-only", ranks, ranks, "train", "-d", "/nonexistent", *args],
                     mpi=False, check=False)


@pytest.mark.once
@pytest.mark.parametrize("args,words", [
    (["--model-size", "1m"], "--model-size: no checkpoint is asked for"),
    (["--checkpoint-writes", 1, "--model-size", "1m"], "--checkpoint-folder DIR is required"),
    (["--checkpoint-writes", 1, "--checkpoint-folder", "c"], "--model-size BYTES"),
    (["--checkpoint-writes", 1, "--checkpoint-reads", 2, "--checkpoint-folder", "c",
      "--model-size", "1m"], "--checkpoint-reads 2 is more than the 1 checkpoints written"),
    (["--train", "--checkpoint-writes", 1, "--checkpoint-folder", "c", "--model-size", "1m"],
     "checkpoint-only runs: without --train"),
    (["--epochs-between-checkpoints", 1, "--checkpoint-folder", "c", "--model-size", "1m"],
     "apply to --train"),
    (["--checkpoint-writes", 1, "--checkpoint-folder", "c", "--model-size", 3,
      "--num-layers", 2, "--checkpoint-type", "all_ranks"],
     "--model-size 3 is less than a byte for each of 2 layers x 2 writing ranks"),
    (["--checkpoint-writes", 1, "--checkpoint-folder", "c", "--model-size", "1m",
      "--checkpoint-type", "some"], "'some' is not rank_zero or all_ranks"),
    (["--checkpoint-writes", 1, "--checkpoint-folder", "c", "--checkpoint-preset", "gpt"],
     "'gpt' is not llama3-8b, llama3-70b, llama3-405b or llama3-1t"),
    (["--generate", "--preset", "bert", "--accelerator", "a100"],
     "'bert' is not unet3d, resnet50 or cosmoflow"),
    (["--generate", "--preset", "unet3d"], "--preset unet3d needs --accelerator a100 or h100"),
    (["--generate", "--preset", "unet3d", "--accelerator", "v100"], "'v100' is not a100 or h100"),
])
def test_bad_checkpoint_and_preset_options_are_one_line(args, words):
    proc = parse_only(*args)
    assert proc.returncode == 2, proc.stderr
    (line,) = error_lines(proc.stderr)
    assert words in line


@pytest.mark.once
def test_a_path_past_path_max_is_one_line_not_a_cut_name():
    """A dataset or checkpoint folder whose names would pass PATH_MAX is refused with the length
    the dataset's longest name would have (counted here from DLIO's naming), not cut short."""
    folder = "/" + "d" * 4080
    longest = len(f"{folder}/train/img_7_of_8.npy")
    path_max = os.pathconf("/", "PC_PATH_MAX")
    proc = parse_only("--generate", "-d", folder)
    assert proc.returncode == 2, proc.stderr
    (line,) = error_lines(proc.stderr)
    assert f"file names would be {longest} bytes, above PATH_MAX ({path_max})" in line
    proc = parse_only("--checkpoint-writes", 1, "--model-size", "1m",
                      "--checkpoint-folder", folder)
    assert proc.returncode == 2, proc.stderr
    (line,) = error_lines(proc.stderr)
    assert f"a path of {len(folder)} bytes leaves no room below PATH_MAX" in line


def params(*args):
    proc = parse_only(*args, ranks=8)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["params"]


@pytest.mark.once
def test_presets_fill_only_what_was_not_given():
    T = names.TRAIN
    # MLPerf Storage v2.0's llama3_8b.yaml through DLIO's checkpoint formula: 8 ranks x
    # (2007565312 model + 12045637632 optimizer bytes), 32 layers
    p = params("--checkpoint-writes", 1, "--checkpoint-folder", "c",
               "--checkpoint-preset", "llama3-8b")
    assert p[T.MODEL_SIZE] == 8 * (2007565312 + 12045637632)
    assert (p[T.NUM_LAYERS], p[T.CHECKPOINT_TYPE]) == (32, "all_ranks")
    p = params("--checkpoint-writes", 1, "--checkpoint-folder", "c",
               "--checkpoint-preset", "llama3-70b", "--num-layers", 4)
    assert (p[T.MODEL_SIZE], p[T.NUM_LAYERS]) == (978406572032, 4)
    # unet3d_h100.yaml: npz, 168 files of 1 sample of 146600628 bytes (stdev 68341808),
    # batch 7, 4 read threads, 0.323 s per batch, 5 epochs, AU 0.90, shuffles seed
    p = params("--generate", "--preset", "unet3d", "--accelerator", "h100", "--batch-size", 2)
    assert (p[T.FORMAT], p[T.NUM_FILES], p[T.SAMPLES_PER_FILE]) == ("npz", 168, 1)
    assert (p[T.RECORD_SIZE], p[T.RECORD_SIZE_STDEV]) == (146600628, 68341808)
    assert (p[T.BATCH_SIZE], p[T.READ_THREADS], p[T.EPOCHS]) == (2, 4, 5)
    assert (p[T.COMPUTE_TIME], p[T.AU_THRESHOLD]) == (0.323, 0.9)
    assert (p[T.FILE_SHUFFLE], p[T.SAMPLE_SHUFFLE]) == ("seed", "seed")
    assert p[T.MODEL_SIZE] == 0  # no --checkpoint-folder: no checkpoint
    # with a checkpoint folder and --train, unet3d's checkpoint: 499153191 bytes by rank 0
    # after the 5th epoch
    p = params("--train", "--preset", "unet3d", "--accelerator", "a100",
               "--checkpoint-folder", "c")
    assert (p[T.MODEL_SIZE], p[T.EPOCHS_BETWEEN_CHECKPOINTS]) == (499153191, 5)
    assert (p[T.CHECKPOINT_TYPE], p[T.COMPUTE_TIME]) == ("rank_zero", 0.636)
    # resnet50 and cosmoflow are TFRecord: many samples per file read one by one, sonde's
    # indexed format
    p = params("--generate", "--preset", "resnet50", "--accelerator", "a100")
    assert (p[T.FORMAT], p[T.NUM_FILES], p[T.SAMPLES_PER_FILE], p[T.BATCH_SIZE]) == (
        "indexed", 1024, 1251, 400)
    p = params("--generate", "--preset", "cosmoflow", "--accelerator", "h100")
    assert (p[T.NUM_FILES], p[T.RECORD_SIZE], p[T.COMPUTE_TIME], p[T.AU_THRESHOLD]) == (
        524288, 2828486, 0.0035, 0.7)
