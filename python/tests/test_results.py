# SPDX-License-Identifier: BSD-3-Clause
import csv
import io
import json
import math

import numpy as np
import pytest
from golden import IOR_WAITING, REPO, WORKLOAD_RUNS, records_of

from sonde import report, results
from sonde.results.names import Mix
from sonde.results.schema import SchemaError


def of_type(records, kind):
    return [r for r in records if r["type"] == kind]


def test_one_complete_run(ior_file):
    recs = records_of(ior_file)
    [run] = results.load(ior_file)
    header, end = recs[0], recs[-1]
    assert (header["type"], end["type"]) == ("header", "end")
    assert run.run_id == header["run_id"] == end["run_id"]
    assert run.workload == header["workload"] == "ior"
    assert run.header == header and run.end == end and run.records == recs
    assert run.measurements == of_type(recs, "measurement")
    # -w -r -i 2: a write and a read phase, twice
    assert [(m["phase"], m["iteration"]) for m in run.measurements] == \
        [("write", 0), ("read", 0), ("write", 1), ("read", 1)]
    assert run.summaries == of_type(recs, "summary") != [] and run.profiles == []
    assert run.complete and run.exit_code == end["exit_code"] == 0
    assert not run.truncated
    assert run.path == ior_file


def test_appended_runs_are_separate(golden, ior_file, mib_profile_file, tmp_path):
    # Three files one after another, as sonde leaves a --json file it appended three runs to;
    # the last was killed, so it has no end record.
    files = [ior_file, mib_profile_file, golden.killed("ior", *IOR_WAITING)]
    f = tmp_path / "r.jsonl"
    f.write_bytes(b"".join(p.read_bytes() for p in files))
    runs = results.load(f)
    assert len(runs) == 3
    for run, path in zip(runs, files, strict=True):
        recs = records_of(path)
        assert run.run_id == recs[0]["run_id"] and run.workload == recs[0]["workload"]
        assert [r["type"] for r in run.records] == [r["type"] for r in recs]
        assert len(run.measurements) == len(of_type(recs, "measurement"))
        assert len(run.profiles) == len(of_type(recs, "profile"))
    assert [r.complete for r in runs] == [True, True, False]
    assert [r.ending for r in runs] == ["ok", "ok", "killed by the launcher (no end record)"]
    assert runs[2].exit_code is None and runs[2].header == records_of(files[2])[0]


