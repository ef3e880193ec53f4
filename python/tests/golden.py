# SPDX-License-Identifier: BSD-3-Clause
"""Golden records: result records the sonde binary writes while the tests run, so that the
Python layer is tested on what the binary produces, never on hand-made dicts.

The binary is $SONDE_BIN, or the checkout's build/sonde (make build). Each workload runs small
in one temporary directory, as one process (an MPI singleton) or under the launcher; the
session's Golden (fixture golden) runs each command line once and returns the path of its
results file. A test that needs a record the binary cannot write derives it from one of these
(a deep copy with one named change, or the file's bytes cut) and says why.
"""

import copy
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
sys.path.append(str(REPO / "tests" / "integration"))  # bounded.py, shared with those tests
from bounded import run_bounded  # noqa: E402
from launch_env import launch_env  # noqa: E402 (after the path is set)

from sonde.campaign.placement import mpi_flavor, mpirun_for  # noqa: E402

SONDE = os.path.abspath(os.environ.get("SONDE_BIN", str(REPO / "build" / "sonde")))


def env():
    return {**os.environ, **launch_env()}


def launcher(ranks):
    """The command that starts ranks processes of the binary under test: the launcher of the
    MPI it is built with, oversubscribing this small machine."""
    mpirun = mpirun_for(SONDE)
    extra = ["--oversubscribe"] if mpi_flavor(mpirun) == "openmpi" else []
    return [mpirun, "-n", str(ranks), *extra]


