# SPDX-License-Identifier: BSD-3-Clause
"""sonde mpiio aggregation (types 3 and 4): each aggregator's file holds its senders' objects in
rank order, the read path sends them home and verifies them, -host/-num_io place aggregators
as the guide describes, -norsend leaves the aggregators' own data out, -csize packs several
senders per buffer and -ahead keeps several transfers in flight."""

import re

import pytest
from conftest import read_jsonl, run_sonde
from mpiio_layout import PAGE, check_file, layout, senders_even

# The original's two layouts: the send line's ranks in brackets after a blank, the receive
# line's glued to the figures.
PROC = re.compile(r"^=== MPI Processor send wait time \(min \[rank\] avg max \[rank\]\): "
                  r"\S+ \[\d+\]  \S+ \S+ \[\d+\]  sec\.$"
                  r"|^=== MPI Processor Receive Wait Time \(min avg max\): "
                  r"\S+\[\d+\]  \S+ \S+\[\d+\]  sec\.$", re.MULTILINE)


def agg_files(directory, type_, aggs):
    if type_ == 4:
        return [directory / "shared"]
    return [directory / f"agg.{a}" for a in aggs]


def target(directory, type_):
    return directory / ("shared" if type_ == 4 else "agg.%r")


CASES = [
    # (ranks, type, M, collective, csize in senders per buffer, ahead, norsend, touch)
    (1, 3, 1, 0, 1, 0, 0, 3), (2, 3, 1, 1, 1, 0, 0, 3), (4, 3, 2, 0, 1, 0, 0, 3),
    (4, 3, 2, 1, 2, 1, 0, 2), (4, 3, 1, 0, 3, 2, 0, 3), (4, 3, 2, 0, 1, 0, 1, 3),
    (1, 4, 1, 0, 1, 0, 0, 3), (2, 4, 2, 1, 1, 0, 0, 1), (4, 4, 2, 0, 1, 1, 0, 3),
    (4, 4, 3, 1, 1, 0, 0, 3), (4, 4, 2, 1, 2, 2, 1, 2), (4, 4, 4, 0, 1, 0, 0, 3),
    # one aggregator, four rounds through two or three buffers: the ring wraps around
    (4, 4, 1, 0, 1, 1, 0, 3), (4, 3, 1, 1, 1, 2, 0, 3),
]


@pytest.mark.parametrize("np_,type_,m,collective,per_buf,ahead,norsend,touch", CASES)
def test_aggregated_layout_and_read(shm_scratch, np_, type_, m, collective, per_buf, ahead,
                                    norsend, touch):
    nobj, size = 2, PAGE + 1024
    args = ["mpiio", "-type", type_, "-num_io", m, "-nobj", nobj, "-size", size,
            "-csize", per_buf * nobj * size, "-target", target(shm_scratch, type_),
            "-touch", touch, "-chkdata", 3, "--json", shm_scratch / "r.jsonl"]
    if collective:
        args.append("-collective")
    if ahead:
        args += ["-ahead", ahead]
    if norsend:
        args.append("-norsend")
    out = run_sonde(args, np=np_)

    aggs, groups = senders_even(np_, m, norsend)
    files = layout(type_, np_, nobj, size, groups=groups)
    paths = agg_files(shm_scratch, type_, aggs)
    assert len(paths) == len(files)
    for i, path in enumerate(paths):
        check_file(path, files[i], size, touch)

    nfiles = len(paths)
    assert f"=== MPI write [{np_}->{m}->{nfiles} {paths[0]}] Starting ..." in out.stdout
    assert f"=== MPI read [{nfiles}->{m}->{np_} {paths[0]}] Starting ..." in out.stdout
    assert len(PROC.findall(out.stdout)) == 4, out.stdout
    senders = sum(len(g) for g in groups)
    meas = {r["phase"]: r for r in read_jsonl(shm_scratch / "r.jsonl")
            if r["type"] == "measurement"}
    assert meas["write"]["bytes"] == senders * nobj * size
    assert meas["read"]["verify"]["errors"] == 0
    assert meas["read"]["verify"]["bytes_checked"] == senders * nobj * size


