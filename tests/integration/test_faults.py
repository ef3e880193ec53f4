# SPDX-License-Identifier: BSD-3-Clause
"""Fault injection: a full disk, a rank killed mid-phase, a read-only or vanished target, a file
removed or cut short between the write and the read run, and data corrupted in between. Each
fault has one asserted outcome: a clear error naming the path, a non-zero exit, no hang, and
results files that still parse. docs/reliability.md lists the outcomes."""

import os
import re
import shutil
import signal
import subprocess
import time

import pytest
from bounded import kill_session
from btio_util import element_offset, read_double, run_btio, write_double
from conftest import launch_command, mpi_env, read_jsonl, run_sonde
from faultlib import error_lines, mount_tmpfs, rank_pid, umount

# A fault must end the job well before this; a hang fails the test instead of the suite.
BOUND = 90
# A missing file as Open MPI's (errno) and MPICH's (ROMIO's own) MPI-IO error strings say it.
MISSING = r"no such file or directory|file does not exist"


@pytest.fixture
def full_fs():
    """A 2 MiB tmpfs: a disk that fills up."""
    d = mount_tmpfs("2m", "the disk-full test")
    yield d
    umount(d)


@pytest.fixture
def ro_fs():
    """A tmpfs remounted read-only after a file was put there (chmod does not stop root)."""
    d = mount_tmpfs("1m", "the read-only target test")
    (d / "sub").mkdir()
    proc = subprocess.run(["mount", "-o", "remount,ro", str(d)], capture_output=True, text=True,
                          check=False)
    if proc.returncode != 0:
        umount(d)
        pytest.skip(f"cannot remount a tmpfs read-only: {proc.stderr.strip()}")
    yield d
    umount(d)


# --- disk full --------------------------------------------------------------------------------

def test_disk_full_ior_keeps_the_repetition_that_fitted(full_fs, tmp_path):
    """-m writes a new file per repetition: repetition 0 (1.25 MiB) fits, repetition 1 does not.
    The run names the file that filled the disk, fails, and its JSON keeps the header and the
    measurement of repetition 0."""
    results = tmp_path / "r.jsonl"
    out = run_sonde(["ior", "-w", "-m", "-k", "-i", 3, "-F", "-t", "64k", "-b", "640k",
                     "-o", full_fs / "f", "--json", results], np=2, check=False, timeout=BOUND)
    assert out.returncode != 0
    errors = error_lines(out.stderr)
    assert errors and all("No space left on device" in e for e in errors), out.stderr
    assert any(re.search(rf"{full_fs}/f\.0000000[01]\.1\b", e) for e in errors), errors
    records = read_jsonl(results)
    assert records[0]["type"] == "header"
    kept = [r for r in records if r["type"] == "measurement"]
    assert [(r["phase"], r["iteration"]) for r in kept] == [("write", 0)]
    assert kept[0]["bytes"] == 2 * 640 * 1024
    assert records[-1]["type"] == "end" and records[-1]["exit_code"] != 0


def test_disk_full_mib(full_fs, tmp_path):
    results = tmp_path / "r.jsonl"
    out = run_sonde(["mib", "-F", "-t", full_fs, "-s", "64k", "-l", 100, "--json", results],
                    np=2, check=False, timeout=BOUND)
    assert out.returncode != 0
    errors = error_lines(out.stderr)
    assert errors and all("No space left on device" in e for e in errors), out.stderr
    assert any(f"{full_fs}/mibData.0000000" in e for e in errors), errors
    records = read_jsonl(results)
    assert records[0]["type"] == "header"
    assert records[-1]["type"] == "end" and records[-1]["exit_code"] != 0


# --- a rank killed ------------------------------------------------------------------------------

def _kill_rank_mid_run(args, np, results, ready):
    """Starts sonde, waits until ready() says the phase is under way, SIGKILLs rank 1 and
    returns (exit code, seconds from the kill to the end of the job, stderr)."""
    cmd = launch_command(np, args)
    with open(results.parent / "stderr", "w+") as err:
        proc = subprocess.Popen(cmd, env=mpi_env(), stdout=subprocess.DEVNULL, stderr=err,
                                start_new_session=True)
        try:
            deadline = time.monotonic() + 60
            pid = None
            while time.monotonic() < deadline and proc.poll() is None:
                pid = rank_pid(proc.pid, 1)
                if pid and ready():
                    break
                time.sleep(0.1)
            assert proc.poll() is None and pid, "the run ended before the fault was injected"
            time.sleep(0.3)
            os.kill(pid, signal.SIGKILL)
            killed = time.monotonic()
            rc = proc.wait(timeout=BOUND)
            took = time.monotonic() - killed
        finally:
            if proc.poll() is None:
                kill_session(proc, 0)
                proc.wait()
        err.seek(0)
        return rc, took, err.read()


def _has_header(path):
    try:
        return path.read_text().startswith('{"type":"header"')
    except OSError:
        return False


