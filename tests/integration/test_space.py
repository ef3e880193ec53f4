# SPDX-License-Identifier: BSD-3-Clause
"""A run whose data cannot fit, in every writing workload: sonde says so before the first
byte (the oracle: statvfs of the file system), --strict (which sonde-suite passes) refuses it
with exit 2 and no file, and an ior write phase that failed for want of room leaves no file
filling the file system unless -k."""

import os
import subprocess

import pytest
from conftest import run_sonde
from faultlib import error_lines, mount_tmpfs, umount

MIB = 1 << 20


@pytest.fixture
def small_fs():
    d = mount_tmpfs("8m", "a full file system")
    yield d
    umount(d)


def free_bytes(d):
    st = os.statvfs(d)
    return st.f_bavail * st.f_frsize


@pytest.mark.parametrize("api", ["POSIX", "MPIIO"])
def test_a_run_too_large_for_the_file_system_is_named_before_it_writes(small_fs, api):
    free = free_bytes(small_fs)
    out = run_sonde(["ior", "-a", api, "-w", "--dryRun", "-b", "8m", "-t", "1m", "-o",
                     small_fs / "f"], np=2)
    warning = [ln for ln in out.stderr.splitlines() if "warning" in ln]
    assert len(warning) == 1, out.stderr
    assert "need 16 MiB" in warning[0] and f"has {free // MIB} MiB free" in warning[0]
    strict = run_sonde(["ior", "-a", api, "-w", "-b", "8m", "-t", "1m", "-o", small_fs / "f",
                        "--strict"], np=2, check=False)
    assert strict.returncode == 2
    (e,) = error_lines(strict.stderr)
    assert "need 16 MiB" in e and "--strict" in e
    assert os.listdir(small_fs) == []


def test_a_rerun_over_its_own_files_needs_no_more_room(small_fs):
    """The files a run overwrites count as room: 2 x 3 MiB files, written again."""
    args = ["ior", "-w", "-F", "-k", "-b", "3m", "-t", "1m", "-o", small_fs / "f", "--strict"]
    run_sonde(args, np=2)
    assert free_bytes(small_fs) < 6 * MIB  # the second run alone would not fit
    out = run_sonde(args, np=2)
    assert "free" not in out.stderr


@pytest.mark.parametrize("keep", [False, True])
def test_a_write_that_failed_for_room_leaves_no_file_unless_kept(small_fs, keep):
    args = ["ior", "-w", "-b", "16m", "-t", "1m", "-o", small_fs / "f"] + (["-k"] if keep else [])
    out = run_sonde(args, np=1, check=False)
    assert out.returncode == 1
    (e,) = error_lines(out.stderr)
    assert "No space left on device" in e
    assert os.listdir(small_fs) == (["f"] if keep else [])


# Each writing workload's data, 16 MiB or more on the 8 MiB file system.
TOO_LARGE = {
    "btio": ["btio", "--method", "0", "--dumps", "2", "--grid", "64x64x64", "--dir", "{d}"],
    "mpiio": ["mpiio", "-type", "2", "-nobj", "4", "-size", "2M", "-target", "{d}/f"],
    "mdtest": ["mdtest", "-F", "-C", "-n", "8", "-w", "1m", "-d", "{d}/md"],
    "mib": ["mib", "-t", "{d}", "-l", "8", "-s", "1m", "-F"],
    "train": ["train", "-d", "{d}", "--generate", "--num-files", "8", "--record-size", "1m"],
}


@pytest.mark.parametrize("workload", sorted(TOO_LARGE))
def test_strict_refuses_every_workload_whose_data_cannot_fit(small_fs, workload):
    args = [a.replace("{d}", str(small_fs)) for a in TOO_LARGE[workload]]
    np_ = 1 if workload == "btio" else 2  # BTIO runs on a square number of ranks
    warned = run_sonde(args, np=np_, check=False)
    assert any("free" in ln and "warning" in ln for ln in warned.stderr.splitlines()), \
        warned.stderr
    for p in list(small_fs.iterdir()):
        subprocess.run(["rm", "-rf", str(p)], check=True)
    out = run_sonde(args + ["--strict"], np=np_, check=False)
    assert out.returncode == 2, out.stderr
    (e,) = error_lines(out.stderr)
    assert f"has {free_bytes(small_fs) // MIB} MiB free" in e and "--strict" in e
    assert [p.name for p in small_fs.iterdir()] in ([], ["md"])  # mdtest's -d is made first
