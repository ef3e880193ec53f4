# SPDX-License-Identifier: BSD-3-Clause
"""sonde mpiio on bad input: one clear line from rank 0, exit code 2, no hang, no file."""

import pytest
from conftest import run_sonde


def one_error(proc):
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("sonde mpiio")]
    assert len(lines) == 1, proc.stderr
    assert "error:" in lines[0]
    return lines[0]


BAD = [
    (2, ["-type", 1, "-size", 1001], "must be a multiple of 8"),
    (0, ["-type", 2, "-size", "5w"], "-size 10: must be a multiple of 8"),
    (0, ["-type", 3, "-num_io", 1, "-nobj", 2, "-size", "1K", "-csize", "3K"],
     "-csize 3072: must be a multiple of nobj x size = 2048"),
    (0, ["-type", 3, "-strided", 1, "-size", "1K"], "-strided 1 is not available with aggregation"),
    (0, ["-type", 4, "-strided", 1, "-size", "1K"], "-strided 1 is not available with aggregation"),
    (0, ["-type", 5, "-targets", "/nonexistent/targets.txt"], "-targets /nonexistent/targets.txt: "
                                                           "No such file or directory"),
    (0, ["-type", 5, "-size", "1K"], "type 5 needs -targets"),
    (0, ["-verbose"], "Too few command-line args"),
    (0, ["-type"], "option -type needs a value"),
    (0, ["-type", 1, "-bogus", 3], "unknown option -bogus"),
    (0, ["-type", 9, "-size", "1K"], "-type"),
    (0, ["-type", 1, "-size", "12Q"], "-size"),
    (0, ["-type", 1, "-nobj", 2000000000, "-size", "8G"], "do not fit in a file"),
    (0, ["-type", 1, "-op", "append"], "-op 'append': must be read or write"),
    (0, ["-type", 1, "-nobj", 9999999999], "option -nobj: '9999999999': too large (at most "
                                           "2147483647)"),
    (0, ["-type", 2, "-targets", "x"], "-targets cannot be used with type 2"),
    (2, ["-type", 3, "-num_io", 5], "-num_io 5: more I/O processes than the 2 processes"),
    (0, ["-type", 2, "-hints", "a", "b", "c"], "-hints: expected key value pairs"),
    (0, ["-type", 1, "-target", "/tmp/x.%q"], "unknown escape '%q'"),
    (2, ["-type", 1, "-target", "/tmp/same"], "ranks 0 and 1 would write the same file"),
    (2, ["-type", 3, "-norsend"], "-norsend with every process an aggregator"),
    (2, ["-type", 3, "-host", "no-such-host", "-num_io", 1],
     "-host no-such-host: no process runs there"),
    (0, ["-type", 1, "-setup", "/nonexistent/setup"], "-setup /nonexistent/setup"),
]


@pytest.mark.parametrize("np_,args,message", BAD, ids=[str(i) for i in range(len(BAD))])
def test_bad_input(shm_scratch, np_, args, message):
    # np_ 0: a singleton run without the launcher (whose non-zero exit costs seconds).
    proc = run_sonde(["mpiio"] + args, np=max(np_, 1), mpi=np_ > 0, cwd=shm_scratch,
                     check=False, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert message in one_error(proc)
    assert not any(p.name != "x" for p in shm_scratch.iterdir())


def test_missing_directory(shm_scratch):
    proc = run_sonde(["mpiio", "-type", 1, "-target", shm_scratch / "no" / "f.%r"], np=2,
                     check=False, timeout=60)
    assert proc.returncode == 2
    assert "cannot create" in one_error(proc)


def test_read_of_missing_files(shm_scratch):
    proc = run_sonde(["mpiio", "-type", 2, "-op", "read", "-target", shm_scratch / "none"],
                     np=2, check=False, timeout=60)
    assert proc.returncode == 2
    assert f"cannot open {shm_scratch / 'none'}" in one_error(proc)


def test_targets_file_too_short(shm_scratch):
    t = shm_scratch / "x"
    t.write_text(f"{shm_scratch}/a\n")
    proc = run_sonde(["mpiio", "-type", 5, "-num_io", 2, "-targets", t], np=2, check=False,
                     timeout=60)
    assert proc.returncode == 2
    assert "1 lines, but 2 files need a name each" in one_error(proc)


def test_bad_setup_file(shm_scratch):
    s = shm_scratch / "x"
    s.write_text("-type 2\n-nobj zero\n")
    proc = run_sonde(["mpiio", "-setup", s, "-size", "1K"], np=2, check=False, timeout=60)
    assert proc.returncode == 2
    assert f"-setup {s}: option -nobj" in one_error(proc)


@pytest.mark.parametrize("type_,name", [(1, "f.1"), (2, "f")])
def test_planted_symlink_is_refused(shm_scratch, type_, name):
    precious = shm_scratch / "precious"
    precious.write_bytes(b"keep me")
    (shm_scratch / name).symlink_to(precious)
    target = shm_scratch / ("f.%r" if type_ == 1 else "f")
    proc = run_sonde(["mpiio", "-type", type_, "-nobj", 2, "-size", "4K", "-target", target],
                     np=2, check=False, timeout=60)
    assert proc.returncode == 2
    assert "is a symbolic link" in one_error(proc)
    assert precious.read_bytes() == b"keep me"
