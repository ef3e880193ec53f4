# SPDX-License-Identifier: BSD-3-Clause
"""The rules, the IOR table and the score, judged on records the binary wrote: small runs made
in the test session (golden.py) and the 65-node JUPITER easy run kept as a fixture."""

import textwrap
from dataclasses import replace

import pytest
from golden import IOR_WAITING, JUPITER_65, JUPITER_65_OUTPUT, SONDE

from sonde import results
from sonde.campaign import rules, suitefile
from sonde.campaign.defaults import binary_defaults
from sonde.results import names, units

SEED = rules.settings_of()
KIB = 1 << 10

# IOR runs of one rank: 64 KiB blocks x 2 segments x 1 task per node = 128 KiB per node.
SMALL = ["-a", "POSIX", "-C", "-Q", "1", "-g", "-i", "2", "-w", "-r", "-W", "-R", "-F",
         "-t", "16k", "-b", "64k", "-s", "2", "-o", "{dir}/small"]


def run_of(path):
    [run] = results.load(path)
    return run


@pytest.fixture(scope="module")
def small(golden):
    return run_of(golden.run("ior", *SMALL))


@pytest.fixture(scope="module")
def big():
    return run_of(JUPITER_65)


def launch(tmp_path, rules_=("exit_ok",), fixed="", workload="ior", free="", variant=None):
    """The first launch of a one-step suite with these rules, [step.fixed] and [step.free]
    lines."""
    p = tmp_path / "s.toml"
    p.write_text(textwrap.dedent(f"""
        [[step]]
        name = "s"
        workload = "{workload}"
        args = []
        rules = {list(rules_)!r}
        """).replace("'", '"') + (f'variant = "{variant}"\n' if variant else "")
        + "[step.free]\n" + textwrap.dedent(free) + "[step.fixed]\n" + textwrap.dedent(fixed))
    return suitefile.load(p).launches[0]


def defaults():
    """The binary's defaults of the ior parameters, as sonde-suite reads them."""
    return {"ior": binary_defaults(SONDE, "ior")}


def evaluate(ln, run, settings=None):
    return rules.evaluate(ln, run, settings or SEED, defaults=defaults())


def verdict(ln, run, settings=None):
    return evaluate(ln, run, settings)[0][-1]


def with_measurements(run, change):
    """The run with each measurement record replaced by change(copy of it)."""
    ms = []
    for m in run.measurements:
        m = dict(m, extra=dict(m[names.Measurement.EXTRA]))
        change(m)
        ms.append(m)
    return replace(run, measurements=ms)


def test_min_runtime_is_the_time_in_io_phases(tmp_path, small, big):
    ln = launch(tmp_path, ["min_runtime"])
    io = sum(m[names.Measurement.SECONDS] for m in small.measurements)
    v = verdict(ln, small)
    assert v.verdict == rules.FAIL
    assert v.reason == (f"{io:.3f} s in {len(small.measurements)} I/O phases, "
                        f"{small.end[names.End.ELAPSED_SECONDS]:.1f} s wall time (rule: at least "
                        "60 s in I/O phases)")
    # exactly the threshold passes, a hair above it fails
    assert verdict(ln, small, rules.settings_of({"min_runtime": io})).verdict == rules.PASS
    assert verdict(ln, small, rules.settings_of({"min_runtime": io * 1.01})).verdict == \
        rules.FAIL
    # the 65-node run spent part of its wall time starting its processes: the verdict follows
    # its phases' time alone, so a threshold between the two fails it
    big_io = sum(m[names.Measurement.SECONDS] for m in big.measurements)
    wall = big.end[names.End.ELAPSED_SECONDS]
    assert wall > big_io
    assert verdict(ln, big).verdict == (rules.PASS if big_io >= 60 else rules.FAIL)
    between = rules.settings_of({"min_runtime": (big_io + wall) / 2})
    assert verdict(ln, big, between).verdict == rules.FAIL


