# SPDX-License-Identifier: BSD-3-Clause
"""sonde train --format hdf5: DLIO's HDF5 files, opened with h5py (the data sets' names, shapes
and types as DLIO's hdf5 generator makes them, the bytes as sonde's pattern recomputed here),
the reads of each epoch mapped to records through the data set's offset in the file, which h5py
gives (every sample exactly once per epoch across 2 ranks, logged by an LD_PRELOAD shim under
HDF5's own pread calls), a changed byte found by --verify, a file cut short refused, and the
refusals of a build without HDF5 (the MPICH leg's); chunked records_0 (DLIO's chunk_dims, and
max_shape, which makes h5py chunk it) mapped through h5py's chunk index; gzip (DLIO's
compression) read a whole deflated chunk at a time, the bytes counted those read, and the
compressions HDF5's C library lacks refused."""

import math
import os
from collections import Counter

import h5py
import numpy
import pytest
from conftest import run_sonde
from faultlib import error_lines
from preload import build_shim, preload_env
from read_log import read_logs
from test_ior_hdf5 import has_hdf5, require_hdf5
from test_train import dataset_files, pattern_bytes, records

FILES, PER_FILE, BATCH, SEED = 4, 3, 2, 7
COMMON = ["--format", "hdf5", "--num-files", FILES, "--samples-per-file", PER_FILE,
          "--batch-size", BATCH, "--seed", SEED]


@pytest.fixture(scope="module")
def read_log(tmp_path_factory):
    """The LD_PRELOAD shim that logs the reads of the files under /train/ (preload/)."""
    return build_shim("logged_read", tmp_path_factory.mktemp("shim"))


def dlio_file(path):
    """What h5py finds in one file, checked against DLIO's hdf5 generator: records_0, uint8, of
    shape (samples, rows, row), contiguous and uncompressed; labels, int64 zeros, one a sample;
    the latest file format (superblock version 3). Returns (sample size, where records_0's
    bytes start in the file, its bytes)."""
    with h5py.File(path, "r") as h:
        assert sorted(h.keys()) == ["labels", "records_0"]
        assert h.id.get_create_plist().get_version()[0] == 3, "libver='latest'"
        r, labels = h["records_0"], h["labels"]
        assert r.dtype == numpy.uint8 and r.ndim == 3 and r.shape[0] == PER_FILE
        assert r.chunks is None and r.compression is None
        assert labels.dtype == numpy.int64 and labels.shape == (PER_FILE,)
        assert not labels[()].any()
        size = r.shape[1] * r.shape[2]
        return size, r.id.get_offset(), r[()].tobytes()


def logging_reads(tmp_path, shim):
    """The base path of the read logs, and the environment that logs the dataset's reads."""
    log = tmp_path / "log" / "reads"
    log.parent.mkdir()
    return str(log), preload_env(shim, {"SONDE_TEST_READ_MATCH": "/train/",
                                        "SONDE_TEST_READ_LOG": str(log)})


def chunk_part_reads(path, records):
    """The reads of every sample of records (an h5py data set of uncompressed chunks that lie
    inside its shape) with HDF5's chunk cache off: (path, offset, length), one a sample and
    chunk it lies in, of its part of the chunk at the chunk's address (h5py's chunk index)."""
    part = records.chunks[1] * records.chunks[2]
    reads = []
    for i in range(records.id.get_num_chunks()):
        info = records.id.get_chunk_info(i)
        first = info.chunk_offset[0]
        last = min(first + records.chunks[0], records.shape[0])
        reads += [(path, info.byte_offset + (s - first) * part, part) for s in range(first, last)]
    return reads


def epoch_read_as(log, out, expected, calls=1):
    """The logged reads at the places of the expected (path, offset, length) are those; the one
    epoch's record counts calls read calls a sample, the bytes of those reads, and every
    sample's 4096 bytes checked. Returns the record."""
    at = {(f, o) for f, o, _ in expected}
    reads = [(p, o, n) for entries in read_logs(log) for p, o, n, _ in entries if (p, o) in at]
    assert sorted(reads) == sorted(expected)
    (m,) = records(out, "measurement", "train")
    assert m["ops"] == calls * FILES * PER_FILE and m["bytes"] == sum(n for _, _, n in reads)
    assert m["verify"] == {"checked": True, "errors": 0, "bytes_checked": FILES * PER_FILE * 4096}
    return m


def largest_divisor_to_root(size):
    return max(d for d in range(1, math.isqrt(size) + 1) if size % d == 0)


