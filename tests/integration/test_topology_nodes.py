# SPDX-License-Identifier: BSD-3-Clause
"""Two "nodes" on one machine (tests/uts-agent.sh: one UTS namespace per host name): the
topology sees each name as a node, numbers nodes by their lowest rank and counts tasks per node.
Runs the topology unit test, which checks itself against every rank's host name and prints one
machine-readable line per rank."""

import re
from pathlib import Path

import pytest
from conftest import MULTI_NODE, SONDE, run_sonde

TEST_PROGRAM = Path(SONDE).parent / "test_topology"
LINE = re.compile(r"^topology: rank=(\d+) size=(\d+) nnodes=(\d+) node=(\d+) local_rank=(\d+) "
                  r"local_size=(\d+) tpn=(\d+) name=(\S+)$", re.MULTILINE)


pytestmark = MULTI_NODE + [
    pytest.mark.skipif(not TEST_PROGRAM.exists(), reason=f"{TEST_PROGRAM} not built"),
]


def run_topology(hosts, np, env=None):
    proc = run_sonde([], np=np, hosts=hosts, program=TEST_PROGRAM, env=env, timeout=120)
    ranks = {}
    for m in LINE.finditer(proc.stdout):
        rank, size, nnodes, node, local_rank, local_size, tpn = map(int, m.groups()[:7])
        ranks[rank] = dict(size=size, nnodes=nnodes, node=node, local_rank=local_rank,
                           local_size=local_size, tpn=tpn, name=m.group(8))
    assert sorted(ranks) == list(range(np)), proc.stdout
    return ranks


def test_two_nodes_by_slot():
    ranks = run_topology("nodeA:2,nodeB:2", 4)
    for r, t in ranks.items():
        assert t["size"] == 4
        assert t["nnodes"] == 2
        assert t["tpn"] == 2
        assert t["local_size"] == 2
        # Slots fill nodeA first: ranks 0,1 there (node 0, holding rank 0), 2,3 on nodeB.
        assert t["node"] == r // 2
        assert t["local_rank"] == r % 2
        assert t["name"] == ("nodeA", "nodeB")[r // 2]


def test_two_nodes_round_robin():
    """Mapped by node, ranks alternate between the nodes."""
    ranks = run_topology("nodeA:2,nodeB:2", 4, env={"OMPI_MCA_rmaps_base_mapping_policy": "node"})
    assert [ranks[r]["name"] for r in range(4)] == ["nodeA", "nodeB", "nodeA", "nodeB"]
    assert [ranks[r]["node"] for r in range(4)] == [0, 1, 0, 1]
    assert [ranks[r]["local_rank"] for r in range(4)] == [0, 0, 1, 1]
    assert {t["tpn"] for t in ranks.values()} == {2}


def test_node_ids_follow_lowest_rank_not_name():
    ranks = run_topology("nodeB:2,nodeA:2", 4)
    # nodeB comes first, so it holds rank 0 and is node 0 although its name sorts last.
    assert [ranks[r]["name"] for r in range(4)] == ["nodeB", "nodeB", "nodeA", "nodeA"]
    assert [ranks[r]["node"] for r in range(4)] == [0, 0, 1, 1]


def test_uneven_nodes():
    ranks = run_topology("nodeA:1,nodeB:2,nodeC:1", 4)
    assert {t["nnodes"] for t in ranks.values()} == {3}
    assert [ranks[r]["name"] for r in range(4)] == ["nodeA", "nodeB", "nodeB", "nodeC"]
    assert [ranks[r]["node"] for r in range(4)] == [0, 1, 1, 2]
    assert [ranks[r]["local_size"] for r in range(4)] == [1, 2, 2, 1]
    # IOR's tasks per node: the count on node 0.
    assert {t["tpn"] for t in ranks.values()} == {1}
