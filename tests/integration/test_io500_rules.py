# SPDX-License-Identifier: BSD-3-Clause
"""IO500's validity judged on what each phase really ran with. Each gamed command line below is
a phase of suites/io500.toml with options appended, launched for real: the header record's
params hold what the binary parsed (the last of repeated options, grouped and attached
flags), and the phase is INVALID with the parameter and the value passed named. A campaign
whose phases ran on different rank counts is INVALID; an .ini runs as the toml campaign."""

import json
import sys

import pytest
from bounded import run_bounded
from conftest import MULTI_NODE, REPO, SONDE, mpi_env, read_jsonl, run_sonde

sys.path.insert(0, str(REPO / "python"))
from sonde import results  # noqa: E402
from sonde.campaign import io500, io500_phases, runner, suitefile  # noqa: E402

FILES = 120  # per rank: enough for mdtest's names to hold "01" (file.mdtest.0.101)


def small_suite(tmp_path, scratch, stonewall=300, edit=None):
    """The shipped suite on tmpfs with small sizes (tunables and the stonewall only)."""
    text = (REPO / "suites" / "io500.toml").read_text()
    for old, new in (('scratch = "/scratch/sonde-io500/datafiles"', f'scratch = "{scratch}"'),
                     ("block_mib = 9920000", "block_mib = 2"),
                     ("segments = 10000000", "segments = 20"),
                     ("files = 1000000", f"files = {FILES}"),
                     ("stonewall = 300", f"stonewall = {stonewall}")):
        assert old in text
        text = text.replace(old, new)
    if edit:
        text = edit(text)
    path = tmp_path / "io500.toml"
    path.write_text(text)
    return path


def launch_phase(tmp_path, scratch, name, extra, hosts=None):
    """Runs one phase of the suite on 2 ranks (on hosts, "node:2", when given) with extra
    options appended; its Run (which may have failed: its header holds the parameters) and
    command."""
    suite = suitefile.load(small_suite(tmp_path, scratch))
    (ln,) = [ln for ln in suite.launches if ln.step == name]
    ln = runner.with_run_dir(ln, tmp_path)
    for d in ln.mkdir:
        (tmp_path / d).mkdir(parents=True, exist_ok=True)
    out = tmp_path / f"{name}.jsonl"
    args = [ln.workload, "--json", str(out), *ln.args, *extra]
    run_sonde(args, np=2, check=False, hosts=hosts)
    read_jsonl(out)  # every record valid against the schema
    (run,) = results.load(out)
    return run, ["sonde", *args]


GAMES = [
    # (phase, options appended, the reasons the phase must give)
    ("mdtest-hard-write", ["-w", "3901", "-w", "100"],
     ["parameter write_bytes is 100, IO500 fixes 3901"]),
    ("mdtest-easy-write", ["-W", "300", "-W", "10"],
     ["parameter stonewall_seconds is 10, the stonewall of the campaign is 300"]),
    ("mdtest-hard-write", ["-u"],
     ["parameter unique_dir_per_task is true, IO500 leaves it at the default false"]),
    # mdtest refuses a stonewall (-W) with a tree (-b 2): the stat phase runs it (and fails,
    # finding no tree; its header holds the parameters all the same)
    ("mdtest-easy-stat", ["-z", "1", "-b", "2"],
     ["parameter branching_factor is 2, IO500 leaves it at the default 1",
      "parameter depth is 1, IO500 leaves it at the default 0"]),
    # IO500's files-per-dir (-I) drops the stonewall, which mdtest refuses with -I: the stat
    ("mdtest-hard-stat", ["-I10"],
     ["parameter items_per_dir is 10, IO500 leaves it at the default 0"]),
    # mdtest refuses -B with IO500's -N 1 (races): -B goes with -N 0
    ("mdtest-easy-stat", ["-N", "0", "-B"],
     ["parameter no_barriers is true, IO500 leaves it at the default false",
      "parameter nstride is 0, IO500 fixes 1"]),
    ("mdtest-easy-write", ["-i", "3"],
     ["parameter iterations is 3, IO500 leaves it at the default 1"]),
    # transferSize is the submitter's ([ior-easy]); -z needs blocks of several transfers
    ("ior-easy-write", ["-t", "1m", "-z"],
     ["parameter randomOffset is 1, IO500 leaves it at the default 0"]),
    ("ior-hard-write", ["-Q", "3"],
     ["parameter taskPerNodeOffset is 3, IO500 fixes 1"]),
    # an option of another API than the phase's: IO500's API key refuses it
    ("ior-hard-write", ["-a", "POSIX", "--hdf5.collectiveMetadata"],
     ["parameter hdf5.collectiveMetadata is true, IO500 leaves it at the default false"]),
    ("ior-rnd4K-easy-read", ["-s", "100", "-Q", "1"],
     ["parameter segmentCount is 100, IO500 fixes 10000000",
      "parameter taskPerNodeOffset is 1, IO500 fixes 2"]),
]


