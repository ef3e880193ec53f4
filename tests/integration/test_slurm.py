# SPDX-License-Identifier: BSD-3-Clause
"""sonde under a real Slurm: a one-node cluster on this machine (scripts/slurm-up.sh), srun
--mpi=pmix launches of every workload, the results header's Slurm fields, sonde-suite inside
an allocation and through sbatch, and a clean end when Slurm sends SIGTERM.

Where Slurm cannot run (not root, packages missing) every test here is skipped with the reason.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import MPIRUN, REPO, SIGNAL_GRACE, SONDE, mpi_env, read_jsonl, run_sonde

sys.path.insert(0, str(REPO / "python"))
from sonde.campaign import suitefile

QUICK = suitefile.load(REPO / "suites" / "quick.toml")


@pytest.fixture(scope="module")
def slurm():
    if os.geteuid() != 0:
        pytest.skip("Slurm tests need root (SlurmUser=root, munge key)")
    if not shutil.which("slurmctld") or not shutil.which("srun"):
        pytest.skip("Slurm is not installed (scripts/setup.sh installs it)")
    up = subprocess.run([str(REPO / "scripts" / "slurm-up.sh")], capture_output=True,
                        text=True, timeout=120)
    if up.returncode != 0:
        pytest.fail(f"Slurm did not start: {up.stderr.strip()}")
    return True


def workload_available(name):
    out = subprocess.run([SONDE, "--help"], capture_output=True, text=True, timeout=30)
    return f"\n  {name} " in out.stdout


def srun(args, np, env=None, timeout=300, check=True):
    cmd = ["srun", "--mpi=pmix", "-n", str(np), "--overcommit", SONDE] + [str(a) for a in args]
    proc = subprocess.run(cmd, env=mpi_env(env), capture_output=True, text=True,
                          timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited {proc.returncode}\n{proc.stdout}\n"
                             f"{proc.stderr}")
    return proc


def shape(records):
    """What a run measured, without the figures: (phase, iteration) of each measurement."""
    return sorted((r["phase"], r["iteration"]) for r in records if r["type"] == "measurement")


def launch_args(launch, scratch):
    """The launch's arguments on a scratch directory of its own, made as the suite runner makes
    the suite's scratch."""
    scratch.mkdir(parents=True, exist_ok=True)
    args = [a.replace(QUICK.scratch, str(scratch)) for a in launch.args]
    for d in launch.mkdir:
        Path(d.replace(QUICK.scratch, str(scratch))).mkdir(parents=True, exist_ok=True)
    return args


@pytest.mark.parametrize("launch", QUICK.launches, ids=[ln.id for ln in QUICK.launches])
def test_srun_matches_mpirun(slurm, launch, tmp_path):
    if not workload_available(launch.workload):
        pytest.skip(f"this build has no {launch.workload} workload")
    via_srun, via_mpirun = tmp_path / "srun.jsonl", tmp_path / "mpirun.jsonl"
    args = launch_args(launch, tmp_path / "s")
    srun([launch.workload] + args + ["--json", via_srun], launch.ranks)
    args = launch_args(launch, tmp_path / "m")
    run_sonde([launch.workload] + args + ["--json", via_mpirun], np=launch.ranks)
    s, m = read_jsonl(via_srun), read_jsonl(via_mpirun)
    assert shape(s) == shape(m) and shape(s)
    hs, hm = s[0], m[0]
    assert hs["slurm"] and hs["slurm"]["job_id"].isdigit()
    assert hs["slurm"]["nodelist"]
    assert hm["slurm"] is None
    for key in ("ranks", "nodes", "tasks_per_node", "hostnames"):
        assert hs[key] == hm[key], key
    assert s[-1]["type"] == "end" and s[-1]["exit_code"] == 0


def test_slurm_view_mismatch_is_a_warning_naming_both(tmp_path):
    # MPI sees 2 ranks on one node; the environment claims 3 tasks per node.
    out = run_sonde(["coll", "-e", "8", "-i", "2", "Barrier"], np=2,
                    env={"SLURM_JOB_ID": "4242", "SLURM_NTASKS_PER_NODE": "3",
                         "SLURM_JOB_NODELIST": "vm"})
    warnings = [ln for ln in out.stderr.splitlines() if "warning" in ln]
    assert len(warnings) == 1, out.stderr
    assert "SLURM_NTASKS_PER_NODE=3" in warnings[0] and "2" in warnings[0]


