# SPDX-License-Identifier: BSD-3-Clause
"""The shipped suites' dry runs on the cluster they are written for. The quick suite end to end
is python/tests/test_quick_suite.py, on the run of it the report's tests share."""

import subprocess
import sys

from conftest import REPO, SONDE, mpi_env


def suite_env():
    env = mpi_env({"SONDE_BIN": SONDE})
    env["PYTHONPATH"] = str(REPO / "python")
    return env


def test_dry_run_of_shipped_suites(tmp_path):
    # the cluster the suites are written for: 96 nodes of 64 cores
    hosts = tmp_path / "hosts"
    hosts.write_text("".join(f"node{k:02d} slots=64\n" for k in range(1, 97)))
    for name in ("quick", "jupiter-ior", "btio-scaling", "coll-sweep", "mib-stonewall",
                 "train-au"):
        proc = subprocess.run([sys.executable, "-m", "sonde.suite", "run",
                               str(REPO / "suites" / f"{name}.toml"), "--dry-run",
                               "--launcher", "mpirun", "--hostfile", str(hosts)],
                              env=suite_env(), capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        lines = proc.stdout.splitlines()
        assert lines and all(SONDE in ln and "--json" in ln for ln in lines)
        if name == "jupiter-ior":
            # nodes = [1, 96] of 64 tasks: a per-node mapping each, never the same line
            easy_1, easy_96 = (ln.split() for ln in lines[:2])
            assert easy_1[easy_1.index("--map-by") + 1] == "ppr:64:node"
            assert easy_1[easy_1.index("--host") + 1] == "node01:64"
            hosts_96 = easy_96[easy_96.index("--host") + 1].split(",")
            assert len(hosts_96) == 96 and hosts_96[-1] == "node96:64"
    # on this machine alone the JUPITER suite does not fit: refused, before anything runs
    proc = subprocess.run([sys.executable, "-m", "sonde.suite", "run",
                           str(REPO / "suites" / "jupiter-ior.toml"), "--dry-run", "--launcher",
                           "mpirun"], env=suite_env(), capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "jupiter-ior.toml:" in proc.stderr