def test_min_runtime_boundary_on_a_constructed_record(tmp_path, small):
    """Phases that add up to the seed's minute exactly pass; a microsecond less fails."""
    ln = launch(tmp_path, ["min_runtime"])
    n = len(small.measurements)

    def minute(m):
        m[names.Measurement.SECONDS] = 60 / n

    exact = with_measurements(small, minute)
    assert sum(m[names.Measurement.SECONDS] for m in exact.measurements) == pytest.approx(60)
    exact.measurements[-1][names.Measurement.SECONDS] = 60 - sum(
        m[names.Measurement.SECONDS] for m in exact.measurements[:-1])
    assert sum(m[names.Measurement.SECONDS] for m in exact.measurements) == 60
    assert verdict(ln, exact).verdict == rules.PASS
    exact.measurements[-1][names.Measurement.SECONDS] -= 1e-6
    assert verdict(ln, exact).verdict == rules.FAIL


def test_dataset_per_node_is_what_every_node_moved(tmp_path, small):
    ln = launch(tmp_path, ["dataset_per_node"])
    v = verdict(ln, small)
    host = small.header[names.Header.HOSTNAMES][0]
    assert v.verdict == rules.FAIL
    assert v.reason == (f"128.00 KiB per node: the least a node moved in a phase ({host}, write "
                        f"iteration 0; {len(small.measurements)} phases); the parameters ask "
                        "for 128.00 KiB = blockSize 65536 x segmentCount 2 x 1 tasks per node "
                        "(rule: at least 128.00 GiB per node in every phase)")
    exact = rules.settings_of({"dataset_per_node": "128KiB"})
    v = verdict(ln, small, exact)
    # passing the threshold is enough: the memory of this host is advice, never a raise
    assert v.verdict == rules.PASS and "memory of the host" in v.advice
    assert rules.node_memory_bytes() > 128 * KIB
    over = rules.settings_of({"dataset_per_node": 128 * KIB + 1})
    assert verdict(ln, small, over).verdict == rules.FAIL


def test_dataset_per_node_counts_the_phase_that_moved_least(tmp_path, small):
    """A phase cut short (a stonewall) is the data set the run had, whatever the parameters
    promised: the last read moved 8 KiB less on its node."""
    ln = launch(tmp_path, ["dataset_per_node"])
    last = small.measurements[-1]

    def short(m):
        if m is not None and m[names.Measurement.ITERATION] == last[names.Measurement.ITERATION] \
                and m[names.Measurement.PHASE] == last[names.Measurement.PHASE]:
            m[names.Measurement.EXTRA][names.IORExtra.NODE_BYTES] = [120 * KIB]

    cut = with_measurements(small, short)
    v = verdict(ln, cut, rules.settings_of({"dataset_per_node": "128KiB"}))
    assert v.verdict == rules.FAIL
    assert v.reason.startswith(f"120.00 KiB per node: the least a node moved in a phase "
                               f"({small.header[names.Header.HOSTNAMES][0]}, "
                               f"{last[names.Measurement.PHASE]} iteration "
                               f"{last[names.Measurement.ITERATION]};")
    assert "the parameters ask for 128.00 KiB" in v.reason


def test_uneven_placement_fails(tmp_path, small):
    """Ranks per node from the header: 2 on one node and 1 on the other is no tasks per
    node, whatever node 0's count says."""
    ln = launch(tmp_path, ["ior_q_equals_tpn", "even_placement"])
    uneven = replace(small, header=dict(small.header, **{
        names.Header.TASKS_ON_NODE: [2, 1], names.Header.HOSTNAMES: ["nodeA", "nodeB"],
        names.Header.TASKS_PER_NODE: 2, names.Header.NODES: 2}))
    vs, status = evaluate(ln, uneven)
    by = {v.rule: v for v in vs}
    assert by["even_placement"].verdict == rules.FAIL
    assert by["even_placement"].reason.startswith("ranks per node differ: nodeA 2, nodeB 1 ")
    assert by["ior_q_equals_tpn"].verdict == rules.FAIL
    assert status == rules.NOT_COMPLIANT
    v = verdict(launch(tmp_path, ["even_placement"]), small)
    assert v.verdict == rules.PASS and v.reason == "1 nodes of 1 ranks each"