@pytest.mark.parametrize("np_", [2, 3])
def test_rank_killed_in_a_collective_loop(tmp_path, np_):
    results = tmp_path / "r.jsonl"
    rc, took, err = _kill_rank_mid_run(
        ["coll", "-b", 0, "-e", "64k", "-i", 10**8, "Allreduce", "--json", results], np_,
        results, lambda: _has_header(results))
    assert rc != 0, err
    assert took < BOUND
    # Whatever rank 0 wrote before the launcher ended it parses, header first.
    records = read_jsonl(results)
    assert records[0]["type"] == "header"


def test_rank_killed_in_an_io_phase(shm_scratch, tmp_path):
    """mib reading past the end of a small file goes on until its time limit (as mib does): a
    long I/O phase that fills nothing. Rank 1 dies in it."""
    run_sonde(["mib", "-F", "-t", shm_scratch, "-s", "4k", "-l", 1, "-W"], np=2)
    results = tmp_path / "r.jsonl"
    rc, took, err = _kill_rank_mid_run(
        ["mib", "-F", "-t", shm_scratch, "-s", "4k", "-l", 2**31 - 1, "-L", 60, "-R",
         "--json", results], 2, results, lambda: _has_header(results))
    assert rc != 0, err
    assert took < BOUND
    assert read_jsonl(results)[0]["type"] == "header"


# --- read-only and vanished targets -----------------------------------------------------------

READ_ONLY = [
    (["ior", "-w", "-t", "8k", "-b", "16k", "-o", "{d}/f"], "{d}/f"),
    (["ior", "-a", "MPIIO", "-w", "-t", "8k", "-b", "16k", "-o", "{d}/f"], "{d}/f"),
    (["mib", "-F", "-t", "{d}", "-s", "4k", "-l", 2], "{d}/mibData.0000000"),
    (["mpiio", "-type", 2, "-nobj", 2, "-size", "4K", "-target", "{d}/f"], "{d}/f"),
    (["mpiio", "-type", 1, "-collective", "-nobj", 2, "-size", "4K", "-target", "{d}/f.%r"],
     "{d}/f."),
    (["btio", "--mode", "w", "--method", 0, "--grid", "8x8x8", "--dumps", 1, "--dir", "{d}"],
     "{d}/btio.mpi"),
    (["btio", "--mode", "w", "--method", 2, "--grid", "8x8x8", "--dumps", 1, "--dir", "{d}"],
     "{d}/btio.nc"),
]


@pytest.mark.parametrize("args,named", READ_ONLY, ids=lambda x: " ".join(map(str, x[:3]))
                         if isinstance(x, list) else None)
def test_read_only_target_is_a_runtime_error_everywhere(ro_fs, tmp_path, args, named):
    """A read-only file system is the system's fault, not the user's input: exit code 1 for
    every workload and I/O path, one line naming the file, an end record saying io-error."""
    results = tmp_path / "r.jsonl"
    argv = [str(a).format(d=ro_fs) for a in args] + ["--json", results]
    np_ = 1 if args[0] == "btio" else 2
    out = run_sonde(argv, np=np_, check=False, timeout=BOUND)
    if "needs PnetCDF" in out.stderr:
        pytest.skip("this sonde was built without PnetCDF")
    assert out.returncode == 1, out.stderr
    (e,) = error_lines(out.stderr)
    assert named.format(d=ro_fs) in e and re.search(r"[Rr]ead[- ]only", e), e
    end = read_jsonl(results)[-1]
    assert end["reason"] == "io-error" and end["exit_code"] == 1
    assert named.format(d=ro_fs) in end["path"]


def test_vanished_directory_between_write_and_read_ior(shm_scratch):
    d = shm_scratch / "gone"
    d.mkdir()
    run_sonde(["ior", "-w", "-k", "-t", "8k", "-b", "16k", "-o", d / "f"], np=2)
    shutil.rmtree(d)
    out = run_sonde(["ior", "-r", "-t", "8k", "-b", "16k", "-o", d / "f"], np=2, check=False,
                    timeout=BOUND)
    assert out.returncode != 0
    (e,) = error_lines(out.stderr)
    assert str(d) in e and "does not exist" in e
    assert not d.exists()


def test_vanished_directory_mpiio(shm_scratch):
    d = shm_scratch / "gone"
    out = run_sonde(["mpiio", "-type", 1, "-nobj", 2, "-size", "4K", "-target", d / "f.%r"],
                    np=2, check=False, timeout=BOUND)
    assert out.returncode != 0
    (e,) = error_lines(out.stderr)
    assert str(d) in e and re.search(MISSING, e, re.IGNORECASE), e
    assert not d.exists()


# --- files removed or cut short between the write and the read run ------------------------------

def test_file_removed_before_the_read_ior(shm_scratch):
    f = shm_scratch / "f"
    run_sonde(["ior", "-w", "-k", "-t", "8k", "-b", "16k", "-o", f], np=2)
    f.unlink()
    out = run_sonde(["ior", "-r", "-t", "8k", "-b", "16k", "-o", f], np=2, check=False,
                    timeout=BOUND)
    assert out.returncode != 0
    (e,) = error_lines(out.stderr)
    assert str(f) in e and "No such file or directory" in e
    assert not f.exists()


