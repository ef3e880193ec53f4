# SPDX-License-Identifier: BSD-3-Clause
"""sonde train at its edges, as a user meets them: more ranks than the samples go round, and a
dataset on disk that is not the one the options name (generated with other sizes, a file cut
short, a directory in a file's place). Each is refused before any figure, with one line and
exit 2, and the files are left as they were. The figures of a good run on 4 ranks
(oversubscribed) are checked against the dataset itself (os.walk and the npy headers)."""

import io
import os
import struct
import time

import numpy
import pytest
from conftest import read_jsonl, run_sonde
from faultlib import mount_tmpfs, umount

FILES, PER_FILE, RECORD = 5, 2, 3000
DATASET = ["--num-files", FILES, "--samples-per-file", PER_FILE, "--record-size", RECORD,
           "--record-size-stdev", 700, "--seed", 11]


def error_lines(proc):
    return [ln for ln in proc.stderr.splitlines() if ": error: " in ln]


def npy_files(root):
    found = []
    for folder, _, names in os.walk(root / "train"):
        found += [os.path.join(folder, n) for n in names if n.endswith(".npy")]
    return sorted(found)


def npy_array_bytes(path):
    """The bytes of an .npy file's array: its size less its own header (format 1.0)."""
    with open(path, "rb") as f:
        head = f.read(10)
    assert head[:8] == b"\x93NUMPY\x01\x00"
    return os.path.getsize(path) - 10 - struct.unpack("<H", head[8:10])[0]


def snapshot(root):
    return {p: (os.path.getsize(p), os.stat(p).st_mtime_ns) for p in npy_files(root)}


@pytest.mark.once
def test_more_ranks_than_the_samples_go_round_is_refused(tmp_path):
    """9 samples on 4 ranks: blocks of 3 leave rank 3 without a sample, an accelerator with no
    AU; refused before the dataset is written."""
    proc = run_sonde(["train", "-d", tmp_path, "--generate", "--train", "--num-files", 9,
                      "--record-size", "1k"], np=4, check=False)
    assert proc.returncode == 2, proc.stderr
    (line,) = error_lines(proc)
    assert "9 samples" in line and "blocks of 3" in line and "leave rank 3 without" in line
    assert not (tmp_path / "train").exists()


def test_figures_of_4_ranks_and_a_dataset_that_is_not_the_options(tmp_path):
    """Launch 1 (4 ranks on 2 cores) generates and trains: the bytes read are the arrays'
    bytes of the files on disk, every sample once, samples/s = samples / seconds. Launch 2
    trains with another --record-size: the first file's real size and the size the options
    make are named, exit 2, nothing written. Launch 3 trains and launch 4 generates with a
    directory where a file should be: each refused, and launch 4 writes no file."""
    out = tmp_path / "r.jsonl"
    data = tmp_path / "d"
    data.mkdir()
    proc = run_sonde(["train", "-d", data, "--generate", "--train", "--batch-size", 2,
                      "--read-threads", 3, "--prefetch", 1, "--sample-shuffle", "seed",
                      "--json", out] + DATASET, np=4)
    files = npy_files(data)
    assert len(files) == FILES
    (m,) = [r for r in read_jsonl(out) if r["type"] == "measurement" and r["phase"] == "train"]
    assert m["bytes"] == sum(npy_array_bytes(f) for f in files)
    assert m["extra"]["samples"] == FILES * PER_FILE == m["ops"]
    assert m["extra"]["samples_per_s"] == pytest.approx(FILES * PER_FILE / m["seconds"])
    # no compute: every rank only waited, AU 0, which judges nothing: no pass, no FAIL, no
    # rank named below the threshold, in the records and on the lines
    assert m["extra"]["au_max"] == 0 and m["extra"]["wait_s_max"] == pytest.approx(m["seconds"])
    (summary,) = [r for r in read_jsonl(out) if r["type"] == "summary"]
    for x in (m["extra"], summary):
        assert x["au_pass"] is None and x["ranks_below_threshold"] == []
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(("epoch 1:", "train:"))]
    assert len(lines) == 2
    assert all("no compute time: AU not judged" in ln and "FAIL" not in ln for ln in lines)

    before = snapshot(data)
    first = files[0]
    out2 = tmp_path / "other.jsonl"
    other = [a if a != RECORD else RECORD + 1000 for a in DATASET]
    proc = run_sonde(["train", "-d", data, "--train", "--json", out2] + other, np=2,
                     check=False)
    assert proc.returncode == 2, proc.stderr
    (line,) = error_lines(proc)
    assert f"{first} is {os.path.getsize(first)} bytes, not the " in line
    assert "a dataset generated with other options" in line
    assert not [r for r in read_jsonl(out2) if r["type"] == "measurement"]
    (end,) = [r for r in read_jsonl(out2) if r["type"] == "end"]
    assert end["reason"] == "usage" and end["path"] == first
    assert snapshot(data) == before

    victim = files[3]
    os.remove(victim)
    os.mkdir(victim)
    proc = run_sonde(["train", "-d", data, "--train"] + DATASET, np=2, check=False)
    assert proc.returncode == 2, proc.stderr
    (line,) = error_lines(proc)
    assert line.endswith(f"{victim} is a directory, not a dataset file")

    # launch 4: --generate over it is refused before any rank writes a file
    for f in files:
        if f != victim:
            os.remove(f)
    proc = run_sonde(["train", "-d", data, "--generate"] + DATASET, np=2, check=False)
    assert proc.returncode == 2, proc.stderr
    (line,) = error_lines(proc)
    assert line.endswith(f"{victim} is a directory, not a dataset file")
    assert os.listdir(data / "train") == [os.path.basename(victim)]


