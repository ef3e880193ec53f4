# SPDX-License-Identifier: BSD-3-Clause
"""The rules, the IOR table and the score, judged on records the binary wrote: small runs made
in the test session (golden.py) and the 65-node JUPITER easy run kept as a fixture."""

import re
import textwrap

import pytest
from golden import IOR_WAITING, JUPITER_65, JUPITER_65_OUTPUT

from sonde import names, results, rules, suitefile

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


def launch(tmp_path, rules_=("exit_ok",), fixed="", workload="ior"):
    """The first launch of a one-step suite with these rules and [step.fixed] lines."""
    p = tmp_path / "s.toml"
    p.write_text(textwrap.dedent(f"""
        [[step]]
        name = "s"
        workload = "{workload}"
        args = []
        rules = {list(rules_)!r}
        [step.fixed]
        """).replace("'", '"') + textwrap.dedent(fixed))
    return suitefile.load(p).launches[0]


def verdict(ln, run, settings=None):
    vs, _ = rules.evaluate(ln, run, settings or SEED)
    return vs[-1]


def test_min_runtime(tmp_path, small, big):
    ln = launch(tmp_path, ["min_runtime"])
    v = verdict(ln, small)
    assert v.verdict == rules.FAIL
    assert re.fullmatch(r"ran \d+\.\d s \(rule: at least 60 s\)", v.reason)
    assert verdict(ln, small, rules.settings_of({"min_runtime": 0})).verdict == rules.PASS
    elapsed = small.end[names.End.ELAPSED_SECONDS]
    just_over = rules.settings_of({"min_runtime": elapsed * 1.01})
    assert verdict(ln, small, just_over).verdict == rules.FAIL
    # the 65-node run lasted minutes: it meets the seed's minute
    assert big.end[names.End.ELAPSED_SECONDS] >= 60
    assert verdict(ln, big).verdict == rules.PASS


def test_dataset_per_node_is_the_seeds_minimum_and_says_the_memory_apart(tmp_path, small):
    ln = launch(tmp_path, ["dataset_per_node"])
    v = verdict(ln, small)
    assert v.verdict == rules.FAIL
    assert v.reason == ("128.00 KiB per node = blockSize 65536 x segmentCount 2 x 1 tasks per "
                        "node (rule: at least 128.00 GiB)")
    exact = rules.settings_of({"dataset_per_node": "128KiB"})
    v = verdict(ln, small, exact)
    # passing the threshold is enough: the memory of this host is advice, never a raise
    assert v.verdict == rules.PASS and "memory of the host" in v.advice
    assert rules.node_memory_bytes() > 128 * KIB
    over = rules.settings_of({"dataset_per_node": 128 * KIB + 1})
    assert verdict(ln, small, over).verdict == rules.FAIL


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
    vs, status = rules.evaluate(ln, small, SEED)
    assert status == rules.COMPLIANT  # a warning does not fail the run
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


def test_fixed_parameters(tmp_path, small):
    fixed = """
        api = "POSIX"
        transferSize = "16k"
        filePerProc = true
        repetitions = 2
        """
    ln = launch(tmp_path, ["fixed_parameters"], fixed)
    v = verdict(ln, small)
    assert v.verdict == rules.PASS and v.reason == "4 fixed parameters as required"
    ln = launch(tmp_path, ["fixed_parameters"], fixed.replace('"16k"', '"32k"'))
    v = verdict(ln, small)
    assert v.verdict == rules.FAIL and v.reason == "changed: transferSize 16384 (fixed: 32768)"
    ln = launch(tmp_path, ["fixed_parameters"], "intraTestBarriers = false\n")
    assert verdict(ln, small).reason == "changed: intraTestBarriers True (fixed: False)"


def test_fixed_unless_another_rule_fails(tmp_path, small):
    """The seed's hard variant: segmentCount 524288 unless that misses the data-set rule."""
    ln = launch(tmp_path, ["dataset_per_node", "fixed_parameters"],
                'segmentCount = { value = 524288, unless = "dataset_per_node" }\n')
    # 64 KiB x 524288 x 1 task = 32 GiB < 128 GiB: the count may change
    vs, _ = rules.evaluate(ln, small, SEED)
    assert vs[-1].verdict == rules.PASS
    # when 524288 segments would meet the rule, changing the count is not allowed
    vs, _ = rules.evaluate(ln, small, rules.settings_of({"dataset_per_node": "1KiB"}))
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


def test_status(tmp_path, small):
    ln = launch(tmp_path, ["verified", "ior_q_equals_tpn", "ior_read_shift"])
    assert rules.evaluate(ln, small, SEED)[1] == rules.COMPLIANT
    assert rules.evaluate(ln, small, SEED, reduced_scale=True)[1] == rules.REDUCED_SCALE
    ln = launch(tmp_path, ["min_runtime"])
    assert rules.evaluate(ln, small, SEED)[1] == rules.NOT_COMPLIANT


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
    mpiio = dict(scored, api="MPIIO")
    assert rules.score([mpiio]).why_none == "no easy run using POSIX"


@pytest.mark.parametrize("text,seconds", [("60s", 60), ("30m", 1800), ("4h", 14400),
                                          ("1h30m", 5400), (90, 90), (1.5, 1.5), ("2.5m", 150)])
def test_durations(text, seconds):
    assert rules.parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["1x", "", "h", "-5", True, -1, "1h 2x"])
def test_bad_durations(text):
    with pytest.raises(ValueError):
        rules.parse_duration(text)


@pytest.mark.parametrize("text,size", [("128GiB", 128 << 30), ("16m", 16 << 20), ("4k", 4096),
                                       (4096, 4096), ("1.5k", 1536), ("2TB", 2 << 40)])
def test_sizes(text, size):
    assert rules.parse_size(text) == size


def test_settings_and_loosened():
    assert SEED == {"min_runtime": 60.0, "dataset_per_node": 128 << 30}
    s = rules.settings_of({"min_runtime": "1s"})
    assert rules.loosened(s) == ["min_runtime 1 s (the seed: 60 s)"]
    with pytest.raises(ValueError, match="unknown setting 'colour'"):
        rules.settings_of({"colour": 1})
    with pytest.raises(ValueError, match="setting dataset_per_node: "):
        rules.settings_of({"dataset_per_node": "lots"})
