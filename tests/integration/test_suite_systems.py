# SPDX-License-Identifier: BSD-3-Clause
"""Two systems that ran the same JUPITER-shaped suite (the same launch ids), on two "nodes"
(UTS namespaces, tests/uts-agent.sh): each launch's status in sonde-report, side by side
(--compare) or together, is its own campaign's verdict, in either order; each system's best
easy run (at lowered thresholds: the one that passed every rule judged) is paired with the
other's though their node counts differ; score.json keeps the score and every status. The
oracles are each run directory's own verdicts.json and IOR's "Summary of all tests" text each
launch printed."""

import json
import sys
from html.parser import HTMLParser

import pytest
import test_suite_jupiter as jupiter
from bounded import run_bounded
from conftest import MULTI_NODE, SONDE, run_sonde
from sonde import results
from sonde.campaign import argcheck
from sonde.views import compare
from sonde.views.systems import BEST_RUN
from test_suite_jupiter import ior_summary, suite_env

pytestmark = MULTI_NODE

# The [suite] table of test_suite_jupiter's JUPITER-shaped suite (its thresholds lowered so
# that tiny runs can meet them). Each system's easy1 (1 node) and easy2 (2 nodes) steps differ in
# their block size only (free in the seed's easy variant): 8 MiB x 2 tasks misses the 32 MiB per
# node of dataset_per_node, a rule only the run decides (a -Q breaking its rule would be refused
# before the run), so each system has one run that passes every rule it is judged by, at a node
# count of its own. At lowered thresholds
# no run is "compliant": such a run is "judged by 3 of 6 seed rules" (test_suite_jupiter), and
# the systems are paired by those runs.
SUITE = jupiter.SUITE[:jupiter.SUITE.index("[[step]]")]
PASSED = "judged by 3 of 6 seed rules"
STEP = """
[[step]]
name = "easy{nodes}"
workload = "ior"
variant = "easy"
nodes = {nodes}
mkdir = ["{{scratch}}/easy{nodes}"]
args = ["-a", "POSIX", "-C", "-Q", "2", "-g", "-i", "3", "-w", "-r", "-v", "-F",
        "-t", "64k", "-b", "{mib}m", "-s", "1", "-o", "{{scratch}}/easy{nodes}/testFileA"]
""" + jupiter.EASY_FIXED
EASY1, EASY2 = "000-easy1_r0", "001-easy2_r0"
# system -> (block MiB of easy1, of easy2) and the launch of each that passes every rule
SYSTEMS = {"sysA": ((8, 16), EASY2), "sysB": ((16, 8), EASY1)}


