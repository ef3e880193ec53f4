# SPDX-License-Identifier: BSD-3-Clause
"""ior -a HDF5: IOR's HDF5 layout, checked with HDF5's own tool and without IOR's binary.

The layout oracle is h5dump (hdf5-tools): one 1-D data set of 64-bit integers per segment,
named Dataset-0000.NNNN, of tasks x block bytes (block bytes per file with -F), with the
storage the options ask for (chunks, fill time, alignment), worked out here from the options.
The data oracle is sonde's POSIX backend, which writes plain bytes with pwrite: the same
command line with -a POSIX and the same -G gives the file whose segment k must be data set k,
byte for byte (extracted by h5dump -b). docs/workloads/ior.md has the side-by-side comparison
with IOR itself."""

import re
import shutil
import subprocess

import pytest
from conftest import OPEN_MPI, read_jsonl, run_sonde
from faultlib import NEEDS_SHIM, error_lines
from ior_lib_checks import WRITE_FAULTS, assert_failed_writes_give_no_figure, refusal

KIB = 1024
BUILT_WITHOUT = "I/O backend HDF5 is not in this build of sonde"


def has_hdf5():
    out = run_sonde(["--parse-only", 2, 2, "ior", "-a", "HDF5", "-w"], mpi=False, check=False)
    return BUILT_WITHOUT not in out.stderr


def require_hdf5():
    if not has_hdf5():
        pytest.skip("this sonde was built without parallel HDF5")


def datasets(path):
    """{name: header text} of every data set in the file, from h5dump -H -p."""
    text = subprocess.run(["h5dump", "-H", "-p", str(path)], capture_output=True, text=True,
                          check=True).stdout
    parts = re.split(r'DATASET "([^"]+)"', text)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def data_of(path, name, tmp_path):
    """The raw little-endian bytes of one data set (h5dump -b LE)."""
    out = tmp_path / f"{name}.bin"
    subprocess.run(["h5dump", "-d", name, "-b", "LE", "-o", str(out), str(path)],
                   capture_output=True, check=True)
    return out.read_bytes()


def check_layout(path, segments, elements, tmp_path, posix_bytes, chunk=None, fill="IFSET",
                 align=None):
    sets = datasets(path)
    assert sorted(sets) == [f"Dataset-0000.{k:04d}" for k in range(segments)], sorted(sets)
    seg = elements * 8
    for k, (name, head) in enumerate(sorted(sets.items())):
        assert "DATATYPE  H5T_STD_I64LE" in head, head
        assert f"SIMPLE {{ ( {elements} ) / ( {elements} ) }}" in head, head
        if chunk:
            assert f"CHUNKED ( {chunk} )" in head, head
        else:
            assert "CONTIGUOUS" in head, head
        assert f"FILL_TIME H5D_FILL_TIME_{fill}" in head, head
        if align:
            offset = int(re.search(r"OFFSET (\d+)", head).group(1))
            assert offset % align == 0, (name, offset)
        assert data_of(path, name, tmp_path) == posix_bytes[k * seg:(k + 1) * seg], name