def test_q_equals_tasks_per_node(tmp_path, golden, small, big):
    ln = launch(tmp_path, ["ior_q_equals_tpn"])
    assert small.header[names.Header.TASKS_PER_NODE] == 1
    v = verdict(ln, small)
    assert v.verdict == rules.PASS and v.reason.startswith("-Q 1, tasks per node 1")
    q2 = run_of(golden.run("ior", *[("2" if a == "1" and SMALL[i - 1] == "-Q" else a)
                                    for i, a in enumerate(SMALL)]))
    assert q2.header["params"][names.IOR.TASK_PER_NODE_OFFSET] == 2
    assert verdict(ln, q2).verdict == rules.FAIL
    assert verdict(ln, big).verdict == rules.PASS


def test_read_shift_is_a_warning(tmp_path, golden, small, big):
    ln = launch(tmp_path, ["ior_read_shift"])
    # one node: every read comes from the node that wrote it
    v = verdict(ln, small)
    assert v.verdict == rules.WARNING and v.ok
    assert v.reason.startswith("-C shifts reads by 0 ranks; 1 of 1 ranks read data their own")
    vs, status = evaluate(ln, small)
    # a warning does not fail the run (which exit_ok alone of the seed's rules judged)
    assert status == rules.judged_by(1)
    # 65 nodes of one task, -Q 1: every rank reads the next node's data
    v = verdict(ln, big)
    assert v.verdict == rules.PASS
    assert v.reason == ("-C shifts reads by 1 ranks; 0 of 65 ranks read data their own node "
                        "wrote")
    no_c = run_of(golden.run("ior", *[a for a in SMALL if a != "-C"]))
    assert verdict(ln, no_c).verdict == rules.WARNING


def test_verified(tmp_path, golden, small):
    ln = launch(tmp_path, ["verified"])
    v = verdict(ln, small)
    assert v.verdict == rules.PASS and v.reason == "2 phases verified, 0 errors"
    unchecked = run_of(golden.run("ior", *[a for a in SMALL if a not in ("-W", "-R")]))
    assert verdict(ln, unchecked).verdict == rules.FAIL


# Every parameter SMALL changes from sonde ior's defaults, by its record name.
SMALL_FIXED = """
    api = "POSIX"
    transferSize = "16k"
    blockSize = "64k"
    segmentCount = 2
    filePerProc = true
    repetitions = 2
    reorderTasks = true
    intraTestBarriers = true
    writeFile = true
    readFile = true
    checkWrite = true
    checkRead = true
    """


def test_fixed_parameters(tmp_path, small):
    ln = launch(tmp_path, ["fixed_parameters"], SMALL_FIXED)
    v = verdict(ln, small)
    others = len(defaults()["ior"]) - 12 - len(rules.SEED_FREE)
    assert v.verdict == rules.PASS
    assert v.reason == f"12 fixed parameters as required, {others} others at their defaults"
    ln = launch(tmp_path, ["fixed_parameters"], SMALL_FIXED.replace('"16k"', '"32k"'))
    v = verdict(ln, small)
    assert v.verdict == rules.FAIL and v.reason == "changed: transferSize 16384 (fixed: 32768)"
    ln = launch(tmp_path, ["fixed_parameters"],
                SMALL_FIXED.replace("intraTestBarriers = true", "intraTestBarriers = false"))
    assert verdict(ln, small).reason == "changed: intraTestBarriers True (fixed: False)"


