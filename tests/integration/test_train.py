# SPDX-License-Identifier: BSD-3-Clause
"""sonde train: the dataset it generates (numpy loads it; sizes and counts from the files
themselves), the reads of each epoch (every sample exactly once across the ranks, logged by an
LD_PRELOAD shim, an order that changes between epochs and repeats for a seed), AU with a
known injected read delay, with and without --verify, and the epochs' time series."""

import os
import struct
from collections import Counter

import numpy
import pytest
from btio_util import GOLDEN, MASK, _mix64, _stream
from conftest import read_jsonl, run_sonde
from preload import build_shim, preload_env
from read_log import read_logs


@pytest.fixture(scope="module")
def read_log_shim(tmp_path_factory):
    return build_shim("logged_read", tmp_path_factory.mktemp("shim"))


def dataset_files(root, ext):
    found = []
    for folder, _, names in os.walk(root / "train"):
        found += [os.path.join(folder, n) for n in names if n.endswith("." + ext)]
    return sorted(found)


def records(path, kind, phase=None):
    return [r for r in read_jsonl(path) if r["type"] == kind
            and (phase is None or r.get("phase") == phase)]


def pattern_bytes(seed, path, length):
    """The bytes sonde's data pattern (src/core/pattern.c) puts in the array of the dataset file
    at path (stream (0, file, 0), the file's number from its name), recomputed here."""
    file = int(os.path.basename(path).split("_")[1])
    base = _mix64(seed ^ _mix64((_stream(0, file, 0) + GOLDEN) & MASK))
    words = (_mix64((base + (i + 1) * GOLDEN) & MASK) for i in range((length + 7) // 8))
    return b"".join(w.to_bytes(8, "little") for w in words)[:length]


def npy_data_offset(path):
    """Where the array starts in an .npy file, from its own header (format 1.0)."""
    with open(path, "rb") as f:
        head = f.read(10)
    assert head[:8] == b"\x93NUMPY\x01\x00"
    return 10 + struct.unpack("<H", head[8:10])[0]


FILES, PER_FILE, BATCH = 6, 2, 2
VERIFY_RECORD = 4 << 20  # a sample whose check takes a good part of a read's delay
COMMON = ["--num-files", FILES, "--samples-per-file", PER_FILE, "--record-size", 3000,
          "--record-size-stdev", 500, "--batch-size", BATCH, "--seed", 7]


def test_npy_epochs_read_every_sample_once_in_a_new_order(tmp_path, read_log_shim):
    """Launch 1 generates an npy dataset in 2 subfolders and trains 2 epochs with seeded file and
    sample shuffles, verified; launch 2 trains again with the same seed: the same order."""
    data, out = tmp_path / "ds", tmp_path / "r1.jsonl"
    data.mkdir()
    log1 = str(tmp_path / "log1" / "reads")
    os.mkdir(os.path.dirname(log1))
    env = preload_env(read_log_shim, {"SONDE_TEST_READ_MATCH": "/train/",
                                      "SONDE_TEST_READ_LOG": log1})
    shuffles = ["--sample-shuffle", "seed", "--num-subfolders", 2]
    run_sonde(["train", "-d", data, "--generate", "--train", "--epochs", 2, "--read-threads", 1,
               "--verify", "--json", out] + COMMON + shuffles,
              np=2, env=env)

    # the files, as numpy and the file system see them
    files = dataset_files(data, "npy")
    assert len(files) == FILES
    assert {os.path.basename(os.path.dirname(f)) for f in files} == {"0", "1"}
    sizes = {}
    for f in files:
        a = numpy.load(f)
        assert a.dtype == numpy.uint8 and a.shape[0] == PER_FILE
        assert os.path.getsize(f) == npy_data_offset(f) + a.size
        assert a.tobytes() == pattern_bytes(7, f, a.size)
        sizes[f] = a.shape[1]
    assert len(set(sizes.values())) > 1, "the sizes are drawn with a standard deviation"
    gen = records(out, "measurement", "generate")[0]
    assert gen["bytes"] == sum(os.path.getsize(f) for f in files)

    # every sample exactly once per epoch across the ranks, from the reads logged
    logs = read_logs(log1)
    assert len(logs) == 2
    per_rank = (FILES * PER_FILE) // 2
    epochs = []
    for e in range(2):
        reads = [r for log in logs for r in log[e * per_rank:(e + 1) * per_rank]]
        samples = Counter((p, (o - npy_data_offset(p)) // sizes[p]) for p, o, _, _ in reads)
        assert all(n == sizes[p] for p, _, n, _ in reads), "a sample in one call"
        assert len(samples) == FILES * PER_FILE and set(samples.values()) == {1}
        epochs.append([[r[:2] for r in log[e * per_rank:(e + 1) * per_rank]] for log in logs])
    # without a file shuffle each rank reads its own block of samples every epoch (DLIO's
    # sharding), in another order
    for before, after in zip(epochs[0], epochs[1], strict=True):
        assert sorted(before) == sorted(after) and before != after

    train = records(out, "measurement", "train")
    assert [m["iteration"] for m in train] == [0, 1]
    for m in train:
        assert m["extra"]["samples"] == FILES * PER_FILE
        assert m["bytes"] == sum(sizes.values()) * PER_FILE
        assert m["ops"] == FILES * PER_FILE
        assert m["verify"] == {"checked": True, "errors": 0, "bytes_checked": m["bytes"]}

    # launch 2: the same seed reads in the same order
    log2 = str(tmp_path / "log2" / "reads")
    os.mkdir(os.path.dirname(log2))
    env = preload_env(read_log_shim, {"SONDE_TEST_READ_MATCH": "/train/",
                                      "SONDE_TEST_READ_LOG": log2})
    run_sonde(["train", "-d", data, "--train", "--epochs", 2, "--read-threads", 1]
              + COMMON + shuffles, np=2, env=env)
    again = read_logs(log2)
    assert sorted(log1_seq for log1_seq in ([r[:2] for r in log] for log in logs)) == \
        sorted([r[:2] for r in log] for log in again)


@pytest.mark.timing
def test_au_with_a_known_read_delay(tmp_path, read_log_shim):
    """A delay of D per read with the main thread reading batches of one sample: AU = C / (C +
    D) on every rank, with --verify too (the main thread reads: nothing reads during a check).
    A timing (marker timing: make test runs it on a quiet machine), since the compute sleeps
    and the delays overshoot on a loaded one."""
    data, out = tmp_path / "ds", tmp_path / "r.jsonl"
    data.mkdir()
    log = str(tmp_path / "log" / "reads")
    os.mkdir(os.path.dirname(log))
    delay, compute = 0.05, 0.1
    env = preload_env(read_log_shim, {"SONDE_TEST_READ_MATCH": "/train/",
                                      "SONDE_TEST_READ_LOG": log,
                                      "SONDE_TEST_READ_DELAY": str(delay)})
    args = ["train", "-d", data, "--generate", "--train", "--epochs", 2, "--read-threads", 0,
            "--compute-time", compute, "--au-threshold", 0.9, "--interval", 0.1, "--verify",
            "--json", out] + COMMON
    args[args.index("--batch-size") + 1] = 1
    proc = run_sonde(args, np=2, env=env)
    expected = compute / (compute + delay)
    for m in records(out, "measurement", "train"):
        x = m["extra"]
        assert x["au_min"] == pytest.approx(expected, rel=0.05)
        assert x["au_max"] == pytest.approx(expected, rel=0.05)
        assert x["au_pass"] is False and x["ranks_below_threshold"] == [0, 1]
        # the time series of the epoch: its batches, as the accelerator got them
        series = [r for r in records(out, "interval", "train") if r["iteration"] == m["iteration"]]
        assert sum(r["bytes"] for r in series) == m["bytes"]
        assert sum(r["ops"] for r in series) == x["samples"] == FILES * PER_FILE
    summary = records(out, "summary")[0]
    assert summary["au_pass"] is False
    assert "FAIL" in proc.stdout.splitlines()[-1]


@pytest.mark.timing
@pytest.mark.parametrize("threads,compute", [(2, 0.034), (1, 0.074)])
def test_verify_leaves_au_and_wait_as_without_it(tmp_path, read_log_shim, threads, compute):
    """Batches of 2 samples read by 1 or 2 threads, 2 or 3 batches ahead, with a delay per read,
    and a compute c a batch shorter than its reads: the readers are the bottleneck, where a
    check that let them read on would shorten the next waits and raise AU. With d a read's time
    (the delay and the read itself, timed by the shim), a batch takes t = 2 d / threads, batch k
    is ready at (k + 1) t, so a rank of n batches waits t for the first and t - c for each other:
    wait = n t - (n - 1) c, AU = n c / (n t + c). Launch 1 without --verify, launch 2 with it
    (the checks take a good part of t - c): both equal that recomputation within 5 %, and each
    other: AU within 5 %, the wait against its recomputation within 3 % (the wait itself moves
    n t / wait times as much as t from one launch to the next). A timing (marker timing), as
    the AU test above. Out of the way of 8 other sessions (real-time priority) both launches
    read 1.01-1.02 of the recomputed wait; with the readers reading on during the checks, as
    before the pause, the launch with --verify read 0.86 and 0.90."""
    data = tmp_path / "ds"
    data.mkdir()
    delay, files, batch = 0.04, 12, 2
    n = files // batch  # batches of the one rank
    args = ["train", "-d", data, "--train", "--num-files", files, "--samples-per-file", 1,
            "--record-size", VERIFY_RECORD, "--batch-size", batch, "--read-threads", threads,
            "--prefetch", threads + 1, "--compute-time", compute]
    figures, waits = {}, {}
    for verify in (False, True):
        log = tmp_path / f"log-{verify}" / "reads"
        log.parent.mkdir()
        env = preload_env(read_log_shim, {"SONDE_TEST_READ_MATCH": "/train/",
                                          "SONDE_TEST_READ_LOG": str(log),
                                          "SONDE_TEST_READ_DELAY": str(delay)})
        out = tmp_path / f"verify-{verify}.jsonl"
        run_sonde(args + (["--verify"] if verify else ["--generate"]) + ["--json", out], env=env)
        calls = [r[3] for rank in read_logs(str(log)) for r in rank]
        assert len(calls) == files
        t = batch * sum(calls) / len(calls) / threads
        (m,) = records(out, "measurement", "train")
        figures[verify] = x = m["extra"]
        c = x["compute_s_mean"] / n
        waits[verify] = x["wait_s_mean"] / (n * t - (n - 1) * c)
        assert waits[verify] == pytest.approx(1, rel=0.05), verify
        assert x["au_mean"] == pytest.approx(n * c / (n * t + c), rel=0.05), verify
    # the test tells: had the readers read on during the checks, the waits after the first
    # would have been shorter by about the checks' time, twice the tolerance at least
    checks = figures[True]["verify_s_max"] * (n - 1) / n
    assert checks > 0.06 * figures[True]["wait_s_mean"], \
        "the checks took too little time here for the test to tell"
    assert waits[True] == pytest.approx(waits[False], abs=0.03)
    assert figures[True]["au_mean"] == pytest.approx(figures[False]["au_mean"], rel=0.05)


@pytest.mark.timing
def test_a_late_wake_from_compute_is_neither_compute_nor_data(tmp_path, read_log_shim):
    """The emulated accelerator's compute takes the time drawn, however late its thread wakes
    from the sleep: a shim wakes the main thread x late from every compute sleep (as a busy node
    does, and as --verify's paused readers did, AU 2x on tmpfs). One reader thread one batch
    ahead (--prefetch 1) reads a sample in d (its delay and the read, timed by the shim) while
    the accelerator computes c < d: batch k is whole d after batch k - 1 was released, so the
    accelerator waits d for the first and d - c for each other, late wake or not: AU = n c /
    (n d + c) (3 % of the recomputation). Counting the late wake as compute, as before, read
    n (c + x) / (n d + c + x), 0.67 where this reads 0.24. The compute counted is n c exactly,
    and compute_overrun_s_max at least n x. A timing (marker timing), as the tests above."""
    data = tmp_path / "ds"
    data.mkdir()
    delay, compute, late, n = 0.04, 0.01, 0.02, 6
    late_wake = build_shim("late_wake", tmp_path)
    log = tmp_path / "log" / "reads"
    log.parent.mkdir()
    env = preload_env(read_log_shim, {"SONDE_TEST_READ_MATCH": "/train/",
                                      "SONDE_TEST_READ_LOG": str(log),
                                      "SONDE_TEST_READ_DELAY": str(delay),
                                      "SONDE_TEST_LATE_WAKE": str(late),
                                      "SONDE_TEST_LATE_WAKE_MIN": str(compute / 2)})
    env["LD_PRELOAD"] += " " + str(late_wake)
    out = tmp_path / "r.jsonl"
    run_sonde(["train", "-d", data, "--generate", "--train", "--num-files", n,
               "--samples-per-file", 1, "--record-size", 3000, "--batch-size", 1,
               "--read-threads", 1, "--prefetch", 1, "--compute-time", compute,
               "--json", out], env=env)
    calls = [r[3] for rank in read_logs(str(log)) for r in rank]
    assert len(calls) == n
    d = sum(calls) / n
    (m,) = records(out, "measurement", "train")
    x = m["extra"]
    assert x["compute_s_mean"] == pytest.approx(n * compute, rel=1e-9)
    assert x["compute_overrun_s_max"] >= n * late
    assert x["wait_s_mean"] == pytest.approx(n * d - (n - 1) * compute, rel=0.03)
    assert x["au_mean"] == pytest.approx(n * compute / (n * d + compute), rel=0.03)


def test_indexed_and_npz_files(tmp_path):
    """indexed: the index file's (offset, length) pairs describe the data file, and a sample
    larger than the transfer size takes ceil(size / transfer) calls; npz: numpy loads it."""
    data, out = tmp_path / "ix", tmp_path / "ix.jsonl"
    data.mkdir()
    transfer = 1024
    run_sonde(["train", "-d", data, "--generate", "--train", "--format", "indexed",
               "--transfer-size", transfer, "--verify", "--read-threads", 2, "--file-shuffle",
               "random", "--sample-shuffle", "random", "--json", out] + COMMON, np=2)
    bins, idxs = dataset_files(data, "bin"), dataset_files(data, "idx")
    assert len(bins) == FILES and len(idxs) == FILES
    calls = 0
    for b in bins:
        raw = open(b[:-3] + "idx", "rb").read()
        pairs = [struct.unpack("<QQ", raw[i:i + 16]) for i in range(0, len(raw), 16)]
        assert len(pairs) == PER_FILE
        assert [o for o, _ in pairs] == [k * pairs[0][1] for k in range(PER_FILE)]
        assert os.path.getsize(b) == sum(n for _, n in pairs)
        calls += sum(-(-n // transfer) for _, n in pairs)
    (m,) = records(out, "measurement", "train")
    assert m["ops"] == calls
    assert m["bytes"] == sum(os.path.getsize(b) for b in bins)
    assert m["verify"]["errors"] == 0 and m["verify"]["bytes_checked"] == m["bytes"]
    # every rank reads each index file it needs: at least one per file
    assert m["extra"]["index_calls"] >= FILES
    # the seed the random shuffles drew is in the summary
    assert isinstance(records(out, "summary")[0]["random_seed"], int)

    # one byte changed on the file system: --verify names the file and its offset, exit 3
    bad, at = bins[3], 5
    with open(bad, "r+b") as f:
        f.seek(at)
        byte = f.read(1)[0]
        f.seek(at)
        f.write(bytes([byte ^ 0xFF]))
    out_bad = tmp_path / "bad.jsonl"
    proc = run_sonde(["train", "-d", data, "--train", "--format", "indexed", "--verify",
                      "--json", out_bad] + COMMON, np=2, check=False)
    assert proc.returncode == 3, proc.stderr
    assert f"{bad}: offset {at}: expected 0x{byte:02x}, found 0x{byte ^ 0xFF:02x}" in proc.stderr
    (m,) = records(out_bad, "measurement", "train")
    assert m["verify"]["errors"] == 1 and m["verify"]["bytes_checked"] == m["bytes"]
    assert records(out_bad, "end")[0]["reason"] == "verification"

    npz, out2 = tmp_path / "nz", tmp_path / "nz.jsonl"
    npz.mkdir()
    run_sonde(["train", "-d", npz, "--generate", "--train", "--format", "npz", "--verify",
               "--json", out2] + COMMON, np=2)
    for f in dataset_files(npz, "npz"):
        with numpy.load(f) as z:
            assert z.files == ["x"]
            assert z["x"].dtype == numpy.uint8 and z["x"].shape[0] == PER_FILE
    assert records(out2, "measurement", "train")[0]["verify"]["errors"] == 0

    # a sample file cut short: one error line naming it and its size, before the first epoch,
    # exit 2 (the input is not the dataset the options name), the end record saying why
    short = dataset_files(npz, "npz")[1]
    os.truncate(short, os.path.getsize(short) // 2)
    out3 = tmp_path / "short.jsonl"
    proc = run_sonde(["train", "-d", npz, "--train", "--format", "npz", "--json", out3] + COMMON,
                     np=2, check=False)
    assert proc.returncode == 2, proc.stderr
    errors = [ln for ln in proc.stderr.splitlines() if ": error: " in ln]
    assert len(errors) == 1 and f"{short} is {os.path.getsize(short)} bytes" in errors[0], errors
    assert not records(out3, "measurement")
    (end,) = records(out3, "end")
    assert end["reason"] == "usage" and end["path"] == short


def test_a_dataset_file_that_is_the_results_file_is_refused(tmp_path):
    """One line, exit 2, before anything is written: the results file keeps what it held."""
    (tmp_path / "train").mkdir()
    results = tmp_path / "train" / "img_1_of_2.npy"
    results.write_text('{"type":"header","run_id":"earlier"}\n')
    proc = run_sonde(["train", "-d", tmp_path, "--generate", "--num-files", 2, "--record-size",
                      "1k", "--json", results], np=2, check=False)
    assert proc.returncode == 2, proc.stderr
    errors = [ln for ln in proc.stderr.splitlines() if ": error: " in ln]
    assert len(errors) == 1 and f"the dataset file {results} is the results file" in errors[0]
    assert results.read_text() == '{"type":"header","run_id":"earlier"}\n'
    assert os.listdir(tmp_path / "train") == [results.name]


def test_odirect_reads_the_aligned_span_of_each_sample(tmp_path):
    """--odirect: each sample in one direct read of the 4 KiB-aligned span around it (cut at the
    end of the file), the bytes counted those read, the samples still verified."""
    out = tmp_path / "r.jsonl"
    proc = run_sonde(["train", "-d", tmp_path, "--generate", "--train", "--odirect", "--verify",
                      "--read-threads", 2, "--json", out] + COMMON, np=2, check=False)
    if "refuses O_DIRECT" in proc.stderr:
        pytest.skip(f"the file system of {tmp_path} refuses O_DIRECT")
    assert proc.returncode == 0, proc.stderr
    align, spans = 4096, 0
    for f in dataset_files(tmp_path, "npy"):
        head, size, end = npy_data_offset(f), numpy.load(f).shape[1], os.path.getsize(f)
        for s in range(PER_FILE):
            first = (head + s * size) // align * align
            last = min(-(-(head + (s + 1) * size) // align) * align, end)
            spans += last - first
    (m,) = records(out, "measurement", "train")
    assert m["bytes"] == spans and m["ops"] == FILES * PER_FILE
    checked = sum(numpy.load(f).size for f in dataset_files(tmp_path, "npy"))
    assert m["verify"]["errors"] == 0 and m["verify"]["bytes_checked"] == checked
