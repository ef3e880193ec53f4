# SPDX-License-Identifier: BSD-3-Clause
"""The summary at the top of the report of a campaign where launches failed (data/failing.toml,
run by sonde-suite here): the runs counted with the failed ones, each failure with the reason
the suite gave (a launch it stopped keeps "timed out after N s"), failed launches read "failed"
in the Rules table, and no headline figure comes from a run that failed."""

import json
import tempfile
from pathlib import Path

import pytest
from golden import run_suite

from sonde import report

FAILING = Path(__file__).resolve().parent / "data" / "failing.toml"


@pytest.fixture(scope="module")
def failing():
    with tempfile.TemporaryDirectory(prefix="sonde-failing-") as d:
        yield run_suite(FAILING.read_text(), Path(d) / "run", Path(d) / "scratch", failing=True)


@pytest.fixture(scope="module")
def page(failing):
    return report.build([str(failing)])


def manifest(run_dir):
    return {e["id"]: e for e in json.loads((run_dir / "manifest.json").read_text())["launches"]}


def test_failures_keep_the_suites_reason(failing, page):
    launches = manifest(failing)
    failed = {k: e for k, e in launches.items() if e["status"] != "ok"}
    assert len(launches) == 3 and len(failed) == 2
    [timed_out] = [e for e in failed.values() if e["reason"].startswith("timed out after 2")]
    summary = next(s for s in page.sections if s.id == "summary")
    assert summary.intro[0] == "3 runs, 2 failed (1 of them left no results)."
    said = " ".join(summary.intro)
    assert timed_out["reason"] in said
    overview = next(s for s in page.sections if s.id == "overview")
    assert overview.intro[0].startswith("3 runs, 2 failed (1 of them left no results), of ")
    runs = next(t for t in overview.tables if t.id == "runs")
    assert [row[-1].text for row in runs.rows if row[1].text == "mdtest"] == \
        [timed_out["reason"]]
    why = next(t for t in overview.tables if t.id == "failures")
    assert len(why.rows) == 2 and all("no end record" not in c.text for r in why.rows for c in r)
    rules = next(t for t in page.tables() if t.id == "verdicts")
    status = {row[0].text: (row[1].text, row[2].text) for row in rules.rows}
    for launch, e in failed.items():
        assert status[launch][0] == "failed" and status[launch][1] == e["reason"]
    assert status[next(k for k in launches if k not in failed)][0] == "no rules"


def test_no_headline_from_a_failed_run(page):
    headlines = next(t for t in page.tables() if t.id == "headlines")
    assert {row[0].text for row in headlines.rows} == {"ior"}  # the timed-out mdtest is out
    assert [row[1].text for row in headlines.rows] == ["write", "read"]
