# SPDX-License-Identifier: BSD-3-Clause
"""A suite run directory's manifest is read with one policy by everyone (sonde.results.manifest):
a directory is a suite run when its manifest.json reads as a sonde-suite manifest. The loader
and sonde-report, which look whether a directory is one, take anything else as no suite run;
sonde-suite resume, which is given one, says why it is not, naming the file."""

import json

import pytest

from sonde import results, suite
from sonde.results.manifest import Manifest, ManifestError
from sonde.views import campaign

HEADER = {"type": "header", "run_id": "r1", "schema_version": 1, "workload": "ior"}
BROKEN = {"{not json": "Expecting property name", "[]": "no list of launches",
          '{"launches": [{"step": "x"}]}': "no list of launches",
          '{"name": "a web app manifest"}': "no list of launches"}


def run_dir(tmp_path, manifest_text):
    """RUN_DIR/000-step/results.jsonl with one header record, and manifest_text (None: no
    manifest.json) as RUN_DIR/manifest.json."""
    d = tmp_path / "run"
    (d / "000-step").mkdir(parents=True)
    (d / "000-step" / "results.jsonl").write_text(json.dumps(HEADER) + "\n")
    if manifest_text is not None:
        (d / "manifest.json").write_text(manifest_text)
    return d


def test_a_run_of_a_suite_gets_its_launch_s_manifest_entry(tmp_path):
    entry = {"id": "000-step", "step": "step", "status": "ok", "params": {"x": 1}}
    d = run_dir(tmp_path, json.dumps({"launches": [entry, {"id": "001-other"}]}))
    runs = results.load(d)
    assert [r.launch for r in runs] == [entry]
    assert Manifest.find(d).entries() == {"000-step": entry, "001-other": {"id": "001-other"}}
    [found] = campaign.of_runs(runs, [d])
    assert found.dir == d.resolve() and found.runs == runs


def test_without_a_manifest_there_is_no_suite_run(tmp_path, capsys):
    d = run_dir(tmp_path, None)
    assert Manifest.find(d) is None
    runs = results.load(d)
    assert [r.launch for r in runs] == [None]
    assert campaign.of_runs(runs, [d]) == []
    assert suite.main(["resume", str(d)]) == 2
    assert capsys.readouterr().err.strip() == \
        f"sonde-suite: error: {d / 'manifest.json'}: cannot read: No such file or directory"


@pytest.mark.parametrize("text", sorted(BROKEN))
def test_a_manifest_that_is_none_of_sonde_suite_s_is_no_suite_run(tmp_path, capsys, text):
    d = run_dir(tmp_path, text)
    assert Manifest.find(d) is None
    runs = results.load(d)
    assert [r.launch for r in runs] == [None]
    assert campaign.of_runs(runs, [d]) == []
    with pytest.raises(ManifestError) as e:
        Manifest.load(d)
    assert str(e.value).startswith(f"{d / 'manifest.json'}: not a sonde-suite manifest: ")
    assert BROKEN[text] in str(e.value)
    assert suite.main(["resume", str(d)]) == 2
    assert capsys.readouterr().err.strip() == f"sonde-suite: error: {e.value}"