@pytest.mark.parametrize("name, extra, want", GAMES, ids=[" ".join(g[1]) for g in GAMES])
def test_gamed_phase_is_invalid(tmp_path, shm_scratch, name, extra, want):
    if name == "ior-rnd4K-easy-read":  # it reads the files ior-easy-write keeps
        launch_phase(tmp_path, shm_scratch, "ior-easy-write", [])
    run, command = launch_phase(tmp_path, shm_scratch, name, extra)
    res = io500.phase_result(io500_phases.BY_NAME[name], run, command, "ok", SONDE)
    params = [r for r in res.reasons if r.startswith("parameter ")]
    assert sorted(params) == sorted(want), res.reasons
    assert not res.valid


def test_options_of_the_phase_s_own_api_are_the_submitter_s(tmp_path, shm_scratch):
    """IO500's API key takes the API's own options after its name ("HDF5
    --hdf5.collectiveMetadata", "MMAP --mmap.madv_pattern"): phases that ran with them are
    judged by their other parameters alone."""
    for name, extra, option in (
            ("ior-hard-write", ["-a", "HDF5", "--hdf5.collectiveMetadata"],
             "hdf5.collectiveMetadata"),
            ("ior-easy-write", ["-a", "MMAP", "--mmap.madv_pattern"], "mmap.madv_pattern")):
        run, command = launch_phase(tmp_path, shm_scratch, name, extra)
        assert run.header["params"][option] is True and run.end["exit_code"] == 0
        res = io500.phase_result(io500_phases.BY_NAME[name], run, command, "ok", SONDE)
        assert not [r for r in res.reasons if r.startswith("parameter ")], res.reasons


def test_find_with_a_stonewall_is_invalid(tmp_path, shm_scratch):
    (tmp_path / "timestampfile").touch()
    run, command = launch_phase(tmp_path, shm_scratch, "find", ["-s", "1"])
    res = io500.phase_result(io500_phases.BY_NAME["find"], run, command, "ok", SONDE)
    assert "parameter stonewall is 1, IO500 leaves it at the default 0" in res.reasons


def test_a_read_of_other_blocks_than_written_is_invalid(tmp_path, shm_scratch):
    """ior-easy-read with its own -t 1m -b 1m reads half of what ior-easy-write wrote with
    -t 2m -b 2m: both are the submitter's, but IO500 sets them once for both phases."""
    write = launch_phase(tmp_path, shm_scratch, "ior-easy-write", [])
    read = launch_phase(tmp_path, shm_scratch, "ior-easy-read", ["-t", "1m", "-b", "1m"])
    (m,) = [m for m in read[0].measurements if m["phase"] == "read"]
    assert m["bytes"] == 2 * 2**20  # two ranks, one MiB each
    result = io500.evaluate({"ior-easy-write": (write[1], write[0], "ok"),
                             "ior-easy-read": (read[1], read[0], "ok")}, SONDE)
    (phase,) = [p for p in result.phases if p.name == "ior-easy-read"]
    assert sorted(phase.reasons) == [
        "parameter blockSize is 1048576, ior-easy-write ran with 2097152 (IO500 sets it once, "
        "in [ior-easy])",
        "parameter transferSize is 1048576, ior-easy-write ran with 2097152 (IO500 sets it "
        "once, in [ior-easy])"]


