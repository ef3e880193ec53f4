# SPDX-License-Identifier: BSD-3-Clause
"""Every launch of the tests is bounded (bounded.run_bounded, behind run_sonde): a launch past
its time is killed with all it started, even when it ignores SIGTERM, and the test fails in
about its timeout instead of hanging the suite."""

import re
import subprocess
import sys
import time

import pytest
from bounded import GRACE, LaunchTimeout, run_bounded, session_members
from conftest import REPO, launch_command, mpi_env, run_sonde

# A shell that ignores SIGTERM, as does the sleep it becomes (an ignored signal stays ignored
# across exec), and says it has started.
DEAF = ["-c", "trap '' TERM; echo started; exec sleep 600"]


def check_killed(launch, timeout):
    t0 = time.monotonic()
    with pytest.raises(LaunchTimeout) as caught:
        launch()
    took = time.monotonic() - t0
    assert timeout <= took < timeout + GRACE + 10, took
    return caught.value


def test_a_shell_deaf_to_sigterm_is_killed():
    err = check_killed(lambda: run_bounded(["sh", *DEAF], 2, capture_output=True, text=True), 2)
    assert err.stdout == "started\n"
    assert "did not finish within 2 s" in str(err)
    assert session_members(err.pid) == []


def test_a_launch_whose_ranks_ignore_sigterm_is_killed_whole():
    """Open MPI's mpirun puts each rank in a process group of its own: a kill of the launcher's
    group alone would leave the ranks sleeping. Nothing of the session may remain."""
    cmd = launch_command(2, DEAF, program="sh")
    err = check_killed(
        lambda: run_bounded(cmd, 8, env=mpi_env(), capture_output=True, text=True), 8)
    assert err.stdout.count("started") == 2, err
    assert session_members(err.pid) == []


def test_run_sonde_is_bounded():
    err = check_killed(lambda: run_sonde(DEAF, np=1, timeout=8, program="sh"), 8)
    assert session_members(err.pid) == []


LEAVING = '''
import subprocess


def test_leaves_a_sleeper_behind():
    subprocess.Popen(["bash", "-c", "(exec -a sonde-leftover-probe sleep 600) & exit 0"])


def test_times_out_a_parent_whose_child_goes_on():
    # as a report whose PNG workers outlive it: the timeout kills only the parent
    try:
        subprocess.run(["bash", "-c", "(exec -a sonde-leftover-probe sleep 600) & wait"],
                       timeout=0.5)
    except subprocess.TimeoutExpired:
        pass


def test_cleans_up():
    subprocess.run(["true"], check=True)
'''


def test_a_test_that_leaves_processes_fails_and_they_go(tmp_path):
    """tests/leftovers.py: a process a test started and left running, orphaned or not, fails
    that test and is killed; a test that leaves nothing passes."""
    (tmp_path / "conftest.py").write_text(
        f"import sys\nsys.path.insert(0, {str(REPO / 'tests')!r})\n"
        "from leftovers import no_processes_left  # noqa: F401\n")
    (tmp_path / "test_leaving.py").write_text(LEAVING)
    proc = run_bounded([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        str(tmp_path)], cwd=tmp_path, capture_output=True, text=True,
                       timeout=120)
    out = proc.stdout
    assert proc.returncode == 1, out
    assert "3 passed, 2 errors" in out, out
    for name in ("test_leaves_a_sleeper_behind", "test_times_out_a_parent_whose_child_goes_on"):
        assert f"ERROR test_leaving.py::{name}" in out, out
    # in the errors' tracebacks ("E" lines; a summary of them may follow, as under CI=true)
    failed = re.findall(r"^E +Failed: the test left processes running \(killed now\):\n"
                        r"E +\d+: sonde-leftover-probe 600$", out, re.MULTILINE)
    assert len(failed) == 2, out
    probes = subprocess.run(["pgrep", "-f", "sonde-leftover-probe"], capture_output=True,
                            text=True)
    assert probes.stdout == "", probes.stdout
