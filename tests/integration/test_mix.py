# SPDX-License-Identifier: BSD-3-Clause
"""sonde mix (docs/workloads/mix.md): groups of ranks running workloads at once, from real
launches on tmpfs. The oracles are the files the groups leave (sizes, counts, contents), the
groups' own measurement records (their figures recomputed from bytes and seconds), and the same
workloads run alone by plain `sonde ior` / `sonde mdtest`.

The fault shim (tests/shim/faultshim.c, SONDE_FAULT_DELAY_US) makes every read and write of the
run's files wait, so that tiny phases last long enough to overlap on a loaded machine."""

import itertools
import json
import re
import signal
import subprocess
from pathlib import Path

import pytest
from conftest import (
    MULTI_NODE,
    OPEN_MPI,
    SIGNAL_GRACE,
    launch_command,
    mpi_env,
    read_jsonl,
    run_sonde,
)
from faultlib import NEEDS_SHIM, SHIM, error_lines, stop_launch, wait_gone
from sonde import report
from sonde.results import load as load_runs


def slowed(test):
    """A test whose launches preload the fault shim: not in the ASan leg (NEEDS_SHIM)."""
    for mark in NEEDS_SHIM:
        test = mark(test)
    return test


DELAY = {"SONDE_FAULT_DELAY_US": "20000"}
XFER, BLOCK, ITEMS, ITEM_BYTES = 4096, 65536, 8, 4096
INTERVAL = "0.05"  # the mix's --interval: several intervals in each phase of 0.2 s or more


def _slow(d):
    return {"LD_PRELOAD": str(SHIM), "SONDE_FAULT_DIR": str(d), **DELAY}


def _groups(d):
    # -G: the data's time stamp (the clock's otherwise), so that files can be compared
    easy = ["ior", "-a", "POSIX", "-t", "4k", "-b", "64k", "-w", "-k", "-G", 7, "-o",
            f"{d}/easy/f"]
    hard = ["ior", "-a", "POSIX", "-t", "4k", "-b", "64k", "-w", "-r", "-k", "-o",
            f"{d}/hard/f"]
    md = ["mdtest", "-n", ITEMS, "-F", "-C", "-w", ITEM_BYTES, "-G", 7, "-d", f"{d}/md"]
    return easy, hard, md


def _runs(records):
    runs = {}
    for r in records:
        runs.setdefault(r["run_id"], []).append(r)
    return runs


def _measured(run, phase):
    (m,) = [r for r in run if r["type"] == "measurement" and r["phase"] == phase]
    return m


def _files(root):
    return sorted((str(p.relative_to(root)), p.stat().st_size)
                  for p in Path(root).rglob("*") if p.is_file())


# Timing figures, and what names a run rather than what it did.
_TIMED = {"run_id", "group", "mix_stage", "start", "end", "start_time", "elapsed_seconds",
          "free_bytes", "per_rank", "latency", "rank_seconds_before_barrier", "finish",
          "clock_error_s"}