def test_read_ahead_buffers_past_64_bits_are_refused(tmp_path):
    """A rank holds prefetch x batch x sample bytes: 1 x 2^24 x 1 TiB passes 64 bits. The run
    says it cannot have the buffers (exit 1) instead of reading into a wrapped, tiny one. The
    1 TiB sample is a sparse file of the size the options make (its npy header recomputed)."""
    record = 1 << 40
    header = f"{{'descr': '|u1', 'fortran_order': False, 'shape': (1, {record}), }}"
    head = -(-(10 + len(header) + 1) // 64) * 64
    (tmp_path / "train").mkdir()
    with open(tmp_path / "train" / "img_0_of_1.npy", "wb") as f:
        try:
            f.truncate(head + record)
        except OSError as e:
            pytest.skip(f"the file system of {tmp_path} has no sparse 1 TiB file: {e}")
    proc = run_sonde(["train", "-d", tmp_path, "--train", "--num-files", 1, "--record-size",
                      "1t", "--batch-size", 1 << 24, "--prefetch", 1, "--transfer-size", "4k"],
                     np=1, check=False, timeout=60)
    assert proc.returncode == 1, proc.stderr
    (line,) = error_lines(proc)
    assert "out of memory or threads for the readers" in line


@pytest.fixture
def small_fs():
    d = mount_tmpfs("1m", "a dataset too large for its file system")
    yield d
    umount(d)


@pytest.mark.once
def test_an_enormous_dataset_is_refused_at_once(small_fs):
    """--generate --num-files 2000000000 --strict on a 1 MiB file system: refused with the
    dataset's size before any file, at once (its size was the sum of 2e9 files' sizes, minutes).
    Without a size deviation the size is exact: 2e9 times the size of the one file numpy writes
    for a (1, 4096) uint8 array; with one, at least every sample at the smallest size a draw
    gives, 4096 - 9 x 100 bytes (docs/workloads/train.md)."""
    one = io.BytesIO()
    numpy.save(one, numpy.zeros((1, 4096), numpy.uint8))
    files = 2_000_000_000
    for stdev, need in ((0, f"need {files * len(one.getvalue()) / 2**40:.2f} TiB"),
                        (100, f"(at the least) need {files * (4096 - 900) / 2**40:.2f} TiB")):
        began = time.monotonic()
        proc = run_sonde(["train", "-d", small_fs, "--generate", "--num-files", files,
                          "--record-size", 4096, "--record-size-stdev", stdev, "--strict"],
                         check=False, timeout=60)
        took = time.monotonic() - began
        assert proc.returncode == 2, proc.stderr
        (line,) = error_lines(proc)
        assert need in line and "--strict" in line, line
        assert os.listdir(small_fs) == []
        assert took < 20, f"refused after {took:.1f} s"