def test_file_removed_before_the_read_mpiio(shm_scratch):
    base = ["mpiio", "-type", 1, "-nobj", 2, "-size", "4K", "-target", shm_scratch / "nn.%r"]
    run_sonde(base + ["-op", "write"], np=2)
    (shm_scratch / "nn.1").unlink()
    out = run_sonde(base + ["-op", "read"], np=2, check=False, timeout=BOUND)
    assert out.returncode != 0
    (e,) = error_lines(out.stderr)
    assert f"{shm_scratch}/nn.1" in e and re.search(MISSING, e, re.IGNORECASE), e
    assert not (shm_scratch / "nn.1").exists()


@pytest.mark.parametrize("fpp", [0, 1])
def test_short_file_ior(shm_scratch, fpp):
    f = shm_scratch / "f"
    flags = ["-F"] if fpp else []
    run_sonde(["ior", "-w", "-k", "-t", "8k", "-b", "16k", "-o", f] + flags, np=2)
    short = shm_scratch / ("f.00000001" if fpp else "f")
    os.truncate(short, 9000 if fpp else 20000)
    out = run_sonde(["ior", "-r", "-t", "8k", "-b", "16k", "-o", f] + flags, np=2, check=False,
                    timeout=BOUND)
    assert out.returncode != 0
    (e,) = error_lines(out.stderr)
    assert str(short) in e and re.search(r"short|end of file", e), e


def test_short_file_mib_counts_short_reads(shm_scratch, tmp_path):
    """mib reads on past the end of a file and counts the short calls (as the original does):
    the count is in -I's output and in the JSON record, and --verify checks what was read."""
    args = ["mib", "-F", "-t", shm_scratch, "-s", "8k", "-l", 4]
    run_sonde(args + ["-W"], np=2)
    os.truncate(shm_scratch / "mibData.00000001", 10000)
    results = tmp_path / "r.jsonl"
    out = run_sonde(args + ["-R", "-I", "--verify", "--json", results], np=2, timeout=BOUND)
    # task 0 reads task 1's file: 10000 bytes = one full call, one of 1808, two of 0
    assert "3 short reads" in out.stdout
    (read,) = [r for r in read_jsonl(results) if r.get("phase") == "read"]
    assert read["extra"]["short_calls"] == 3
    assert read["verify"]["errors"] == 0 and read["verify"]["bytes_checked"] == 32768 + 10000


# --- corruption between the write and the read run ----------------------------------------------

def _flip(path, offset):
    with open(path, "r+b") as f:
        f.seek(offset)
        b = f.read(1)
        f.seek(offset)
        f.write(bytes([b[0] ^ 0x20]))


def test_corruption_ior(shm_scratch):
    base = ["ior", "-k", "-G", 4242, "-t", "8k", "-b", "32k", "-o", shm_scratch / "f"]
    run_sonde(base + ["-w"], np=2)
    _flip(shm_scratch / "f", 40000)
    out = run_sonde(base + ["-r", "-R"], np=2, check=False, timeout=BOUND)
    assert out.returncode == 3 and "offset 40000" in out.stderr, out.stderr


def test_corruption_mib(shm_scratch):
    args = ["mib", "-F", "-t", shm_scratch, "-l", 4, "-s", "8k"]
    run_sonde(args + ["-W"], np=2)
    _flip(shm_scratch / "mibData.00000000", 20000)
    out = run_sonde(args + ["-R", "--verify"], np=2, check=False, timeout=BOUND)
    assert out.returncode == 3
    assert f"{shm_scratch}/mibData.00000000: offset 20000" in out.stderr


def test_corruption_mpiio(shm_scratch):
    base = ["mpiio", "-type", 2, "-nobj", 2, "-size", "8K", "-target", shm_scratch / "n1",
            "-touch", 3]
    run_sonde(base + ["-op", "write"], np=2)
    _flip(shm_scratch / "n1", 3 * 8192 + 1000)
    out = run_sonde(base + ["-op", "read", "-chkdata", 3], np=2, check=False, timeout=BOUND)
    assert out.returncode == 3 and "does not match expected values" in out.stderr, out.stderr


def test_corruption_btio(shm_scratch):
    grid = (8, 8, 8)
    run_btio(shm_scratch, "w", 1, grid, 2, np=4)
    off = element_offset(grid, 1, 2, 3, 4, 1)
    write_double(shm_scratch / "btio.mpi", off, read_double(shm_scratch / "btio.mpi", off,
                                                             False) + 1.0, False)
    out = run_btio(shm_scratch, "r", 1, grid, 2, np=4, check=False)
    assert out.returncode == 3
    assert "element (dump 1, z 2, y 3, x 4, f 1)" in out.stderr, out.stderr
