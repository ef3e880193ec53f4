# SPDX-License-Identifier: BSD-3-Clause
"""A sonde train run with more accelerators (ranks) on one node than on another does not count
toward the accelerators a node keeps fed (MLPerf Storage runs the same number on every host
node): launched for real on two "nodes" (UTS namespaces, tests/uts-agent.sh), two ranks on
nodeA and one on nodeB; the oracle is the host list given to the launcher."""

import sys
from types import SimpleNamespace

from conftest import MULTI_NODE, REPO, SONDE, run_sonde

sys.path.insert(0, str(REPO / "python"))
from sonde import results  # noqa: E402
from sonde.campaign import train_table  # noqa: E402

pytestmark = MULTI_NODE


def test_uneven_accelerators_per_node_are_not_counted(tmp_path):
    out = tmp_path / "r.jsonl"
    run_sonde(["train", "-d", tmp_path, "--generate", "--train", "--num-files", "6",
               "--record-size", "4k", "--compute-time", "0.01", "--au-threshold", "0.5",
               "--json", out], np=3, hosts="nodeA:2,nodeB:1")
    [run] = results.load(out)
    assert run.header["hostnames"] == ["nodeA", "nodeB"]
    assert run.header["tasks_on_node"] == [2, 1]
    launch = SimpleNamespace(id="uneven", step="train", ranks=3, nodes=2, workload="train",
                             touch=False)
    [row] = train_table.rows([launch], lambda *_: run, None, {}, SONDE)
    assert row["counted"] == "no"
    assert row["not_counted_because"].split("; ") == [
        "ranks per node differ (2, 1): MLPerf Storage runs the same number of accelerators on "
        "every node",
        "--generate in the same run: the dataset was just written (its pages may be in "
        "memory), where MLPerf Storage generates it before the runs"]
    assert train_table.answer([row]).splitlines()[0] == (
        "No train run counts toward the accelerators a node keeps fed.")