def test_parameters_outside_the_table_must_be_at_their_defaults(tmp_path, small):
    """A parameter no [step.fixed] names is still judged: against the binary's default."""
    fixed = "\n".join(line for line in SMALL_FIXED.splitlines()
                      if not line.strip().startswith(("checkRead", "blockSize")))
    ln = launch(tmp_path, ["fixed_parameters"], fixed)
    v = verdict(ln, small)
    assert v.verdict == rules.FAIL
    assert v.reason == ("changed: blockSize 65536 (default: 1048576), checkRead True (default: "
                        "False)")
    # the suite may free one, with a reason the verdict prints
    ln = launch(tmp_path, ["fixed_parameters"], fixed,
                free='checkRead = "the reads verify the data"\nblockSize = "sized for the '
                     'node"\n')
    v = verdict(ln, small)
    assert v.verdict == rules.PASS
    assert v.reason.endswith("; free by the suite: checkRead (the reads verify the data); "
                             "free by the suite: blockSize (sized for the node)")
    # the defaults are the binary's: a run with no option changes none of them
    assert defaults()["ior"][names.IOR.BLOCK_SIZE] == 1 << 20


def test_fixed_parameters_without_the_binarys_defaults_is_an_error(tmp_path, small):
    ln = launch(tmp_path, ["fixed_parameters"], SMALL_FIXED)
    vs, status = rules.evaluate(ln, small, SEED)
    assert vs[-1].verdict == rules.ERROR
    assert vs[-1].reason == ("cannot be evaluated: the defaults of the binary's ior parameters "
                             "is missing")
    assert status == rules.NOT_COMPLIANT
    # a binary that cannot say: the rule names why
    with pytest.raises(ValueError, match="No such file or directory") as caught:
        binary_defaults(str(tmp_path / "no-sonde"), "ior")
    vs, _ = rules.evaluate(ln, small, SEED, defaults={"ior": caught.value})
    assert vs[-1].reason == (f"cannot be evaluated: the defaults of the binary's ior parameters "
                             f"({caught.value}) is missing")
    assert str(tmp_path / "no-sonde") in str(caught.value)


def test_fixed_unless_another_rule_fails(tmp_path, small):
    """The seed's hard variant: segmentCount 524288 unless that misses the data-set rule."""
    ln = launch(tmp_path, ["dataset_per_node", "fixed_parameters"], SMALL_FIXED.replace(
        "segmentCount = 2", 'segmentCount = { value = 524288, unless = "dataset_per_node" }'))
    # 64 KiB x 524288 x 1 task = 32 GiB < 128 GiB: the count may change
    vs, _ = evaluate(ln, small)
    assert vs[-1].verdict == rules.PASS
    # when 524288 segments would meet the rule, changing the count is not allowed
    vs, _ = evaluate(ln, small, rules.settings_of({"dataset_per_node": "1KiB"}))
    assert vs[-1].verdict == rules.FAIL
    assert vs[-1].reason == "changed: segmentCount 2 (fixed: 524288)"


def test_a_rule_that_cannot_be_evaluated_is_an_error_naming_the_member(tmp_path, golden):
    killed = run_of(golden.killed("ior", *IOR_WAITING))
    assert killed.end is None and killed.header is not None
    ln = launch(tmp_path, ["min_runtime", "dataset_per_node"])
    vs, status = rules.evaluate(ln, killed, SEED)
    assert status == rules.NOT_COMPLIANT
    assert vs[0].verdict == rules.ERROR  # exit_ok
    assert vs[1].verdict == rules.ERROR
    assert vs[1].reason == ("cannot be evaluated: the end record (the run did not finish) is "
                            "missing")
    # a mib run has no IOR parameters to judge
    mib = run_of(golden.run("mib", "-F", "-t", "{dir}", "-l", "4", "-s", "4k"))
    v = verdict(ln, mib)
    assert v.verdict == rules.ERROR and not v.ok
    assert v.reason == ("cannot be evaluated: params.blockSize in the header record is "
                        "missing")
    vs, status = rules.evaluate(ln, None, SEED)
    assert {v.verdict for v in vs} == {rules.ERROR} and status == rules.NOT_COMPLIANT


