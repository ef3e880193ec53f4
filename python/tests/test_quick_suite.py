# SPDX-License-Identifier: BSD-3-Clause
"""The quick suite end to end (what `make demo` runs), on the first of golden.quick_pair's runs
of the shipped suite: sonde-suite launched every workload with the MPI launcher, kept each
launch's results, checked the rules and printed the tables; sonde-report makes the report of
the run directory. The run is shared with the report's browser and --compare tests (one run of
the suite fewer in CI); it is the shipped suite without its mdtest seed (golden.quick_pair)."""

import json

from golden import launcher, stdout_of

from sonde import report


def records(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_quick_suite_end_to_end(quick_pair, tmp_path):
    out = quick_pair[0]
    manifest = json.loads((out / "manifest.json").read_text())
    failed = [(e["id"], e["reason"]) for e in manifest["launches"] if e["status"] != "ok"]
    assert not failed and manifest["status"] == "complete", failed
    assert {e["workload"] for e in manifest["launches"]} == \
        {"ior", "mib", "mpiio", "btio", "coll", "mdtest", "find"}
    for e in manifest["launches"]:
        got = records(out / e["id"] / "results.jsonl")
        assert got[0]["type"] == "header" and got[-1]["type"] == "end"
        assert got[-1]["exit_code"] == 0
        assert any(r["type"] == "measurement" for r in got), e["id"]
        assert (out / e["id"] / "command.txt").read_text().split()[0] == launcher(1)[0]
    verdicts = json.loads((out / "verdicts.json").read_text())
    # The quick suite lists no rules: its launches are never called compliant.
    assert all(v["status"] == "no rules" for v in verdicts.values()), verdicts
    printed = stdout_of(out).read_text()
    assert "compliant" not in printed
    assert "IOR results (MiB/s, seconds):" in printed
    # no rule of the JUPITER seed judges its ior runs: no score printed or kept
    assert "Score" not in printed and "qualitative" not in printed
    assert json.loads((out / "score.json").read_text())["scores"] == {}

    # The report of the whole run directory, as sonde-report writes it.
    page = tmp_path / "report.html"
    assert report.main([str(out), "-o", str(page)]) == 0
    html = page.read_text()
    # What make demo promises: a mib timeline and heatmaps from the profiled run, collective
    # latency against size, a scaling curve from the sweep over ranks, and the IOR table.
    for title in ("Per-call timeline of the write phase: mib, 2 ranks on 1 node, 64 KiB calls",
                  "Collective latency against message size", "ior: scaling",
                  "IOR results (the JUPITER table)", "Rate per task over time"):
        assert title in html, title
    assert len(list((tmp_path / "report-figures").glob("*.png"))) >= 8
