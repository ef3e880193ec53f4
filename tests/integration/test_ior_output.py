# SPDX-License-Identifier: BSD-3-Clause
"""sonde ior's output line for line against IOR 4.1 (hpc/ior 5fcf0ba).

The label lists, value formats and JSON keys below are facts recorded from IOR 4.1 built at that
commit and run here with the same command lines (its ShowSetup, ShowTestStart and summary
output); sonde's output is diffed against them, so parsers written for IOR keep working."""

import json
import re

import pytest
from conftest import run_sonde

SMALL = ["-t", "4k", "-b", "64k", "-s", "2"]

# IOR 4.1's "Options:" section for a run like SMALL, in order (task offset lines with -C/-Z,
# memoryPer*, dryRun and the stonewalling lines only when set).
IOR_OPTIONS = ["api", "apiVersion", "test filename", "access", "type", "segments",
               "ordering in a file", "ordering inter file", "nodes", "tasks", "clients per node",
               "memoryBuffer", "dataAccess", "GPUDirect", "repetitions", "xfersize", "blocksize",
               "aggregate filesize"]
# The ones IOR wrote as JSON numbers (PrintKeyValInt); the others are strings.
IOR_OPTIONS_INT = {"segments", "nodes", "tasks", "clients per node", "repetitions", "verbose",
                   "task offset", "reorder random seed", "dryRun", "stonewallingTime",
                   "stoneWallingWearOut"}
IOR_PARAMETERS = [
    "testID", "refnum", "api", "platform", "testFileName", "deadlineForStonewall",
    "stoneWallingWearOut", "maxTimeDuration", "outlierThreshold", "options", "dryRun", "nodes",
    "memoryPerTask", "memoryPerNode", "tasksPerNode", "repetitions", "multiFile",
    "interTestDelay", "fsync", "fsyncperwrite", "useExistingTestFile", "uniqueDir",
    "singleXferAttempt", "readFile", "writeFile", "filePerProc", "reorderTasks",
    "reorderTasksRandom", "reorderTasksRandomSeed", "randomOffset", "checkWrite", "checkRead",
    "dataPacketType", "keepFile", "keepFileWithError", "warningAsErrors", "verbose",
    "data packet type", "setTimeStampSignature/incompressibleSeed", "collective",
    "segmentCount", "transferSize", "blockSize"]


def ior(args, **kw):
    return run_sonde(["ior", *[str(a) for a in args]], **kw)


def options_section(stdout):
    body = stdout.split("\nOptions: \n", 1)[1].split("\n\n", 1)[0]
    return [(ln[:20].rstrip(), ln[22:]) for ln in body.splitlines()]


@pytest.mark.parametrize("xfer,block,shown", [
    ("4k", "64k", ("4096 bytes", "65536 bytes", "262144 bytes")),
    ("1m", "16m", ("1 MiB", "16 MiB", "64 MiB")),
    ("1536k", "3m", ("1.50 MiB", "3 MiB", "12 MiB")),
])
def test_options_section_as_ior_prints_it(shm_scratch, xfer, block, shown):
    """`xfersize : 4 KiB` where IOR printed `4096 bytes`: sizes below 1 MiB are bytes."""
    out = ior(["-w", "-t", xfer, "-b", block, "-s", 2, "-o", shm_scratch / "f"], np=2)
    lines = options_section(out.stdout)
    assert [k for k, _ in lines] == IOR_OPTIONS
    values = dict(lines)
    assert (values["xfersize"], values["blocksize"], values["aggregate filesize"]) == shown
    assert values["GPUDirect"] == "0" and values["memoryBuffer"] == "CPU"


def test_remove_rows_and_max_lines_only_with_v(shm_scratch):
    """IOR prints the remove rows and Max Write/Read only with -v."""
    quiet = ior(["-w", "-r", "-i", 2, *SMALL, "-o", shm_scratch / "f"], np=2)
    assert not re.search(r"^(remove|Max Write|Max Read)", quiet.stdout, re.MULTILINE)
    loud = ior(["-w", "-r", "-i", 2, "-v", *SMALL, "-o", shm_scratch / "f"], np=2)
    assert len(re.findall(r"^remove    -  ", loud.stdout, re.MULTILINE)) == 2
    assert re.search(r"^Max Write: [\d.]+ MiB/sec \([\d.]+ MB/sec\)$", loud.stdout, re.MULTILINE)
    assert re.search(r"^Max Read:  [\d.]+ MiB/sec", loud.stdout, re.MULTILINE)
    assert dict(options_section(loud.stdout))["verbose"] == "1"


def test_only_result_rows_start_with_read_or_write(shm_scratch):
    """`grep ^read` caught sonde's Options line `read-back shift`: it is renamed."""
    out = ior(["-w", "-r", "-C", "-Q", 1, *SMALL, "-o", shm_scratch / "f"], np=2)
    starts = [ln for ln in out.stdout.splitlines() if ln.startswith(("read", "write"))]
    # two result rows and the two summary rows, nothing else
    assert [ln.split()[0] for ln in starts] == ["write", "read", "write", "read"]
    assert "shift on read-back" in dict(options_section(out.stdout))


