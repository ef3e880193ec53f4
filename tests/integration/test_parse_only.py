# SPDX-License-Identifier: BSD-3-Clause
"""sonde --parse-only RANKS TASKS_PER_NODE WORKLOAD ARGS: the command line read as a launch would
read it, without MPI or I/O. The oracle is a real launch of the same arguments: its header's
params are what the parse must print, and its error line is what the parse must refuse with."""

import json
import subprocess

import pytest
from conftest import SONDE, read_jsonl, run_sonde
from sonde.campaign import argcheck

# An -f script of two tests: the header holds the first test's parameters, which start from the
# command line's options.
SCRIPT = """IOR START
  transferSize=16k
  blockSize=32k
RUN
  transferSize=4k
RUN
IOR STOP
"""


def script(d):
    path = d / "script"
    path.write_text(SCRIPT.replace("RUN\n  transferSize=4k", f"  testFile={d / 'g'}\nRUN\n"
                                   "  transferSize=4k", 1))
    return path


# Good command lines (dir: a scratch directory), each with the ranks of its launch (BTIO needs a
# square count), at least one per workload. Seeds are given where the run would draw one from the
# clock.
GOOD = {
    "ior": (2, lambda d: ["-a", "POSIX", "-F", "-C", "-Q", "1", "-w", "-r", "-t", "4k",
                          "-t", "8k", "-b", "64k", "-O", "keepFile=1", "-o", d / "f"]),
    "ior-script": (2, lambda d: ["-w", "-b", "64k", "-f", script(d)]),
    "mpiio-aggregated": (2, lambda d: ["-type", "3", "-nobj", "4", "-size", "64K", "-num_io",
                                       "1", "-target", d / "f%r"]),
    "mdtest": (2, lambda d: ["-n", "4", "-uLF", "-w", "512", "-G", "5", "-d", d / "md"]),
    "find": (2, lambda d: [d, "-name", "*", "-C"]),
    "mib": (2, lambda d: ["-t", d, "-F", "-l", "4", "-s", "4k", "-I"]),
    "btio": (4, lambda d: ["--mode", "rw", "--method", "0", "--dumps", "1", "--grid",
                           "16x16x16", "--dir", d]),
    "mpiio": (2, lambda d: ["-type", "2", "-nobj", "4", "-size", "64K", "-target", d / "f"]),
    "coll": (2, lambda d: ["-b", "0", "-e", "1K", "-i", "10", "Bcast", "Allreduce"]),
    "train": (2, lambda d: ["-d", d, "--generate", "--train", "--num-files", "4",
                            "--record-size", "4k", "--sample-shuffle", "seed"]),
}

# Command lines the binary refuses before any I/O: (workload, ranks, args).
BAD = [
    ("ior", 2, ["-w", "--bogus"]),
    ("ior", 2, ["-w", "-t", "1m", "-b", "64k"]),
    ("ior", 2, ["-w", "-t", "3k", "-b", "64k"]),
    ("ior", 2, ["-w", "-b", "12q"]),
    ("ior", 2, ["-w", "-O", "noSuchKey=1"]),
    ("mdtest", 2, ["-n", "4", "-uLS"]),
    ("mdtest", 2, ["-n", "4", "-Q"]),
    ("find", 2, ["/tmp", "/var"]),
    ("mib", 2, ["-t", "/tmp", "-M"]),
    ("train", 2, ["-d", "/tmp", "--train", "--format", "tfrecord"]),
    ("train", 2, ["-d", "/tmp", "--generate", "--samples-per-file", "4294967296",
                  "--record-size", "1t"]),
    ("btio", 2, ["--method", "0", "--dumps", "1", "--grid", "16x16x16"]),
    ("mpiio", 2, ["-type", "5", "-nobj", "4", "-num_io", "3"]),
    ("coll", 2, ["-b", "1K", "-e", "0"]),
]


def parse_only(ranks, tpn, workload, args, cwd=None):
    return subprocess.run([SONDE, "--parse-only", str(ranks), str(tpn), workload,
                           *(str(a) for a in args)], capture_output=True, text=True,
                          timeout=60, cwd=cwd)


def error_lines(text):
    return [ln for ln in text.splitlines() if ": error: " in ln]


