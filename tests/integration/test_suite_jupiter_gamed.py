# SPDX-License-Identifier: BSD-3-Clause
"""JUPITER runs gamed against the seed's rules, built from real launches on two "nodes" (UTS
namespaces, tests/uts-agent.sh), each judged by the rules as sonde-suite judges it: a stonewall
that leaves the data set short, delays that pass the minimum run time on wall time alone,
options outside the seed's tables, a rule set smaller than the seed's, an uneven placement.
The oracles are the files the runs kept (their sizes, per node), the wall time measured around
the launch, and the host list given to the launcher."""

import os
import textwrap
import time

from conftest import MULTI_NODE, SONDE, run_sonde
from sonde import results
from sonde.campaign import rules, suitefile
from sonde.campaign.defaults import binary_defaults
from sonde.results import names

pytestmark = MULTI_NODE

MIB = 1 << 20


def launch_of(tmp_path, rules_, fixed="", variant="easy"):
    """The launch of a one-step suite with these rules and [step.fixed] lines."""
    p = tmp_path / "s.toml"
    p.write_text(textwrap.dedent(f"""
        [[step]]
        name = "s"
        workload = "ior"
        variant = "{variant}"
        args = []
        rules = {list(rules_)!r}
        [step.fixed]
        """).replace("'", '"') + textwrap.dedent(fixed))
    return suitefile.load(p).launches[0]


def judged(ln, run, **settings):
    vs, status = rules.evaluate(ln, run, rules.settings_of(settings),
                                defaults={"ior": binary_defaults(SONDE, "ior")})
    return {v.rule: v for v in vs}, status


def ior(tmp_path, hosts, ranks, *args):
    out = tmp_path / "r.jsonl"
    started = time.monotonic()
    run_sonde(["ior", *args, "-o", tmp_path / "f", "--json", out], np=ranks, hosts=hosts,
              timeout=300)
    wall = time.monotonic() - started
    [run] = results.load(out)
    return run, wall


def kept_bytes_per_node(tmp_path, run):
    """What the write phase left on disk (-F -k: a file per rank), summed per node of the
    launcher's placement: the header's node of each rank, named by the host list."""
    per_node = [0] * run.header[names.Header.NODES]
    for rank, node in enumerate(run.header[names.Header.NODE_OF_RANK]):
        per_node[node] += os.stat(tmp_path / f"f.{rank:08d}").st_size
    return per_node


def test_stonewalled_run_is_judged_on_what_each_node_moved(tmp_path):
    """-D 1 cuts the phases short: the parameters promise 8 GiB per node, the nodes moved
    less; dataset_per_node fails on what they moved and fixed_parameters on -D."""
    run, _ = ior(tmp_path, "nodeA:2,nodeB:2", 4, "-a", "POSIX", "-C", "-Q", "2", "-g", "-i",
                 "1", "-w", "-r", "-v", "-F", "-t", "1m", "-b", "4g", "-s", "1", "-D", "1",
                 "-k")
    assert run.header[names.Header.HOSTNAMES] == ["nodeA", "nodeB"]
    writes = [m for m in run.measurements if m[names.Measurement.PHASE] == "write"]
    moved = writes[0][names.Measurement.EXTRA][names.IORExtra.NODE_BYTES]
    # the oracle: the sizes of the files each node's ranks wrote
    assert moved == kept_bytes_per_node(tmp_path, run)
    least = min(b for m in run.measurements
                for b in m[names.Measurement.EXTRA][names.IORExtra.NODE_BYTES])
    assert least < 8 << 30, "the stonewall did not cut the run short on this machine"
    ln = launch_of(tmp_path, ["dataset_per_node", "fixed_parameters"])
    v, status = judged(ln, run, dataset_per_node="8GiB")
    assert v["dataset_per_node"].verdict == rules.FAIL
    shown = f"{least / MIB:.2f} MiB" if least < 1 << 30 else f"{least / (1 << 30):.2f} GiB"
    assert v["dataset_per_node"].reason.startswith(f"{shown} per node: the least a node moved "
                                                   "in a phase (node")
    assert ("the parameters ask for 8.00 GiB = blockSize 4294967296 x segmentCount 1 x 2 "
            "tasks per node (rule: at least 8.00 GiB per node in every phase)") in \
        v["dataset_per_node"].reason
    assert v["fixed_parameters"].verdict == rules.FAIL
    assert "deadlineForStonewalling 1 (default: 0)" in v["fixed_parameters"].reason
    assert status == rules.NOT_COMPLIANT


