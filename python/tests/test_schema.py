# SPDX-License-Identifier: BSD-3-Clause
import signal

import pytest
from golden import IOR_NO_FILE, IOR_WAITING, WORKLOAD_RUNS, records_of

from sonde.results import schema

# Every name below comes from the schema itself; every record from the binary (conftest.py).
DEFS = schema.schema()["$defs"]
KINDS = list(DEFS)
CLOSED = [k for k in KINDS if DEFS[k].get("additionalProperties") is False]


def object_variant(definition, member):
    """The object form of a member that may also be null (per_rank, latency, filesystem)."""
    prop = definition["properties"][member]
    return next(v for v in prop.get("oneOf", [prop]) if v.get("type") == "object")


def test_every_type_the_schema_names_is_a_kind_the_binary_writes(golden_records):
    assert set(schema.schema()["properties"]["type"]["enum"]) == set(KINDS)
    assert set(golden_records) == set(KINDS)


@pytest.mark.parametrize("kind", KINDS)
def test_records_the_binary_wrote_pass(golden_records, kind):
    for record in golden_records[kind]:
        assert schema.errors(record) == []
        schema.validate(record)


@pytest.mark.parametrize("kind", CLOSED)
def test_the_binary_writes_every_member_and_only_those(record, kind):
    # A record that ended well has exactly the required members; the optional ones of an end
    # record (signal, rank, path, error) are for failures (test_end_of_a_failed_run).
    assert sorted(record(kind)) == sorted(DEFS[kind]["required"] + ADDED_IN_2.get(kind, []))


# Members schema_version 2 writes that records of version 1 lack (and clock_error_s, that files
# of version 2 written before 2026-11-28 lack): optional in the schema, so that those files
# still validate.
ADDED_IN_2 = {"measurement": ["finish"], "header": ["clock_error_s"]}


@pytest.mark.parametrize("kind,member",
                         [(k, m) for k, d in DEFS.items() for m in d["required"]])
def test_each_required_member_is_required(record, kind, member):
    r = record(kind)
    assert member in r, f"the binary's {kind} record has no {member}"
    del r[member]
    problems = schema.errors(r)
    assert problems, f"{kind} without {member} passed"
    with pytest.raises(schema.SchemaError, match=kind if member != "type" else "invalid"):
        schema.validate(r)


NESTED = {"per_rank": "measurement", "latency": "measurement", "verify": "measurement",
          "filesystem": "header", "finish": "measurement"}
# Documented as optional: records written before sonde wrote it lack it.
OPTIONAL = {("latency", "percentiles")}
# Required by the variant of each schema_version (the latency object's oneOf), not by both.
BY_VERSION = {("latency", "p999"), ("latency", "error_rel"), ("latency", "histogram_ns"),
              ("latency", "histogram_log2_ns")}
VERSION_1_ONLY = {("latency", "histogram_log2_ns")}


@pytest.mark.parametrize("outer", sorted(NESTED))
def test_the_binary_writes_every_nested_member(record, outer):
    written = record(NESTED[outer])[outer]
    schema_object = object_variant(DEFS[NESTED[outer]], outer)
    old = {m for o, m in VERSION_1_ONLY if o == outer}
    assert sorted(written) == sorted(set(schema_object["properties"]) - old)
    optional = {m for o, m in OPTIONAL | BY_VERSION if o == outer}
    assert set(schema_object["required"]) == set(schema_object["properties"]) - optional
    variants = schema_object.get("oneOf", [])
    assert all(m in v["required"] for o, m in BY_VERSION if o == outer for v in variants
               if m in v["required"]) and (not variants or any(
                   set(v["required"]) <= set(written) for v in variants))


@pytest.mark.parametrize(
    "outer,member",
    [(o, m) for o, kind in NESTED.items() for m in object_variant(DEFS[kind], o)["required"]])
def test_nested_members_are_required(record, outer, member):
    r = record(NESTED[outer])
    assert member in r[outer], f"the binary's {outer} has no {member}"
    del r[outer][member]
    assert schema.errors(r)


def test_null_variants_allowed(golden, record):
    # The binary's own nulls: no file system for coll, no latency for find, a Slurm job
    # without a node list (SLURM_JOB_ID alone set for the run).
    coll = records_of(golden.run("coll", *WORKLOAD_RUNS["coll"]))[0]
    assert coll["filesystem"] is None and schema.errors(coll) == []
    find = records_of(golden.run("find", *WORKLOAD_RUNS["find"]))[1]
    assert find["type"] == "measurement" and find["latency"] is None
    assert schema.errors(find) == []
    job = records_of(golden.run("coll", *WORKLOAD_RUNS["coll"],
                                environ={"SLURM_JOB_ID": "42"}))[0]
    assert job["slurm"] == {"job_id": "42", "nodelist": None}
    assert schema.errors(job) == []
    # Derived: the binary writes null for a rate over zero seconds and for per-rank times a
    # workload does not have; no small run gives either, so the ior measurement gets them.
    m = record("measurement")
    m["per_rank"] = m["bandwidth_mib_s"] = m["ops_per_s"] = None
    assert schema.errors(m) == []


