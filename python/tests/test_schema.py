# SPDX-License-Identifier: BSD-3-Clause
import copy

import pytest
from conftest import end, header, measurement, profile, summary

from sonde import schema

BUILDERS = {"header": header, "measurement": measurement, "end": end}


@pytest.mark.parametrize("make", [header, measurement, summary, profile, end])
def test_valid_records_pass(make):
    record = make()
    assert schema.errors(record) == []
    schema.validate(record)


@pytest.mark.parametrize(
    "kind,member",
    [(k, m) for k, make in BUILDERS.items() for m in make()]
    + [("summary", m) for m in ("type", "run_id", "workload")]
    + [("profile", m) for m in ("type", "run_id", "workload")],
)
def test_each_required_member_is_required(kind, member):
    make = {**BUILDERS, "summary": summary, "profile": profile}[kind]
    record = make()
    del record[member]
    problems = schema.errors(record)
    assert problems, f"{kind} without {member} passed"
    with pytest.raises(schema.SchemaError, match=kind if member != "type" else "invalid"):
        schema.validate(record)


@pytest.mark.parametrize(
    "path",
    [("per_rank", m) for m in measurement()["per_rank"]]
    + [("latency", m) for m in measurement()["latency"]]
    + [("verify", m) for m in measurement()["verify"]],
)
def test_nested_members_are_required(path):
    record = measurement()
    del record[path[0]][path[1]]
    assert schema.errors(record)


@pytest.mark.parametrize("member", list(header()["filesystem"]))
def test_filesystem_members_are_required(member):
    record = header()
    del record["filesystem"][member]
    assert schema.errors(record)


def test_null_variants_allowed():
    h = header()
    h["slurm"] = None
    h["filesystem"] = None
    assert schema.errors(h) == []
    h["slurm"] = {"job_id": "42", "nodelist": None}
    assert schema.errors(h) == []
    m = measurement()
    m["per_rank"] = m["latency"] = m["bandwidth_mib_s"] = m["ops_per_s"] = None
    assert schema.errors(m) == []


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r.update(type="bogus"),
        lambda r: r.update(iteration=-2),
        lambda r: r.update(bytes=-1),
        lambda r: r.update(bytes=1.5),
        lambda r: r.update(seconds=None),
        lambda r: r.update(seconds="1"),
        lambda r: r.update(unexpected=1),
        lambda r: r["latency"].update(histogram_log2_ns=[0] * 47),
        lambda r: r["latency"].update(histogram_log2_ns=[0] * 49),
        lambda r: r["verify"].update(checked=1),
        lambda r: r.update(params=None),
    ],
)
def test_wrong_measurements_fail(change):
    record = copy.deepcopy(measurement())
    change(record)
    assert schema.errors(record)


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r.update(schema_version=2),
        lambda r: r.update(start_time="2026-11-22 06:00:00"),
        lambda r: r.update(start_time="2026-11-22T07:00:00+01:00"),
        lambda r: r.update(ranks=0),
        lambda r: r.update(command_line="sonde ior"),
        lambda r: r.update(slurm={"job_id": 42, "nodelist": None}),
    ],
)
def test_wrong_headers_fail(change):
    record = header()
    change(record)
    assert schema.errors(record)


def test_schema_is_the_docs_copy():
    # docs/results.schema.json must be the packaged file itself (a link), never a second copy.
    from pathlib import Path

    docs = Path(__file__).resolve().parents[2] / "docs" / "results.schema.json"
    packaged = Path(schema.__file__).with_name("results.schema.json")
    assert docs.resolve() == packaged.resolve()


def test_docs_example_is_valid():
    # The example in docs/results-schema.md must follow the schema it documents.
    import json
    from pathlib import Path

    md = (Path(__file__).resolve().parents[2] / "docs" / "results-schema.md").read_text()
    block = md.split("## Example", 1)[1].split("```json\n", 1)[1].split("```", 1)[0]
    records = [json.loads(line) for line in block.strip().splitlines()]
    assert [r["type"] for r in records] == ["header", "measurement", "end"]
    for r in records:
        assert schema.errors(r) == []


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r.pop("reason"),
        lambda r: r.update(reason="crashed"),
        lambda r: r.update(signal="SIGTERM"),
        lambda r: r.update(reason="signal", exit_code=4),
        lambda r: r.update(rank=1, error="x"),
        lambda r: r.update(exit_code=1),
    ],
)
def test_wrong_ends_fail(change):
    record = end()
    change(record)
    assert schema.errors(record)


def test_end_of_a_failed_run():
    record = end()
    record.update(exit_code=1, reason="io-error", rank=1, path="/scratch/f",
                  error="write /scratch/f at offset 0: No space left on device")
    assert schema.errors(record) == []
    record.update(exit_code=4, reason="signal", signal="SIGTERM")
    del record["rank"], record["path"], record["error"]
    assert schema.errors(record) == []


def test_reasons_are_the_c_writers_names():
    # One source: the schema's reasons are the names src/core/fail.c writes, in its order.
    import re
    from pathlib import Path

    c = (Path(__file__).resolve().parents[2] / "src" / "core" / "fail.c").read_text()
    table = c.split("reason_names[SONDE_REASON_COUNT] = {", 1)[1].split("};", 1)[0]
    names = re.findall(r'= "([a-z-]+)"', table)
    enum = schema.schema()["$defs"]["end"]["properties"]["reason"]["enum"]
    assert names == enum
