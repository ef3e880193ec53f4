# SPDX-License-Identifier: BSD-3-Clause
"""Each campaign prints and keeps (score.json) the scores of its own rule sets only: IO500's
for an IO500 campaign, the JUPITER seed's for a suite that judges ior by the seed's rules,
none for a suite that judges nothing of the seed's. The campaigns are real sonde-suite runs
(golden.py); the oracles are what IO500's own lines say and each run directory's verdicts."""

import json
import re

import pytest
from golden import REPO, SONDE, stdout_of

from sonde import report, results
from sonde.campaign import io500, scores, suitefile


def suite(name):
    return suitefile.load(REPO / "suites" / name)


def test_rule_sets_of_the_shipped_suites():
    assert scores.of_suite(suite("jupiter-ior.toml")) == [scores.JUPITER]
    assert scores.of_suite(suite("io500.toml")) == [scores.IO500]
    for name in ("quick.toml", "btio-scaling.toml", "coll-sweep.toml", "mib-stonewall.toml"):
        assert scores.of_suite(suite(name)) == [], name
    # an IO500 campaign is scored as IO500 only, whatever rules its ior steps list
    assert scores.rule_sets("io500", [["dataset_per_node"]]) == [scores.IO500]
    assert scores.rule_sets(None, [["exit_ok", "verified"]]) == []
    assert scores.rule_sets(None, [[], ["ior_q_equals_tpn"]]) == [scores.JUPITER]


def procurement_intro(run_dir):
    page = report.build([str(run_dir)])
    return next(s for s in page.sections if s.id == "procurement").intro


def test_io500_campaign_prints_and_keeps_io500_s_score_only(io500_campaign):
    printed = stdout_of(io500_campaign).read_text()
    assert "Score" not in printed and "qualitative" not in printed
    [total] = re.findall(r"^\[SCORE \] Bandwidth (\S+) GiB/s : IOPS (\S+) kiops : TOTAL (\S+)",
                         printed, re.MULTILINE)
    doc = json.loads((io500_campaign / "score.json").read_text())
    assert set(doc["scores"]) == {scores.IO500}
    kept = doc["scores"][scores.IO500]
    # IO500's line prints 6 decimals
    assert [kept["bw_gib_s"], kept["md_kiops"], kept["value"]] == [
        pytest.approx(float(x), abs=1e-6) for x in total]
    # the campaign runs at reduced scale: IO500 calls it INVALID, and so does score.json
    assert printed.count("[INVALID]") >= 1 and kept["valid"] is False and kept["reasons"]
    verdicts = json.loads((io500_campaign / "verdicts.json").read_text())
    assert doc["status"] == {k: v["status"] for k, v in verdicts.items()}
    intro = procurement_intro(io500_campaign)
    assert not [s for s in intro if s.startswith("Score")], intro
    assert [s for s in intro if s.startswith("IO500 (run): score ")]


def test_campaign_without_seed_rules_has_no_jupiter_score(campaign):
    printed = stdout_of(campaign).read_text()
    assert "IOR results (MiB/s, seconds):" in printed
    assert "Score" not in printed
    doc = json.loads((campaign / "score.json").read_text())
    verdicts = json.loads((campaign / "verdicts.json").read_text())
    assert doc["scores"] == {}
    assert doc["status"] == {k: v["status"] for k, v in verdicts.items()}
    assert not [s for s in procurement_intro(campaign) if s.startswith("Score")]


def test_compare_shows_each_system_s_own_rule_sets(io500_campaign, campaign):
    """An IO500 campaign beside one that carries no rule set: IO500's figures for the first,
    "not an IO500 campaign" for the second, and no JUPITER row, since neither carries it."""
    sources = [str(io500_campaign), str(campaign)]
    page = report.build_comparison(sources, [results.load(s) for s in sources], SONDE)
    [section] = [s for s in page.sections if s.id == "systems"]
    [table] = [t for t in section.tables if t.id == "systems-score"]
    rows = {r[0].text: r[1:] for r in table.rows}
    assert not [k for k in rows if "JUPITER" in k]
    want = io500.evaluate_run_dir(io500_campaign)
    for what, value in (("IO500 score", want.score), ("IO500 bandwidth, GiB/s", want.bw),
                        ("IO500 metadata, kIOPS", want.md)):
        assert rows[what][0].value == pytest.approx(value)
        assert rows[what][1].text == "not an IO500 campaign" and rows[what][2].value is None
    # the second system's IOR table: each run reads its own campaign's "no rules"
    verdicts = json.loads((campaign / "verdicts.json").read_text())
    [ior] = [t for t in section.tables if t.id == "ior-table-1"]
    assert {r[0].text: r[-1].text for r in ior.rows} == {
        k: v["status"] for k, v in verdicts.items() if k.split("-")[1] == "ior"}