def test_aggregated_read_catches_corruption(shm_scratch):
    nobj, size = 2, 2048
    base = ["mpiio", "-type", 3, "-num_io", 2, "-nobj", nobj, "-size", size,
            "-target", shm_scratch / "agg.%r", "-touch", 2]
    run_sonde(base + ["-op", "write"], np=4)
    # Aggregator 2's file: rank 2's objects, then rank 3's; flip element 7 of rank 3's second.
    with open(shm_scratch / "agg.2", "r+b") as f:
        f.seek((3 * size) + 7 * 8)
        b = f.read(1)
        f.seek((3 * size) + 7 * 8)
        f.write(bytes([b[0] ^ 0x80]))
    bad = run_sonde(base + ["-op", "read", "-chkdata", 3], np=4, check=False)
    assert bad.returncode == 3
    lines = [ln for ln in bad.stderr.splitlines() if "Data elements" in ln]
    assert lines == ["[RANK 3] ERROR: 1 Data elements in object 2 does not match expected "
                     "values."]


def test_host_placement_same_host(shm_scratch):
    import socket
    host = socket.gethostname()
    # Both aggregators on this host (ranks 0 and 1); ranks 2 and 3 go to the least loaded,
    # the lowest first: 2 -> aggregator 0, 3 -> aggregator 1.
    run_sonde(["mpiio", "-type", 3, "-host", host, "-num_io", 2, "-nobj", 2, "-size", 1024,
               "-target", shm_scratch / "agg.%r", "-touch", 2, "-chkdata", 3], np=4)
    groups = [[0, 2], [1, 3]]
    files = layout(3, 4, 2, 1024, groups=groups)
    check_file(shm_scratch / "agg.0", files[0], 1024, 2)
    check_file(shm_scratch / "agg.1", files[1], 1024, 2)


def test_host_placement_across_hosts(shm_scratch):
    # nodeA runs ranks 0, 1 and nodeB ranks 2, 3 (UTS namespaces, tests/uts-agent.sh). One I/O
    # process on nodeB: rank 2 aggregates for everybody, in rank order.
    out = run_sonde(["mpiio", "-type", 4, "-host", "nodeB", "-num_io", 1, "-nobj", 2, "-size",
                     1024, "-target", shm_scratch / "f.%h", "-touch", 2, "-chkdata", 3,
                     "-lhosts", "-hints", "cb_nodes", "1"],
                    np=4, hosts="nodeA:2,nodeB:2")
    check_file(shm_scratch / "f.nodeB", layout(4, 4, 2, 1024, groups=[[0, 1, 2, 3]])[0], 1024, 2)
    assert "Hosts List:\nRANK 0: nodeA\nRANK 1: nodeA\nRANK 2: nodeB\nRANK 3: nodeB\n" in out.stdout
    assert "MPI_info Hints Used (RANK 2):\n" in out.stdout
    # Two I/O processes per host: nodeA's ranks 0,1 and nodeB's 2,3 each aggregate for
    # themselves only.
    run_sonde(["mpiio", "-type", 3, "-host", "nodeA", "nodeB", "-num_io", "1 1", "-nobj", 1,
               "-size", 1024, "-target", shm_scratch / "g.%h.%r", "-touch", 2, "-chkdata", 3],
              np=4, hosts="nodeA:2,nodeB:2")
    groups = [[0, 1], [2, 3]]
    files = layout(3, 4, 1, 1024, groups=groups)
    check_file(shm_scratch / "g.nodeA.0", files[0], 1024, 2)
    check_file(shm_scratch / "g.nodeB.2", files[1], 1024, 2)


def test_nofile_aggregation_moves_data_only(shm_scratch):
    out = run_sonde(["mpiio", "-type", 3, "-num_io", 1, "-nobj", 2, "-size", 1024, "-nofile"],
                    np=2, cwd=shm_scratch)
    assert "=== Completed MPI-IO Write." in out.stdout and "MPI read" not in out.stdout
    assert list(shm_scratch.iterdir()) == []


