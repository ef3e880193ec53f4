# SPDX-License-Identifier: BSD-3-Clause
"""The quick suite end to end: sonde-suite launches every workload with mpirun, keeps each
launch's results, checks the rules, prints the tables; sonde-report makes the report of it."""

import json
import subprocess
import sys

from bounded import run_bounded
from conftest import MPIRUN, REPO, SONDE, mpi_env, read_jsonl


def suite_env():
    env = mpi_env({"SONDE_BIN": SONDE})
    env["PYTHONPATH"] = str(REPO / "python")
    return env


def test_quick_suite_end_to_end(tmp_path):
    out = tmp_path / "run"
    scratch = tmp_path / "scratch"
    suite = tmp_path / "quick.toml"
    # The shipped suite, with its scratch directory moved under the test's tmp.
    text = (REPO / "suites" / "quick.toml").read_text()
    suite.write_text(text.replace('scratch = "/tmp/sonde-quick"', f'scratch = "{scratch}"'))
    proc = run_bounded([sys.executable, "-m", "sonde.suite", "run", str(suite), "--out",
                        str(out)], env=suite_env(), capture_output=True, text=True,
                       timeout=900)
    manifest = json.loads((out / "manifest.json").read_text())
    failed = [(e["id"], e["reason"]) for e in manifest["launches"] if e["status"] != "ok"]
    assert proc.returncode == 0 and not failed, (failed, proc.stderr[-3000:])
    assert manifest["status"] == "complete"
    workloads = {e["workload"] for e in manifest["launches"]}
    assert workloads == {"ior", "mib", "mpiio", "btio", "coll", "mdtest", "find"}
    for e in manifest["launches"]:
        records = read_jsonl(out / e["id"] / "results.jsonl")
        assert records[0]["type"] == "header" and records[-1]["type"] == "end"
        assert records[-1]["exit_code"] == 0
        assert any(r["type"] == "measurement" for r in records), e["id"]
        assert (out / e["id"] / "command.txt").read_text().split()[0] == MPIRUN
    verdicts = json.loads((out / "verdicts.json").read_text())
    # The quick suite lists no rules: its launches are never called compliant.
    assert all(v["status"] == "no rules" for v in verdicts.values()), verdicts
    assert "compliant" not in proc.stdout
    assert "IOR results (MiB/s, seconds):" in proc.stdout
    # no rule of the JUPITER seed judges its ior runs: no score printed or kept
    assert "Score" not in proc.stdout and "qualitative" not in proc.stdout
    assert json.loads((out / "score.json").read_text())["scores"] == {}
    # The report of the whole run directory.
    rep = subprocess.run([sys.executable, "-m", "sonde.report", str(out)], env=suite_env(),
                         capture_output=True, text=True, timeout=300)
    assert rep.returncode == 0, rep.stderr
    html = (out / "report.html").read_text()
    # What make demo promises: a mib timeline and heatmaps from the profiled run, collective
    # latency against size, a scaling curve from the sweep over ranks, and the IOR table.
    for title in ("Per-call timeline of the write phase: mib, 2 ranks on 1 node, 64 KiB calls",
                  "Collective latency against message size", "ior: scaling",
                  "IOR results (the JUPITER table)", "Rate per task over time"):
        assert title in html, title
    assert len(list((out / "report-figures").glob("*.png"))) >= 8


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