class Golden:
    """Runs sonde command lines in one scratch directory, each once; {dir} in an argument is
    that directory."""

    def __init__(self, directory):
        self.dir = Path(directory)
        self.done = {}

    def _argv(self, workload, args, out):
        if not os.access(SONDE, os.X_OK):
            pytest.fail(f"{SONDE} is not built: the Python tests read records the binary "
                        "writes (make build, or set SONDE_BIN)")
        args = [str(a).replace("{dir}", str(self.dir)) for a in args]
        # sonde mix: --json is the mix's own option, before its groups
        if workload == "mix":
            return [SONDE, workload, "--json", str(out), *args]
        return [SONDE, workload, *args, "--json", str(out)]

    def run(self, workload, *args, expect=0, ranks=None, csv=False, environ=None):
        """The results file of `sonde WORKLOAD ARGS --json FILE` (exit code expect), as one
        process, or under `mpirun -n RANKS`; csv=True also writes `--csv` beside it (the same
        path with .csv); environ: variables set for the run."""
        key = (workload, *args, ranks, csv, tuple(sorted((environ or {}).items())))
        if key in self.done:
            return self.done[key]
        out = self.dir / f"{len(self.done):03d}-{workload}.jsonl"
        argv = self._argv(workload, args, out)
        argv += ["--csv", str(out.with_suffix(".csv"))] if csv else []
        if ranks:
            argv = launcher(ranks) + argv
        proc = subprocess.run(argv, cwd=self.dir, env={**env(), **(environ or {})},
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == expect, (
            f"{' '.join(argv)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
        self.done[key] = out
        return out

    def killed(self, workload, *args, sig=signal.SIGKILL):
        """The results file of a run sent sig once its header is written: SIGKILL leaves it
        without an end record, as a run a batch system kills; SIGTERM makes sonde stop, write
        its end record and exit 4 (asserted)."""
        key = ("killed", sig, workload, *args)
        if key in self.done:
            return self.done[key]
        out = self.dir / f"{len(self.done):03d}-{workload}-{sig.name}.jsonl"
        proc = subprocess.Popen(self._argv(workload, args, out), cwd=self.dir, env=env(),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not (out.exists() and out.read_text().count("\n") >= 1):
            assert time.monotonic() < deadline and proc.poll() is None, "no header written"
            time.sleep(0.02)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
        expect = -sig if sig == signal.SIGKILL else 4
        assert proc.returncode == expect, f"{workload} exited {proc.returncode} on {sig}: {err}"
        self.done[key] = out
        return out


def records_of(path):
    """The records of a results file, refusing a repeated member in any object (json would keep
    the last one silently)."""

    def no_repeats(pairs):
        keys = [k for k, _ in pairs]
        assert len(keys) == len(set(keys)), f"repeated member in {keys}"
        return dict(pairs)

    return [json.loads(line, object_pairs_hook=no_repeats)
            for line in Path(path).read_text().splitlines() if line.strip()]


# The 65-node JUPITER easy run: records and output of a real run on 65 UTS-namespace nodes
# (tests/integration/fixtures/make-jupiter-65-nodes.sh makes them).
FIXTURES = REPO / "tests" / "integration" / "fixtures"
JUPITER_65 = FIXTURES / "jupiter-easy-65-nodes.jsonl"
JUPITER_65_OUTPUT = FIXTURES / "jupiter-easy-65-nodes.txt"


# Small runs of every workload, each with every kind of record it writes.
WORKLOAD_RUNS = {
    "ior": ["-w", "-r", "-W", "-R", "-C", "-i", "2", "-b", "64k", "-t", "16k", "-s", "2", "-o",
            "{dir}/ior-file"],
    "mib": ["-F", "-t", "{dir}", "-l", "8", "-s", "4k", "-b", "--verify"],
    "btio": ["--mode", "rw", "--method", "0", "--dumps", "2", "--grid", "12x12x12", "--dir",
             "{dir}"],
    "mpiio": ["-type", "1", "-nobj", "2", "-size", "4K", "-chkdata", "3", "-target",
              "{dir}/mpiio.%r"],
    "coll": ["-e", "16", "-i", "5", "Bcast", "Allreduce"],
    "mdtest": ["-n", "12", "-i", "2", "-u", "-w", "64", "-e", "64", "-X", "-G", "5", "-d",
               "{dir}/mdtest"],
    "find": ["{dir}", "-name", "*.jsonl", "-size", "-1M", "-C", "-D", "rates"],
    "train": ["-d", "{dir}", "--generate", "--train", "--num-files", "4", "--record-size", "4k",
              "--verify"],
}

# mib with per-call profiles (-p) and a time series (--interval) on 3 ranks: the profile and
# interval records of a run.
MIB_PROFILE_RUN = ["-F", "-t", "{dir}", "-l", "12", "-s", "4k", "-b", "-p", "{dir}/prof",
                   "--interval", "1"]
# ior with a time series (--interval) on 2 ranks: two iterations of a few intervals per phase.
IOR_SERIES_RUN = ["-w", "-r", "-F", "-i", "2", "-t", "1k", "-b", "4m", "-o", "{dir}/series",
                  "--interval", "0.01"]
# ior reading a file that is not there: exit 2, an end record saying why (rank, path, error).
IOR_NO_FILE = ["-r", "-b", "64k", "-t", "16k", "-o", "{dir}/no-such-file"]
# ior waiting 30 s before its first write: a run to stop with a signal (Golden.killed).
IOR_WAITING = ["-w", "-d", "30", "-b", "64k", "-t", "16k", "-o", "{dir}/killed-file"]


@pytest.fixture(scope="session")
def golden():
    with tempfile.TemporaryDirectory(prefix="sonde-golden-") as d:
        yield Golden(d)


@pytest.fixture(scope="session")
def ior_file(golden):
    """The results file of a complete ior run: header, measurements, summaries, end."""
    return golden.run("ior", *WORKLOAD_RUNS["ior"])


@pytest.fixture(scope="session")
def mib_profile_file(golden):
    """The results file of a profiled mib run on 3 ranks: profile records too."""
    return golden.run("mib", *MIB_PROFILE_RUN, ranks=3)


# sonde mix: two ior groups of one rank whose writes overlap, made long enough by the fault
# shim's delay on every write (tests/shim/faultshim.c), and run alone first (--solo); intervals
# of 50 ms, several in each 160 ms write.
MIX_RUN = ["--solo", "--interval", "0.05",
           "--group", "1:", "ior", "-w", "-t", "4k", "-b", "32k", "-o", "{dir}/mix-a",
           "--group", "1:", "ior", "-w", "-t", "4k", "-b", "32k", "-o", "{dir}/mix-b"]
FAULT_SHIM = Path(SONDE).parent / "libfaultshim.so"


@pytest.fixture(scope="session")
def mix_file(golden):
    """The results file of a sonde mix run: its groups' records and the mix records."""
    if not FAULT_SHIM.exists():
        pytest.fail(f"no fault shim at {FAULT_SHIM} (cmake builds it beside sonde)")
    slow = {"LD_PRELOAD": str(FAULT_SHIM), "SONDE_FAULT_DIR": str(golden.dir),
            "SONDE_FAULT_DELAY_US": "20000"}
    return golden.run("mix", *MIX_RUN, ranks=2, environ=slow)


@pytest.fixture(scope="session")
def series_file(golden):
    """The results file of an ior run with interval records (IOR_SERIES_RUN)."""
    return golden.run("ior", *IOR_SERIES_RUN, ranks=2)


@pytest.fixture(scope="session")
def golden_records(ior_file, mib_profile_file, mix_file):
    """{type: [records]} of the ior run, the profiled mib run and a mix: every type the binary
    writes."""
    by_type = {}
    for r in records_of(ior_file) + records_of(mib_profile_file) + records_of(mix_file):
        by_type.setdefault(r["type"], []).append(r)
    return by_type


@pytest.fixture
def record(golden_records):
    """record(type): a copy of the first record of that type the binary wrote, to change."""
    return lambda kind: copy.deepcopy(golden_records[kind][0])


CAMPAIGN = Path(__file__).resolve().parent / "data" / "campaign.toml"


def run_suite(suite_text, out, scratch, failing=False):
    """A sonde-suite run directory of suite_text (its scratch moved to scratch), run with the
    binary under test; the suite's own output on failure (on success, when failing: a suite
    some of whose launches fail on purpose). What it printed is kept beside the directory
    (stdout_of)."""
    suite = out.parent / f"{out.name}.toml"
    suite.write_text(suite_text.replace('scratch = "/tmp/sonde-report-test"',
                                        f'scratch = "{scratch}"'))
    e = env()
    e["PYTHONPATH"] = str(REPO / "python") + os.pathsep + e.get("PYTHONPATH", "")
    # bounded as a launch: the suite's own launches go with it when it outlives its time
    proc = run_bounded([sys.executable, "-m", "sonde.suite", "run", str(suite), "--out",
                        str(out), "--sonde", SONDE], env=e, capture_output=True, text=True,
                       timeout=600)
    assert (proc.returncode != 0) == failing, proc.stdout[-3000:] + proc.stderr[-3000:]
    stdout_of(out).write_text(proc.stdout)
    return out


def stdout_of(run_dir):
    """Where run_suite keeps what sonde-suite printed for run_dir."""
    return run_dir.parent / f"{run_dir.name}.stdout"


@pytest.fixture(scope="session")
def campaign():
    """The run directory of python/tests/data/campaign.toml, run once per session."""
    if not os.access(SONDE, os.X_OK):
        pytest.fail(f"{SONDE} is not built (make build, or set SONDE_BIN)")
    with tempfile.TemporaryDirectory(prefix="sonde-campaign-") as d:
        yield run_suite(CAMPAIGN.read_text(), Path(d) / "run", Path(d) / "scratch")


QUICK = REPO / "suites" / "quick.toml"
QUICK_SEED = '"-G", "5", '  # mdtest's data seed in the quick suite


@pytest.fixture(scope="session")
def quick_pair():
    """Two run directories of the shipped quick suite (suites/quick.toml) on this machine, one
    after the other, as two identical campaigns; mdtest draws its data seed from the clock (no
    -G, as in a suite that does not give one), so the two differ in that seed only by design."""
    text = QUICK.read_text()
    assert QUICK_SEED in text
    text = text.replace(QUICK_SEED, "")
    with tempfile.TemporaryDirectory(prefix="sonde-quick-") as d:
        yield [run_suite(text.replace('scratch = "/tmp/sonde-quick"',
                                      f'scratch = "{Path(d) / f"{name}-scratch"}"'),
                         Path(d) / name, None) for name in ("A", "B")]


# The shipped IO500 suite with small sizes and a one-second stonewall (its tunables only).
IO500_SMALL = (('block_mib = 9920000', 'block_mib = 8'), ('segments = 10000000', 'segments = 100'),
               ('files = 1000000', 'files = 200'), ('stonewall = 300', 'stonewall = 1'))


@pytest.fixture(scope="session")
def io500_campaign():
    """The run directory of a small IO500 campaign (suites/io500.toml), run once per session."""
    text = (REPO / "suites" / "io500.toml").read_text()
    for old, new in IO500_SMALL:
        assert old in text, old
        text = text.replace(old, new)
    text = text.replace('scratch = "/scratch/sonde-io500"', 'scratch = "/tmp/sonde-report-test"')
    with tempfile.TemporaryDirectory(prefix="sonde-io500-") as d:
        yield run_suite(text, Path(d) / "run", Path(d) / "scratch")