def test_truncated_last_line(ior_file, tmp_path):
    # The end record cut halfway, as a run killed while writing it leaves the file.
    data = ior_file.read_bytes()
    last = data.splitlines(keepends=True)[-1]
    f = tmp_path / "r.jsonl"
    f.write_bytes(data[:len(data) - len(last) // 2])
    [run] = results.load(f)
    assert run.truncated
    assert not run.complete
    recs = records_of(ior_file)
    assert run.measurements == of_type(recs, "measurement")
    assert run.summaries == of_type(recs, "summary")


def test_truncated_record_of_a_new_run(ior_file, mib_profile_file, tmp_path):
    # A complete run, then the next run's header cut just after its run_id, as a run killed
    # while writing its first record leaves a file another run wrote before.
    header = mib_profile_file.read_bytes().splitlines()[0]
    next_id = records_of(mib_profile_file)[0]["run_id"]
    cut = header.index(next_id.encode()) + len(next_id) + 1  # the run_id's closing quote
    f = tmp_path / "r.jsonl"
    f.write_bytes(ior_file.read_bytes() + header[:cut])
    first, second = results.load(f)
    assert first.run_id == records_of(ior_file)[0]["run_id"]
    assert not first.truncated and first.complete
    assert second.run_id == next_id and second.truncated and second.header is None


def test_truncated_before_run_id(ior_file, tmp_path):
    # The header cut before its run_id: the file holds nothing of any run.
    header = ior_file.read_bytes().splitlines()[0]
    f = tmp_path / "r.jsonl"
    f.write_bytes(header[:header.index(b'"run_id"')])
    [run] = results.load(f)
    assert run.run_id is None and run.truncated and run.records == []


def test_bad_line_in_the_middle_is_an_error(ior_file, tmp_path):
    # The third record cut to 20 bytes with the lines after it intact: not a truncation.
    lines = ior_file.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2][:20] + b"\n"
    f = tmp_path / "r.jsonl"
    f.write_bytes(b"".join(lines))
    with pytest.raises(results.ResultsError, match=r"r\.jsonl:3: not a JSON record"):
        results.load(f)


def test_record_without_type_or_run_id(record, tmp_path):
    # The binary's end record without its "type", then without its "run_id".
    f = tmp_path / "r.jsonl"
    no_type = record("end")
    del no_type["type"]
    f.write_text(json.dumps(no_type) + "\n")
    with pytest.raises(results.ResultsError, match="r.jsonl:1: not a sonde record .*\"type\""):
        results.load(f)
    no_run_id = record("end")
    del no_run_id["run_id"]
    f.write_text(json.dumps(no_run_id) + "\n")
    with pytest.raises(results.ResultsError, match="r.jsonl:1: end record without a run_id"):
        results.load(f)


def test_missing_file(tmp_path):
    with pytest.raises(results.ResultsError, match="No such file"):
        results.load(tmp_path / "nope.jsonl")


def test_directory_is_searched_recursively(golden, ior_file, tmp_path):
    coll_file = golden.run("coll", *WORKLOAD_RUNS["coll"])
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.jsonl").write_bytes(coll_file.read_bytes())
    (tmp_path / "y.jsonl").write_bytes(ior_file.read_bytes())
    (tmp_path / "manifest.json").write_text("{not results}")
    # files in path order, whichever run came first
    assert [r.run_id for r in results.load(tmp_path)] == \
        [records_of(p)[0]["run_id"] for p in (coll_file, ior_file)]


def test_validate_rejects_bad_records(record, tmp_path):
    # The binary's first measurement without its "verify" member, after its header.
    bad = record("measurement")
    del bad["verify"]
    f = tmp_path / "r.jsonl"
    f.write_text(json.dumps(record("header")) + "\n" + json.dumps(bad) + "\n")
    assert results.load(f)[0].measurements == [bad]
    with pytest.raises(SchemaError, match=r"r\.jsonl:2: invalid measurement record.*verify"):
        results.load(f, validate=True)


# ---- rows, CSV and DataFrames, from what the binary writes -----------------------------------

# Each workload on 2 ranks with --json and --csv: the same measurements both ways.
CSV_RUNS = {w: dict(args=a, ranks=2, csv=True) for w, a in WORKLOAD_RUNS.items()
            if w != "btio"}  # btio needs a square rank count: 4 ranks take long here


def golden_csv(golden, workload):
    spec = CSV_RUNS[workload]
    path = golden.run(workload, *spec["args"], ranks=spec["ranks"], csv=True)
    return path, path.with_suffix(".csv")


def same(a, b):
    if isinstance(a, float) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-8, abs_tol=1e-300)  # the CSV keeps 9 digits
    return a == b


@pytest.mark.parametrize("workload", sorted(CSV_RUNS))
def test_csv_rows_are_the_json_rows(golden, workload):
    jsonl_path, csv_path = golden_csv(golden, workload)
    assert csv_path.read_text().split("\n", 1)[0] == ",".join(results.CSV_COLUMNS)
    runs = results.load(jsonl_path, validate=True)
    from_json = results.measurement_rows(runs)
    from_csv = results.load_csv(csv_path)
    assert len(from_csv) == len(from_json) == len(runs[0].measurements) > 0
    for a, b in zip(from_csv, from_json, strict=True):
        assert set(a) == set(b)
        bad = {k: (a[k], b[k]) for k in b if not same(a[k], b[k])}
        assert not bad, bad
        # Every row says what ran: the run's shape is the header's.
        assert (a["ranks"], a["nodes"], a["tasks_per_node"]) == (2, 1, 2)


def test_collective_rows_carry_their_microseconds(golden):
    _, csv_path = golden_csv(golden, "coll")
    rows = results.load_csv(csv_path)
    for row in rows:
        assert row["extra.min_us"] <= row["extra.avg_us"] <= row["extra.max_us"]
        assert math.isclose(row["extra.avg_us"], row["rank_mean_s"] / row["param.iterations"]
                            * 1e6, rel_tol=1e-6)


def test_the_record_says_how_its_percentiles_were_found(golden):
    mib = results.load(golden_csv(golden, "mib")[0])[0]
    for m in mib.measurements:
        lat = m["latency"]
        assert lat["percentiles"] == "log-linear-bucket-midpoint"
        assert lat["error_rel"] == 2**-7
        buckets = lat["histogram_ns"]
        assert sum(n for _, _, n in buckets) == lat["count"]
        for p in ("p50", "p90", "p99", "p999"):  # a bucket's midpoint, or the maximum
            ns = lat[p] * 1e9
            assert any(ns == pytest.approx((lo + hi) / 2, rel=1e-12)
                       for lo, hi, _ in buckets) or lat[p] == lat["max"], lat[p]
        assert lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["p999"] <= lat["max"]
    coll = results.load(golden_csv(golden, "coll")[0])[0]
    assert {m["latency"]["percentiles"] for m in coll.measurements} == {"exact"}
    assert {m["latency"]["error_rel"] for m in coll.measurements} == {0}


