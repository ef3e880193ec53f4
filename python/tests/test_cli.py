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
