# SPDX-License-Identifier: BSD-3-Clause
"""sonde-suite checks every launch with the binary's own parse (sonde --parse-only) before it
makes or launches anything: a command line the binary would refuse, and one that already
breaks the step's fixed parameters or the -Q rule, stop --dry-run and run alike with one line
and exit code 2. The binary's refusals are compared with what a real launch of the same
arguments prints."""

import sys

import pytest
from bounded import run_bounded
from conftest import REPO, SONDE, mpi_env, run_sonde

HEAD = """
[suite]
name = "preflight"
ranks = 2
scratch = "{scratch}"
timeout = "5m"
"""

IOR_STEP = """
[[step]]
name = "{name}"
workload = "ior"
mkdir = ["{{scratch}}/{name}"]
args = [{args}, "-o", "{{scratch}}/{name}/f"]
"""


def suite_env():
    return mpi_env({"SONDE_BIN": SONDE, "PYTHONPATH": str(REPO / "python")})


def write_suite(tmp_path, *steps, head=HEAD):
    path = tmp_path / "s.toml"
    path.write_text(head.format(scratch=tmp_path / "scratch") + "".join(steps))
    return path


def ior_step(name, *args, extra=""):
    return IOR_STEP.format(name=name, args=", ".join(f'"{a}"' for a in args)) + extra


def suite(path, *more, hostfile=None):
    cmd = [sys.executable, "-m", "sonde.suite", "run", str(path), "--launcher", "mpirun",
           *more]
    if hostfile:
        cmd += ["--hostfile", str(hostfile)]
    return run_bounded(cmd, env=suite_env(), capture_output=True, text=True, timeout=300)


def refused_with(proc, path, step, launch, message):
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    # one line; a fixed_parameters refusal goes on with the suite's reasons for what it frees
    [line] = proc.stderr.splitlines()
    assert line.startswith(f"sonde-suite: error: {path}: step {step} (launch {launch}): "
                           f"{message}")
    rest = line[line.index(message) + len(message):]
    assert rest == "" or rest.startswith("; free by the suite: "), rest


def launch_error(tmp_path, workload, args):
    """The error line a real 2-rank launch of the arguments prints."""
    proc = run_sonde([workload, *args], np=2, cwd=tmp_path, check=False)
    assert proc.returncode == 2
    return next(ln for ln in proc.stderr.splitlines() if ": error: " in ln)


@pytest.mark.parametrize("bad", [["--bogus"], ["-t", "1m", "-b", "64k"], ["-b", "12q"]],
                         ids=["unknown-option", "transfer-above-block", "bad-size"])
@pytest.mark.parametrize("mode", ["--dry-run", "run"])
def test_the_binarys_refusals(tmp_path, bad, mode):
    path = write_suite(tmp_path, ior_step("good", "-w", "-t", "4k", "-b", "16k"),
                       ior_step("bad", "-w", *bad))
    out = tmp_path / "run"
    proc = suite(path, "--out", str(out), *(["--dry-run"] if mode == "--dry-run" else []))
    message = launch_error(tmp_path, "ior", ["-w", *bad, "-o", tmp_path / "scratch/bad/f"])
    refused_with(proc, path, "bad", "001-bad_r0", message)
    # nothing made: no run directory, no scratch directory of the good step
    assert not out.exists() and not (tmp_path / "scratch").exists()


def test_arguments_against_fixed_parameters(tmp_path):
    fixed = """rules = ["fixed_parameters"]
[step.fixed]
transferSize = "4k"
filePerProc = true
[step.free]
writeFile = "what this test varies"
blockSize = "what this test varies"
"""
    path = write_suite(tmp_path, ior_step("easy", "-w", "-F", "-t", "8k", "-b", "64k",
                                          extra=fixed))
    refused_with(suite(path, "--dry-run"), path, "easy", "000-easy_r0",
                 f"fixed_parameters: changed: transferSize {8 * 1024} (fixed: {4 * 1024})")
    # the same step with the fixed transfer size passes: its command lines are printed
    path = write_suite(tmp_path, ior_step("easy", "-w", "-F", "-t", "4k", "-b", "64k",
                                          extra=fixed))
    proc = suite(path, "--dry-run")
    assert proc.returncode == 0, proc.stderr
    [line] = proc.stdout.splitlines()
    assert f"{SONDE} ior -w -F -t 4k -b 64k" in line