# Each case: the binary's record with one named change the schema must refuse.
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
        lambda r: r["latency"].update(histogram_ns=[b[:2] for b in r["latency"]["histogram_ns"]]),
        lambda r: r["latency"].update(histogram_ns=[[1, 2, 0]]),
        lambda r: r["latency"].pop("histogram_ns"),
        lambda r: r["latency"].pop("p999"),
        lambda r: r["latency"].update(error_rel=-0.1),
        lambda r: r["finish"]["slowest"][0].pop("host"),
        lambda r: r["finish"].update(n=0),
        lambda r: r["latency"].update(percentiles="guessed"),
        lambda r: r["verify"].update(checked=1),
        lambda r: r.update(params=None),
    ],
)
def test_wrong_measurements_fail(record, change):
    r = record("measurement")
    change(r)
    assert schema.errors(r)


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r.update(schema_version=schema.SCHEMA_VERSION + 1),
        lambda r: r.update(start_time=r["start_time"].replace("T", " ")),
        lambda r: r.update(start_time=r["start_time"].replace("Z", "+01:00")),
        lambda r: r.update(ranks=0),
        lambda r: r.update(command_line=" ".join(r["command_line"])),
        lambda r: r.update(slurm={"job_id": 42, "nodelist": None}),
    ],
)
def test_wrong_headers_fail(record, change):
    r = record("header")
    change(r)
    assert schema.errors(r)


def test_schema_is_the_docs_copy():
    # docs/results.schema.json must be the packaged file itself (a link), never a second copy.
    from pathlib import Path

    docs = Path(__file__).resolve().parents[2] / "docs" / "results.schema.json"
    packaged = Path(schema.__file__).with_name("results.schema.json")
    assert docs.resolve() == packaged.resolve()


def test_docs_example_is_what_the_binary_writes(golden_records):
    # The example in docs/results-schema.md follows the schema it documents, with the members
    # the binary writes (its params and extra a few of the binary's own names).
    import json
    from pathlib import Path

    md = (Path(__file__).resolve().parents[2] / "docs" / "results-schema.md").read_text()
    block = md.split("## Example", 1)[1].split("```json\n", 1)[1].split("```", 1)[0]
    records = [json.loads(line) for line in block.strip().splitlines()]
    assert [r["type"] for r in records] == ["header", "measurement", "end"]
    for r in records:
        assert schema.errors(r) == []
        written = golden_records[r["type"]][0]
        assert sorted(r) == sorted(written)
        for member, value in r.items():
            if member in ("params", "extra"):
                assert set(value) <= set(written[member]), member
            elif isinstance(value, dict):
                assert sorted(value) == sorted(written[member]), member


# Each case: the binary's end record of a run that ended well with one named change the schema
# must refuse.
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
def test_wrong_ends_fail(record, change):
    r = record("end")
    assert r["reason"] == "ok"
    change(r)
    assert schema.errors(r)


def test_end_of_a_failed_run(golden):
    # A usage error names the rank, path and error; a run stopped by SIGTERM names the signal.
    usage = records_of(golden.run("ior", *IOR_NO_FILE, expect=2))[-1]
    assert (usage["type"], usage["exit_code"], usage["reason"]) == ("end", 2, "usage")
    assert usage["path"].endswith("/no-such-file") and usage["error"] and usage["rank"] == 0
    assert schema.errors(usage) == []
    stopped = records_of(golden.killed("ior", *IOR_WAITING, sig=signal.SIGTERM))[-1]
    assert (stopped["type"], stopped["exit_code"], stopped["reason"], stopped["signal"]) == \
        ("end", 4, "signal", "SIGTERM")
    assert schema.errors(stopped) == []


def test_reasons_are_the_c_writers_names():
    # One source: the schema's reasons are the names src/core/fail.c writes, in its order.
    import re
    from pathlib import Path

    c = (Path(__file__).resolve().parents[2] / "src" / "core" / "fail.c").read_text()
    table = c.split("reason_names[SONDE_REASON_COUNT] = {", 1)[1].split("};", 1)[0]
    names = re.findall(r'= "([a-z-]+)"', table)
    enum = schema.schema()["$defs"]["end"]["properties"]["reason"]["enum"]
    assert names == enum