def _shape(value):
    """A record without its timings: the members, strings, integers and flags it holds."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items() if k not in _TIMED}
    if isinstance(value, list):
        return [_shape(v) for v in value]
    return None if isinstance(value, float) else value


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """One launch of 4 ranks in groups of 1/1/2 with --solo, and the workloads of groups 1 and 3
    alone (plain sonde, same options, same results file) into directories of their own."""
    d = tmp_path_factory.mktemp("mix")
    for sub in ("easy", "hard", "md", "alone_easy", "alone_md"):
        (d / sub).mkdir()
    results = d / "r.jsonl"
    easy, hard, md = _groups(d)
    args = ["mix", "--json", results, "--solo", "--interval", INTERVAL, "--group", "1:", *easy,
            "--group", "1:", *hard, "--group", "2:", *md]
    proc = run_sonde(args, np=4, env=_slow(d))
    # alone: the same command lines but for the target, appended to the same results file
    # (the mix added --json and its --interval to each group's)
    alone_easy = [str(a).replace(f"{d}/easy/", f"{d}/alone_easy/") for a in easy]
    alone_md = [str(a).replace(f"{d}/md", f"{d}/alone_md") for a in md]
    added = ["--json", results, "--interval", INTERVAL]
    run_sonde(alone_easy + added, np=1, env=_slow(d))
    run_sonde(alone_md + added, np=2, env=_slow(d))
    return d, proc, read_jsonl(results)


@slowed
def test_each_group_moved_what_its_records_and_files_say(mixed):
    d, _, records = mixed
    runs = _runs(records)
    mix_id = next(r["run_id"] for r in records if r["workload"] == "mix")
    easy, hard, md = (runs[f"{mix_id}-g{k}"] for k in (1, 2, 3))
    for run, k in ((easy, 1), (hard, 2), (md, 3)):
        assert {r["group"] for r in run} == {k} and run[0]["mix_stage"] == "concurrent"
        assert run[-1]["type"] == "end" and run[-1]["reason"] == "ok"
    assert (d / "easy" / "f").stat().st_size == BLOCK
    assert (d / "hard" / "f").stat().st_size == BLOCK
    w = _measured(easy, "write")
    assert (w["bytes"], w["ops"]) == (BLOCK, BLOCK // XFER)
    for phase in ("write", "read"):
        m = _measured(hard, phase)
        assert (m["bytes"], m["ops"]) == (BLOCK, BLOCK // XFER)
    files = _files(d / "md")
    assert len(files) == 2 * ITEMS and {size for _, size in files} == {ITEM_BYTES}
    c = _measured(md, "file-create")
    assert (c["ops"], c["bytes"]) == (2 * ITEMS, 2 * ITEMS * ITEM_BYTES)
    assert [r["ranks"] for r in (easy[0], hard[0], md[0])] == [1, 1, 2]


def _intervals(run, phase):
    return [r for r in run if r["type"] == "interval" and r["phase"] == phase]


def _inside(intervals, start, end, member):
    """What the intervals moved inside [start, end]: each by the share of its time inside."""
    return sum(i[member] * max(0, min(i["clock_s"] + i["seconds"], end) - max(i["clock_s"], start))
               / i["seconds"] for i in intervals if i["seconds"] > 0)


@slowed
def test_phases_overlap_and_the_mix_record_sums_their_intervals(mixed):
    """The window's figures, recomputed from the groups' own interval records: each group's
    bytes and operations inside the window and outside it, the rates, the aggregate."""
    _, proc, records = mixed
    runs = _runs(records)
    mix_id = next(r["run_id"] for r in records if r["workload"] == "mix")
    group_runs = [runs[f"{mix_id}-g{k}"] for k in (1, 2, 3)]
    phases = [_measured(group_runs[0], "write"), _measured(group_runs[1], "write"),
              _measured(group_runs[2], "file-create")]
    start, end = max(p["start"] for p in phases), min(p["end"] for p in phases)
    assert start < end, [(p["start"], p["end"]) for p in phases]
    mixes = [r for r in runs[mix_id] if r["type"] == "mix"]
    (m,) = [r for r in mixes if [g["phase"] for g in r["groups"]] ==
            ["write", "write", "file-create"]]
    assert (m["start"], m["end"], m["figures"]) == (start, end, "intervals-prorated")
    seconds = end - start
    assert m["seconds"] == pytest.approx(seconds)
    bandwidth = ops = 0
    for g, p, run in zip(m["groups"], phases, group_runs, strict=True):
        iv = _intervals(run, p["phase"])
        # the time series covers the phase: its intervals sum to the measurement
        assert sum(i["bytes"] for i in iv) == p["bytes"] and sum(i["ops"] for i in iv) == p["ops"]
        assert (g["phase_start"], g["phase_end"], g["phase_bytes"], g["phase_ops"]) == \
            (p["start"], p["end"], p["bytes"], p["ops"])
        assert g["phase_bandwidth_mib_s"] == pytest.approx(p["bytes"] / 2**20 / p["seconds"])
        assert g["intervals"] == sum(1 for i in iv if i["clock_s"] < end and
                                     i["clock_s"] + i["seconds"] > start) >= 1
        inside, inside_ops = _inside(iv, start, end, "bytes"), _inside(iv, start, end, "ops")
        assert g["bytes"] == pytest.approx(inside) and g["ops"] == pytest.approx(inside_ops)
        assert 0 <= g["bytes"] <= p["bytes"]
        assert g["bandwidth_mib_s"] == pytest.approx(inside / 2**20 / seconds)
        assert g["ops_per_s"] == pytest.approx(inside_ops / seconds)
        assert g["outside_bytes"] == pytest.approx(p["bytes"] - inside)
        outside_s = sum(i["seconds"] for i in iv) - seconds
        assert g["outside_seconds"] == pytest.approx(outside_s, abs=1e-9)
        if outside_s > 0.01:
            assert g["outside_bandwidth_mib_s"] == pytest.approx(
                (p["bytes"] - inside) / 2**20 / outside_s)
        bandwidth += inside / 2**20 / seconds
        ops += inside_ops / seconds
    assert m["aggregate_bandwidth_mib_s"] == pytest.approx(bandwidth)
    assert m["aggregate_ops_per_s"] == pytest.approx(ops)
    # every overlap: a window inside one phase of each group
    for r in mixes:
        for g in r["groups"]:
            assert g["phase_start"] <= r["start"] < r["end"] <= g["phase_end"]
    assert f"mix overlap {m['overlap']}:" in proc.stdout


@slowed
def test_solo_runs_ran_alone_and_give_the_ratios(mixed):
    _, proc, records = mixed
    runs = _runs(records)
    mix_id = next(r["run_id"] for r in records if r["workload"] == "mix")
    solo = [runs[f"{mix_id}-g{k}-solo"] for k in (1, 2, 3)]
    assert all(run[0]["mix_stage"] == "solo" and run[-1]["reason"] == "ok" for run in solo)
    spans = sorted((m["start"], m["end"]) for run in solo for m in run
                   if m["type"] == "measurement")
    # one group after another, every solo phase before the concurrent runs
    solo_runs = [[m for m in run if m["type"] == "measurement"] for run in solo]
    for before, after in itertools.pairwise(solo_runs):
        assert max(m["end"] for m in before) < min(m["start"] for m in after)
    first_concurrent = min(m["start"] for k in (1, 2, 3) for m in runs[f"{mix_id}-g{k}"]
                           if m["type"] == "measurement")
    assert spans[-1][1] < first_concurrent
    # the mix's own header, written before any group runs (the file's first record), says when
    # the mix began; its end record spans every run
    header, end = runs[mix_id][0], runs[mix_id][-1]
    assert records[0] is header and header["type"] == "header"
    assert header["start_time"] <= min(run[0]["start_time"] for run in solo)
    last_end = max(m["end"] for k in (1, 2, 3) for m in runs[f"{mix_id}-g{k}"]
                   if m["type"] == "measurement")
    assert end["elapsed_seconds"] >= last_end - spans[0][0]
    # the ratio: the rate inside the window over the solo phase's average
    for r in (r for r in runs[mix_id] if r["type"] == "mix"):
        for g, alone_run in zip(r["groups"], solo, strict=True):
            a = _measured(alone_run, g["phase"])
            assert g["solo_run_id"] == a["run_id"]
            if not g["intervals"]:  # a tree phase: no time series, no window figures
                assert g["bandwidth_ratio"] is None and g["ops_ratio"] is None
                continue
            if not a["bytes"]:
                assert g["bandwidth_ratio"] is None
            else:
                assert g["bandwidth_ratio"] == pytest.approx(
                    g["bytes"] / r["seconds"] / (a["bytes"] / a["seconds"]))
            assert g["ops_ratio"] == pytest.approx(
                g["ops"] / r["seconds"] / (a["ops"] / a["seconds"]))
    assert "== sonde mix: group 3 (2: mdtest on 2 ranks), alone ==" in proc.stdout
    assert "ratio" in proc.stdout


@slowed
def test_a_group_writes_what_the_workload_alone_writes(mixed):
    d, _, records = mixed
    runs = _runs(records)
    mix_id = next(r["run_id"] for r in records if r["workload"] == "mix")
    alone = [run for rid, run in runs.items() if not rid.startswith(mix_id)]
    assert [run[0]["workload"] for run in alone] == ["ior", "mdtest"]
    for group, plain in ((runs[f"{mix_id}-g1"], alone[0]), (runs[f"{mix_id}-g3"], alone[1])):
        # the command lines differ in the target directory only
        g_cmd = [re.sub(r"/(easy|md)\b", "/T", a) for a in group[0]["command_line"]]
        p_cmd = [re.sub(r"/alone_(easy|md)\b", "/T", a) for a in plain[0]["command_line"]]
        assert g_cmd == p_cmd
        # interval records count what fell in each interval: timings, compared as sums
        for phase in {r["phase"] for r in group if r["type"] == "measurement"}:
            if _intervals(group, phase):
                assert [sum(i[k] for i in _intervals(run, phase)) for run in (group, plain)
                        for k in ("bytes", "ops")] == \
                    [_measured(run, phase)[k] for run in (group, plain) for k in ("bytes", "ops")]
        group, plain = ([r for r in run if r["type"] != "interval"] for run in (group, plain))
        strip = [json.loads(re.sub(r"/alone_(easy|md)\b|/(easy|md)\b", "/T", json.dumps(r)))
                 for r in group + plain]
        assert [_shape(r) for r in strip[:len(group)]] == [_shape(r) for r in strip[len(group):]]
        assert all("group" not in r and "start" not in r for r in plain)
    assert (d / "easy" / "f").read_bytes() == (d / "alone_easy" / "f").read_bytes()
    md_files = [(n.replace("alone_md", "md"), s) for n, s in _files(d / "alone_md")]
    assert _files(d / "md") == md_files
    for name, _ in _files(d / "md"):
        assert (d / "md" / name).read_bytes() == (d / "alone_md" / name).read_bytes()


def test_bad_group_is_one_line_naming_it(tmp_path):
    """Every group's options go through its workload's own checks before anything runs."""
    proc = run_sonde(["mix", "--json", tmp_path / "r.jsonl", "--group", "1:", "ior", "-w", "-o",
                      tmp_path / "f", "--group", "1:", "mdtest", "-n", "-3", "-d", tmp_path],
                     np=2, check=False)
    assert proc.returncode == 2, proc.stderr
    (line,) = error_lines(proc.stderr)
    assert line.startswith("sonde mdtest: group 2: error: "), line
    assert not (tmp_path / "f").exists() and not (tmp_path / "r.jsonl").exists()
    proc = run_sonde(["mix", "--group", "1:", "ior", "-w", "-o", tmp_path / "f"], np=2,
                     check=False)
    assert proc.returncode == 2
    (line,) = error_lines(proc.stderr)
    assert "the groups take 1 of the launch's 2 ranks" in line, line
    # the mix's header opens --json before any group runs: a file it cannot append to (here
    # one that holds CSV) refuses the launch, nothing run, the file as it was
    csv = tmp_path / "r.csv"
    csv.write_text("run_id,workload\n")
    proc = run_sonde(["mix", "--json", csv, "--group", "2:", "ior", "-w", "-o", tmp_path / "f"],
                     np=2, check=False)
    assert proc.returncode == 2
    (line,) = error_lines(proc.stderr)
    assert line.startswith(f"sonde mix: error: --json {csv} holds something else"), line
    assert not (tmp_path / "f").exists() and csv.read_text() == "run_id,workload\n"


@MULTI_NODE[0]
@MULTI_NODE[1]
def test_groups_per_node_and_on_node_sets(tmp_path):
    """On two "nodes" of 3 ranks: 1/node puts one rank of each node in group 1 (every node runs
    a mix), 1@1 one more rank of node 1, and 3 the rest; the header of each group's run says
    where its ranks ran."""
    results = tmp_path / "r.jsonl"
    ior = ["ior", "-w", "-t", "4k", "-b", "16k"]
    run_sonde(["mix", "--json", results,
               "--group", "1/node:", *ior, "-o", tmp_path / "a",
               "--group", "1@1:", *ior, "-o", tmp_path / "b",
               "--group", "3:", "mdtest", "-n", 2, "-d", tmp_path / "md"],
              np=6, hosts="nodeA:3,nodeB:3", timeout=120)
    records = read_jsonl(results)
    (mix,) = [r for r in records if r["type"] == "header" and r["workload"] == "mix"]
    ranks = [g["world_ranks"] for g in mix["params"]["groups"]]
    assert ranks == [[0, 3], [4], [1, 2, 5]]
    headers = {r["group"]: r for r in records if r["type"] == "header" and "group" in r}
    assert headers[1]["hostnames"] == ["nodeA", "nodeB"] and headers[1]["tasks_on_node"] == [1, 1]
    assert headers[2]["hostnames"] == ["nodeB"]
    assert headers[3]["hostnames"] == ["nodeA", "nodeB"] and headers[3]["tasks_on_node"] == [2, 1]


def test_a_fatal_error_in_a_group_ends_the_launch_naming_it(tmp_path):
    """sonde_fatal (MPI_Abort) on a rank of group 2: ior's test file name, with -F's rank
    suffix, is longer than a path may be. The whole launch ends; the line names the group and
    the rank; every record written (group 2's end record among them) is whole."""
    deep = tmp_path
    while len(str(deep)) < 3890 - 201:
        deep = deep / ("d" * 200)
    deep = Path(str(deep / ("d" * 200))[:3890])
    deep.mkdir(parents=True)
    results = tmp_path / "r.jsonl"
    proc = run_sonde(["mix", "--json", results, "--group", "1:", "mdtest", "-n", 4, "-d",
                      tmp_path / "md", "--group", "2:", "ior", "-w", "-F", "-t", "4k", "-b",
                      "16k", "-o", deep / ("f" * 200)], np=3, check=False)
    assert proc.returncode != 0
    lines = error_lines(proc.stderr)
    cause = r"sonde ior: group 2: rank [12]: error: test file name too long: "
    assert any(re.match(cause, ln) for ln in lines), proc.stderr[-3000:]
    # another rank may say it was stopped with the launch; no line blames anything else
    assert all(re.match(cause, ln) or "launcher stopped the run" in ln for ln in lines), lines
    records = read_jsonl(results)  # every line whole (read_jsonl parses each)
    # group 2's end record comes from its rank 0 when that rank is the one failing; when the
    # other one fails, MPI_Abort may end rank 0 before it writes (under MPICH it often does)
    ends = [r for r in records if r["type"] == "end" and r.get("group") == 2]
    assert len(ends) <= 1, ends
    for end in ends:
        assert end["reason"] == "io-error" and end["rank"] in (1, 2), end
    # the mix's header came first; world rank 0 (group 1) ends the mix's run when the launcher
    # stops it (MPICH's Hydra kills it outright: no end record), and never calls it a success
    assert (records[0]["type"], records[0]["workload"]) == ("header", "mix"), records[0]
    mix_ends = [r for r in records if r["type"] == "end" and r["workload"] == "mix"]
    assert len(mix_ends) <= 1 and all(e["reason"] in ("peer-failed", "signal")
                                      for e in mix_ends), mix_ends


@slowed
def test_mib_and_find_phases_are_on_the_mix_clock(tmp_path):
    """mib's phase spans its earliest start to its latest end and find's its walk: each
    measurement's end - start is its own seconds, after the mix's zero, mib's read after its
    write."""
    (tmp_path / "mib").mkdir()
    tree = tmp_path / "tree"
    for i in range(20):
        (tree / f"d{i}").mkdir(parents=True)
        for k in range(50):
            (tree / f"d{i}" / f"f{k}").touch()
    results = tmp_path / "r.jsonl"
    run_sonde(["mix", "--json", results, "--group", "1:", "mib", "-F", "-t", tmp_path / "mib",
               "-l", 20, "-s", "4k", "--group", "2:", "find", tree, "-name", "*7"], np=3,
              env={"LD_PRELOAD": str(SHIM), "SONDE_FAULT_DIR": str(tmp_path / "mib"),
                   **DELAY})
    measured = [r for r in read_jsonl(results) if r["type"] == "measurement"]
    assert sorted((r["workload"], r["phase"]) for r in measured) == \
        [("find", "find"), ("mib", "read"), ("mib", "write")]
    for r in measured:
        assert r["start"] >= 0 and r["end"] - r["start"] == pytest.approx(r["seconds"],
                                                                         abs=1e-6), r
    (write,) = [r for r in measured if r["phase"] == "write"]
    (read,) = [r for r in measured if r["phase"] == "read"]
    assert write["end"] <= read["start"]


@slowed
def test_groups_append_whole_lines_to_one_file_when_writes_fall_short(tmp_path):
    """Two groups' leaders append to one --json file whose every write moves half its bytes
    (slowly) and which fills up at FULL bytes: each line is written whole under the file's
    lock, so no line holds pieces of two; a line that no longer fits is cut back, never a line
    the other group wrote; each group names the full file."""
    res = tmp_path / "res"
    res.mkdir()
    results = res / "r.jsonl"
    # the mix's header (first), both groups' headers and either group's write records fit, not
    # the rest: a second between write and read (-d 1), so that a group that starts late still
    # writes its header before the other's read
    full = 10500
    ior = ["ior", "-w", "-r", "-d", 1, "-t", "4k", "-b", "16k"]
    proc = run_sonde(["mix", "--json", results, "--interval", "0.01",
                      "--group", "1:", *ior, "-o", tmp_path / "a",
                      "--group", "1:", *ior, "-o", tmp_path / "b"], np=2, check=False,
                     env={"LD_PRELOAD": str(SHIM), "SONDE_FAULT_DIR": str(res),
                          "SONDE_FAULT_SHORT": "write", "SONDE_FAULT_DELAY_US": "1000",
                          "SONDE_FAULT_FULL": str(full)})
    text = results.read_text()
    assert 0 < len(text) <= full and text.endswith("\n")
    records = read_jsonl(results)  # every line one whole record
    # the mix's own header (no group: written first, before the file filled up), each group's
    assert [r.get("group") for r in records if r["type"] == "header"][0] is None
    assert {r.get("group") for r in records if r["type"] == "header"} == {None, 1, 2}, records
    for k in (1, 2):
        lines = [ln for ln in error_lines(proc.stderr) if ln.startswith(f"sonde ior: group {k}: ")]
        assert lines == [f"sonde ior: group {k}: error: results file {results}: No space left "
                         "on device; its records from here on are lost"], proc.stderr
    assert proc.returncode == 1


def test_a_mix_stopped_between_its_groups_runs_says_it_ended_early(tmp_path):
    """SIGTERM to the launcher once group 1 (world rank 0's: a short ior write) has ended while
    group 2 (coll, long) still runs: world rank 0, waiting for the others, ends the mix's own
    run with an end record of reason signal, after the mix's header (the file's first record)
    and without overlaps; group 1 keeps its ok end, group 2 ends by the signal; nothing is
    written afterwards; the report shows an incomplete mix with each group's ending."""
    results = tmp_path / "r.jsonl"
    argv = ["mix", "--json", results, "--group", "1:", "ior", "-w", "-t", "4k", "-b", "16k",
            "-o", tmp_path / "f", "--group", "2:", "coll", "-b", 8, "-e", "1m", "-i", 3000,
            "Allreduce", "Bcast"]
    proc = subprocess.Popen(launch_command(3, argv), env=mpi_env(SIGNAL_GRACE),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    # group 1 ended, group 2 under way (its header written: its stop handler is in place)
    waits = ('"workload":"ior","group":1,"exit_code":0', '"workload":"coll","group":2,"sch')
    ranks, err = stop_launch(proc, signal.SIGTERM, lambda: results.exists() and all(
        w in results.read_text() for w in waits))
    assert proc.returncode != 0 or not OPEN_MPI
    text = results.read_text()
    wait_gone(ranks, 30)
    assert results.read_text() == text  # nothing after the end records
    records = read_jsonl(results)
    assert (records[0]["type"], records[0]["workload"]) == ("header", "mix"), records[0]
    runs = _runs(records)
    mix = runs[records[0]["run_id"]]
    assert [r["type"] for r in mix] == ["header", "end"], \
        ([(r["type"], r.get("group"), r.get("reason")) for r in records], err)
    end = mix[-1]
    assert (end["reason"], end["signal"], end["exit_code"], end["measurements"]) == \
        ("signal", "SIGTERM", 4, 0), end
    groups = {run[0]["group"]: run for rid, run in runs.items() if rid != end["run_id"]}
    assert groups[1][-1]["reason"] == "ok" and groups[2][-1]["reason"] == "signal"
    assert "sonde mix: stopped by SIGTERM; the records written so far are kept" in err, err
    (section,) = [s for s in report.build([str(results)], load_runs(results)).sections
                  if s.id == "mix"]
    (table,) = section.tables
    assert table.id.startswith("mix-incomplete") and \
        "The mix ended early: stopped by SIGTERM" in table.note, table.note
    assert [(row[0].text, row[4].text) for row in table.rows] == \
        [("group 1", "ok"), ("group 2", "signal")]