def test_a_find_over_other_files_is_invalid(tmp_path, shm_scratch):
    """The find on a directory holding a few matching files, not on the datadir where
    mdtest-hard-write made its files: it finds little, fast."""
    write = launch_phase(tmp_path, shm_scratch, "mdtest-hard-write", [])
    elsewhere = tmp_path / "few"
    elsewhere.mkdir()
    (tmp_path / "timestampfile").touch()
    (elsewhere / "x01").write_bytes(b"x" * 3901)
    out = tmp_path / "find.jsonl"
    args = ["find", "--json", str(out), str(elsewhere), "-newer", str(tmp_path / "timestampfile"),
            "-size", "3901c", "-name", "*01*", "-C", "-q", "10000"]
    run_sonde(args, np=2)
    (find,) = results.load(out)
    (m,) = find.measurements
    assert m["extra"]["found"] == 1
    result = io500.evaluate({"mdtest-hard-write": (write[1], write[0], "ok"),
                             "find": (["sonde", *args], find, "ok")}, SONDE)
    (phase,) = [p for p in result.phases if p.name == "find"]
    assert phase.reasons == [f"parameter workdir is \"{elsewhere}\", outside the datadir of the "
                             f"other phases, \"{shm_scratch}\" (IO500 keeps all its data in one)"]


def test_grouped_flags_are_what_io500_runs(tmp_path, shm_scratch):
    """-uLF is -u -L -F: the phase runs with exactly IO500's parameters."""
    def grouped(text):
        return text.replace('"-u", "-L", "-F", "-P"', '"-uLF", "-P"')

    suite = suitefile.load(small_suite(tmp_path, shm_scratch, edit=grouped))
    (ln,) = [ln for ln in suite.launches if ln.step == "mdtest-easy-write"]
    assert "-uLF" in ln.args
    run, command = launch_phase(tmp_path, shm_scratch, "mdtest-easy-write", [])
    res = io500.phase_result(io500_phases.BY_NAME["mdtest-easy-write"], run, command, "ok",
                             SONDE)
    assert not [r for r in res.reasons if r.startswith("parameter ")], res.reasons


def run_suite_cli(*args):
    env = mpi_env({"SONDE_BIN": SONDE})
    env["PYTHONPATH"] = str(REPO / "python")
    return run_bounded([sys.executable, "-m", "sonde.suite", *args], env=env,
                          capture_output=True, text=True, timeout=900)


def test_phases_on_different_ranks_are_invalid(tmp_path, shm_scratch):
    """ranks = 1 on mdtest-hard-stat alone: it stats half the files; IO500 runs every phase on
    the same processes."""
    def one_rank(text):
        head = '[[step]]\nname = "mdtest-hard-stat"\n'
        assert head in text
        return text.replace(head, head + "ranks = 1\n")

    out = tmp_path / "run"
    proc = run_suite_cli("run", str(small_suite(tmp_path, shm_scratch, 1, one_rank)), "--out",
                         str(out))
    manifest = json.loads((out / "manifest.json").read_text())
    stat = next(e for e in manifest["launches"] if e["step"] == "mdtest-hard-stat")
    recs = read_jsonl(out / stat["id"] / "results.jsonl")
    assert recs[0]["ranks"] == 1 and recs[-1]["exit_code"] == 0
    bad = [ln for ln in proc.stdout.splitlines()
           if ln.startswith("ERROR INVALID mdtest-hard-stat: ")]
    assert bad == ["ERROR INVALID mdtest-hard-stat: ran on 1 ranks (1 nodes x 1 tasks), the "
                   "other phases on 2 (1 x 2): IO500 runs every phase on the same processes"]
    # what it did: one rank stat-ed its own files, half of what mdtest-hard-write made
    (m,) = [r for r in recs if r["type"] == "measurement" and r["phase"] == "file-stat"]
    assert m["ops"] == FILES
    line = next(ln for ln in proc.stdout.splitlines()
                if ln.startswith("[RESULT]") and " mdtest-hard-stat " in ln)
    assert line.endswith(" [INVALID]")