def test_schema_version_1_files_are_read(golden, tmp_path):
    """A results file of schema_version 1 (48 log2 buckets, no p99.9, no finish times: the
    fixture is a real run of that version, the 65-node JUPITER run of
    tests/integration/fixtures/make-jupiter-65-nodes.sh kept as that version wrote it) loads,
    validates and makes a report; its CSV, and a CSV begun by version 1 and continued by
    version 2, load with the new columns empty."""
    old = REPO / "tests" / "integration" / "fixtures" / "ior-schema-v1.jsonl"
    [run] = results.load(old, validate=True)
    assert run.header["schema_version"] == 1 and run.measurements
    assert all("histogram_log2_ns" in m["latency"] for m in run.measurements)
    assert report.main([str(old), "-o", str(tmp_path / "r.html")]) == 0
    _, csv_path = golden_csv(golden, "ior")
    header, *rows = csv_path.read_text().splitlines()
    drop = [results.CSV_COLUMNS.index(c) for c in ("lat_p999_s", "lat_error_rel")]
    v1_row = [v for i, v in enumerate(next(csv.reader([rows[0]]))) if i not in drop]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(v1_row)
    mixed = tmp_path / "mixed.csv"
    mixed.write_text(",".join(results.CSV_COLUMNS_V1) + "\n" + out.getvalue() + rows[0] + "\n")
    first, second = results.load_csv(mixed)
    assert first["lat_p999_s"] is None and first["lat_error_rel"] is None
    assert second["lat_p999_s"] is not None
    assert {k: v for k, v in first.items() if k not in ("lat_p999_s", "lat_error_rel")} == \
        {k: v for k, v in second.items() if k not in ("lat_p999_s", "lat_error_rel")}


def test_phase_average_mix_files_are_read(tmp_path):
    """Mix records of sonde before the interval-based figures ("figures": "phase-average"; the
    fixture is a real run of that version, made by
    tests/integration/fixtures/make-mix-phase-average.sh) load and validate, and the report
    shows their overlaps as phase averages: each group's phase column is its measurement's
    bytes over its seconds, nothing is claimed inside or outside the window, and the table
    says so."""
    old = REPO / "tests" / "integration" / "fixtures" / "mix-phase-average.jsonl"
    runs = results.load(old, validate=True)
    (mix,) = [r for r in runs if r.workload == Mix.MIX]
    overlaps = [r for r in mix.records if r["type"] == Mix.MIX]
    assert overlaps and {r[Mix.FIGURES] for r in overlaps} == {Mix.PHASE_AVERAGE}
    (section,) = [s for s in report.build([str(old)], runs).sections if s.id == "mix"]
    (table,) = section.tables
    assert "phase averages" in table.note
    by_id = {r.run_id: r for r in runs}
    phase_average = []
    for r in overlaps:
        for g in r[Mix.GROUPS]:
            (m,) = [m for m in by_id[g[Mix.RUN_ID]].measurements
                    if (m["phase"], m["iteration"]) == (g[Mix.PHASE], g[Mix.ITERATION])]
            phase_average.append(m["bytes"] / 2**20 / m["seconds"])
    rows = [row for row in table.rows if row[2].text != "all groups"]
    assert [row[9].value for row in rows] == pytest.approx(phase_average)
    assert all(row[i].text == "-" for row in rows for i in (5, 6, 7, 8))
    assert all(row[1].text.endswith("(phase averages)") for row in table.rows)
    assert report.main([str(old), "-o", str(tmp_path / "r.html")]) == 0


def test_a_csv_that_is_not_sonde_s_is_refused_with_the_line(golden, tmp_path):
    _, csv_path = golden_csv(golden, "ior")
    header, first = csv_path.read_text().splitlines()[:2]
    values = next(csv.reader([first]))
    col = {c: i for i, c in enumerate(results.CSV_COLUMNS)}
    f = tmp_path / "bad.csv"

    def write_row(row):
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerow(row)
        f.write_text(header + "\n" + out.getvalue())

    cases = [("bytes", "lots", "column bytes: not a number"),
             ("verify_checked", "maybe", "verify_checked: not a boolean"),
             ("params", "{bad", "column params: not JSON"),
             ("extra", "[1", "column extra: not JSON")]
    for column, text, message in cases:
        bad = list(values)
        bad[col[column]] = text
        write_row(bad)
        with pytest.raises(results.ResultsError, match=f"bad.csv:2: .*{message}"):
            results.load_csv(f)
    write_row(values[:-1])
    with pytest.raises(results.ResultsError, match=f"{len(values) - 1} columns, expected"):
        results.load_csv(f)
    f.write_text("a,b\n1,2\n")
    with pytest.raises(results.ResultsError, match="not a sonde CSV header"):
        results.load_csv(f)
    # A run killed while writing a row leaves a partial last line: dropped.
    f.write_text(header + "\n" + first + "\n" + first[:30])
    assert len(results.load_csv(f)) == 1