def test_barrier_sync_preallocate_with_uneven_aggregators(shm_scratch):
    # 3 ranks, 2 aggregators (ranks 0 and 2): aggregator 0 has two buffers to write, aggregator
    # 1 one; the barrier before every write must still match up.
    out = run_sonde(["mpiio", "-type", 4, "-num_io", 2, "-nobj", 2, "-size", 1024, "-target",
                     shm_scratch / "f", "-barrier", "-sync", "-preallocate", "1M", "-touch", 2,
                     "-chkdata", 3, "-verbose"], np=3, timeout=60)
    assert "=== MPI Barrier Wait Time (min [rank] avg max [rank]):" in out.stdout
    assert "=== MPI File Sync Time (min [rank] avg max [rank]):" in out.stdout
    assert "[2] Processor send wait time: " in out.stdout
    # Preallocation may leave the file longer than the data; the objects are where they belong.
    data = (shm_scratch / "f").read_bytes()
    assert len(data) >= 1 << 20
    (shm_scratch / "g").write_bytes(data[:6 * 1024])
    aggs, groups = senders_even(3, 2)
    check_file(shm_scratch / "g", layout(4, 3, 2, 1024, groups=groups)[0], 1024, 2)


def test_targets_name_aggregator_files(shm_scratch):
    # Aggregator i (ranks 0 and 2) takes line i+1; %r is its own rank.
    targets = shm_scratch / "t.txt"
    targets.write_text(f"{shm_scratch}/first.%r\n{shm_scratch}/second.%r\n")
    run_sonde(["mpiio", "-type", 3, "-num_io", 2, "-nobj", 2, "-size", 1024, "-targets", targets,
               "-touch", 3, "-chkdata", 3], np=4)
    aggs, groups = senders_even(4, 2)
    files = layout(3, 4, 2, 1024, groups=groups)
    check_file(shm_scratch / "first.0", files[0], 1024, 3)
    check_file(shm_scratch / "second.2", files[1], 1024, 3)


@pytest.mark.parametrize("collective", [0, 1])
def test_aggregated_write_then_separate_read(shm_scratch, collective):
    base = ["mpiio", "-type", 4, "-num_io", 2, "-nobj", 3, "-size", 2048, "-csize", 12288,
            "-ahead", 1, "-target", shm_scratch / "shared", "-touch", 3]
    base += ["-collective"] if collective else []
    w = run_sonde(base + ["-op", "write"], np=4)
    assert "MPI read" not in w.stdout
    r = run_sonde(base + ["-op", "read", "-chkdata", 3], np=4)
    assert "=== Completed MPI-IO Read." in r.stdout and "MPI write" not in r.stdout
    aggs, groups = senders_even(4, 2)
    check_file(shm_scratch / "shared", layout(4, 4, 3, 2048, groups=groups)[0], 2048, 3)


def test_uneven_type3_placement_matches_the_original(shm_scratch):
    # The original at 5 ranks, -num_io 2, 2 objects of 4 KiB per rank (reference/
    # btio-lanl-mib.md 2.5, a_i = q*i + min(i, rem)): aggregators 0 and 3, agg.0 holding
    # ranks 0, 1, 2 (24576 B) and agg.3 ranks 3, 4 (16384 B). The files, names and sizes are
    # the original's, written out here rather than computed by senders_even, which shares
    # sonde's formula.
    nobj, size = 2, 4096
    run_sonde(["mpiio", "-type", 3, "-num_io", 2, "-nobj", nobj, "-size", size,
               "-target", shm_scratch / "agg.%r", "-touch", 3, "-chkdata", 3], np=5)
    assert sorted(p.name for p in shm_scratch.iterdir()) == ["agg.0", "agg.3"]
    assert (shm_scratch / "agg.0").stat().st_size == 24576
    assert (shm_scratch / "agg.3").stat().st_size == 16384
    files = layout(3, 5, nobj, size, groups=[[0, 1, 2], [3, 4]])
    check_file(shm_scratch / "agg.0", files[0], size, 3)
    check_file(shm_scratch / "agg.3", files[1], size, 3)
