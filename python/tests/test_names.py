# SPDX-License-Identifier: BSD-3-Clause
"""sonde.results.names against records the binary writes: every name is there with its type, and
every parameter the binary writes has a name (so an option added or renamed in a C table fails
here until sonde.results.names follows)."""

import pytest
from golden import JUPITER_65, WORKLOAD_RUNS, records_of

from sonde import results
from sonde.results import names


def check_params(params, expected, where):
    for name in expected:
        assert name in params, f"{where}: {name!r} missing"
        assert name.typed(params[name]), \
            f"{where}: {name!r} is {params[name]!r}, expected {name.types}"
    unnamed = set(params) - set(expected)
    assert not unnamed, f"{where}: params not named in sonde.results.names: {sorted(unnamed)}"


@pytest.mark.parametrize("workload", sorted(WORKLOAD_RUNS))
def test_params_match_the_binary(golden, workload):
    recs = records_of(golden.run(workload, *WORKLOAD_RUNS[workload]))
    spec = names.params_of(workload)
    header = recs[0]
    assert header["type"] == "header" and header[names.Header.WORKLOAD] == workload
    check_params(header[names.Header.PARAMS], spec.in_header(), f"{workload} header")
    ms = [r for r in recs if r["type"] == "measurement"]
    assert ms
    for m in ms:
        check_params(m[names.Measurement.PARAMS], spec.in_measurement(),
                     f"{workload} {m['phase']} measurement")


def test_collective_figures_match_the_binary(golden):
    recs = records_of(golden.run("coll", *WORKLOAD_RUNS["coll"]))
    ms = [r for r in recs if r["type"] == "measurement"]
    assert ms
    for m in ms:
        for name in (v for v in vars(names.COLLExtra).values() if isinstance(v, names.Name)):
            assert name.typed(m["extra"].get(name)), (name, m["extra"])


def test_record_members_match_the_binary(golden):
    recs = records_of(golden.run("ior", *WORKLOAD_RUNS["ior"]))
    by_type = {"header": names.Header, "measurement": names.Measurement, "end": names.End,
               "summary": names.IORSummary}
    seen = set()
    read = next(r for r in recs if r.get("phase") == "read")
    for name in (v for v in vars(names.IORReadExtra).values() if isinstance(v, names.Name)):
        assert name.typed(read["extra"].get(name)), (name, read["extra"])
    header = recs[0]
    for m in (r for r in recs if r["type"] == "measurement"):
        node_bytes = m["extra"].get(names.IORExtra.NODE_BYTES)
        assert names.IORExtra.NODE_BYTES.typed(node_bytes), m["extra"]
        # one sum per node of the header, each the sum of its ranks' own bytes
        per_node = [0] * header[names.Header.NODES]
        for rank, moved in enumerate(m["extra"]["rank_bytes"]):
            per_node[header[names.Header.NODE_OF_RANK][rank]] += moved
        assert node_bytes == per_node and sum(node_bytes) == m[names.Measurement.BYTES]
    assert sum(header[names.Header.TASKS_ON_NODE]) == header[names.Header.RANKS]
    assert len(header[names.Header.NODE_OF_RANK]) == header[names.Header.RANKS]
    for r in recs:
        spec = by_type[r["type"]]
        seen.add(r["type"])
        for name in (v for v in vars(spec).values() if isinstance(v, names.Name)):
            assert name in r and name.typed(r[name]), (r["type"], name, r.get(name))
    assert seen == set(by_type)


def test_every_workload_is_named():
    assert set(names.WORKLOADS) == set(WORKLOAD_RUNS)
    for w, spec in names.WORKLOADS.items():
        assert spec.workload == w
        spelled = [str(n) for n in spec.names()]
        assert len(spelled) == len(set(spelled)), w


def test_loader_flattens_params_under_their_names(golden):
    runs = results.load(golden.run("ior", *WORKLOAD_RUNS["ior"]))
    rows = results.measurement_rows(runs)
    assert rows and all(f"param.{names.IOR.BLOCK_SIZE}" in r for r in rows)
    assert {r[f"param.{names.IOR.SEGMENT_COUNT}"] for r in rows} == {2}


def test_the_65_node_fixture_is_current():
    """The fixture the score is tested on was written by this binary's record format (rerun
    tests/integration/fixtures/make-jupiter-65-nodes.sh when this fails)."""
    recs = records_of(JUPITER_65)
    check_params(recs[0][names.Header.PARAMS], names.IOR.in_header(), "fixture header")
    for m in (r for r in recs if r["type"] == "measurement"):
        check_params(m[names.Measurement.PARAMS], names.IOR.in_measurement(), "fixture")


def test_find_extra_members_match_the_binary(golden):
    recs = records_of(golden.run("find", *WORKLOAD_RUNS["find"]))
    (m,) = [r for r in recs if r["type"] == "measurement"]
    extra = m[names.Measurement.EXTRA]
    for name in (v for v in vars(names.FindExtra).values() if isinstance(v, names.Name)):
        assert name in extra and name.typed(extra[name]), (name, extra.get(name))
    assert m[names.Measurement.OPS] == extra[names.FindExtra.SCANNED]


def test_train_extra_members_match_the_binary(golden):
    recs = records_of(golden.run("train", *WORKLOAD_RUNS["train"]))
    (m,) = [r for r in recs if r["type"] == "measurement" and r["phase"] == "train"]
    (summary,) = [r for r in recs if r["type"] == "summary"]
    for name in (v for v in vars(names.TrainExtra).values() if isinstance(v, names.Name)):
        for members in (m[names.Measurement.EXTRA], summary):
            assert name in members and name.typed(members[name]), (name, members.get(name))
    for name in (v for v in vars(names.TrainSummary).values() if isinstance(v, names.Name)):
        assert name in summary and name.typed(summary[name]), (name, summary.get(name))
    assert m[names.Measurement.EXTRA][names.TrainExtra.SAMPLES] == 4


def test_mdtest_extra_members_match_the_binary(golden):
    recs = records_of(golden.run("mdtest", *WORKLOAD_RUNS["mdtest"]))
    ms = [r for r in recs if r["type"] == "measurement"]
    assert {m[names.Measurement.PHASE] for m in ms} == {
        "tree-create", "dir-create", "dir-stat", "dir-rename", "dir-remove", "file-create",
        "file-stat", "file-read", "file-remove", "tree-remove"}
    for m in ms:
        extra = m[names.Measurement.EXTRA]
        for name in (v for v in vars(names.MdtestExtra).values() if isinstance(v, names.Name)):
            assert name in extra and name.typed(extra[name]), (name, extra.get(name))


def test_interval_members_match_the_binary(golden_records, mib_profile_file):
    # every member of the binary's interval records is named, with its type, and loading the
    # file files them under Run.intervals
    named = [v for v in vars(names.Interval).values() if isinstance(v, names.Name)]
    recs = golden_records[names.Interval.TYPE]
    assert recs
    for r in recs:
        for name in named:
            assert name.typed(r.get(name)), (name, r)
        assert set(r) - {"type", "run_id", "workload"} == set(named)
    (run,) = results.load(mib_profile_file)
    assert run.intervals == recs