@pytest.mark.parametrize("case", sorted(GOOD))
def test_params_are_the_runs_header_params(case, tmp_path):
    workload = case.split("-")[0]
    ranks, make_args = GOOD[case]
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    args = make_args(scratch)
    results = tmp_path / "run.jsonl"
    run_sonde([workload, *args, "--json", results], np=ranks, cwd=tmp_path)
    header = read_jsonl(results)[0]
    proc = parse_only(header["ranks"], header["tasks_per_node"], workload, args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    [line] = proc.stdout.splitlines()
    answer = json.loads(line)
    assert answer == {"workload": workload, "ranks": ranks,
                      "tasks_per_node": header["tasks_per_node"], "params": header["params"]}
    # the Python side reads the same
    assert argcheck.parse(SONDE, workload, args, ranks, header["tasks_per_node"]) == \
        header["params"]


def test_last_occurrence_and_grouped_flags():
    ior = json.loads(parse_only(2, 2, "ior", ["-t", "4k", "-t", "8k", "-b", "64k"]).stdout)
    assert ior["params"]["transferSize"] == 8192
    md = json.loads(parse_only(2, 2, "mdtest", ["-n", "4", "-uLF"]).stdout)["params"]
    assert (md["unique_dir_per_task"], md["leaf_only"], md["files_only"]) == (True, True, True)


@pytest.mark.parametrize("workload,ranks,args", BAD,
                         ids=[f"{w}:{' '.join(a)}" for w, _, a in BAD])
def test_refusals_are_the_runs_own(workload, ranks, args, tmp_path):
    run = run_sonde([workload, *args], np=ranks, cwd=tmp_path, check=False)
    assert run.returncode == 2, run.stderr
    proc = parse_only(ranks, ranks, workload, args, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert error_lines(proc.stderr) == error_lines(run.stderr)[:1] != []
    with pytest.raises(argcheck.Refused) as refused:
        argcheck.parse(SONDE, workload, args, ranks, ranks)
    assert str(refused.value) == error_lines(run.stderr)[0]


def test_tasks_per_node_reaches_the_checks():
    # mib -M runs one process: a launch of 2 is refused, one of 1 is not
    assert parse_only(1, 1, "mib", ["-t", "/tmp", "-M"]).returncode == 0
    # IOR's --preset takes -Q from the tasks per node; coll's -p from the ranks
    assert parse_only(2, 2, "coll", ["-p", "4"]).returncode == 2
    assert parse_only(4, 2, "coll", ["-p", "4"]).returncode == 0


def test_no_file_is_looked_at(tmp_path):
    # a test file whose directory does not exist: the run refuses it, the parse does not look
    missing = tmp_path / "no" / "such" / "f"
    proc = parse_only(2, 2, "ior", ["-w", "-o", missing])
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["params"]["testFile"] == str(missing)
    # --json names a file the parse neither creates nor opens
    results = tmp_path / "r.jsonl"
    assert parse_only(2, 2, "ior", ["-w", "-o", missing, "--json", results]).returncode == 0
    assert not results.exists() and not (tmp_path / "no").exists()


@pytest.mark.parametrize("words", [[], ["0", "1", "ior"], ["2", "x", "ior"],
                                   ["2", "2", "nosuch"], ["2", "2", "ior", "--help"]])
def test_bad_parse_only_command_lines(words):
    proc = subprocess.run([SONDE, "--parse-only", *words], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(error_lines(proc.stderr)) == 1


def test_argcheck_without_a_usable_binary(tmp_path):
    with pytest.raises(argcheck.Refused, match="cannot run"):
        argcheck.parse(tmp_path / "no-sonde", "ior", ["-w"], 2, 2)
    # a binary that prints no params: refused, never taken as an empty reading
    with pytest.raises(argcheck.Refused, match="printed no params"):
        argcheck.parse("/bin/true", "ior", ["-w"], 2, 2)


def test_describe_options_names_every_workload_and_refuses_more_words():
    """sonde --describe-options: every workload `sonde --help` lists, each parameter once; a
    word after it is a usage error, one line. (test_names.py holds the descriptions against the
    records the binary writes.)"""
    proc = subprocess.run([SONDE, "--describe-options"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    described = json.loads(proc.stdout)["workloads"]
    listed = subprocess.run([SONDE, "--help"], capture_output=True, text=True, timeout=60).stdout
    workloads = listed.split("Workloads:\n", 1)[1].split("\n\n", 1)[0]
    assert [w["workload"] for w in described] == [ln.split()[0] for ln in workloads.splitlines()]
    for w in described:
        names = [p["name"] for p in w["params"]]
        assert names and len(names) == len(set(names)), w["workload"]
    # the backends -a takes, as ior's --help lists them, each with what the build lacks for it
    backends = json.loads(proc.stdout)["backends"]
    ior_help = subprocess.run([SONDE, "ior", "--help"], capture_output=True, text=True,
                              timeout=60).stdout
    (api,) = [ln.split()[-1] for ln in ior_help.splitlines() if ln.startswith("  -a, --api ")]
    assert sorted(b["name"] for b in backends) == sorted(api.split("|"))
    assert all(b["missing"] is None or isinstance(b["missing"], str) for b in backends)
    # each parameter's command-line spellings and whether its value names a file, held against
    # the workload's --help: every spelling is an option it lists, with a FILE, PATH, DIR or
    # PREFIX after it exactly when the parameter is a path
    for w in [w for w in described if w["workload"] in ("ior", "mdtest")]:
        shown = subprocess.run([SONDE, w["workload"], "--help"], capture_output=True, text=True,
                               timeout=60).stdout
        heads = {}
        for ln in shown.splitlines():
            if not ln.startswith("  -"):
                continue
            words = ln.strip().split("  ")[0].replace(",", "").split()
            for k, word in enumerate(words):
                if word.startswith("-"):
                    heads.setdefault(word, words[k + 1] if k + 1 < len(words) and
                                     not words[k + 1].startswith("-") else None)
        for p in w["params"]:
            assert all(o in heads for o in p["options"]), (w["workload"], p)
            if p["options"]:
                assert p["path"] == any(heads[o] in ("FILE", "PATH", "DIR", "PREFIX")
                                        for o in p["options"]), (w["workload"], p)
    ior = {p["name"]: p for p in described[[w["workload"] for w in described].index("ior")]
           ["params"]}
    assert ior["useO_DIRECT"]["options"] == ["-B", "--useO_DIRECT", "--posix.odirect"]
    assert ior["testFile"]["path"] and not ior["blockSize"]["path"]
    proc = subprocess.run([SONDE, "--describe-options", "ior"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(error_lines(proc.stderr)) == 1
    # a binary without the mode: refused with the reason, never taken as no workloads
    with pytest.raises(argcheck.Refused, match="described no workloads"):
        argcheck.workloads.__wrapped__("/bin/false")
