# SPDX-License-Identifier: BSD-3-Clause
"""sonde mib: the -F safety, --verify, -M, and bad input (one clear line, non-zero exit, no hang,
no file of the user's touched)."""

import os
import re
import subprocess
import time

import pytest
from conftest import SONDE, launch_command, mpi_env, run_sonde


def snapshot(d):
    """Names, sizes, modification times and contents of everything under d."""
    out = {}
    for root, dirs, files in os.walk(d):
        for name in dirs + files:
            p = os.path.join(root, name)
            st = os.lstat(p)
            data = open(p, "rb").read() if os.path.isfile(p) and not os.path.islink(p) else b""
            out[os.path.relpath(p, d)] = (st.st_size, st.st_mtime_ns, data)
    return out


def error_lines(stderr):
    return [line for line in stderr.splitlines() if line.startswith("sonde mib")]


@pytest.mark.parametrize("where,name,magic", [("disk", "EXT2_SUPER_MAGIC", "0xef53"),
                                              ("shm", "TMPFS_MAGIC", "0x1021994")])
def test_force_needed_on_non_parallel_file_systems(scratch, shm_scratch, where, name, magic):
    d = scratch if where == "disk" else shm_scratch
    ftype = subprocess.run(["stat", "-f", "-c", "%t", d], capture_output=True, text=True)
    if "0x" + ftype.stdout.strip() != magic:
        pytest.skip(f"{d} is not on {name}")
    before = snapshot(d)
    out = run_sonde(["mib", "-t", d, "-l", 1], np=2, check=False)
    assert out.returncode == 2
    assert error_lines(out.stderr) == [
        f'sonde mib: error: Mib will not write to a file system of type "{name}" '
        f'(f_type = {magic}) unless you use the "-F" (--force) option']
    assert snapshot(d) == before
    run_sonde(["mib", "-F", "-t", d, "-l", 1, "-s", "4k"], np=2)


def test_verify_catches_a_corrupted_byte(shm_scratch):
    args = ["mib", "-F", "-t", shm_scratch, "-l", 8, "-s", "8k"]
    run_sonde(args + ["-W", "--seed", 42], np=2)
    # Untouched files read back clean by the other task.
    run_sonde(args + ["-R", "--verify", "--seed", 42], np=2)
    target = shm_scratch / "mibData.00000001"
    data = bytearray(target.read_bytes())
    offset = 3 * 8192 + 517  # inside a sector, away from its stamp
    data[offset] ^= 0x5A
    target.write_bytes(data)
    out = run_sonde(args + ["-R", "--verify", "--seed", 42], np=2, check=False)
    assert out.returncode == 3
    # Task 0 reads task 1's file; it names the file, the offset and both bytes.
    want, found = data[offset] ^ 0x5A, data[offset]
    assert (f"verify: rank 0: {target}: offset {offset}: expected 0x{want:02x}, "
            f"found 0x{found:02x}") in out.stderr
    assert "sonde mib: error: verify: 1 of 131072 bytes read differ" in out.stderr
    # The result line is still printed: the rates were measured.
    assert re.search(r" 8k +8 +60 +0\.00 +\d+\.\d\d$", out.stdout, re.MULTILINE)
    # Another seed is other data: everything differs.
    out = run_sonde(args + ["-R", "--verify", "--seed", 43], np=2, check=False)
    assert out.returncode == 3


def test_verify_catches_a_misplaced_sector(shm_scratch):
    """Two sectors of one file swapped: every byte is right for its writer but not for its
    place."""
    args = ["mib", "-F", "-t", shm_scratch, "-l", 4, "-s", "4k"]
    run_sonde(args + ["-W"])
    f = shm_scratch / "mibData.00000000"
    data = bytearray(f.read_bytes())
    data[0:512], data[1024:1536] = data[1024:1536], data[0:512]
    f.write_bytes(data)
    out = run_sonde(args + ["-R", "--verify"], check=False)
    assert out.returncode == 3 and "offset 0: expected" in out.stderr