SEED_EASY = """
    api = "POSIX"
    repetitions = 3
    intraTestBarriers = true
    reorderTasks = true
    writeFile = true
    readFile = true
    verbose = 1
    filePerProc = true
    transferSize = "16m"
    segmentCount = 1
    """


def seed_easy_run(small):
    """A constructed record that meets every seed rule: the small run's records with the seed's
    easy parameters (128 GiB blocks, one task per node), 128 GiB moved in each phase and the
    phases adding up to a minute."""
    params = dict(defaults()["ior"], **rules.SEED_FIXED["easy"],
                  **{names.IOR.BLOCK_SIZE: 128 << 30, names.IOR.TEST_FILE: "/scratch/f"})
    run = with_measurements(small, lambda m: m.update(
        {names.Measurement.SECONDS: 60 / len(small.measurements),
         names.Measurement.EXTRA: dict(m[names.Measurement.EXTRA],
                                       **{names.IORExtra.NODE_BYTES: [128 << 30]})}))
    run.measurements[-1][names.Measurement.SECONDS] += 1e-9  # no rounding below the minute
    return replace(run, header=dict(small.header, params=params))


def test_status_needs_every_seed_rule_at_the_seeds_strength(tmp_path, small):
    run = seed_easy_run(small)
    every = list(rules.SEED_RULES)
    ln = launch(tmp_path, every, SEED_EASY, variant="easy")
    vs, status = evaluate(ln, run)
    assert all(v.verdict == rules.PASS for v in vs), vs
    assert status == rules.COMPLIANT
    assert evaluate(ln, run)[1] == rules.COMPLIANT
    assert rules.evaluate(ln, run, SEED, reduced_scale=True,
                          defaults=defaults())[1] == rules.REDUCED_SCALE
    # thresholds easier than the seed's: the run passes them, and is judged by fewer
    easier = rules.settings_of({"min_runtime": "1s", "dataset_per_node": "1GiB"})
    assert evaluate(ln, run, easier)[1] == rules.judged_by(4) == "judged by 4 of 6 seed rules"
    # a seed rule the step does not list
    fewer = launch(tmp_path, [r for r in every if r != "even_placement"], SEED_EASY,
                   variant="easy")
    assert evaluate(fewer, run)[1] == rules.judged_by(5)
    # fixed_parameters alone passes, and judges by 2 of the 6 (exit_ok and itself)
    alone = launch(tmp_path, ["fixed_parameters"], SEED_EASY, variant="easy")
    assert evaluate(alone, run)[1] == rules.judged_by(2)
    # a parameter the suite frees beyond the seed's: fixed_parameters is the suite's, not the
    # seed's
    freer = launch(tmp_path, every, SEED_EASY, variant="easy",
                   free='interTestDelay = "settle"\n')
    assert evaluate(freer, run)[1] == rules.judged_by(5)
    # a table other than the seed's
    other = launch(tmp_path, every, SEED_EASY.replace("verbose = 1", "verbose = 0"),
                   variant="easy")
    assert evaluate(other, replace(run, header=dict(run.header, params=dict(
        run.header["params"], verbose=0))))[1] == rules.judged_by(5)
    # no variant of the seed's: the block size is free in the easy variant only
    vs, status = evaluate(launch(tmp_path, every, SEED_EASY), run)
    assert vs[-1].reason == "changed: blockSize 137438953472 (default: 1048576)"
    assert status == rules.NOT_COMPLIANT
    # a failed rule is a failed run, whichever rules judged it
    assert evaluate(ln, small)[1] == rules.NOT_COMPLIANT
    assert evaluate(launch(tmp_path, ["min_runtime"]), small)[1] == rules.NOT_COMPLIANT


def summary_means(text):
    """Mean(MiB) of write and read in IOR's "Summary of all tests" table."""
    lines = text[text.index("Summary of all tests:"):].splitlines()
    cols = lines[1].split()
    return {ln.split()[0]: float(ln.split()[cols.index("Mean(MiB)")])
            for ln in lines[2:] if ln.split() and ln.split()[0] in ("write", "read")}