def test_json_summary_keys_and_types(shm_scratch):
    """tasks, segments, repetitions, clients per node were strings (IOR: integers); IOR's 6
    Options and 7 Parameters keys were missing; with -v IOR lists a remove entry after each
    repetition's results; figures have IOR's four decimals."""
    out = shm_scratch / "s.json"
    ior(["-w", "-r", "-i", 2, "-v", *SMALL, "-o", shm_scratch / "f", "-O",
         f"summaryFormat=JSON,summaryFile={out}"], np=2)
    text = out.read_text()
    doc = json.loads(text)
    test = doc["tests"][0]
    assert list(test["Options"]) == IOR_OPTIONS + ["verbose"]
    for key, value in test["Options"].items():
        assert isinstance(value, int if key in IOR_OPTIONS_INT else str), key
    assert list(test["Parameters"]) == IOR_PARAMETERS
    assert test["Parameters"]["nodes"] == 1 and test["Parameters"]["dataPacketType"] == 0
    assert re.fullmatch(r".+\(\w+\)", test["Parameters"]["platform"])
    assert [r["access"] for r in test["Results"]] == ["write", "read", "remove"] * 2
    removes = [r for r in test["Results"] if r["access"] == "remove"]
    assert all(list(r) == ["access", "totalTime"] and r["totalTime"] >= 0 for r in removes)
    assert re.search(r'"blockKiB": ?64\.0000,', text)
    assert isinstance(doc["summary"][0]["numTasks"], int)
    quiet = shm_scratch / "q.json"
    ior(["-w", *SMALL, "-o", shm_scratch / "f", "-O", "platform=lab,summaryFormat=JSON",
         "-O", f"summaryFile={quiet}"], np=1)
    doc = json.loads(quiet.read_text())
    assert [r["access"] for r in doc["tests"][0]["Results"]] == ["write"]
    assert doc["tests"][0]["Parameters"]["platform"] == "lab"


def test_summary_file_with_the_text_format(shm_scratch):
    """-O summaryFile=F with the default format wrote nothing; IOR writes the report there."""
    out = shm_scratch / "report.txt"
    proc = ior(["-w", "-r", *SMALL, "-o", shm_scratch / "f", "-O", f"summaryFile={out}"],
               np=2)
    assert proc.stdout == f"Writing output to {out}\n"
    text = out.read_text()
    assert text.startswith("IOR-4.1.0")
    assert "\nSummary of all tests:\n" in text and re.search(r"^Finished +: ", text, re.M)
    assert re.search(r"^write +[\d.]+ ", text, re.MULTILINE)


def test_errors_found_on_stdout(shm_scratch):
    """A verification failure went to stderr only, so a job log of stdout never showed it:
    IOR's WARNING line is on stdout too, counting the transfers that read wrong data."""
    target = shm_scratch / "f"
    ior(["-w", "-k", "-G", 77, "-t", "8k", "-b", "64k", "-o", target], np=2)
    with open(target, "r+b") as f:
        for offset in (100, 8192 * 3 + 5, 8192 * 3 + 6):  # two transfers
            f.seek(offset)
            f.write(b"\xee")
    proc = ior(["-r", "-R", "-k", "-G", 77, "-t", "8k", "-b", "64k", "-o", target], np=2,
               check=False)
    assert proc.returncode == 3
    assert ("WARNING: Incorrect data on read (2 errors found).\n\n"
            "Used Time Stamp 77 (0x4d) for Data Signature\n") in proc.stdout
    assert "incorrect data on read" in proc.stderr


@pytest.mark.parametrize("args,named", [
    (["--posix.lustre.stripecount=4"], "--posix.lustre.stripecount"),
    (["--posix.gpfs.hintaccess"], "--posix.gpfs.hintaccess"),
    (["--mpiio.preallocate"], "--mpiio.preallocate"),
    (["--ncmpi.useFileView"], "--ncmpi.useFileView"),
    (["--gpuDirect"], "--gpuDirect"),
    (["-O", "GPUid=1"], "GPUid"),
    (["-O", "summaryalways=1"], "summaryalways"),
    (["-O", "posix.beegfs.NumTargets=2"], "posix.beegfs.NumTargets"),
    (["-O", "numNodes=2"], "numNodes"),
])
def test_ior_options_sonde_lacks_are_named(shm_scratch, args, named):
    """Valid IOR options and -O keys sonde does not implement were refused as "unknown"."""
    proc = ior(["-w", *SMALL, "-o", shm_scratch / "f", *args], np=1, check=False)
    assert proc.returncode == 2
    assert f"option {named} is not supported by sonde: " in proc.stderr
    assert "unknown" not in proc.stderr


@pytest.mark.parametrize("args,warned", [
    (["-w", "-C", "-Q", 1], ["-C", "-Q"]),
    (["-w", "-Z", "-X", 5], ["-X", "-Z"]),  # in the option table's order
    (["-w", "-r", "-X", 5], ["-X"]),
    (["-w", "-r", "--random-offset-seed", 9], ["--random-offset-seed"]),
    (["-w", "-W", "-C", "-Q", 1], []),  # -C moves -W's reads
    (["-w", "-r", "-C", "-e", "-Y", "-E"], []),
])
def test_options_without_effect_are_accepted_with_a_warning(shm_scratch, args, warned):
    """IOR accepted these where they do nothing; so does sonde, one warning line each."""
    target = shm_scratch / "f"
    proc = ior([*args, *SMALL, "-o", target], np=1)
    lines = [ln for ln in proc.stderr.splitlines() if "has no effect here" in ln]
    assert [ln.split()[3] for ln in lines] == warned, proc.stderr


def test_write_options_on_a_read_run_warn(shm_scratch):
    target = shm_scratch / "f"
    ior(["-w", "-k", *SMALL, "-o", target], np=1)
    proc = ior(["-r", "-k", "-e", "-Y", "-E", *SMALL, "-o", target], np=1)
    lines = [ln for ln in proc.stderr.splitlines() if "has no effect here" in ln]
    assert lines == [f"sonde ior: warning: {o} has no effect here: it applies to the write "
                     "phase (-w)" for o in ("-e", "-E", "-Y")]