def test_no_mpi_single_process(shm_scratch):
    out = run_sonde(["mib", "-M", "-F", "-t", shm_scratch, "-l", 4, "-s", "4k", "-H", "-p",
                     shm_scratch / "p"], mpi=False)
    lines = out.stdout.splitlines()
    assert lines[0].startswith("  task           date")
    assert re.match(r"^     0 \w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}      1    4k     4    60 "
                    r"+\d+\.\d\d +\d+\.\d\d$", lines[3])
    # A real clock: rates are measured, not 0.00 from a one-second clock.
    assert float(lines[3].split()[-1]) > 0 and float(lines[3].split()[-2]) > 0
    rows = [ln.split("\t") for ln in (shm_scratch / "p.write").read_text().splitlines()]
    assert len(rows) == 5 and all(len(r) == 2 and r[1] == "" for r in rows)
    assert [float(r[0]) for r in rows] == sorted(float(r[0]) for r in rows)


def test_no_mpi_refuses_several_processes(shm_scratch):
    """As srun would start them: task 0 says why, the others exit as quietly."""
    before = snapshot(shm_scratch)
    for procid, lines in (("0", 1), ("3", 0)):
        out = run_sonde(["mib", "-M", "-F", "-t", shm_scratch], mpi=False, check=False,
                        env={"SLURM_NPROCS": "4", "SLURM_NTASKS": "4",
                             "SLURM_STEP_NUM_TASKS": "4", "SLURM_PROCID": procid})
        assert out.returncode == 2
        assert error_lines(out.stderr) == [
            "sonde mib: error: -M runs one process without MPI, but the launcher started 4: "
            "processes without MPI cannot coordinate their phases or their files; drop -M"
        ][:lines]
    assert snapshot(shm_scratch) == before



@pytest.mark.parametrize("batch_env", [{}, {"SLURM_PROCID": "0", "SLURM_NTASKS": "2"}],
                         ids=["plain", "inside-sbatch"])
def test_no_mpi_under_mpirun_refuses_once(shm_scratch, batch_env):
    """Two processes started by mpirun with -M: one line (from the first), both exit 2. Inside
    an sbatch script every rank inherits SLURM_PROCID=0: mpirun's own variables decide."""
    before = snapshot(shm_scratch)
    out = run_sonde(["mib", "-M", "-F", "-t", shm_scratch], np=2, check=False, timeout=60,
                    env=batch_env)
    assert out.returncode == 2
    assert error_lines(out.stderr) == [
        "sonde mib: error: -M runs one process without MPI, but the launcher started 2: "
        "processes without MPI cannot coordinate their phases or their files; drop -M"]
    assert snapshot(shm_scratch) == before


def test_no_mpi_in_a_batch_script_runs(shm_scratch):
    """sonde mib -M typed in an sbatch script of a job with several tasks: one process, whatever
    the job's SLURM_NTASKS says."""
    out = run_sonde(["mib", "-M", "-F", "-t", shm_scratch, "-l", 4, "-s", "4k"], mpi=False,
                    env={"SLURM_PROCID": "0", "SLURM_NTASKS": "4", "SLURM_NPROCS": "4",
                         "SLURM_JOB_ID": "1"})
    assert out.returncode == 0
    assert (shm_scratch / "mibData.00000000").stat().st_size == 4 * 4096


