# SPDX-License-Identifier: BSD-3-Clause
"""One exit-code policy for paths (man sonde, EXIT STATUS; src/core/fail.h): a path the user
named that does not exist or that this user may not use, found before the run's I/O began, is
bad input, exit 2, with one line in the system's words; the same for every workload and I/O
path. Run as an unprivileged user (setpriv to nobody), since root passes every permission
check; the oracle for "permission denied" is that user's own open(2)/mkdir(2)."""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from bounded import run_bounded
from btio_util import has_pnetcdf
from conftest import SONDE, launch_command, mpi_env
from faultlib import error_lines

NOBODY = 65534

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"),
                                reason="needs root and setpriv to run as another user")

# (workload arguments with {dir} for the directory named, what the line names)
CASES = {
    "ior-posix": ["ior", "-w", "-t", "4k", "-b", "4k", "-o", "{dir}/f"],
    "ior-mpiio": ["ior", "-a", "MPIIO", "-w", "-t", "4k", "-b", "4k", "-o", "{dir}/f"],
    "mib": ["mib", "-t", "{dir}", "-l", "2", "-s", "4k", "-F"],
    "mdtest": ["mdtest", "-n", "2", "-d", "{dir}/md"],
    "train": ["train", "-d", "{dir}", "--generate", "--num-files", "2", "--record-size", "4k"],
    "mpiio": ["mpiio", "-type", "1", "-nobj", "1", "-size", "4K", "-target", "{dir}/t"],
    "btio-mpiio": ["btio", "--method", "0", "--dumps", "1", "--grid", "8x8x8", "--dir",
                   "{dir}"],
    "btio-pnetcdf": ["btio", "--method", "2", "--dumps", "1", "--grid", "8x8x8", "--dir",
                     "{dir}"],
}


def as_nobody(args, cwd, program):
    cmd = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    cmd += launch_command(1, args, program=program)
    env = mpi_env({"HOME": str(cwd), "TMPDIR": str(cwd)})
    return run_bounded(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture
def places():
    """A directory nobody may enter and write (root's, 0755), a missing one, and a working
    directory nobody can write its MPI session files in; under /tmp, since pytest's tmp_path
    lies below a directory only root may enter."""
    base = Path(tempfile.mkdtemp(prefix="sonde-exit-codes-"))
    base.chmod(0o755)
    closed = base / "closed"
    closed.mkdir(mode=0o755)
    work = base / "work"
    work.mkdir()
    os.chown(work, NOBODY, NOBODY)
    # the binary where nobody reaches it, whatever directory the checkout is in
    program = base / "sonde"
    shutil.copy2(SONDE, program)
    yield {"closed": closed, "missing": base / "missing", "work": work, "program": program}
    shutil.rmtree(base)


@pytest.mark.parametrize("where", ["closed", "missing"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_path_this_user_cannot_use_is_bad_input(case, where, places):
    if case == "btio-pnetcdf" and not has_pnetcdf():
        pytest.skip("this sonde was built without PnetCDF")
    args = [a.replace("{dir}", str(places[where])) for a in CASES[case]]
    out = as_nobody(args, places["work"], places["program"])
    assert out.returncode == 2, out.stdout + out.stderr
    lines = error_lines(out.stderr)
    assert len(lines) == 1, out.stderr
    # the system's words, once, for what nobody's own call would meet
    probe = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}",
                            "--clear-groups", "touch", str(places[where] / "probe")],
                           capture_output=True, text=True, timeout=30)
    said = "Permission denied" if where == "closed" else "No such file or directory"
    assert said in probe.stderr
    assert said in lines[0] or (where == "missing" and "does not exist" in lines[0]), lines[0]
    if where == "closed":  # not "cannot open F: open F: ..."
        assert lines[0].count(str(places[where])) == 1, lines[0]
    assert os.listdir(places["closed"]) == []