def run_campaign(tmp, name):
    (q1, q2), _ = SYSTEMS[name]
    path = tmp / f"{name}.toml"
    path.write_text(SUITE.format(scratch=tmp / f"scratch-{name}")
                    + STEP.format(nodes=1, mib=q1) + STEP.format(nodes=2, mib=q2))
    out = tmp / name / "run"
    proc = run_bounded([sys.executable, "-m", "sonde.suite", "run", str(path), "--out",
                           str(out), "--launcher", "mpirun", "--host", "nodeA,nodeB"],
                          env=suite_env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out, proc.stdout


@pytest.fixture(scope="module")
def systems(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("systems")
    return {name: run_campaign(tmp, name) for name in SYSTEMS}


def statuses(out):
    return {k: v["status"] for k, v in json.loads((out / "verdicts.json").read_text()).items()}


class Tables(HTMLParser):
    """The tables of a written page, by id: rows of cell texts (the DOM the browser gets)."""

    def __init__(self, html):
        super().__init__()
        self.tables, self._table, self._cell = {}, None, None
        self.titles, self._titles = {}, None  # each cell's hover text (title), by table
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and attrs.get("id"):
            self._table = self.tables.setdefault(attrs["id"], [])
            self._titles = self.titles.setdefault(attrs["id"], [])
        elif tag == "tr" and self._table is not None:
            self._table.append([])
            self._titles.append([])
        elif tag in ("td", "th") and self._table is not None:
            self._cell = []
            self._titles[-1].append(attrs.get("title"))

    def handle_endtag(self, tag):
        if tag == "table":
            self._table = self._titles = None
        elif tag in ("td", "th") and self._cell is not None:
            self._table[-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def report(tmp_path, *args):
    """The tables of the page sonde-report writes, and the page."""
    out = tmp_path / "report.html"
    # bounded as a launch: its PNG workers go with it when it outlives its time
    proc = run_bounded([sys.executable, "-m", "sonde.report", *map(str, args), "-o", str(out)],
                       env=suite_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    html = out.read_text()
    return Tables(html).tables, html


def by_column(table, key, value):
    """{row[key]: row[value]} of a table given as rows with its header first."""
    head = table[0]
    return {row[head.index(key)]: row[head.index(value)] for row in table[1:]}


def test_the_campaigns_judge_their_own_runs(systems):
    for name, (out, _) in systems.items():
        compliant = SYSTEMS[name][1]
        assert statuses(out) == {ln: PASSED if ln == compliant else "not-compliant"
                                 for ln in (EASY1, EASY2)}


def test_report_of_both_shows_each_campaign_s_status(systems, tmp_path):
    # one order: the two systems' runs pass different rules, so a status shown under the
    # other campaign fails the check (a report takes 40 s of CI; --compare runs both orders)
    order = ("sysB", "sysA")
    dirs = [systems[name][0] for name in order]
    tables, html = report(tmp_path, *dirs)
    for name in order:  # a score line for each campaign
        assert f"<li>Score of {name}/run: none: no easy POSIX run on more than 64 nodes.</li>" \
            in html
    ior, rules_table = tables["ior-table"], tables["verdicts"]
    head = ior[0]
    # the IOR table's rows by campaign and node count: easy1 ran on 1 node, easy2 on 2
    launch_on = {"1": EASY1, "2": EASY2}
    got = {(row[head.index("campaign")], launch_on[row[head.index("nodes")]]):
           row[head.index("status")] for row in ior[1:]}
    verdict_rows = {(r[0], r[1]): r[2] for r in rules_table[1:]}
    want = {(f"{name}/run", launch): status for name, d in zip(order, dirs, strict=True)
            for launch, status in statuses(d).items()}
    assert got == want and verdict_rows == want
    assert len(ior) == 5 and len(rules_table) == 5


@pytest.mark.parametrize("order", [("sysA", "sysB"), ("sysB", "sysA")])
def test_compare_pairs_each_system_s_best_run(systems, tmp_path, order):
    dirs = [systems[name][0] for name in order]
    tables, html = report(tmp_path, "--compare", *dirs)
    titles = Tables(html).titles
    # both directories are named run: the systems are A and B, in the order given
    for k, d in enumerate(dirs):
        table = tables[f"ior-table-{k}"]
        assert by_column(table, "launch", "status") == statuses(d)
        verdicts = json.loads((d / "verdicts.json").read_text())
        # why a run has its status: on hover over the status (one line per run in the table)
        column = table[0].index("status")
        why = {row[0]: t[column] for row, t in zip(table[1:], titles[f"ior-table-{k}"][1:],
                                                   strict=True)}
        for launch, v in verdicts.items():
            failed = [r for r in v["rules"] if not r["ok"]]
            if failed:
                assert why[launch] == "; ".join(f"{r['rule']}: {r['reason']}" for r in failed)
            else:
                assert why[launch].startswith("all ") and why[launch].endswith(" rules met")
    score = {row[0]: row[1:] for row in tables["systems-score"][1:]}
    assert tables["systems-score"][0][1:] == ["A", "B", "B/A"]
    sums = []
    for name, d in zip(order, dirs, strict=True):
        best = SYSTEMS[name][1]
        s = ior_summary((d / best / "stdout.txt").read_text())
        sums.append(float(s["read"]["Mean(MiB)"]) + float(s["write"]["Mean(MiB)"]))
    best_row = score[BEST_RUN]
    assert float(best_row[0]) == pytest.approx(sums[0], rel=1e-3, abs=0.02)
    assert float(best_row[1]) == pytest.approx(sums[1], rel=1e-3, abs=0.02)
    assert float(best_row[2]) == pytest.approx(sums[1] / sums[0], rel=2e-3)
    nodes = {EASY1: 1, EASY2: 2}
    assert score["its run"][:2] == [
        f"{SYSTEMS[n][1]} on {nodes[SYSTEMS[n][1]]} node{'s' if nodes[SYSTEMS[n][1]] > 1 else ''}"
        for n in order]
    assert score["its nodes"] == [str(nodes[SYSTEMS[n][1]]) for n in order] + ["-"]
    assert score["its status"][:2] == [PASSED, PASSED]
    official = score[next(k for k in score if k.startswith("JUPITER score"))]
    assert official == ["none: no easy POSIX run on more than 64 nodes"] * 2 + ["-"]


def test_score_json_keeps_the_score_and_every_status(systems):
    for name, (out, printed) in systems.items():
        doc = json.loads((out / "score.json").read_text())
        assert doc["status"] == statuses(out)
        assert set(doc["scores"]) == {"jupiter"}
        jupiter = doc["scores"]["jupiter"]
        assert jupiter["value"] is None
        assert jupiter["why_none"] == "no easy POSIX run on more than 64 nodes"
        assert f"Score: none: {jupiter['why_none']}" in printed
        best = SYSTEMS[name][1]
        s = ior_summary((out / best / "stdout.txt").read_text())
        assert jupiter["best_any_nodes"]["launch"] == best
        assert jupiter["best_any_nodes"]["value"] == pytest.approx(
            float(s["read"]["Mean(MiB)"]) + float(s["write"]["Mean(MiB)"]), abs=0.02)
        assert {q["launch"] for q in jupiter["qualitative"]} == {EASY1, EASY2}


@MULTI_NODE[0]
@MULTI_NODE[1]
def test_compare_keeps_apart_runs_placed_otherwise(tmp_path, shm_scratch):
    """The same ior on 4 ranks and 2 nodes, placed 3 + 1 and 2 + 2: ranks, nodes and
    parameters (paths aside) are the same, the load on each node is not, so --compare matches
    neither with the other; each matches a run placed as it was."""
    runs = {}
    for name, hosts in (("uneven", "nodeA:3,nodeB:1"), ("even", "nodeA:2,nodeB:2"),
                        ("even-again", "nodeA:2,nodeB:2")):
        out = tmp_path / f"{name}.jsonl"
        run_sonde(["ior", "-w", "-t", "4k", "-b", "16k", "-i", "2", "-o",
                   str(shm_scratch / name), "--json", str(out)], np=4, hosts=hosts)
        runs[name] = results.load(out)
    headers = {k: v[0].header for k, v in runs.items()}
    # the case, from the records: same ranks and nodes, other ranks on each node
    assert {(h["ranks"], h["nodes"]) for h in headers.values()} == {(4, 2)}
    assert sorted(headers["uneven"]["tasks_on_node"]) == [1, 3]
    assert headers["even"]["tasks_on_node"] == [2, 2]
    paths = argcheck.path_params(SONDE)
    assert compare.match([runs["uneven"], runs["even"]], paths) == []
    [same] = compare.match([runs["even"], runs["even-again"]], paths)
    assert [len(v) for v in same.values] == [2, 2]
