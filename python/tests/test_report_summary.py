# SPDX-License-Identifier: BSD-3-Clause
"""The summary at the top of the report of a campaign where launches failed (data/failing.toml,
run by sonde-suite here): the runs counted with the failed ones, each failure with the reason
the suite gave (a launch it stopped keeps "timed out after N s"), failed launches read "failed"
in the Rules table, and no headline figure comes from a run that failed."""

import csv
import json
import tempfile
from pathlib import Path

import pytest
from golden import run_suite, stdout_of

from sonde import report, results
from sonde.views import words

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


def test_metadata_has_rates_not_zero_bandwidth(quick_pair):
    """mdtest and find moved no bytes in most phases: their bandwidth is missing (not 0.0) in
    the data layer, and sonde-suite prints them in their own table of operations per second
    (metadata-summary.csv), never as rows of 0.000 MiB/s."""
    run_dir = quick_pair[0]
    df = results.to_dataframe(run_dir)
    meta = df[df["workload"].isin(["mdtest", "find"])]
    assert not meta.empty
    moved_nothing = meta[meta["bytes"] == 0]
    assert len(moved_nothing) > 0 and moved_nothing["bandwidth_mib_s"].isna().all()
    summary = (run_dir / "summary.csv").read_text()
    assert "mdtest" not in summary and "find" not in summary
    rows = list(csv.DictReader(open(run_dir / "metadata-summary.csv")))
    # Oracle: the records' own rates, averaged here.
    raw = [json.loads(line) for f in sorted(run_dir.glob("*/results.jsonl"))
           for line in f.read_text().splitlines()]
    for row in rows:
        rates = [r["ops_per_s"] for r in raw if r["type"] == "measurement"
                 and r["workload"] in ("mdtest", "find") and r["phase"] == row["phase"]]
        assert float(row["ops_mean_per_s"]) == pytest.approx(sum(rates) / len(rates))
    printed = stdout_of(run_dir).read_text()
    table = printed.split("Metadata (operations per second):")[1].split("\n\n")[0]
    assert [line.split("|")[4].strip() for line in table.strip().splitlines()[2:]] == \
        [row["phase"] for row in rows]


def test_a_sweep_over_a_choice_is_categorical(quick_pair):
    """The quick suite sweeps BTIO's method (0, 3): codes of a choice, drawn as named
    categories, never as a number line from 0 to 3."""
    runs = [r for r in results.load(quick_pair[0]) if r.workload == "btio"]
    methods = sorted(r.header["params"]["method"] for r in runs)
    assert len(methods) == 2
    [fig] = [f for f in report.build([str(quick_pair[0])]).figures() if f.name == "btio-scaling"]
    [panel] = fig.panels
    assert panel.x_categories == [words.BTIO_METHODS[m] for m in methods]
    assert all(s.x == panel.x_categories for s in panel.series)