def test_dataframe_has_typed_columns_with_units(golden):
    import pandas as pd

    paths = [golden_csv(golden, w)[0] for w in ("ior", "coll", "mib")]
    df = results.to_dataframe(paths)
    rows = results.measurement_rows(results.load(*paths))
    assert len(df) == len(rows)
    assert list(df.columns[:len(results.CSV_COLUMNS) - 2]) == \
        [c for c in results.CSV_COLUMNS if c not in ("params", "extra")]
    dtypes = df.dtypes.astype(str).to_dict()
    for c in ("ranks", "nodes", "iteration", "bytes", "ops", "verify_errors", "lat_count"):
        assert dtypes[c] == "Int64", c
    for c in ("seconds", "bandwidth_mib_s", "rank_min_s", "lat_p50_s", "extra.avg_us"):
        assert dtypes[c] == "float64", c
    assert dtypes["verify_checked"] == "boolean" and dtypes["workload"] == "string"
    # Every value is the record's (NaN for null), row by row; a measurement that moved no
    # bytes (a Barrier) has no bandwidth, NaN rather than the record's 0.0.
    for i, row in enumerate(rows):
        for k, v in row.items():
            got = df.at[i, k]
            if k == "bandwidth_mib_s" and not row["bytes"]:
                assert v == 0 and pd.isna(got), (i, v, got)
            elif v is None:
                assert pd.isna(got), (i, k, got)
            elif isinstance(v, list):
                assert json.loads(got) == v
            else:
                assert same(v, got.item() if hasattr(got, "item") else got), (i, k, v, got)
    # Runs already loaded work the same; and the documented exports read back.
    assert results.to_dataframe(results.load(*paths)).equals(df)


def test_dataframe_exports_to_csv_and_parquet(golden, tmp_path):
    import pandas as pd

    df = results.to_dataframe(golden_csv(golden, "coll")[0])
    df.to_csv(tmp_path / "c.csv", index=False)
    back = pd.read_csv(tmp_path / "c.csv")
    assert np.allclose(back["extra.avg_us"], df["extra.avg_us"])
    df.to_parquet(tmp_path / "c.parquet")
    assert pd.read_parquet(tmp_path / "c.parquet").equals(df)


def test_profile_calls_load_as_arrays_equal_to_the_json(mib_profile_file):
    path = mib_profile_file
    [run] = results.load(path, validate=True)
    calls = [p for p in run.profiles if p["part"] == "calls"]
    assert {p["phase"] for p in calls} == {"write", "read"}
    plain = [r for r in records_of(path) if r.get("part") == "calls"]
    for fast, slow in zip(calls, plain, strict=True):
        for k in ("start", "end"):
            assert isinstance(fast[k], np.ndarray) and fast[k].shape == (12, 3)
            assert np.array_equal(fast[k], np.array(slow[k], dtype=float), equal_nan=True)
        assert {k: v for k, v in fast.items() if k not in ("start", "end")} == \
            {k: v for k, v in slow.items() if k not in ("start", "end")}
    # The same record laid out otherwise (spaces, as another JSON writer would) reads the same.
    spaced = path.parent / "spaced.jsonl"
    spaced.write_text("".join(json.dumps(json.loads(line)) + "\n"
                              for line in path.read_text().splitlines()))
    [again] = results.load(spaced)
    for a, b in zip(again.profiles, run.profiles, strict=True):
        for k in ("start", "end"):
            if k in b:
                assert np.array_equal(np.asarray(a[k], dtype=float), b[k], equal_nan=True)


def test_rows_of_a_campaign_say_which_launch_and_swept_values(campaign):
    df = results.to_dataframe(campaign)
    ior = df[df["workload"] == "ior"]
    assert set(ior["step"]) == {"ior-easy"} and set(ior["variant"]) == {"easy"}
    # the suite swept ranks: each row carries its value, the run's own shape agrees
    assert sorted(set(ior["sweep.ranks"])) == [1, 2, 4]
    assert (ior["sweep.ranks"] == ior["ranks"]).all()
    assert all(lid.startswith("00") and f"ranks-{r}" in lid
               for lid, r in zip(ior["launch"], ior["ranks"], strict=True))
    # steps without a sweep carry no sweep value
    assert df[df["workload"] == "mib"]["sweep.ranks"].isna().all()
    assert str(df["repetition"].dtype) == "Int64" and set(df["repetition"]) == {0}
