# SPDX-License-Identifier: BSD-3-Clause
"""Shared fixtures for the integration tests: run sonde under a real MPI launcher.

SONDE_BIN names the binary (default build/sonde); SONDE_MPIRUN the launcher (default: the
launcher `sonde --version` names, the one of the MPI the binary is built with, rather than the
system's `mpirun`, which may belong to the other MPI), so the same tests run against Open MPI
and MPICH.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from sonde.campaign.placement import mpirun_for

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
from asan_selection import short_id  # noqa: E402 (after the path is set)
from bounded import launch_summary, run_bounded  # noqa: E402 (it reads leftovers, on the path)
from launch_env import launch_env  # noqa: E402 (after the path is set)
from leftovers import no_processes_left  # noqa: E402,F401 (autouse fixture)
from skip_policy import (  # noqa: E402,F401 (pytest's hooks: skips listed, unexpected ones fail CI)
    pytest_runtest_logreport,
    pytest_sessionfinish,
)
from skip_policy import pytest_terminal_summary as skip_summary  # noqa: E402

# Absolute, since tests run sonde from other working directories (btio reads ./inputbt.data).
SONDE = os.path.abspath(os.environ.get("SONDE_BIN", str(REPO / "build" / "sonde")))
MPIRUN = mpirun_for(SONDE)
UTS_AGENT = REPO / "tests" / "uts-agent.sh"


def _is_open_mpi(launcher):
    try:
        out = subprocess.run([launcher, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "Open MPI" in out.stdout + out.stderr or "OpenRTE" in out.stdout + out.stderr


OPEN_MPI = _is_open_mpi(MPIRUN)


def _can_unshare_uts():
    try:
        return subprocess.run(["unshare", "--uts", "true"], capture_output=True,
                              timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


# Marks for tests that run on several "nodes" (launch_command's hosts).
MULTI_NODE = [
    pytest.mark.skipif(not OPEN_MPI, reason="multi-node launches use Open MPI's rsh launcher"),
    pytest.mark.skipif(not _can_unshare_uts(), reason="needs unshare --uts (root)"),
]


# Debian's MPICH 4.0.2 (ch4:ucx) has no setting that makes a waiting rank yield: with more ranks
# than this machine's 2 cores each spins through its peers' time slices (coll over every
# operation took 68 s on 6 ranks under MPICH, 6 s under Open MPI). Where a test's larger rank
# counts only vary what the MPI library does, they run in the Open MPI and ASan legs alone.
SPINS_UNDER_MPICH = pytest.mark.skipif(not OPEN_MPI, reason="more ranks than cores: MPICH's "
                                       "ranks spin (the Open MPI and ASan legs run it)")


# Open MPI's own grace between its SIGTERM and SIGKILL to the ranks (mpi_env sets none).
SIGNAL_GRACE = {"OMPI_MCA_odls_base_sigkill_timeout": "1"}


def mpi_env(extra=None):
    env = dict(os.environ)
    env.update(launch_env())
    # When a rank exits non-zero, Open MPI signals the job's ranks and sleeps this many
    # seconds twice (SIGTERM, then SIGKILL) even when every rank has already exited: 2 s
    # per failing launch, a third of the suite. sonde closes its results before
    # MPI_Finalize or MPI_Abort, so no test of an exit code needs the grace; tests that
    # send a signal and rely on it, as a user's run does, pass SIGNAL_GRACE.
    env["OMPI_MCA_odls_base_sigkill_timeout"] = "0"
    if extra:
        env.update(extra)
    return env


def launch_command(np, args, hosts=None, program=None):
    """The argv that launches sonde (or program, e.g. a unit-test binary) on np ranks.

    hosts, e.g. "nodeA:2,nodeB:2", makes one machine look like several nodes: each host name
    is a UTS namespace of its own (tests/uts-agent.sh, needs root). Ranks on different names
    do not share memory in Open MPI's eyes, so they talk TCP, over loopback (which Open MPI
    leaves out by default), as does the launcher's own out-of-band channel."""
    cmd = [MPIRUN, "-n", str(np)]
    if OPEN_MPI:
        cmd += ["--oversubscribe"]
        if hosts:
            cmd += ["--mca", "plm_rsh_agent", str(UTS_AGENT), "--host", hosts,
                    "--mca", "btl_tcp_if_include", "lo", "--mca", "oob_tcp_if_include", "lo"]
    elif hosts:
        pytest.skip("multi-node launches use Open MPI's rsh launcher")
    return cmd + [str(program or SONDE)] + [str(a) for a in args]


