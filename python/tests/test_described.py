# SPDX-License-Identifier: BSD-3-Clause
"""A workload without a class in sonde.results.names: the binary describes its parameters
(`sonde --describe-options`), and sonde-suite checks, runs and judges it, and sonde-report
reports it, from that description (a new workload is one folder of C)."""

import fnmatch
import json

from golden import SONDE

from sonde import report, suite
from sonde.campaign import argcheck, suitefile
from sonde.results import names

# find, as a workload the Python layer has no class for: a fixed parameter of its option table
# (typed by the description: a whole number, a string), judged on the records by fixed_parameters.
SUITE = """
[suite]
name = "described"
scratch = "{scratch}"
[[step]]
name = "walk"
workload = "find"
args = ["TREE", "-name", "*1*", "-C", "-q", "16"]
rules = ["exit_ok", "fixed_parameters"]
[step.fixed]
queue_length = 16
name = "*1*"
"""


def test_a_workload_without_a_class_runs_and_is_reported(tmp_path, monkeypatch, capsys):
    monkeypatch.delitem(names.WORKLOADS, "find")
    argcheck.workloads.cache_clear()
    monkeypatch.setattr(argcheck, "workloads", argcheck.workloads.__wrapped__)
    described = argcheck.workloads(SONDE)["find"]
    assert described is not names.FIND and described.find("queue_length").types == names.INT
    tree = tmp_path / "tree"
    for d in ("a1", "b"):
        (tree / d).mkdir(parents=True)
        for k in range(3):
            (tree / d / f"f{k}").write_text("x")
    text = SUITE.replace("{scratch}", str(tmp_path / "scratch"), 1).replace("TREE", str(tree))
    path = tmp_path / "s.toml"
    path.write_text(text)
    # without the binary's description the suite file names an unknown workload
    try:
        suitefile.load(path)
    except suitefile.SuiteError as e:
        assert "unknown workload 'find'" in str(e)
    else:
        raise AssertionError("find was known without a class or a description")
    # fixed values of the wrong type are refused by the description's types, before anything
    # runs: a whole number (read as a size, as every int of a suite file), a string
    for right, wrong, why in (
            ("queue_length = 16", 'queue_length = "eight"',
             "fixed 'queue_length': 'eight' is not a size"),
            ('name = "*1*"', "name = 1", "fixed 'name': 1 is not a value of this parameter")):
        path.write_text(text.replace(right, wrong, 1))
        assert suite.main(["run", str(path), "--out", str(tmp_path / "bad"), "--sonde",
                           SONDE]) == 2
        assert why in capsys.readouterr().err
    path.write_text(text)
    out = tmp_path / "run"
    assert suite.main(["run", str(path), "--out", str(out), "--sonde", SONDE]) == 0
    (entry,) = json.loads((out / "manifest.json").read_text())["launches"]
    assert entry["status"] == "ok"
    records = [json.loads(ln) for ln in (out / entry["id"] / "results.jsonl").open()]
    (m,) = [r for r in records if r["type"] == "measurement"]
    # the entries find(1) would match, counted here
    assert m["extra"]["found"] == sum(fnmatch.fnmatch(p.name, "*1*") for p in tree.rglob("*"))
    verdicts = json.loads((out / "verdicts.json").read_text())[entry["id"]]
    by_rule = {v["rule"]: v for v in verdicts["rules"]}
    fixed = by_rule["fixed_parameters"]
    assert fixed["verdict"] == "pass" and fixed["reason"].startswith("2 fixed parameters"), fixed
    assert report.main([str(out)]) == 0
    html = (out / "report.html").read_text()
    assert "find" in html and "What failed and why" not in html