def test_ior_row_is_iors_summary(big):
    row = rules.ior_row(big)
    means = summary_means(JUPITER_65_OUTPUT.read_text())
    assert row["api"] == "POSIX"
    assert row["WRbwmean"] == pytest.approx(means["write"], abs=0.006)
    assert row["RDbwmean"] == pytest.approx(means["read"], abs=0.006)
    reads = [m["bandwidth_mib_s"] for m in big.measurements if m["phase"] == "read"]
    assert row["RDbwmax"] == pytest.approx(max(reads))
    assert row["RDbwmin"] == pytest.approx(min(reads))
    assert row["RDbwmean"] == pytest.approx(sum(reads) / len(reads))


def row(run, **labels):
    return dict(rules.ior_row(run), nodes=run.header[names.Header.NODES], **labels)


def test_score_is_the_best_easy_posix_run_on_more_than_64_nodes(small, big):
    assert big.header[names.Header.NODES] == 65
    scored = row(big, variant="easy", status=rules.COMPLIANT, launch="big")
    one_node = row(small, variant="easy", status=rules.COMPLIANT, launch="small")
    # a faster run on fewer nodes is listed, not scored
    one_node["RDbwmean"] = one_node["WRbwmean"] = 1e9
    hard = dict(scored, variant="hard", launch="hard", RDbwmean=1e9)
    s = rules.score([one_node, scored, hard])
    assert s.row is scored and s.value == scored["RDbwmean"] + scored["WRbwmean"]
    assert s.qualitative == [one_node]
    assert rules.score([one_node]).value is None
    assert rules.score([one_node]).why_none == "no easy POSIX run on more than 64 nodes"
    bad = dict(scored, status=rules.NOT_COMPLIANT)
    assert rules.score([bad]).why_none == ("no compliant easy POSIX run on more than 64 "
                                           "nodes")
    reduced = dict(scored, status=rules.REDUCED_SCALE)
    assert rules.score([reduced]).value is None
    # every rule it was judged by passed, but not all of the seed's: not scored
    fewer = dict(scored, status=rules.judged_by(5))
    assert rules.score([fewer]).value is None
    mpiio = dict(scored, api="MPIIO")
    assert rules.score([mpiio]).why_none == "no easy run using POSIX"


@pytest.mark.parametrize("text,seconds", [("60s", 60), ("30m", 1800), ("4h", 14400),
                                          ("1h30m", 5400), (90, 90), (1.5, 1.5), ("2.5m", 150)])
def test_durations(text, seconds):
    assert units.parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["1x", "", "h", "-5", True, -1, "1h 2x"])
def test_bad_durations(text):
    with pytest.raises(ValueError):
        units.parse_duration(text)


@pytest.mark.parametrize("text,size", [("128GiB", 128 << 30), ("16m", 16 << 20), ("4k", 4096),
                                       (4096, 4096), ("1.5k", 1536), ("2TB", 2 << 40)])
def test_sizes(text, size):
    assert units.parse_size(text) == size


def test_settings_and_loosened():
    assert SEED == {"min_runtime": 60.0, "dataset_per_node": 128 << 30}
    s = rules.settings_of({"min_runtime": "1s"})
    assert rules.loosened(s) == ["min_runtime 1 s (the seed: 60 s)"]
    with pytest.raises(ValueError, match="unknown setting 'colour'"):
        rules.settings_of({"colour": 1})
    with pytest.raises(ValueError, match="setting dataset_per_node: "):
        rules.settings_of({"dataset_per_node": "lots"})


def test_a_launch_without_records_is_said_once(tmp_path):
    """Not "(results.jsonl is missing or empty) is missing"."""
    ln = launch(tmp_path, ["min_runtime"], "")
    vs, _ = rules.evaluate(ln, None, SEED)
    assert vs[0].reason == ("cannot be evaluated: the launch wrote no records (its results.jsonl "
                            "is missing or empty)")
