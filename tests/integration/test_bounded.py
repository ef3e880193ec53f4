# SPDX-License-Identifier: BSD-3-Clause
"""Every launch of the tests is bounded (bounded.run_bounded, behind run_sonde): a launch past
its time is killed with all it started, even when it ignores SIGTERM, and the test fails in
about its timeout instead of hanging the suite."""

import time

import pytest
from bounded import GRACE, LaunchTimeout, run_bounded, session_members
from conftest import launch_command, mpi_env, run_sonde

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