def test_sigterm_ends_cleanly_with_results_kept(slurm, tmp_path):
    results = tmp_path / "r.jsonl"
    # Many sizes and iterations: runs far longer than the few seconds before the signal.
    cmd = ["srun", "--mpi=pmix", "-n", "2", "--overcommit", SONDE, "coll", "-b", "1",
           "-e", "1M", "-i", "1000000", "--json", str(results), "Bcast", "Allreduce"]
    proc = subprocess.Popen(cmd, env=mpi_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if results.exists() and sum(1 for _ in open(results)) >= 3:
            break
        time.sleep(0.2)
    job = subprocess.run(["squeue", "-h", "-o", "%i", "-u", "root", "-n", "sonde"],
                         capture_output=True, text=True).stdout.split()
    assert job, "the srun job is not in the queue"
    subprocess.run(["scancel", "--signal=TERM", job[0]], check=True)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode != 0
    records = read_jsonl(results)
    assert records[0]["type"] == "header"
    assert any(r["type"] == "measurement" for r in records)
    last = records[-1]
    assert last["type"] == "end" and last["signal"] == "SIGTERM" and last["exit_code"] == 4
    assert last["measurements"] == sum(r["type"] == "measurement" for r in records)
    assert "stopped by SIGTERM" in err


def _suite_file(tmp_path):
    p = tmp_path / "mini.toml"
    p.write_text(f"""
[suite]
name = "mini"
ranks = 2
scratch = "{tmp_path}/scratch"

[[step]]
name = "coll"
workload = "coll"
args = ["-e", "1K", "-i", "10", "Bcast", "Allreduce"]
""")
    return p


def _suite_env():
    env = mpi_env({"SONDE_BIN": SONDE})
    env["PYTHONPATH"] = str(REPO / "python")
    return env


def test_suite_with_srun_inside_salloc(slurm, tmp_path):
    out_dir = tmp_path / "run"
    proc = subprocess.run(["salloc", "-n", "2", sys.executable, "-m", "sonde.suite", "run",
                           str(_suite_file(tmp_path)), "--launcher", "srun", "--out",
                           str(out_dir)], env=_suite_env(), capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((out_dir / "manifest.json").read_text())
    assert manifest["launcher"] == "srun" and manifest["slurm"]["job_id"].isdigit()
    entry = manifest["launches"][0]
    assert entry["status"] == "ok" and entry["command"][:2] == ["srun", "--mpi=pmix"]
    records = read_jsonl(out_dir / entry["id"] / "results.jsonl")
    assert records[0]["slurm"]["job_id"] == manifest["slurm"]["job_id"]


def test_suite_submit_runs_the_job(slurm, tmp_path):
    out_dir = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "sonde.suite", "submit",
                           str(_suite_file(tmp_path)), "--out", str(out_dir), "--time", "5"],
                          env=_suite_env(), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    job_id = (out_dir / "job_id").read_text().strip()
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        q = subprocess.run(["squeue", "-h", "-j", job_id], capture_output=True, text=True)
        if not q.stdout.strip():
            break
        time.sleep(1)
    manifest = json.loads((out_dir / "manifest.json").read_text())
    assert manifest["status"] == "complete", (out_dir / f"slurm-{job_id}.out").read_text()
    assert manifest["slurm"]["job_id"] == job_id
    entry = manifest["launches"][0]
    assert read_jsonl(out_dir / entry["id"] / "results.jsonl")[-1]["exit_code"] == 0


def test_sigterm_handler_is_async_safe_under_mpirun(tmp_path):
    """The same clean end without Slurm: SIGTERM straight to the ranks."""
    results = tmp_path / "r.jsonl"
    cmd = [MPIRUN, "-n", "2", "--oversubscribe", SONDE, "coll", "-b", "1", "-e", "1M",
           "-i", "1000000", "--json", str(results), "Bcast"]
    proc = subprocess.Popen(cmd, env=mpi_env(SIGNAL_GRACE), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if results.exists() and sum(1 for _ in open(results)) >= 3:
            break
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode != 0
    records = read_jsonl(results)
    assert records[-1]["type"] == "end" and records[-1]["signal"] == "SIGTERM"


def test_suite_placement_from_the_allocation(slurm, tmp_path):
    """Inside an allocation the launcher knows its nodes: srun gets -N/--ntasks-per-node,
    mpirun the allocation's host names, and a step on more nodes is refused."""
    p = tmp_path / "placed.toml"
    p.write_text('[suite]\ntasks_per_node = 2\n[[step]]\nname = "c"\nworkload = "coll"\n'
                 'args = ["-e", "8", "-i", "5", "Bcast"]\n[step.sweep]\nnodes = [1]\n')

    def dry(launcher, suite=p):
        return subprocess.run(["salloc", "-N", "1", "-n", "2", sys.executable, "-m",
                               "sonde.suite", "run", str(suite), "--dry-run", "--launcher",
                               launcher, "--sonde", SONDE], env=_suite_env(),
                              capture_output=True, text=True, timeout=120)

    proc = dry("srun")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("srun --mpi=pmix -N 1 --ntasks-per-node 2 -n 2 ")
    host = subprocess.run(["sinfo", "-h", "-N", "-o", "%N"], capture_output=True, text=True,
                          timeout=30).stdout.split()[0]
    proc = dry("mpirun")
    assert proc.returncode == 0, proc.stderr
    assert f" --map-by ppr:2:node --host {host}:2 " in proc.stdout
    two = tmp_path / "two.toml"
    two.write_text(p.read_text().replace("nodes = [1]", "nodes = [1, 2]"))
    proc = dry("srun", two)
    assert proc.returncode == 2
    assert "2 nodes of 2 tasks, but the launcher knows 1 node (Slurm job " in proc.stderr
    # srun outside an allocation allocates from the cluster: sinfo knows its nodes
    env = {k: v for k, v in _suite_env().items() if not k.startswith("SLURM_")}
    proc = subprocess.run([sys.executable, "-m", "sonde.suite", "run", str(two), "--dry-run",
                           "--launcher", "srun", "--sonde", SONDE], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "but the launcher knows 1 node (the Slurm cluster (sinfo))" in proc.stderr


def _default_partition():
    """The default partition and its node count, as sinfo reports them (lines per state)."""
    out = subprocess.run(["sinfo", "-h", "-o", "%P %D"], capture_output=True, text=True,
                         timeout=30, check=True).stdout
    counts = {}
    for name, nodes in (line.split() for line in out.splitlines() if line.strip()):
        counts[name] = counts.get(name, 0) + int(nodes)
    [name] = [n for n in counts if n.endswith("*")]
    return name[:-1], counts[name]


def test_submit_refuses_a_suite_larger_than_the_cluster(slurm, tmp_path):
    """jupiter-ior wants 96 nodes: on this cluster its job could never start, so it is not
    submitted."""
    partition, count = _default_partition()
    jupiter = REPO / "suites" / "jupiter-ior.toml"
    biggest = max(suitefile.load(jupiter).launches, key=lambda ln: ln.nodes)
    assert biggest.nodes > count
    out_dir = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "sonde.suite", "submit", str(jupiter),
                           "--out", str(out_dir)], env=_suite_env(), capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    [line] = proc.stderr.splitlines()
    assert (f"step {biggest.step}: {biggest.nodes} nodes of {biggest.tasks_per_node} tasks, "
            f"but partition {partition} has {count} node") in line
    assert line.endswith("the job could never start; lower nodes or choose another "
                         "--partition")
    assert not out_dir.exists()
    queued = subprocess.run(["squeue", "-h", "-n", "sonde-jupiter-ior"], capture_output=True,
                            text=True, timeout=30)
    assert queued.stdout.strip() == ""
    proc = subprocess.run([sys.executable, "-m", "sonde.suite", "submit", str(jupiter),
                           "--out", str(out_dir), "--partition", "no-such-partition"],
                          env=_suite_env(), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1
    assert "no-such-partition" in proc.stderr and not out_dir.exists()


def test_submit_asks_slurm_for_what_the_suite_needs(slurm, tmp_path):
    """The job Slurm holds has the partition, account, nodes, tasks per node and time limit
    submit said it chose: the time from the launches' timeouts."""
    partition, _ = _default_partition()
    p = tmp_path / "placed.toml"
    p.write_text('[suite]\nname = "placed"\ntasks_per_node = 2\ntimeout = "150s"\n[[step]]\n'
                 'name = "c"\nworkload = "coll"\nargs = ["-e", "8", "-i", "5", "Bcast"]\n'
                 '[step.sweep]\nnodes = [1]\n[[step]]\nname = "d"\nworkload = "coll"\n'
                 'ranks = 2\nargs = ["-e", "8", "-i", "5", "Barrier"]\n')
    out_dir = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "sonde.suite", "submit", str(p), "--out",
                           str(out_dir), "--partition", partition, "--account", "sonde-test",
                           "--sonde", SONDE], env=_suite_env(), capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    job_id = (out_dir / "job_id").read_text().strip()
    try:
        show = subprocess.run(["scontrol", "show", "job", "-o", job_id], capture_output=True,
                              text=True, timeout=30, check=True).stdout
    finally:
        subprocess.run(["scancel", job_id], timeout=30)
    job = dict(f.split("=", 1) for f in show.split() if "=" in f)
    # two launches of 150 s: 5 minutes, and 5 for sonde-suite itself
    assert (job["Partition"], job["Account"], job["TimeLimit"]) == (partition, "sonde-test",
                                                                    "00:10:00")
    assert job["NumNodes"].split("-")[0] == "1" and job["NumTasks"] == "2"
    script = (out_dir / "job.sbatch").read_text().splitlines()
    for line in (f"#SBATCH --partition={partition}", "#SBATCH --account=sonde-test",
                 "#SBATCH --nodes=1", "#SBATCH --ntasks-per-node=2", "#SBATCH --time=10"):
        assert line in script
    assert proc.stdout.splitlines() == [
        f"sonde-suite: submit: placed: 1 node x 2 tasks per node in partition {partition} "
        "(account sonde-test), time limit 0:10:00 (the sum of the timeouts of its 2 launches, "
        "0:05:00, and 5 minutes for sonde-suite)",
        f"submitted job {job_id}; results in {out_dir}"]
