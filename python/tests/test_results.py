import csv
import io

import pytest
from conftest import RUN_ID, end, header, jsonl, measurement

from sonde import results
from sonde.schema import SchemaError


def test_one_complete_run(tmp_path, one_run):
    f = tmp_path / "r.jsonl"
    f.write_text(jsonl(one_run))
    [run] = results.load(f)
    assert run.run_id == RUN_ID
    assert run.workload == "ior"
    assert run.header["ranks"] == 2
    assert [m["phase"] for m in run.measurements] == ["write", "read"]
    assert len(run.summaries) == 1 and run.profiles == []
    assert run.complete and run.exit_code == 0
    assert not run.truncated
    assert run.path == f


def test_appended_runs_are_separate(tmp_path):
    f = tmp_path / "r.jsonl"
    a = [header("A"), measurement("A"), end("A", measurements=1)]
    b = [header("B", "mib"), measurement("B", "mib"), measurement("B", "mib", iteration=1)]
    f.write_text(jsonl(a + b))
    ra, rb = results.load(f)
    assert (ra.run_id, len(ra.measurements), ra.complete) == ("A", 1, True)
    assert (rb.run_id, rb.workload, len(rb.measurements)) == ("B", "mib", 2)
    assert not rb.complete and rb.exit_code is None


def test_truncated_last_line(tmp_path, one_run):
    f = tmp_path / "r.jsonl"
    text = jsonl(one_run[:3])
    cut = jsonl([one_run[3]])[:25]  # a record cut while being written
    f.write_text(text + cut)
    [run] = results.load(f)
    assert run.truncated
    assert not run.complete
    assert len(run.measurements) == 2


def test_truncated_record_of_a_new_run(tmp_path, one_run):
    f = tmp_path / "r.jsonl"
    f.write_text(jsonl(one_run) + jsonl([header("NEXT")])[:60])
    first, second = results.load(f)
    assert not first.truncated and first.complete
    assert second.run_id == "NEXT" and second.truncated and second.header is None


def test_truncated_before_run_id(tmp_path):
    f = tmp_path / "r.jsonl"
    f.write_text('{"type":"hea')
    [run] = results.load(f)
    assert run.run_id is None and run.truncated and run.records == []


def test_bad_line_in_the_middle_is_an_error(tmp_path, one_run):
    f = tmp_path / "r.jsonl"
    lines = jsonl(one_run).splitlines(keepends=True)
    lines[2] = lines[2][:20] + "\n"
    f.write_text("".join(lines))
    with pytest.raises(results.ResultsError, match=r"r\.jsonl:3: not a JSON record"):
        results.load(f)


def test_record_without_type_or_run_id(tmp_path):
    f = tmp_path / "r.jsonl"
    f.write_text('{"run_id": "x"}\n')
    with pytest.raises(results.ResultsError, match="no \"type\""):
        results.load(f)
    f.write_text('{"type": "end"}\n')
    with pytest.raises(results.ResultsError, match="without a run_id"):
        results.load(f)


def test_missing_file(tmp_path):
    with pytest.raises(results.ResultsError, match="No such file"):
        results.load(tmp_path / "nope.jsonl")


def test_directory_is_searched_recursively(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.jsonl").write_text(jsonl([header("X"), end("X", measurements=0)]))
    (tmp_path / "y.jsonl").write_text(jsonl([header("Y"), end("Y", measurements=0)]))
    (tmp_path / "manifest.json").write_text("{not results}")
    assert [r.run_id for r in results.load(tmp_path)] == ["X", "Y"]


def test_validate_rejects_bad_records(tmp_path):
    bad = measurement()
    del bad["verify"]
    f = tmp_path / "r.jsonl"
    f.write_text(jsonl([header(), bad]))
    assert len(results.load(f)[0].measurements) == 1
    with pytest.raises(SchemaError, match=r"r\.jsonl:2: invalid measurement record.*verify"):
        results.load(f, validate=True)


def test_measurement_rows_flatten(tmp_path, one_run):
    f = tmp_path / "r.jsonl"
    f.write_text(jsonl(one_run))
    rows = results.measurement_rows(results.load(f))
    assert len(rows) == 2
    w = rows[0]
    assert w["phase"] == "write" and w["bytes"] == 8 << 20 and w["seconds"] == 0.5
    assert w["bandwidth_mib_s"] == 16.0
    assert (w["rank_min_s"], w["rank_min_rank"], w["rank_max_s"], w["rank_max_rank"]) == (
        0.4, 1, 0.5, 0)
    assert (w["lat_p50_s"], w["lat_p99_s"]) == (0.05, 0.07)
    assert w["verify_checked"] is True and w["verify_errors"] == 0
    assert w["param.transfer_size"] == 1048576
    assert w["param.segments.count"] == 4
    assert w["extra.stonewall_seconds"] is None
    assert "params" not in w
    assert rows[1]["seconds"] == 0.25


def test_rows_without_per_rank_or_latency():
    m = measurement()
    m["per_rank"] = m["latency"] = None
    row = results.measurement_row(m)
    assert row["rank_min_s"] is None and row["lat_p50_s"] is None


def _csv_text(rows):
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(results.CSV_COLUMNS)
    w.writerows(rows)
    return out.getvalue()


CSV_ROW = [RUN_ID, "ior", "write", "0", "8388608", "0.5", "16", "8", "16", "0.4", "1", "0.5",
           "0", "0.45", "0.05", "0.05", "0.06", "0.07", "0.07", "1", "0",
           '{"transfer_size":1048576,"segments":{"count":4},"api":"POSIX, with comma"}']


def test_csv_loader_matches_jsonl_rows(tmp_path):
    f = tmp_path / "r.csv"
    row2 = list(CSV_ROW)
    row2[2], row2[6], row2[8], row2[9:19] = "read", "", "", [""] * 10
    f.write_text(_csv_text([CSV_ROW, row2]))
    a, b = results.load_csv(f)
    from_json = results.measurement_row(measurement())
    for k in results.CSV_COLUMNS[:-1]:
        assert a[k] == from_json[k], k
    assert a["param.segments.count"] == 4
    assert a["param.api"] == "POSIX, with comma"
    assert b["phase"] == "read" and b["bandwidth_mib_s"] is None and b["rank_min_rank"] is None


def test_csv_truncated_last_line_dropped(tmp_path):
    f = tmp_path / "r.csv"
    f.write_text(_csv_text([CSV_ROW]) + ",".join(CSV_ROW)[:30])
    assert len(results.load_csv(f)) == 1


@pytest.mark.parametrize(
    "mutate,message",
    [
        (lambda r: r.__setitem__(4, "lots"), "column bytes: not a number"),
        (lambda r: r.__setitem__(19, "maybe"), "verify_checked: not a boolean"),
        (lambda r: r.__setitem__(21, "{bad"), "params: not JSON"),
        (lambda r: r.pop(), "21 columns, expected 22"),
    ],
)
def test_csv_errors(tmp_path, mutate, message):
    row = list(CSV_ROW)
    mutate(row)
    f = tmp_path / "r.csv"
    f.write_text(_csv_text([row]))
    with pytest.raises(results.ResultsError, match=f"r.csv:2: .*{message}"):
        results.load_csv(f)


def test_csv_wrong_header(tmp_path):
    f = tmp_path / "r.csv"
    f.write_text("a,b\n1,2\n")
    with pytest.raises(results.ResultsError, match="not a sonde CSV header"):
        results.load_csv(f)
