# SPDX-License-Identifier: BSD-3-Clause
"""A suite run directory's manifest is read with one policy by everyone (sonde.results.manifest):
no manifest.json, no suite run; a manifest.json that is not a sonde-suite manifest is an error
naming the file, for the loader, sonde-report and sonde-suite resume alike."""

import json

import pytest

from sonde import report, results, suite
from sonde.results.manifest import Manifest, ManifestError

HEADER = {"type": "header", "run_id": "r1", "schema_version": 1, "workload": "ior"}


def run_dir(tmp_path, manifest_text):
    """RUN_DIR/000-step/results.jsonl with one header record, and manifest_text (None: no
    manifest.json) as RUN_DIR/manifest.json."""
    d = tmp_path / "run"
    (d / "000-step").mkdir(parents=True)
    (d / "000-step" / "results.jsonl").write_text(json.dumps(HEADER) + "\n")
    if manifest_text is not None:
        (d / "manifest.json").write_text(manifest_text)
    return d


def test_a_directory_without_a_manifest_is_no_suite_run(tmp_path):
    d = run_dir(tmp_path, None)
    assert Manifest.find(d) is None
    [run] = results.load(d)
    assert run.launch is None
    with pytest.raises(ManifestError, match=r"manifest.json: cannot read"):
        Manifest.load(d)


def test_a_run_gets_its_launch_s_manifest_entry(tmp_path):
    entry = {"id": "000-step", "step": "step", "status": "ok", "params": {"x": 1}}
    d = run_dir(tmp_path, json.dumps({"launches": [entry, {"id": "001-other"}]}))
    [run] = results.load(d)
    assert run.launch == entry
    assert Manifest.find(d).entries() == {"000-step": entry, "001-other": {"id": "001-other"}}


@pytest.mark.parametrize("text", ["{not json", "[]", '{"launches": [{"step": "x"}]}',
                                  '{"name": "a web app manifest"}'])
def test_a_broken_manifest_is_an_error_for_every_reader(tmp_path, capsys, text):
    d = run_dir(tmp_path, text)
    where = str(d / "manifest.json")
    with pytest.raises(ManifestError, match=r"not a sonde-suite manifest") as e:
        results.load(d)
    assert str(e.value).startswith(where)
    assert report.main([str(d), "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"sonde-report: error: {e.value}"]
    assert not (tmp_path / "r.html").exists()
    assert suite.main(["resume", str(d)]) != 0
    assert where in capsys.readouterr().err