def test_delays_do_not_count_as_io_time(tmp_path):
    """-d 2 waits before each of six phases: twelve seconds of wall time, a fraction of a
    second of I/O. The rule judges the I/O, and names both figures."""
    run, wall = ior(tmp_path, "nodeA:2,nodeB:2", 4, "-a", "POSIX", "-C", "-Q", "2", "-g", "-i",
                    "3", "-w", "-r", "-v", "-F", "-t", "64k", "-b", "128k", "-s", "1", "-d",
                    "2")
    assert wall >= 12
    io = sum(m[names.Measurement.SECONDS] for m in run.measurements)
    assert len(run.measurements) == 6 and io < 10
    fixed = """
        repetitions = 3
        intraTestBarriers = true
        reorderTasks = true
        writeFile = true
        readFile = true
        verbose = 1
        filePerProc = true
        transferSize = "64k"
        segmentCount = 1
        """
    ln = launch_of(tmp_path, ["min_runtime", "fixed_parameters"], fixed)
    v, status = judged(ln, run, min_runtime="10s")
    elapsed = run.end[names.End.ELAPSED_SECONDS]
    assert elapsed >= 12
    assert v["min_runtime"].verdict == rules.FAIL
    assert v["min_runtime"].reason == (f"{io:.3f} s in 6 I/O phases, {elapsed:.1f} s wall time "
                                       "(rule: at least 10 s in I/O phases)")
    # -d is a change to the work the seed fixes, not a free option
    assert v["fixed_parameters"].verdict == rules.FAIL
    assert v["fixed_parameters"].reason == "changed: interTestDelay 2 (default: 0)"
    assert status == rules.NOT_COMPLIANT
    # fixed_parameters alone passes once -d is freed; with a table of its own (64 KiB
    # transfers) and a freed -d it is not even the seed's, so exit_ok is the one seed rule
    # that judged the run: never compliant, never scored
    freed = suitefile.load(_with_free(tmp_path, fixed)).launches[0]
    v, status = judged(freed, run)
    assert v["fixed_parameters"].verdict == rules.PASS
    assert v["fixed_parameters"].reason.endswith("; free by the suite: interTestDelay (the "
                                                 "file system settles)")
    assert status == rules.judged_by(1) == "judged by 1 of 6 seed rules"
    row = dict(rules.ior_row(run), variant="easy", nodes=65, status=status, launch="x")
    assert rules.score([row]).value is None


def _with_free(tmp_path, fixed):
    p = tmp_path / "free.toml"
    p.write_text(textwrap.dedent("""
        [[step]]
        name = "s"
        workload = "ior"
        variant = "easy"
        args = []
        rules = ["fixed_parameters"]
        [step.free]
        interTestDelay = "the file system settles"
        [step.fixed]
        """) + textwrap.dedent(fixed))
    return p


def test_uneven_placement_fails(tmp_path):
    """Two ranks on nodeA and one on nodeB with -Q 2: node 0's two tasks are no tasks per node,
    and nodeB moved half of what the parameters credit it."""
    run, _ = ior(tmp_path, "nodeA:2,nodeB:1", 3, "-a", "POSIX", "-C", "-Q", "2", "-g", "-i",
                 "1", "-w", "-r", "-v", "-F", "-t", "64k", "-b", "128k", "-s", "1", "-k")
    header = run.header
    assert header[names.Header.HOSTNAMES] == ["nodeA", "nodeB"]
    assert header[names.Header.TASKS_ON_NODE] == [2, 1]
    assert header[names.Header.TASKS_PER_NODE] == 2
    assert kept_bytes_per_node(tmp_path, run) == [256 << 10, 128 << 10]
    ln = launch_of(tmp_path, ["dataset_per_node", "ior_q_equals_tpn", "even_placement"])
    v, status = judged(ln, run, dataset_per_node="256KiB")
    assert v["even_placement"].verdict == rules.FAIL
    assert v["even_placement"].reason == (
        "ranks per node differ: nodeA 2, nodeB 1 (rule: the same number of ranks on every "
        "node, or tasks per node, -Q and the data set per node mean nothing)")
    assert v["ior_q_equals_tpn"].verdict == rules.FAIL
    assert v["ior_q_equals_tpn"].reason == ("-Q 2, but the nodes ran 2, 1 ranks: no one tasks "
                                            "per node (rule: -Q = tasks per node)")
    assert v["dataset_per_node"].verdict == rules.FAIL
    assert v["dataset_per_node"].reason.startswith("128.00 KiB per node: the least a node "
                                                   "moved in a phase (nodeB, write iteration 0")
    assert status == rules.NOT_COMPLIANT