def test_fixed_values_the_binary_reads_from_directives(tmp_path):
    # -O sets the parameter as an option does: the binary's reading, not the words, is judged
    fixed = ('rules = ["fixed_parameters"]\n[step.fixed]\nrepetitions = 3\n'
             '[step.free]\nwriteFile = "what this test varies"\n')
    path = write_suite(tmp_path, ior_step("easy", "-w", "-i", "3", "-O", "repetitions=2",
                                          extra=fixed))
    refused_with(suite(path, "--dry-run"), path, "easy", "000-easy_r0",
                 "fixed_parameters: changed: repetitions 2 (fixed: 3)")


def test_q_against_tasks_per_node(tmp_path):
    hosts = tmp_path / "hosts"
    hosts.write_text("node01 slots=64\n")
    head = HEAD.replace("ranks = 2", "tasks_per_node = 64\nrules = [\"ior_q_equals_tpn\"]")
    path = write_suite(tmp_path, ior_step("easy", "-w", "-C", "-Q", "1", "-t", "4k", "-b",
                                          "16k"), head=head)
    refused_with(suite(path, "--dry-run", hostfile=hosts), path, "easy", "000-easy_r0",
                 "ior_q_equals_tpn: -Q 1, tasks per node 64 (rule: -Q = tasks per node)")
    path = write_suite(tmp_path, ior_step("easy", "-w", "-C", "-Q", "{tasks_per_node}", "-t",
                                          "4k", "-b", "16k"), head=head)
    assert suite(path, "--dry-run", hostfile=hosts).returncode == 0


def test_an_allowed_exception_passes(tmp_path):
    # the fixed segment count may change where it would miss the data-set rule: 4 KiB x 1
    # segment x 2 tasks per node is less than 256 KiB
    extra = """rules = ["dataset_per_node", "fixed_parameters"]
[step.fixed]
segmentCount = { value = 1, unless = "dataset_per_node" }
[step.free]
writeFile = "what this test varies"
transferSize = "what this test varies"
blockSize = "what this test varies"
"""
    head = HEAD + '[suite.settings]\ndataset_per_node = "256KiB"\n'
    path = write_suite(tmp_path, ior_step("hard", "-w", "-t", "4k", "-b", "4k", "-s", "32",
                                          extra=extra), head=head)
    assert suite(path, "--dry-run").returncode == 0
    # 1 segment of 256 KiB blocks meets the data set (512 KiB per node): the count may not
    # change
    path = write_suite(tmp_path, ior_step("hard", "-w", "-t", "4k", "-b", "256k", "-s", "2",
                                          extra=extra), head=head)
    refused_with(suite(path, "--dry-run"), path, "hard", "000-hard_r0",
                 "fixed_parameters: changed: segmentCount 2 (fixed: 1)")


def test_scale_is_judged_as_written_and_checked_as_scaled(tmp_path):
    extra = """rules = ["fixed_parameters"]
[step.fixed]
blockSize = "64k"
[step.free]
writeFile = "what this test varies"
transferSize = "what this test varies"
[step.params]
block_kib = 64
[step.scale]
block_kib = 1
"""
    path = write_suite(tmp_path, ior_step("easy", "-w", "-t", "4k", "-b", "{block_kib}k",
                                          extra=extra))
    # 64k x 0.5 = 32k: a reduced-scale try of a suite that, as written, keeps its fixed value
    proc = suite(path, "--dry-run", "--scale", "0.5")
    assert proc.returncode == 0, proc.stderr
    assert "-b 32k" in proc.stdout
    # 64k x 0.01 = 1k, below the 4k transfers: the binary refuses the scaled command line
    proc = suite(path, "--dry-run", "--scale", "0.01")
    message = launch_error(tmp_path, "ior", ["-w", "-t", "4k", "-b", "1k"])
    refused_with(proc, path, "easy", "000-easy_r0", message)


def test_a_suite_that_passes_runs(tmp_path):
    fixed = """rules = ["fixed_parameters"]
[step.fixed]
transferSize = "4k"
blockSize = "16k"
[step.free]
writeFile = "what this test varies"
readFile = "what this test varies"
"""
    path = write_suite(tmp_path, ior_step("easy", "-w", "-r", "-t", "4k", "-b", "16k",
                                          extra=fixed))
    out = tmp_path / "run"
    proc = suite(path, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert (out / "000-easy_r0" / "results.jsonl").exists()
