# SPDX-License-Identifier: BSD-3-Clause
import pytest

from sonde import report, suite


def test_suite_usage_errors(capsys):
    with pytest.raises(SystemExit) as e:
        suite.main(["run", "x.toml", "--launcher", "ssh"])
    assert e.value.code == 2
    with pytest.raises(SystemExit):
        suite.main([])


def test_report_input_errors(tmp_path, capsys):
    assert report.main([str(tmp_path / "missing.jsonl")]) == 2
    assert "missing.jsonl: No such file" in capsys.readouterr().err
    assert report.main([str(tmp_path)]) == 2
    assert "no results in" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        report.main([])


def test_bad_files_are_one_line_never_a_traceback(tmp_path, capsys):
    """A results file cut inside its header, one of binary bytes, one of a schema this loader
    does not know, and a suite file that is not UTF-8: one line each, exit 2."""
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b'{"type":"header","run_id":"x","schema_ver')
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(bytes(range(256)) * 4)
    newer = tmp_path / "newer.jsonl"
    newer.write_text('{"type":"header","run_id":"r","workload":"ior","schema_version":99}\n')
    toml = tmp_path / "s.toml"
    toml.write_bytes(b"\xff\xfe[suite]\n")
    for path, words in ((cut, "cut inside its first record"), (junk, "not a JSON record"),
                        (newer, "schema_version 99; this sonde reads schema_version 1 and 2")):
        assert report.main([str(path), "-o", str(tmp_path / "r.html")]) == 2
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and words in err, err
    assert suite.main(["run", str(toml), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "not UTF-8 text" in err, err