@pytest.mark.skipif(shutil.which("h5dump") is None, reason="needs h5dump (hdf5-tools)")
def test_shared_file_layout_bytes_and_records(shm_scratch, tmp_path):
    """A shared file of 3 segments, collective, chunked, without fill, collective metadata;
    written, checked (-W), read and checked (-R); its records count the bytes moved."""
    require_hdf5()
    f, ref, results = shm_scratch / "h", shm_scratch / "p", tmp_path / "r.jsonl"
    common = ["-k", "-G", 99, "-l", "offset", "-t", "16k", "-b", "64k", "-s", 3]
    out = run_sonde(["ior", "-a", "HDF5", "-c", "-w", "-W", "-r", "-R", "-e", "-v",
                     "--hdf5.chunkSize=1024", "--hdf5.noFill", "--hdf5.collectiveMetadata",
                     *common, "-o", f, "--json", results], np=2)
    run_sonde(["ior", "-a", "POSIX", "-w", *common, "-o", ref], np=2)
    check_layout(f, 3, 2 * 64 * KIB // 8, tmp_path, ref.read_bytes(), chunk=1024, fill="NEVER")
    assert "Verified 393216 bytes: no errors." in out.stdout
    assert "apiVersion          : 1." in out.stdout and "(Parallel)" in out.stdout
    # the file holds HDF5's metadata besides the data: no size warning, as in IOR
    assert "Expected aggregate file size" not in out.stderr, out.stderr
    records = read_jsonl(results)
    assert records[0]["params"]["api"] == "HDF5"
    meas = [r for r in records if r["type"] == "measurement"]
    assert [m["phase"] for m in meas] == ["write", "read"]
    for m in meas:
        assert m["bytes"] == 3 * 2 * 64 * KIB and m["ops"] == 3 * 2 * 4
        assert m["latency"]["count"] == 3 * 2 * 4
    # a fourth segment is not in the file: an error naming the data set, no figure
    missing = run_sonde(["ior", "-a", "HDF5", "-r", "-k", "-t", "16k", "-b", "64k", "-s", 4,
                         "-o", f], np=2, check=False)
    assert missing.returncode != 0
    (line,) = error_lines(missing.stderr)
    assert "has no data set Dataset-0000.0003" in line and str(f) in line, line
    assert not re.search(r"^read\s+\d", missing.stdout, re.MULTILINE), missing.stdout


@pytest.mark.skipif(shutil.which("h5dump") is None, reason="needs h5dump (hdf5-tools)")
def test_file_per_process_alignment_and_syncs(shm_scratch, tmp_path):
    """-F: one file per rank holding its own blocks; 4 KiB alignment puts every data set at a
    multiple of 4096; -Y and -e flush the file (H5Fflush) on the way."""
    require_hdf5()
    f, ref = shm_scratch / "h", shm_scratch / "p"
    common = ["-F", "-k", "-G", 5, "-t", "8k", "-b", "32k", "-s", 2]
    run_sonde(["ior", "-a", "HDF5", "-w", "-r", "-R", "-Y", "-e", "--hdf5.setAlignment=4k",
               *common, "-o", f], np=2)
    run_sonde(["ior", "-a", "POSIX", "-w", *common, "-o", ref], np=2)
    for rank in range(2):
        posix = (shm_scratch / f"p.{rank:08d}").read_bytes()
        check_layout(shm_scratch / f"h.{rank:08d}", 2, 32 * KIB // 8, tmp_path, posix,
                     align=4096)


@pytest.mark.parametrize("args,words", [
    (["-z"], "random offset not available with HDF5"),
    (["-E"], "-E with -a HDF5"),
    (["--posix.odirect"], "has no direct I/O"),
    (["--hdf5.individualDataSets"], "in IOR neither"),
    (["-t", "12", "-b", "24"], "multiple of access size"),
])
def test_refused_with_one_line(args, words):
    require_hdf5()
    line = refusal("HDF5", args)
    assert words in line, line


def test_build_without_parallel_hdf5_names_the_library():
    """Debian has parallel HDF5 for Open MPI only: the MPICH build refuses -a HDF5 in one line
    naming the package; a build with it takes the option."""
    out = run_sonde(["--parse-only", 2, 2, "ior", "-a", "HDF5", "-w"], mpi=False, check=False)
    if OPEN_MPI:
        assert out.returncode == 0, out.stderr
        return
    assert out.returncode == 2
    (line,) = out.stderr.strip().splitlines()
    assert BUILT_WITHOUT in line and "libhdf5-openmpi-dev" in line, line


@pytest.mark.parametrize("fault,words", WRITE_FAULTS)
@pytest.mark.parametrize("collective", [[], ["-c"]], ids=["independent", "collective"])
@NEEDS_SHIM[0]
@NEEDS_SHIM[1]
def test_failed_writes_give_no_figure(shm_scratch, tmp_path, fault, words, collective):
    """Writes that fail (EIO) or stall under H5Dwrite (tests/shim/faultshim.c): exit 1, one
    line naming the file, no rate and no measurement, an io-error end record, and no crash in
    HDF5's own termination (its close of the failed file is shielded: hdf5.c)."""
    require_hdf5()
    assert_failed_writes_give_no_figure("HDF5", shm_scratch, tmp_path / "r.jsonl", fault, words,
                                        collective)
