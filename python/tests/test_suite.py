# SPDX-License-Identifier: BSD-3-Clause
"""sonde-suite: suite files (expansion and every check, one line naming file and line), the
placement of launches, --scale, and the runner's manifest and resume with the real binary."""

import csv
import json
import os
import re
import shlex
import stat
import textwrap

import pytest
from golden import SONDE

from sonde import results, suite
from sonde.campaign import argcheck, placement, rules, runner, submit, suitefile, tables

BASIC = """
[suite]
name = "t"
ranks = 1
scratch = "/tmp/s"

[[step]]
name = "ior-easy"
workload = "ior"
variant = "easy"
args = ["-a", "{api}", "-b", "{block_mib}m", "-t", "1m", "-w", "-r", "-W", "-o",
        "{scratch}/f"]
rules = ["verified"]
repetitions = 2
[step.sweep]
api = ["POSIX", "MPIIO"]
[step.params]
block_mib = 64
[step.scale]
block_mib = 16

[[step]]
name = "coll"
workload = "coll"
ranks = 2
args = ["-e", "1K"]
"""


def write(tmp_path, text, name="s.toml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def test_sweep_repetitions_and_placeholders(tmp_path):
    s = suitefile.load(write(tmp_path, BASIC))
    assert s.name == "t"
    assert [ln.id for ln in s.launches] == [
        "000-ior-easy_api-POSIX_r0", "001-ior-easy_api-POSIX_r1",
        "002-ior-easy_api-MPIIO_r0", "003-ior-easy_api-MPIIO_r1", "004-coll_r0"]
    first = s.launches[0]
    assert first.args == ["-a", "POSIX", "-b", "64m", "-t", "1m", "-w", "-r", "-W", "-o",
                          "/tmp/s/f"]
    assert first.ranks == 1 and first.variant == "easy" and first.rules == ["verified"]
    assert first.nodes is None and first.tasks_per_node is None
    assert first.params == {"api": "POSIX", "block_mib": 64}
    assert first.timeout == suitefile.DEFAULT_TIMEOUT
    assert s.launches[4].ranks == 2
    assert not s.reduced_scale and s.settings == {"min_runtime": 60, "dataset_per_node": 1 << 37}


def test_scale_changes_sizes_only_and_says_so(tmp_path, capsys):
    p = write(tmp_path, BASIC)
    s = suitefile.load(p, scale=0.3)
    assert s.launches[0].args[3] == "16m"  # 64 * 0.3 = 19.2 -> multiple of 16
    assert s.reduced_scale and s.scaled == [("ior-easy", "block_mib", 64, 16)]
    assert [ln.ranks for ln in s.launches] == [ln.ranks for ln in suitefile.load(p).launches]
    assert suitefile.load(p, scale=0.01).launches[0].args[3] == "16m"  # never below one
    assert suite.main(["run", str(p), "--dry-run", "--scale", "0.3", "--oversubscribe"]) == 0
    err = capsys.readouterr().err
    assert err == ("sonde-suite: --scale 0.3 scales sizes only (ior-easy block_mib 64 -> 16); "
                   "nodes, tasks per node and ranks are as the suite says; a reduced-scale run "
                   "is never compliant\n")


STEP = '[[step]]\nname = "a"\nworkload = "ior"\nargs = []\n'


@pytest.mark.parametrize("text,message", [
    ("[suite]\nname = \"x\"\n", "no [[step]] tables"),
    (STEP + "bogus = 1\n", ":5: unknown key 'bogus' in [[step]]"),
    ('[[step]]\nname = "a"\nworkload = "dd"\nargs = []\n', ":3: unknown workload 'dd'"),
    ('[[step]]\nname = "a"\nworkload = "ior"\n', "has no 'args'"),
    ('[[step]]\nname = "a"\nworkload = "ior"\nargs = ["{nope}"]\n',
     ":4: placeholder {nope} has no value"),
    (STEP + "ranks = 0\n", ":5: ranks must be a whole number >= 1"),
    ("[suite]\nranks = 2\ncolour = 1\n" + STEP, ":3: unknown key 'colour' in [suite]"),
    (STEP + STEP, ":6: step name 'a' is used twice"),
    ("[[step]\nname = 1\n", "not valid TOML"),
    (STEP + "[step.sweep]\nx = []\n", ":6: sweep 'x' must be a non-empty list"),
    ("[other]\nx = 1\n" + STEP, ":1: unknown table [other]"),
    # rules
    (STEP + 'rules = ["min_runtime_60s"]\n', ":5: unknown rule 'min_runtime_60s' (known: "),
    ('[suite]\nrules = ["verified", "nope"]\n' + STEP, ":2: unknown rule 'nope'"),
    ('[[step]]\nname = "a"\nworkload = "mib"\nargs = []\nrules = ["ior_q_equals_tpn"]\n',
     ":5: rule 'ior_q_equals_tpn' judges ior runs, not mib"),
    (STEP + 'rules = "verified"\n', ":5: rules must be a list of rule names"),
    # sweeps and params that no argument uses
    (STEP + "[step.sweep]\nblock = [1, 2]\n", ":6: sweep 'block' is used by no argument "
     "(no {block} in args or mkdir)"),
    (STEP + "[step.params]\nsegments = 4\n", ":6: params 'segments' is used by no argument"),
    # durations
    (STEP + 'timeout = "1x"\n', ":5: timeout: '1x' is not a duration"),
    ('[suite]\ntimeout = "soon"\n' + STEP, ":2: timeout: 'soon' is not a duration"),
    (STEP + "timeout = 0\n", ":5: timeout must be more than 0 seconds"),
    # settings
    ('[suite]\n[suite.settings]\nmin_runtime = "1 minute"\n' + STEP,
     ":3: setting min_runtime: '1 minute' is not a duration"),
    ("[suite]\n[suite.settings]\ncolour = 1\n" + STEP, ":3: unknown setting 'colour'"),
    ('[suite]\noversubscribe = "yes"\n' + STEP, ":2: oversubscribe must be true or false"),
    # fixed parameters
    (STEP + 'rules = ["fixed_parameters"]\n[step.fixed]\n"-t" = "16m"\n',
     ":7: fixed '-t' is no parameter of ior (its names: docs/options/ior.md)"),
    (STEP + 'rules = ["fixed_parameters"]\n[step.fixed]\ntest = 1\n',
     ":7: fixed 'test' is no parameter of ior"),
    (STEP + 'rules = ["fixed_parameters"]\n[step.fixed]\nfilePerProc = "yes"\n',
     ":7: fixed 'filePerProc': 'yes' is not a value of this parameter (bool)"),
    (STEP + 'rules = ["fixed_parameters"]\n[step.fixed]\ntransferSize = "16q"\n',
     ":7: fixed 'transferSize': '16q' is not a size"),
    (STEP + "[step.fixed]\napi = \"POSIX\"\n",
     ":5: [step.fixed] is judged by the rule fixed_parameters, which the step does not list"),
    (STEP + 'rules = ["fixed_parameters"]\n[step.fixed]\n'
     'segmentCount = { value = 1, unless = "min_runtime" }\n',
     ":7: fixed 'segmentCount': unless names 'min_runtime', which is not one of the step's"),
    # free parameters: the workload's, not fixed as well, each with its reason
    (STEP + 'rules = ["fixed_parameters"]\n[step.free]\n"-d" = "settle"\n',
     ":7: free '-d' is no parameter of ior (its names: docs/options/ior.md)"),
    (STEP + 'rules = ["fixed_parameters"]\n[step.free]\ninterTestDelay = ""\n',
     ":7: free 'interTestDelay': the reason it may differ from its default, as text"),
    (STEP + 'rules = ["fixed_parameters"]\n[step.free]\ninterTestDelay = 2\n',
     ":7: free 'interTestDelay': the reason it may differ from its default, as text"),
    (STEP + 'rules = ["fixed_parameters"]\n[step.free]\napi = "any"\n[step.fixed]\n'
     'api = "POSIX"\n',
     ":7: free 'api' is also fixed"),
    (STEP + '[step.free]\ninterTestDelay = "settle"\n',
     ":5: [step.free] is judged by the rule fixed_parameters, which the step does not list"),
    # touch steps and scores
    ('[[step]]\nname = "t"\ntouch = ["{scratch}/x"]\nworkload = "ior"\n',
     ":4: 'workload' in a step that touches files (it takes only: name, touch)"),
    ('[[step]]\nname = "t"\ntouch = []\n', ":3: touch must be a non-empty list of paths"),
    ('[suite]\nscore = "io501"\n' + STEP, ":2: unknown score 'io501' (known: io500)"),
    ('[suite]\nscore = "io500"\n' + STEP, "step 'a' is not an IO500 phase"),
    # placement shapes
    (STEP + "nodes = 3\n", ":5: nodes = 3 needs tasks_per_node"),
    (STEP + "nodes = 2\ntasks_per_node = 2\nranks = 3\n",
     ":7: ranks = 3, but nodes x tasks_per_node = 2 x 2"),
])
def test_malformed_suites_name_the_line(tmp_path, text, message):
    p = write(tmp_path, text)
    with pytest.raises(suitefile.SuiteError) as e:
        suitefile.load(p)
    assert message in str(e.value)
    assert str(e.value).startswith(f"{p}:" if ":" in message[:3] else str(p))


def test_cli_reports_suite_errors_in_one_line_at_dry_run(tmp_path, capsys):
    p = write(tmp_path, STEP + 'timeout = "1h"\nrules = ["nope"]\n')
    assert suite.main(["run", str(p), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert err == f"sonde-suite: error: {p}:6: unknown rule 'nope' (known: " + ", ".join(
        sorted(suite.suitefile._rules.RULES)) + ")\n"


def test_touch_steps_and_the_run_dir_placeholder(tmp_path):
    p = write(tmp_path, '[suite]\nscratch = "/s"\n[[step]]\nname = "stamp"\n'
              'touch = ["{run_dir}/stamp", "{scratch}/x"]\n[[step]]\nname = "a"\n'
              'workload = "ior"\nargs = ["-w", "-O", "stoneWallingStatusFile={run_dir}/sw"]\n')
    s = suitefile.load(p)
    stamp, step = s.launches
    assert stamp.workload is None and stamp.touch == ["{run_dir}/stamp", "/s/x"]
    assert "stoneWallingStatusFile={run_dir}/sw" in step.args
    resolved = runner.with_run_dir(step, tmp_path / "run")
    assert f"stoneWallingStatusFile={tmp_path / 'run'}/sw" in resolved.args
    assert runner.with_run_dir(stamp, "/r").touch == ["/r/stamp", "/s/x"]


def test_shipped_suites_load():
    for name in ("quick", "jupiter-ior", "btio-scaling", "coll-sweep", "mib-stonewall",
                 "io500", "io500-concurrent"):
        s = suitefile.load(suite.REPO / "suites" / f"{name}.toml")
        assert s.launches


def test_jupiter_suite_fixes_the_seeds_parameters():
    s = suitefile.load(suite.REPO / "suites" / "jupiter-ior.toml")
    easy, hard = s.launches[0], s.launches[2]
    assert easy.fixed["transferSize"]["value"] == "16m"
    assert hard.fixed["segmentCount"] == {"value": 524288, "unless": "dataset_per_node"}
    assert easy.rules == ["min_runtime", "dataset_per_node", "ior_q_equals_tpn",
                          "even_placement", "ior_read_shift", "fixed_parameters"]
    # every seed rule at the seed's settings and with the seed's tables: it can be compliant
    for ln in s.launches:
        assert rules.seed_rules_applied(ln, s.settings) == list(rules.SEED_RULES)
    assert [(ln.nodes, ln.tasks_per_node, ln.ranks) for ln in s.launches] == [
        (1, 64, 64), (96, 64, 6144), (1, 64, 64), (96, 64, 6144)]
    assert easy.timeout == 4 * 3600


def hostfile(tmp_path, n, slots=None):
    p = tmp_path / "hosts"
    p.write_text("".join(f"node{k:02d}" + (f" slots={slots}" if slots else "") + "\n"
                         for k in range(1, n + 1)))
    return p


NODE_SWEEP = """
[suite]
tasks_per_node = 2
[[step]]
name = "easy"
workload = "ior"
args = ["-Q", "{tasks_per_node}", "-o", "/tmp/f-{nodes}"]
[step.sweep]
nodes = [1, 2, 4]
"""


def dry_run(capsys, monkeypatch, *argv):
    """The launches' command lines; the launcher is named "mpirun" whatever the binary's
    --version says. --dry-run has the real binary check every launch's arguments."""
    monkeypatch.setenv("SONDE_MPIRUN", "mpirun")
    assert suite.main(["run", *map(str, argv), "--dry-run", "--sonde", SONDE, "--out",
                       "/r"]) == 0
    return [shlex.split(ln) for ln in capsys.readouterr().out.splitlines()]


def test_mpirun_places_each_node_count_on_its_own_nodes(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(placement, "mpi_flavor", lambda mpirun="mpirun": "openmpi")
    p = write(tmp_path, NODE_SWEEP)
    cmds = dry_run(capsys, monkeypatch, p, "--launcher", "mpirun", "--hostfile",
                   hostfile(tmp_path, 4, 8))
    root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
    assert [c[:c.index(SONDE)] for c in cmds] == [
        ["mpirun", "-n", "2", "--map-by", "ppr:2:node", "--host", "node01:2", *root],
        ["mpirun", "-n", "4", "--map-by", "ppr:2:node", "--host", "node01:2,node02:2", *root],
        ["mpirun", "-n", "8", "--map-by", "ppr:2:node", "--host",
         "node01:2,node02:2,node03:2,node04:2", *root]]
    assert len({tuple(c) for c in cmds}) == 3
    assert cmds[0][-3:] == ["--json", "/r/000-easy_nodes-1_r0/results.jsonl", "--strict"]
    # --host gives the same placement; MPICH's mpiexec gets -ppn and -hosts
    assert dry_run(capsys, monkeypatch, p, "--host", "node01,node02,node03,node04") == cmds
    monkeypatch.setattr(placement, "mpi_flavor", lambda mpirun="mpirun": "mpich")
    cmds = dry_run(capsys, monkeypatch, p, "--host", "a,b,c,d")
    assert cmds[1][:cmds[1].index(SONDE)] == ["mpirun", "-n", "4", "-ppn", "2", "-hosts",
                                                   "a,b"]


def test_srun_places_with_nodes_and_tasks_per_node(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SLURM_JOB_ID", "77")
    monkeypatch.setenv("SLURM_JOB_NUM_NODES", "4")
    monkeypatch.setenv("SLURM_JOB_CPUS_PER_NODE", "8(x4)")
    cmds = dry_run(capsys, monkeypatch, write(tmp_path, NODE_SWEEP))
    assert [c[:c.index(SONDE)] for c in cmds] == [
        ["srun", "--mpi=pmix", "-N", str(n), "--ntasks-per-node", "2", "-n", str(2 * n)]
        for n in (1, 2, 4)]
    cmds = dry_run(capsys, monkeypatch, write(tmp_path, BASIC), "--oversubscribe")
    assert cmds[4][:cmds[4].index(SONDE)] == ["srun", "--mpi=pmix", "-n", "2",
                                                   "--overcommit"]


def test_a_suite_larger_than_the_known_nodes_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    monkeypatch.setattr(placement, "mpi_flavor", lambda mpirun="mpirun": "openmpi")
    p = write(tmp_path, NODE_SWEEP)
    assert suite.main(["run", str(p), "--dry-run", "--launcher", "mpirun"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"sonde-suite: error: {p}:4: step easy: 2 nodes of 2 tasks, but the "
                          "launcher knows 1 node (this machine, ")
    assert err.count("\n") == 1
    hosts = hostfile(tmp_path, 2)
    assert suite.main(["run", str(p), "--dry-run", "--hostfile", str(hosts)]) == 2
    assert "4 nodes of 2 tasks, but the launcher knows 2 nodes (hostfile " in \
        capsys.readouterr().err
    # more tasks per node than cores: only when asked
    big = write(tmp_path, NODE_SWEEP.replace("tasks_per_node = 2", "tasks_per_node = 16"))
    hosts = hostfile(tmp_path, 4, 8)
    assert suite.main(["run", str(big), "--dry-run", "--hostfile", str(hosts)]) == 2
    assert "16 tasks per node, but the nodes have 8 cores" in capsys.readouterr().err
    assert suite.main(["run", str(big), "--dry-run", "--hostfile", str(hosts),
                       "--oversubscribe"]) == 0
    assert "--oversubscribe" in capsys.readouterr().out
    # a step of ranks only, on this machine
    many = write(tmp_path, STEP + f"ranks = {os.cpu_count() + 1}\n")
    assert suite.main(["run", str(many), "--dry-run", "--launcher", "mpirun"]) == 2
    assert f"{os.cpu_count() + 1} ranks, but the launcher knows" in capsys.readouterr().err
    asked = write(tmp_path, "[suite]\noversubscribe = true\n" + STEP +
                  f"ranks = {os.cpu_count() + 1}\n")
    assert suite.main(["run", str(asked), "--dry-run", "--launcher", "mpirun"]) == 0


@pytest.mark.parametrize("text,message", [
    ("node01 slots=x\n", "is not HOST, HOST slots=N or HOST:N"),
    ("# nothing\n", "names no host"),
])
def test_bad_hostfiles(tmp_path, text, message):
    p = tmp_path / "h"
    p.write_text(text)
    with pytest.raises(placement.PlacementError, match=message):
        placement.parse_hostfile(p)


def test_hosts_and_hostfiles_parse():
    assert placement.parse_hosts("a:2, b:2") == [("a", 2), ("b", 2)]
    assert placement.parse_hosts("a,b") == [("a", None), ("b", None)]
    with pytest.raises(placement.PlacementError):
        placement.parse_hosts("a:x")


def wrapper(tmp_path, flag):
    """The real sonde behind a script whose launches fail while flag exists (a launch that
    dies); its parses and descriptions (sonde-suite's checks before it launches) do not."""
    path = tmp_path / "flaky-sonde"
    path.write_text(f'#!/bin/sh\ncase "$1" in --parse-only|--describe-options) ;; *) '
                    f'[ -e "{flag}" ] && echo '
                    f'"sonde ior: error: injected failure" >&2 && exit 3;; esac\n'
                    f'exec "{SONDE}" "$@"\n')
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


RUNNER = """
[suite]
name = "t"
scratch = "{scratch}"
[[step]]
name = "ior-easy"
workload = "ior"
variant = "easy"
args = ["-a", "POSIX", "-b", "64k", "-t", "16k", "-w", "-r", "-R", "-o", "{scratch}/f"]
rules = ["verified"]
repetitions = 2
[[step]]
name = "coll"
workload = "coll"
args = ["-e", "16", "-i", "5", "Bcast"]
"""


def test_run_failure_then_resume(tmp_path, capsys):
    flag = tmp_path / "fail"
    sonde = wrapper(tmp_path, flag)
    p = write(tmp_path, RUNNER.replace("{scratch}", str(tmp_path), 1))
    out = tmp_path / "run"
    flag.touch()
    assert suite.main(["run", str(p), "--out", str(out), "--sonde", str(sonde)]) == 1
    m = json.loads((out / "manifest.json").read_text())
    assert [e["status"] for e in m["launches"]] == ["failed"] * 3
    assert "injected failure" in m["launches"][0]["reason"]
    assert m["status"] == "failed" and m["placement"]["launcher"] == "mpirun"
    capsys.readouterr()
    # A second run into the same directory is refused; resume completes it.
    assert suite.main(["run", str(p), "--out", str(out), "--sonde", str(sonde)]) == 2
    flag.unlink()
    assert suite.main(["resume", str(out)]) == 0
    m = json.loads((out / "manifest.json").read_text())
    assert [e["status"] for e in m["launches"]] == ["ok"] * 3
    assert m["status"] == "complete"
    printed = capsys.readouterr().out
    assert "IOR results (MiB/s, seconds):" in printed
    # verified is no rule of the JUPITER seed's: the suite carries no score to print or keep
    assert "Score" not in printed and "qualitative" not in printed
    verdicts = json.loads((out / "verdicts.json").read_text())
    kept = json.loads((out / "score.json").read_text())
    assert kept["scores"] == {} and kept["suite"] == "t"
    assert kept["status"] == {k: v["status"] for k, v in verdicts.items()}
    # "verified" is no seed rule: exit_ok alone of the seed's six judged it
    assert verdicts["000-ior-easy_r0"]["status"] == "judged by 1 of 6 seed rules"
    # The coll step lists no rule: nothing judged, so never "compliant".
    assert verdicts["002-coll_r0"]["status"] == "no rules"
    assert "compliant" not in [r for r in printed.splitlines() if "002-coll_r0" in r][0]
    # Collectives: latency at the smallest and largest size, never an averaged bandwidth.
    summary = (out / "summary.csv").read_text()
    assert "002-coll_r0" not in summary
    [row] = list(csv.DictReader(open(out / "coll-summary.csv")))
    [run] = results.load(out / "002-coll_r0" / "results.jsonl")
    by_size = {m["params"]["size"]: m["extra"]["avg_us"] for m in run.measurements}
    assert (row["operation"], int(row["sizes"])) == ("Bcast", len(by_size))
    assert (int(row["smallest_bytes"]), int(row["largest_bytes"])) == (0, 16)
    assert float(row["smallest_us"]) == by_size[0] and float(row["largest_us"]) == by_size[16]
    assert "Collectives (latency in microseconds" in printed
    assert (out / "summary.csv").read_text().startswith("launch,step,variant,")
    assert (out / "ior-table.csv").read_text().startswith("api,RDbwmax,RDbwmean,RDbwmin,")
    cmd = (out / "000-ior-easy_r0" / "command.txt").read_text()
    assert "--json" in cmd and str(sonde) in cmd
    assert suite.main(["run", str(p), "--out", str(tmp_path / "run2"), "--sonde", str(sonde),
                       "--show-output"]) == 0
    assert "=== 000-ior-easy_r0: " in capsys.readouterr().out
    # The suite file changing under a run makes resume refuse.
    p.write_text(p.read_text() + "\n# edited\n")
    assert suite.main(["resume", str(out)]) == 2


def test_resume_of_missing_dir(tmp_path, capsys):
    assert suite.main(["resume", str(tmp_path / "nope")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_table_format():
    text = tables.format_table([{"a": 1.23456, "b": None, "c": "x"}], ["a", "b", "c"])
    assert text.splitlines() == ["    a | b | c", "------|---|--", "1.235 | - | x"]


def test_sbatch_script(tmp_path):
    s = suitefile.load(write(tmp_path, BASIC))
    part = submit.Partition("batch", 4, 2, None, "partition batch has 4 nodes")
    shape = submit.job_shape(s, part, False)
    assert shape == (1, 2)  # unplaced, 2 ranks at most: one node of 2 CPUs holds them
    assert submit.job_shape(s, submit.Partition("one", 4, 1, None, ""), False) == (2, 1)
    text = submit.script(s, tmp_path / "run", shape, 30, "/x/sonde", None, partition="batch",
                         account="proj")
    for line in ("#SBATCH --time=30", "#SBATCH --nodes=1", "#SBATCH --ntasks-per-node=2",
                 "#SBATCH --partition=batch", "#SBATCH --account=proj"):
        assert line in text.splitlines()
    assert "--launcher srun" in text and text.startswith("#!/bin/bash\n")
    assert "--overcommit" not in text
    assert "#SBATCH --overcommit" in submit.script(s, tmp_path, shape, 30, "/x/sonde", None,
                                                   True)


def test_submit_shape_and_time_from_the_suite(tmp_path):
    s = suitefile.load(write(tmp_path, NODE_SWEEP))  # 1, 2, 4 nodes of 2 tasks
    part = submit.Partition("batch", 4, 2, 120, "partition batch has 4 nodes")
    assert submit.job_shape(s, part, False) == (4, 2)
    minutes, how = submit.time_limit(s, part, None)
    timeouts = sum(ln.timeout for ln in s.launches)
    assert minutes == min(120, -(-timeouts // 60) + submit.MARGIN_MINUTES)
    assert "the sum of the timeouts of its 3 launches" in how
    with pytest.raises(submit.SubmitError, match="more than partition batch's MaxTime"):
        submit.time_limit(s, part, 121)
    small = submit.Partition("small", 2, 2, None, "partition small has 2 nodes")
    with pytest.raises(submit.SubmitError, match="4 nodes of 2 tasks, but partition small "
                                                 "has 2 nodes: the job could never start"):
        submit.check_fits(s, small, False)
    narrow = submit.Partition("narrow", 8, 1, None, "partition narrow has 8 nodes")
    with pytest.raises(submit.SubmitError, match="2 tasks per node, but the nodes of "
                                                 "partition narrow have 1 CPUs"):
        submit.check_fits(s, narrow, False)
    submit.check_fits(s, narrow, True)
    assert [submit.slurm_minutes(t) for t in ("UNLIMITED", "30", "1:30:00", "2-00:00:00",
                                              "1-12", "45:30")] == [None, 30, 90, 2880, 2160, 45]


def test_node_sweep_shapes_launches(tmp_path):
    s = suitefile.load(write(tmp_path, NODE_SWEEP))
    assert [(ln.nodes, ln.tasks_per_node, ln.ranks) for ln in s.launches] == [
        (1, 2, 2), (2, 2, 4), (4, 2, 8)]
    assert s.launches[2].args == ["-Q", "2", "-o", "/tmp/f-4"]
    assert s.launches[2].id == "002-easy_nodes-4_r0"


def test_empty_sweep_value_drops_the_argument(tmp_path):
    p = write(tmp_path, """
        [[step]]
        name = "c"
        workload = "coll"
        args = ["-e", "1K", "{timing}"]
        [step.sweep]
        timing = ["", "--per-call"]
        """)
    assert [ln.args for ln in suitefile.load(p).launches] == [["-e", "1K"],
                                                              ["-e", "1K", "--per-call"]]


def test_every_rule_and_setting_is_documented():
    doc = (suite.REPO / "docs" / "suites.md").read_text()
    for name in suite.suitefile._rules.RULES:
        assert f"\n### `{name}`\n" in doc, name
    for name, setting in suite.suitefile._rules.SETTINGS.items():
        assert f"| `{name}` | `\"{setting.default}\"` |" in doc, name


FREEING = """
[suite]
name = "t"
scratch = "{scratch}"
[[step]]
name = "s"
workload = "ior"
args = ["-w", "-b", "64k", "-t", "16k", "-d", "1", "-o", "{scratch}/f"]
rules = ["fixed_parameters"]
[step.fixed]
writeFile = true
blockSize = "64k"
transferSize = "16k"
[step.free]
interTestDelay = "the disks spin down between phases"
"""


def test_a_freed_parameter_is_shown_with_its_reason(tmp_path, capsys):
    """The reason a suite gives for a parameter it frees is printed with the verdict, which
    passes on it, and the binary's defaults judge the rest."""
    p = write(tmp_path, FREEING.replace("{scratch}", str(tmp_path)))
    out = tmp_path / "run"
    assert suite.main(["run", str(p), "--out", str(out), "--sonde", SONDE]) == 0
    printed = capsys.readouterr().out
    [line] = [x for x in printed.splitlines() if x.startswith("000-s_r0: fixed_parameters")]
    assert line.startswith("000-s_r0: fixed_parameters: pass: 3 fixed parameters as required, ")
    assert line.endswith("; free by the suite: interTestDelay (the disks spin down between "
                         "phases)")
    verdicts = json.loads((out / "verdicts.json").read_text())
    assert verdicts["000-s_r0"]["status"] == "judged by 1 of 6 seed rules"


CONCURRENT = """
[suite]
scratch = "/s"
[[step]]
name = "mix"
solo = true
interval = "0.25s"
mkdir = ["{scratch}/easy"]
[step.params]
blocks = 4
[[step.concurrent]]
ranks = 2
workload = "ior"
args = ["-w", "-b", "{blocks}m", "-o", "{scratch}/easy/f"]
[[step.concurrent]]
ranks = 1
workload = "mdtest"
args = ["-n", "10", "-d", "{scratch}/md"]
"""


def test_a_concurrent_step_is_one_sonde_mix_launch(tmp_path):
    (ln,) = suitefile.load(write(tmp_path, CONCURRENT)).launches
    assert (ln.workload, ln.ranks, ln.rules, ln.mkdir) == ("mix", 3, [], ["/s/easy"])
    assert ln.args == ["--solo", "--interval", "0.25",
                       "--group", "2:", "ior", "-w", "-b", "4m", "-o", "/s/easy/f",
                       "--group", "1:", "mdtest", "-n", "10", "-d", "/s/md"]
    cmd = placement.Launcher("mpirun", "openmpi", placement.Nodes(1), False, "mpirun").command(
        ln, "sonde", tmp_path / "r.jsonl")
    # the mix's own options before its groups: every group writes into the launch's results
    i = cmd.index("mix")
    assert cmd[i:i + 5] == ["mix", "--json", str(tmp_path / "r.jsonl"), "--strict", "--solo"]
    # the binary reads it as a mix of these groups
    params = argcheck.parse(SONDE, ln.workload, ln.args, ln.ranks, ln.ranks)
    assert [g["world_ranks"] for g in params["groups"]] == [[0, 1], [2]]


@pytest.mark.parametrize("change,message", [
    (("ranks = 1\nworkload = \"mdtest\"", "ranks = 1\nper_node = 1\nworkload = \"mdtest\""),
     "group 2: ranks = N (N ranks) or per_node = N"),
    (("workload = \"mdtest\"", "workload = \"mdtst\""), "group 2 of a concurrent step needs"),
    (("solo = true", "solo = true\nrules = [\"verified\"]"), "unknown key 'rules'"),
    (("ranks = 1\nworkload", "per_node = 1\nworkload"), "group 2: per_node needs the step's"),
    (("interval = \"0.25s\"", "interval = \"soon\""), "interval: 'soon' is not a duration"),
])
def test_bad_concurrent_steps_name_the_line(tmp_path, change, message):
    p = write(tmp_path, CONCURRENT.replace(*change))
    with pytest.raises(suitefile.SuiteError, match=re.escape(message)):
        suitefile.load(p)
