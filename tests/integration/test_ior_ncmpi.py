# SPDX-License-Identifier: BSD-3-Clause
"""ior -a NCMPI: IOR's PnetCDF layout, checked with netCDF's own tool and without IOR's binary.

The layout oracle is ncdump -h (netcdf-bin reads the classic format PnetCDF writes): one record
variable byte data_var(segments_times_np, number_of_transfers, transfer_size), as many records
as blocks (segments x tasks), worked out here from the options. The data oracle is sonde's
POSIX backend: record k is block k of the shared file -a POSIX writes with the same -G, so the
file's record data (its last records x block bytes) must be that file, byte for byte.
docs/workloads/ior.md has the side-by-side comparison with IOR itself."""

import re
import shutil
import subprocess

import pytest
from conftest import OPEN_MPI, read_jsonl, run_sonde
from faultlib import NEEDS_SHIM
from ior_lib_checks import WRITE_FAULTS, assert_failed_writes_give_no_figure, refusal

KIB = 1024
NOT_BUILT = "I/O backend NCMPI is not in this build of sonde"


def require_ncmpi():
    out = run_sonde(["--parse-only", 2, 2, "ior", "-a", "NCMPI", "-w"], mpi=False,
                    check=False)
    if NOT_BUILT in out.stderr:
        pytest.skip("this sonde was built without PnetCDF")


def check_layout(path, records, transfers, xfer, posix_bytes):
    head = subprocess.run(["ncdump", "-h", str(path)], capture_output=True, text=True,
                          check=True).stdout
    assert f"segments_times_np = UNLIMITED ; // ({records} currently)" in head, head
    assert f"number_of_transfers = {transfers} ;" in head, head
    assert f"transfer_size = {xfer} ;" in head, head
    assert re.search(r"byte data_var\(segments_times_np, number_of_transfers, transfer_size\)",
                     head), head
    raw = path.read_bytes()
    assert raw[:4] == b"CDF\x01"  # IOR's NC_CLOBBER: the classic format
    data = records * transfers * xfer
    assert raw[-data:] == posix_bytes


@pytest.mark.skipif(shutil.which("ncdump") is None, reason="needs ncdump (netcdf-bin)")
def test_shared_file_layout_bytes_and_records(shm_scratch, tmp_path):
    require_ncmpi()
    f, ref, results = shm_scratch / "n", shm_scratch / "p", tmp_path / "r.jsonl"
    common = ["-k", "-G", 41, "-l", "offset", "-t", "16k", "-b", "64k", "-s", 3]
    out = run_sonde(["ior", "-a", "NCMPI", "-c", "-w", "-W", "-r", "-R", "-e", "-v", *common,
                     "-o", f, "--json", results], np=2)
    run_sonde(["ior", "-a", "POSIX", "-w", *common, "-o", ref], np=2)
    check_layout(f, 3 * 2, 4, 16 * KIB, ref.read_bytes())
    assert "Verified 393216 bytes: no errors." in out.stdout
    assert "Expected aggregate file size" not in out.stderr, out.stderr
    meas = [r for r in read_jsonl(results) if r["type"] == "measurement"]
    assert [m["phase"] for m in meas] == ["write", "read"]
    assert all(m["bytes"] == 3 * 2 * 64 * KIB and m["ops"] == 24 for m in meas)


@pytest.mark.skipif(shutil.which("ncdump") is None, reason="needs ncdump (netcdf-bin)")
def test_file_per_process_and_syncs(shm_scratch):
    """-F (which IOR refuses): a file per rank, a record per segment; -Y and -e sync."""
    require_ncmpi()
    f, ref = shm_scratch / "n", shm_scratch / "p"
    common = ["-F", "-k", "-G", 5, "-t", "8k", "-b", "32k", "-s", 2]
    run_sonde(["ior", "-a", "NCMPI", "-w", "-r", "-R", "-Y", "-e", *common, "-o", f], np=2)
    run_sonde(["ior", "-a", "POSIX", "-w", *common, "-o", ref], np=2)
    for rank in range(2):
        check_layout(shm_scratch / f"n.{rank:08d}", 2, 4, 8 * KIB,
                     (shm_scratch / f"p.{rank:08d}").read_bytes())


@pytest.mark.parametrize("args,words", [
    (["-z"], "random offset not available with NCMPI"),
    (["-E"], "-E with -a NCMPI"),
])
def test_refused_with_one_line(args, words):
    require_ncmpi()
    line = refusal("NCMPI", args)
    assert words in line, line


def test_build_without_pnetcdf_names_the_library():
    out = run_sonde(["--parse-only", 2, 2, "ior", "-a", "NCMPI", "-w"], mpi=False, check=False)
    if OPEN_MPI:
        assert out.returncode == 0, out.stderr
        return
    (line,) = out.stderr.strip().splitlines()
    assert out.returncode == 2 and NOT_BUILT in line and "libpnetcdf-dev" in line, line


@pytest.mark.parametrize("fault,words", WRITE_FAULTS)
@pytest.mark.parametrize("collective", [[], ["-c"]], ids=["independent", "collective"])
@NEEDS_SHIM[0]
@NEEDS_SHIM[1]
def test_failed_writes_give_no_figure(shm_scratch, tmp_path, fault, words, collective):
    require_ncmpi()
    assert_failed_writes_give_no_figure("NCMPI", shm_scratch, tmp_path / "r.jsonl", fault, words,
                                        collective)