def test_files_and_epochs_read_every_sample_once(tmp_path, read_log):
    """One launch generates 4 files of 3 samples of drawn sizes in 2 subfolders and trains 2
    epochs on 2 ranks with 2 reader threads (HDF5's calls under one lock), shuffled, verified,
    with time series; a second finds a byte changed on the file system."""
    require_hdf5()
    data, out = tmp_path / "ds", tmp_path / "r.jsonl"
    data.mkdir()
    log, env = logging_reads(tmp_path, read_log)
    proc = run_sonde(["train", "-d", data, "--generate", "--train", "--epochs", 2,
                      "--read-threads", 2, "--record-size", 3000, "--record-size-stdev", 500,
                      "--num-subfolders", 2, "--file-shuffle", "seed", "--sample-shuffle",
                      "seed", "--verify", "--interval", 0.05, "--json", out] + COMMON,
                     np=2, env=env)
    warned = [ln for ln in proc.stderr.splitlines() if ": warning: " in ln]
    assert len(warned) == 1 and "read one at a time" in warned[0], proc.stderr

    files = dataset_files(data, "hdf5")
    assert len(files) == FILES
    assert {os.path.basename(os.path.dirname(f)) for f in files} == {"0", "1"}
    sizes, offsets = {}, {}
    for f in files:
        size, offsets[f], data_bytes = dlio_file(f)
        with h5py.File(f, "r") as h:
            assert h["records_0"].shape[1] == largest_divisor_to_root(size)
        assert data_bytes == pattern_bytes(SEED, f, PER_FILE * size)
        sizes[f] = size
    assert len(set(sizes.values())) > 1, "the sizes are drawn with a standard deviation"
    (gen,) = records(out, "measurement", "generate")
    assert gen["bytes"] == PER_FILE * sum(sizes.values()) and gen["extra"]["files"] == FILES
    assert sum(r["bytes"] for r in records(out, "interval", "generate")) == gen["bytes"]

    # every read that starts in a data set's bytes is one whole sample (HDF5's reads of its
    # metadata start before them), every sample once per epoch
    logs = read_logs(log)
    assert len(logs) == 2
    per_rank = FILES * PER_FILE // 2
    samples = []
    for entries in logs:
        mine = []
        for p, o, n, _ in entries:
            if p in offsets and offsets[p] <= o < offsets[p] + PER_FILE * sizes[p]:
                assert (o - offsets[p]) % sizes[p] == 0 and n == sizes[p], (p, o, n)
                mine.append((p, (o - offsets[p]) // sizes[p]))
        assert len(mine) == 2 * per_rank
        samples.append(mine)
    for e in range(2):
        epoch = Counter(s for mine in samples for s in mine[e * per_rank:(e + 1) * per_rank])
        assert len(epoch) == FILES * PER_FILE and set(epoch.values()) == {1}

    train = records(out, "measurement", "train")
    assert [m["iteration"] for m in train] == [0, 1]
    for m in train:
        assert m["extra"]["samples"] == m["ops"] == FILES * PER_FILE
        assert m["bytes"] == PER_FILE * sum(sizes.values())
        assert m["verify"] == {"checked": True, "errors": 0, "bytes_checked": m["bytes"]}
        series = [r for r in records(out, "interval", "train") if r["iteration"] == m["iteration"]]
        assert sum(r["bytes"] for r in series) == m["bytes"]
        assert sum(r["ops"] for r in series) == FILES * PER_FILE

    # one byte of a sample changed on the file system: --verify names the file, the data set
    # and the byte's offset in it, exit 3
    bad, at = files[2], sizes[files[2]] + 5
    with open(bad, "r+b") as f:
        f.seek(offsets[bad] + at)
        byte = f.read(1)[0]
        f.seek(offsets[bad] + at)
        f.write(bytes([byte ^ 0xFF]))
    proc = run_sonde(["train", "-d", data, "--train", "--verify", "--record-size", 3000,
                      "--record-size-stdev", 500, "--num-subfolders", 2] + COMMON, np=2,
                     check=False)
    assert proc.returncode == 3, proc.stderr
    assert (f"{bad} (data set records_0): offset {at}: expected 0x{byte:02x}, "
            f"found 0x{byte ^ 0xFF:02x}") in proc.stderr


def test_square_samples_and_transfer_size(tmp_path, read_log):
    """A sample of 4096 bytes has DLIO's shape, int(sqrt(4096)) squared: (samples, 64, 64); with
    --transfer-size 1000 each sample is read in calls of 1000 bytes (15 rows and a part of one,
    or parts of rows at both ends: a union of hyperslabs), one pread each, verified. A file cut
    short afterwards is refused before the first epoch, in one line naming it."""
    require_hdf5()
    data, out = tmp_path / "sq", tmp_path / "sq.jsonl"
    data.mkdir()
    log, env = logging_reads(tmp_path, read_log)
    square = ["--record-size", 4096] + COMMON
    transfer = 1000
    run_sonde(["train", "-d", data, "--generate", "--train", "--transfer-size", transfer,
               "--read-threads", 0, "--verify", "--json", out] + square, np=2, env=env)
    files = dataset_files(data, "hdf5")
    offsets = {}
    for f in files:
        with h5py.File(f, "r") as h:
            assert h["records_0"].shape == (PER_FILE, 64, 64)
        _, offsets[f], data_bytes = dlio_file(f)
        assert data_bytes == pattern_bytes(SEED, f, PER_FILE * 4096)
    reads = [(p, o - offsets[p], n) for entries in read_logs(log) for p, o, n, _ in entries
             if p in offsets and o >= offsets[p]]
    calls = [(f, s * 4096 + k, min(transfer, 4096 - k)) for f in files for s in range(PER_FILE)
             for k in range(0, 4096, transfer)]
    assert sorted(reads) == sorted(calls)
    (m,) = records(out, "measurement", "train")
    assert m["ops"] == len(calls) and m["bytes"] == FILES * PER_FILE * 4096
    assert m["verify"] == {"checked": True, "errors": 0, "bytes_checked": m["bytes"]}

    short = files[1]
    os.truncate(short, offsets[short] + 4096)
    proc = run_sonde(["train", "-d", data, "--train"] + square, np=2, check=False)
    assert proc.returncode == 2, proc.stderr
    (line,) = error_lines(proc.stderr)
    assert short in line and "HDF5" in line, line


def test_a_build_without_hdf5_refuses_the_format(tmp_path):
    """Debian has parallel HDF5 for Open MPI only: the MPICH build refuses --format hdf5 in one
    line naming the library (ior -a HDF5 tells which build this is); a build with it takes the
    format, and refuses --odirect with it and chunks larger than the files' data sets."""
    args = ["--parse-only", 2, 2, "train", "-d", tmp_path, "--train", "--format", "hdf5"]
    out = run_sonde(args, mpi=False, check=False)
    if not has_hdf5():
        assert out.returncode == 2
        (line,) = out.stderr.strip().splitlines()
        assert "--format hdf5" in line and "libhdf5-openmpi-dev" in line, line
        return
    assert out.returncode == 0, out.stderr
    out = run_sonde(args + ["--odirect"], mpi=False, check=False)
    assert out.returncode == 2
    (line,) = out.stderr.strip().splitlines()
    assert "--odirect does not apply to --format hdf5" in line, line
    # chunks larger than the files' records_0 (8 files of 1 sample by default)
    out = run_sonde(args + ["--chunk-dims", "2,1,1"], mpi=False, check=False)
    assert out.returncode == 2
    (line,) = out.stderr.strip().splitlines()
    assert "--chunk-dims: chunks of 2,1,1 do not fit" in line, line
    # a most shape below the samples' (64 KiB: 256 x 256)
    out = run_sonde(args + ["--max-shape", "256,255"], mpi=False, check=False)
    assert out.returncode == 2
    (line,) = out.stderr.strip().splitlines()
    assert "--max-shape: 256,255 is below file 0's samples, of 256 rows x 256" in line, line
    out = run_sonde(args + ["--num-dset-per-record", 3], mpi=False, check=False)
    assert out.returncode == 2
    (line,) = out.stderr.strip().splitlines()
    assert "--num-dset-per-record: 3 does not divide the 256 rows" in line, line


def test_chunked_records_are_read_a_part_of_a_chunk_at_a_time(tmp_path, read_log):
    """--chunk-dims 2,16,64 (DLIO's chunk_dims): h5py finds records_0 in chunks of 2 samples x
    16 rows x 64 bytes; with HDF5's chunk cache off each sample is read as its 1024 bytes in
    each of the 4 chunks it lies in, one pread each at the chunk's address (h5py's chunk
    index), verified. A second launch, --max-shape 64,100 (DLIO's dataset.hdf5.max_shape):
    records_0 of shape (3, 64, 64) may grow to (3, 64, 100), so HDF5 needs chunks: h5py's own
    guess for the shape when DLIO gives no chunk_dims, not compressed, read the same way."""
    require_hdf5()
    for name, extra, chunks, most in (("ch", ["--chunk-dims", "2,16,64"], (2, 16, 64), 64),
                                      ("mx", ["--max-shape", "64,100"], None, 100)):
        data, out = tmp_path / name, tmp_path / f"{name}.jsonl"
        data.mkdir()
        (tmp_path / f"{name}-log").mkdir()
        log, env = logging_reads(tmp_path / f"{name}-log", read_log)
        run_sonde(["train", "-d", data, "--generate", "--train", "--record-size", 4096,
                   "--verify", "--json", out] + extra + COMMON, np=2, env=env)
        expected = []
        for f in dataset_files(data, "hdf5"):
            with h5py.File(f, "r") as h:
                r = h["records_0"]
                assert r.shape == (PER_FILE, 64, 64) and r.maxshape == (PER_FILE, 64, most)
                assert r.chunks == (chunks or h5py._hl.filters.guess_chunk(r.shape, None, 1))
                assert r.compression is None
                assert r[()].tobytes() == pattern_bytes(SEED, f, PER_FILE * 4096)
                expected += chunk_part_reads(f, r)
        m = epoch_read_as(log, out, expected)
        assert m["bytes"] == FILES * PER_FILE * 4096
        assert m["params"]["max_shape"] == ("64,100" if most == 100 else None)


def deflated_chunks(path, level, chunks=None):
    """h5py's view of a file written with --compression gzip: records_0 deflated at level (the
    one filter), in the chunks asked or else in those h5py itself picks for a compressed data
    set of that shape (its guess_chunk, which DLIO's generator gets), its bytes sonde's pattern.
    Returns the chunks as (first sample, samples, file offset, stored bytes)."""
    with h5py.File(path, "r") as h:
        r = h["records_0"]
        dcpl = r.id.get_create_plist()
        assert dcpl.get_nfilters() == 1 and dcpl.get_filter(0)[0] == h5py.h5z.FILTER_DEFLATE
        assert r.compression == "gzip" and r.compression_opts == level
        assert r.chunks == (chunks or h5py._hl.filters.guess_chunk(r.shape, None, 1))
        assert r[()].tobytes() == pattern_bytes(SEED, path, r.size)
        found = []
        for i in range(r.id.get_num_chunks()):
            info = r.id.get_chunk_info(i)
            found.append((info.chunk_offset[0], r.chunks[0], info.byte_offset, info.size))
        return found


def test_gzip_chunks_are_read_whole_and_counted_as_read(tmp_path, read_log):
    """--compression gzip (DLIO's dataset.compression) at level 6, no --chunk-dims: records_0
    is deflated, in the chunks h5py picks when DLIO gives none, and holds the pattern once
    inflated. Each sample's read reads the chunk it lies in whole (one pread of the chunk's
    stored bytes at its address: a chunk of 2 samples is read twice an epoch), and the epoch's
    bytes are those reads' sum, not the samples' 4096 bytes each; --verify checks every sample
    inflated. A second launch, --chunk-dims 1,32,64 at the default level (4), reads a sample as
    its 2 chunks."""
    require_hdf5()
    for name, extra, level, chunks in (("g6", ["--compression-level", 6], 6, None),
                                       ("g4", ["--chunk-dims", "1,32,64"], 4, (1, 32, 64))):
        data, out = tmp_path / name, tmp_path / f"{name}.jsonl"
        data.mkdir()
        (tmp_path / f"{name}-log").mkdir()
        log, env = logging_reads(tmp_path / f"{name}-log", read_log)
        run_sonde(["train", "-d", data, "--generate", "--train", "--record-size", 4096,
                   "--compression", "gzip", "--verify", "--json", out] + extra + COMMON,
                  np=2, env=env)
        expected = []
        for f in dataset_files(data, "hdf5"):
            for first, count, at, stored in deflated_chunks(f, level, chunks):
                expected += [(f, at, stored)] * min(count, PER_FILE - first)
        m = epoch_read_as(log, out, expected)
        assert m["bytes"] != FILES * PER_FILE * 4096
        assert m["params"]["compression"] == "gzip"
        assert m["params"]["compression_level"] == level

    # samples of 500 x 600 bytes in h5py's chunks of (1, 125, 150), written in calls of 1 MiB
    # that end inside a sample: every chunk is deflated and written once (a chunk written
    # twice leaves its first copy's space in the file: with HDF5's chunk cache off here the
    # file grew by 19 KiB), so the file is its chunks and a few KiB of metadata
    once = tmp_path / "once"
    once.mkdir()
    run_sonde(["train", "-d", once, "--generate", "--format", "hdf5", "--num-files", 1,
               "--samples-per-file", 4, "--record-size", 300000, "--compression", "gzip",
               "--seed", SEED], np=1)
    (f,) = dataset_files(once, "hdf5")
    with h5py.File(f, "r") as h:
        r = h["records_0"]
        assert r.chunks == (1, 125, 150) and r[()].tobytes() == pattern_bytes(SEED, f, r.size)
        assert 0 < os.path.getsize(f) - r.id.get_storage_size() < 4096

    # a byte of a deflated chunk changed on the file system: HDF5 cannot inflate the chunk, a
    # read error naming the file (before --verify could look at the sample)
    bad, at, _ = expected[0]
    with open(bad, "r+b") as f:
        f.seek(at + 100)
        byte = f.read(1)[0]
        f.seek(at + 100)
        f.write(bytes([byte ^ 0xFF]))
    proc = run_sonde(["train", "-d", data, "--train", "--record-size", 4096, "--compression",
                      "gzip", "--verify"] + extra + COMMON, np=2, check=False)
    assert proc.returncode == 1, proc.stderr
    (line,) = error_lines(proc.stderr)
    assert bad in line and "inflate" in line, line


def test_compressions_hdf5_lacks_are_refused(tmp_path):
    """lzf (h5py's own filter), bz2, zip and xz with hdf5, and zip with npz (DLIO's
    savez_compressed, which sonde does not write), are refused in one line, exit 2; the
    formats DLIO never compresses take --compression with a warning that it has no effect."""
    args = ["--parse-only", 2, 2, "train", "-d", tmp_path, "--train"]
    refused = [(["--format", "npz", "--compression", "zip"], "not implemented")]
    if has_hdf5():
        refused += [(["--format", "hdf5", "--compression", "lzf"], "h5py's own HDF5 filter"),
                    (["--format", "hdf5", "--compression", "xz"], "HDF5 has no xz filter")]
    for extra, words in refused:
        out = run_sonde(args + extra, mpi=False, check=False)
        assert out.returncode == 2, out.stderr
        (line,) = out.stderr.strip().splitlines()
        assert f"--compression {extra[-1]}" in line and words in line, line
    out = run_sonde(args + ["--format", "npy", "--compression", "gzip"], mpi=False)
    (line,) = out.stderr.strip().splitlines()
    assert "--compression has no effect here" in line, line



def test_a_sample_split_over_data_sets_is_read_a_part_at_a_time(tmp_path, read_log):
    """--num-dset-per-record 4 (DLIO's dataset.hdf5.num_dset_per_record): a sample of 64 x 64
    bytes is split over records_0 .. records_3, each of shape (3, 16, 64) holding the
    pattern's next 1024 bytes of the sample; each sample is read as 4 calls, one pread of its
    part of each data set (at the data set's offset, which h5py gives), verified."""
    require_hdf5()
    data, out = tmp_path / "ds", tmp_path / "ds.jsonl"
    data.mkdir()
    log, env = logging_reads(tmp_path, read_log)
    run_sonde(["train", "-d", data, "--generate", "--train", "--record-size", 4096,
               "--num-dset-per-record", 4, "--verify", "--json", out] + COMMON, np=2, env=env)
    expected = []
    for f in dataset_files(data, "hdf5"):
        pattern = pattern_bytes(SEED, f, PER_FILE * 4096)
        with h5py.File(f, "r") as h:
            assert sorted(h.keys()) == ["labels"] + [f"records_{k}" for k in range(4)]
            for k in range(4):
                r = h[f"records_{k}"]
                assert r.shape == (PER_FILE, 16, 64) and r.chunks is None
                for s in range(PER_FILE):
                    part = s * 4096 + k * 1024
                    assert r[s].tobytes() == pattern[part:part + 1024]
                    expected.append((f, r.id.get_offset() + s * 1024, 1024))
    m = epoch_read_as(log, out, expected, calls=4)
    assert m["bytes"] == FILES * PER_FILE * 4096
    assert m["params"]["num_dset_per_record"] == 4
