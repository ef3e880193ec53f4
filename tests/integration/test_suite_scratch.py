# SPDX-License-Identifier: BSD-3-Clause
"""Each run of a suite has its own data directory, SCRATCH/USER/RUN_ID below the suite's
scratch, removed when the run completes: a second user on the node runs the same shipped suite
(it failed with "Permission denied" on the first user's directories, and left their data), and
nothing stays behind. The second user is a real one (setpriv to nobody), since root passes every
permission check."""

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from bounded import run_bounded
from conftest import REPO, SONDE, mpi_env

NOBODY = 65534

SUITE = """
[suite]
name = "scratch"
ranks = 2
scratch = "{base}"
[[step]]
name = "ior"
workload = "ior"
mkdir = ["{{scratch}}/ior"]
args = ["-w", "-k", "-t", "64k", "-b", "256k", "-o", "{{scratch}}/ior/f"]
"""


def can_run_as_nobody(*paths):
    """Whether nobody reaches every path (a checkout below a directory only root enters)."""
    return all(subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}",
                               "--clear-groups", "test", "-r", str(p)],
                              capture_output=True).returncode == 0 for p in paths)


@pytest.fixture
def place():
    d = Path(tempfile.mkdtemp(prefix="sonde-scratch-"))
    d.chmod(0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def run_suite(suite, out, user=None, *more):
    cmd = [sys.executable, "-m", "sonde.suite", "run", str(suite), "--out", str(out), *more]
    if user is not None:
        cmd = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups"] + cmd
    env = mpi_env({"SONDE_BIN": SONDE, "PYTHONPATH": str(REPO / "python"),
                   "HOME": str(out.parent), "TMPDIR": str(out.parent)})
    env.pop("USER", None)
    env.pop("LOGNAME", None)
    return run_bounded(cmd, env=env, capture_output=True, text=True, timeout=300,
                          cwd=out.parent)


def test_each_run_has_its_own_scratch_removed_when_it_completes(place):
    base = place / "shared-scratch"
    suite = place / "s.toml"
    suite.write_text(SUITE.format(base=base))
    proc = run_suite(suite, place / "run1")
    assert proc.returncode == 0, proc.stderr
    command = (place / "run1" / "000-ior_r0" / "command.txt").read_text()
    mine = base / "root" / "run1"
    assert f"-o {mine}/ior/f" in command
    assert "removed the run's data directory" in proc.stderr and not mine.exists()
    # made as /tmp is, so that every user makes their own directory in it
    assert stat.S_IMODE(base.stat().st_mode) == 0o1777
    kept = run_suite(suite, place / "run2", None, "--keep-scratch")
    assert kept.returncode == 0 and (base / "root" / "run2" / "ior" / "f").exists()


def test_a_second_user_runs_the_same_suite(place):
    if not shutil.which("setpriv") or os.geteuid() != 0:
        pytest.skip("needs root and setpriv to run as another user")
    if not can_run_as_nobody(SONDE, sys.executable, REPO / "python" / "sonde" / "suite.py"):
        pytest.skip("the checkout is below a directory the user nobody cannot enter")
    base = place / "shared-scratch"
    suite = place / "s.toml"
    suite.write_text(SUITE.format(base=base))
    assert run_suite(suite, place / "root-run", None, "--keep-scratch").returncode == 0
    theirs = place / "theirs"
    theirs.mkdir()
    os.chown(theirs, NOBODY, NOBODY)
    proc = run_suite(suite, theirs / "run", NOBODY)
    assert proc.returncode == 0, proc.stderr
    assert not (base / "nobody" / "run").exists()  # theirs, removed
    assert (base / "root" / "root-run" / "ior" / "f").exists()  # the first user's, untouched