def multi_node(test):
    """The test runs on "nodes" made with UTS namespaces (conftest's MULTI_NODE)."""
    for mark in MULTI_NODE:
        test = mark(test)
    return test


@multi_node
def test_a_phase_on_other_hosts_is_invalid(tmp_path, shm_scratch):
    """The same rank counts on another node: not the same processes either."""
    write = launch_phase(tmp_path, shm_scratch, "mdtest-easy-write", [], hosts="nodeA:2")
    stat = launch_phase(tmp_path, shm_scratch, "mdtest-easy-stat", [], hosts="nodeB:2")
    assert write[0].header["hostnames"] == ["nodeA"] and stat[0].header["hostnames"] == ["nodeB"]
    result = io500.evaluate({"mdtest-easy-write": (write[1], write[0], "ok"),
                             "mdtest-easy-stat": (stat[1], stat[0], "ok")}, SONDE)
    (phase,) = [p for p in result.phases if p.name == "mdtest-easy-stat"]
    assert phase.reasons == ["ran on the hosts nodeB, the other phases on nodeA: IO500 runs "
                             "every phase on the same processes"]


def tiny_ini(tmp_path, scratch, **extra):
    lines = ["[global]", f"datadir = {scratch}", "timestamp-datadir = FALSE",
             f"resultdir = {tmp_path / 'results'}", "[debug]", "stonewall-time = 1",
             "[ior-easy]", "blockSize = 2m", "[ior-hard]", "segmentCount = 20",
             "[mdtest-easy]", f"n = {FILES}", "[mdtest-hard]", f"n = {FILES}  # per rank"]
    for section, keys in extra.items():
        lines += [f"[{section}]"] + keys
    path = tmp_path / "config.ini"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_ini_runs_as_the_toml_campaign(tmp_path, shm_scratch):
    ini = tiny_ini(tmp_path, shm_scratch, **{"ior-easy-write": ["API = POSIX --posix.odirect"]})
    toml = small_suite(tmp_path, shm_scratch, 1, lambda t: t.replace(
        '"-w", "-D", "{stonewall}"', '"-w", "-D", "{stonewall}", "--posix.odirect"', 1))
    # the .ini's datadir is the data directory itself: the toml's run gets the same one
    dry = [run_suite_cli(cmd, str(path), "--dry-run", "--out", str(tmp_path / "d"), *more)
           for cmd, path, more in (("io500", ini, ()),
                                   ("run", toml, ("--scratch", str(shm_scratch))))]
    assert [p.returncode for p in dry] == [0, 0], [p.stderr for p in dry]
    ini_lines, toml_lines = (p.stdout.splitlines() for p in dry)
    assert len(ini_lines) == 14 and "--posix.odirect" in ini_lines[0]
    # the same parameters, the odirect option where the .ini put it
    assert [sorted(ln.split()) for ln in ini_lines] == [sorted(ln.split()) for ln in toml_lines]

    # the .ini runs: results in its resultdir (timestamped), IO500's result files, and every
    # phase valid apart from the runtime rule
    proc = run_suite_cli("io500", str(tiny_ini(tmp_path, shm_scratch)))
    assert proc.returncode == 0, proc.stderr[-3000:]
    (run_dir,) = (tmp_path / "results").iterdir()
    assert (run_dir / "result_summary.txt").exists() and (run_dir / "io500.toml").exists()
    assert (run_dir / "config-orig.ini").read_text() == (tmp_path / "config.ini").read_text()
    errors = [ln for ln in proc.stdout.splitlines() if ln.startswith("ERROR INVALID ")]
    assert errors[0] == "ERROR INVALID stonewall-time 1s != 300s: the write phases ran with a " \
        "debug stonewall"
    assert all("Runtime is smaller than expected minimum runtime" in ln for ln in errors[1:])
    assert len(errors) == 5, errors