def test_two_runs_on_one_directory_are_refused(shm_scratch):
    """Two -M processes started by hand both write mibData.00000000: the second finds the
    first's lock on it and refuses (exit 2) before touching the file, whether it would write
    (-n too: the file is not removed under the first run) or only read; the first run is not
    disturbed."""
    first = subprocess.Popen(
        [SONDE, "mib", "-M", "-F", "-t", shm_scratch, "-L", "3", "-l", str(2**31 - 1), "-s",
         "4k", "--verify"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    data = shm_scratch / "mibData.00000000"
    deadline = time.monotonic() + 30
    while not data.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    for extra in ([], ["-n"], ["-R"]):
        out = run_sonde(["mib", "-M", "-F", "-t", shm_scratch, "-L", 1, "-s", "4k", *extra],
                        mpi=False, check=False, timeout=60)
        assert out.returncode == 2, (extra, out.stdout, out.stderr)
        assert error_lines(out.stderr) == [
            f"sonde mib: error: {data} is in use by another process (another mib run on "
            f"{shm_scratch}? two -M runs started by hand share mibData.00000000)"], extra
        assert first.poll() is None, "the first run ended too soon to test anything"
    stdout, stderr = first.communicate(timeout=60)
    assert first.returncode == 0, stderr
    # the first run read back what it wrote, verified
    assert re.search(r"^     0 .* +\d+\.\d\d +\d+\.\d\d$", stdout, re.MULTILINE), stdout
    # once it is over, the directory is free again
    run_sonde(["mib", "-M", "-F", "-t", shm_scratch, "-l", 2, "-s", "4k"], mpi=False)


def test_two_mpi_runs_on_one_directory_are_refused(shm_scratch):
    first = subprocess.Popen(
        launch_command(2, ["mib", "-F", "-t", shm_scratch, "-L", 3, "-l", 2**31 - 1,
                           "-s", "4k"]),
        env=mpi_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not (shm_scratch / "mibData.00000001").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    out = run_sonde(["mib", "-F", "-t", shm_scratch, "-L", 1, "-s", "4k"], np=2, check=False,
                    timeout=60)
    assert out.returncode == 2
    assert len(error_lines(out.stderr)) == 1 and "is in use by another process" in out.stderr
    first.communicate(timeout=60)
    assert first.returncode == 0


@pytest.mark.parametrize("args,warnings", [
    (["-W", "-r", "-b4096", "--verify"], ["-b", "-r", "--verify"]),
    (["-R", "-n"], ["-n"]),
    (["-W", "-R", "-n", "-r"], []),  # -W with -R: both phases
])
def test_options_without_effect_are_accepted_with_a_warning(shm_scratch, args, warnings):
    """mib took -r with -W (its docs: "no effect with -W") and the like: so does sonde, with
    one warning line for each."""
    if "-R" in args and "-W" not in args:
        run_sonde(["mib", "-F", "-t", shm_scratch, "-W", "-l", 2, "-s", "4k"], np=2)
    out = run_sonde(["mib", "-F", "-t", shm_scratch, "-l", 2, "-s", "4k", *args], np=2)
    lines = [ln for ln in out.stderr.splitlines() if "has no effect here" in ln]
    assert [ln.split()[3] for ln in lines] == warnings, out.stderr


BAD = [
    ([], 'Mib requires a "-t <test_dir>" argument.'),
    (["-t", "{d}/missing"], "test directory {d}/missing: No such file or directory"),
    (["-t", "{d}/afile"], "test directory {d}/afile: not a directory"),
    (["-t", "{d}", "-s", "0"], "option -s: '0': must be between 1 and"),
    (["-t", "{d}", "-l", "12x"], "option -l: '12x'"),
    (["-t", "{d}", "-L", "ten"], "option -L: 'ten'"),
    (["-t", "{d}", "-s", "4q"], "option -s: '4q'"),
    (["-t", "{d}", "-l", "0"], "option -l: '0': must be"),
    (["-t", "{d}", "-b", "0"], "option -b: '0': the granularity must be at least 1 byte"),
    (["-t", "{d}", "-d", "-s", "1000"], "option -d: the call size (1000) must be a multiple"),
    (["-t", "{d}", "-p", "{d}/nodir/prof"], "option -p {d}/nodir/prof: directory {d}/nodir"),
    (["-t", "{d}", "extra"], "unexpected argument 'extra'"),
    (["-t", "{d}", "-R"], "No file: {d}/mibData.00000001"),
    (["-t", "{d}", "-R", "-l", "1", "-s", "4k", "--tag"], "unknown option --tag"),
]


@pytest.mark.parametrize("args,message", BAD)
def test_bad_input(shm_scratch, args, message):
    (shm_scratch / "afile").write_text("user data\n")
    (shm_scratch / "other").mkdir()
    before = snapshot(shm_scratch)
    words = ["mib", "-F"] + [a.format(d=shm_scratch) for a in args]
    out = run_sonde(words, np=2, check=False, timeout=60)
    assert out.returncode == 2, out.stderr
    errors = error_lines(out.stderr)
    assert len(errors) == 1 and message.format(d=shm_scratch) in errors[0], out.stderr
    assert snapshot(shm_scratch) == before


def test_unreadable_read_target_is_refused_untouched(shm_scratch, scratch):
    """A read target that is a symbolic link (to the user's file) is not followed."""
    user = scratch / "precious"
    user.write_bytes(b"x" * 8192)
    os.symlink(user, shm_scratch / "mibData.00000000")
    before, user_before = snapshot(shm_scratch), snapshot(scratch)
    out = run_sonde(["mib", "-F", "-t", shm_scratch, "-R", "-l", 1, "-s", "4k", "-r"],
                    check=False, timeout=60)
    assert out.returncode == 2
    errors = error_lines(out.stderr)
    assert len(errors) == 1 and "symbolic link" in errors[0]
    assert snapshot(shm_scratch) == before and snapshot(scratch) == user_before
