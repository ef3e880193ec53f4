# SPDX-License-Identifier: BSD-3-Clause
"""sonde ior read-back reordering on 4 ranks on two "nodes" (UTS namespaces via the rsh agent):
the rank whose data each rank reads, from IOR's own "task R reading FILE" lines (-vvv)."""

import re

from conftest import run_sonde

HOSTS = "nodeA:2,nodeB:2"


def reads(out):
    """{rank: rank whose file it read} from the file-per-process names."""
    return {int(m.group(1)): int(m.group(2))
            for m in re.finditer(r"^task (\d+) reading \S+\.(\d{8})$", out, re.MULTILINE)}


def ior(args, **kw):
    return run_sonde(["ior", *args], np=4, hosts=HOSTS, **kw)


def test_constant_shift_one_node(shm_scratch):
    proc = ior(["-w", "-r", "-F", "-C", "-vvv", "-t", "16k", "-b", "32k", "-o",
                shm_scratch / "c"])
    assert "nodes               : 2" in proc.stdout
    assert "clients per node    : 2" in proc.stdout
    # block placement, 2 tasks on node 0: -Q 1 moves 2 ranks, to the other node
    assert reads(proc.stdout) == {r: (r + 2) % 4 for r in range(4)}
    assert "shift on read-back  : 2 ranks = 1 node(s) of 2 tasks (block placement)" in proc.stdout
    assert "read data written on their own node" not in proc.stderr


def test_shift_wraps_to_own_node(shm_scratch):
    """-Q 2 on 2 nodes of 2 tasks: IOR's shift is 2 x 2 = 4 = 0 mod 4: everyone reads its own
    file; sonde says so."""
    proc = ior(["-w", "-r", "-F", "-C", "-Q", "2", "-vvv", "-t", "16k", "-b", "32k", "-o",
                shm_scratch / "w"])
    assert reads(proc.stdout) == {r: r for r in range(4)}
    assert "shift on read-back  : 0 ranks = 0 node(s)" in proc.stdout
    assert re.search(r"warning: -C: 4 of 4 ranks read data written on their own node \(the "
                     r"shift wraps to 0", proc.stderr), proc.stderr


def test_shuffle_reads_every_file_once_from_elsewhere(shm_scratch):
    proc = ior(["-w", "-r", "-F", "-Z", "-Z", "-X", "3", "-vvv", "-t", "16k", "-b", "32k",
                "-o", shm_scratch / "z"])
    got = reads(proc.stdout)
    assert sorted(got.values()) == [0, 1, 2, 3]


def test_random_shift_leaves_the_node(shm_scratch):
    """-Z with -Q 1: every offset is at least one node (2 tasks) away."""
    proc = ior(["-w", "-r", "-F", "-Z", "-vvv", "-t", "16k", "-b", "32k", "-o",
                shm_scratch / "r"])
    got = reads(proc.stdout)
    assert len(got) == 4
    for r, w in got.items():
        assert (w - r) % 4 >= 2


def test_reader_checks_the_writers_data(shm_scratch):
    """-C with -R: each rank verifies the stream of the rank that wrote what it reads, on a
    shared file and on files per process."""
    for fpp in ([], ["-F"]):
        proc = ior(["-w", "-r", "-R", "-W", "-C", "-l", "offset", "-t", "8k", "-b", "32k",
                    "-s", "2", "-o", shm_scratch / ("v" + "".join(fpp)), "-v"] + fpp)
        assert "no errors" in proc.stdout
        assert "incorrect data" not in proc.stderr