def run_sonde(args, np=1, cwd=None, env=None, timeout=180, check=True, hosts=None, mpi=True,
              program=None):
    """Runs sonde, or program instead (under the launcher unless mpi=False), and returns the
    CompletedProcess; past timeout seconds every process of the launch is killed
    (bounded.run_bounded) and the test fails.

    check=True asserts exit code 0 and shows stdout/stderr on failure."""
    cmd = (launch_command(np, args, hosts, program) if mpi
           else [str(program or SONDE)] + [str(a) for a in args])
    proc = run_bounded(cmd, timeout, cwd=cwd, env=mpi_env(env), capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(
            f"{' '.join(cmd)} exited {proc.returncode}\n--- stdout\n{proc.stdout}"
            f"\n--- stderr\n{proc.stderr}")
    return proc


def read_jsonl(path):
    """Records of a JSON Lines results file, each validated against the results schema
    (python/sonde/results/results.schema.json, docs/results-schema.md): an invalid record fails
    the test that reads it."""
    schema = json.loads((REPO / "python" / "sonde" / "results" / "results.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    records = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            record = json.loads(line)
            problems = [f"{'/'.join(map(str, e.absolute_path)) or '(record)'}: {e.message}"
                        for e in validator.iter_errors(record)]
            assert not problems, f"{path}:{lineno}: invalid record: " + "; ".join(problems)
            records.append(record)
    return records


@pytest.fixture
def scratch(tmp_path):
    """A scratch directory for test files (on the disk under pytest's tmp)."""
    return tmp_path


@pytest.fixture
def shm_scratch():
    """A scratch directory on /dev/shm (tmpfs), removed afterwards."""
    import tempfile

    d = tempfile.mkdtemp(prefix="sonde-test-", dir="/dev/shm")
    yield Path(d)
    shutil.rmtree(d, ignore_errors=True)


# Tests of what does not change with the build under test: the installer, the launchers and
# Slurm, the suite runner and its placement, the generated manual pages, the bench harness, the
# launch environment's consumers (tests/launch.env), the test harness itself (bounded launches,
# the skip policy, the ASan leg's selection), the licence check, and timings (which a sanitizer
# distorts). The Open MPI leg of make test runs them; the ASan and MPICH legs, there for sonde's
# C paths under another build, leave them out (-m "not once"), which keeps CI inside its time.
ONCE_MODULES = {"test_install", "test_mpi_selection", "test_manpages", "test_spdx", "test_bench",
                "test_suite_quick", "test_suite_jupiter", "test_suite_jupiter_gamed",
                "test_suite_preflight", "test_suite_systems", "test_suite_scratch", "test_slurm",
                "test_io500", "test_io500_rules", "test_io500_files", "test_launch_env",
                "test_bounded", "test_skip_policy", "test_asan_selection",
                "test_train_counted"}

# Tests the ASan leg leaves out: every C line and branch outcome their launches reach is reached
# by the tests it runs (measured with gcov: make asan-selection, tests/asan_selection.py;
# docs/reliability.md, "What the ASan leg runs"). A test not in the list runs there.
ASAN_COVERED = {line for line in (REPO / "tests" / "integration" / "asan_covered.txt")
                .read_text().splitlines() if line and not line.startswith("#")}


def pytest_terminal_summary(terminalreporter):
    skip_summary(terminalreporter)
    launch_summary(terminalreporter)


def pytest_configure(config):
    config.addinivalue_line("markers", "fault_matrix: the cells of the fault matrix "
                            "(test_fault_matrix.py); `-m 'not fault_matrix'` leaves them out")
    config.addinivalue_line("markers", "once: runs in the Open MPI leg of make test only "
                            "(conftest.ONCE_MODULES says which and why)")
    config.addinivalue_line("markers", "timing: a timing, which make test runs once (it is "
                            "also marked once) and alone, after the legs it runs side by side")
    config.addinivalue_line("markers", "asan_covered: the ASan leg leaves it out, since the "
                            "tests it runs reach every C line and branch this one reaches "
                            "(asan_covered.txt)")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.module.__name__ in ONCE_MODULES or item.get_closest_marker("timing"):
            item.add_marker(pytest.mark.once)
        if short_id(item.nodeid) in ASAN_COVERED:
            item.add_marker(pytest.mark.asan_covered)
