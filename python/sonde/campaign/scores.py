# SPDX-License-Identifier: BSD-3-Clause
"""The scores a campaign carries, and score.json, the run directory's record of them.

A campaign is scored by the rule sets of its own suite and by no other:

- IO500's (io500.py) when its suite says score = "io500", and then only IO500's;
- the JUPITER seed's (rules.score) when it is not an IO500 campaign and judges an ior launch
  by one of the seed's IOR rules (the rules made for ior: rules.RULES with "ior" in their
  workloads);
- none otherwise: the quick suite runs ior under no rule, a suite that only verifies its data
  carries no procurement rule set.

RUN_DIR/score.json (docs/suites.md): the suite, whether it ran at reduced scale, each launch's
status, and under "scores" one entry per rule set the suite carries.
"""

import json
from pathlib import Path

from . import rules

JUPITER, IO500 = "jupiter", "io500"
SCORE_FILE = "score.json"
JUPITER_RULE = ("RDbwmean + WRbwmean of the best compliant easy POSIX run on more than "
                f"{rules.SCORE_MIN_NODES - 1} nodes")
# Procurement compares systems by each one's best compliant easy POSIX run, whatever its node
# count: rules.score with every node count admitted.
ANY_NODES = 1


def rule_sets(score, ior_rules):
    """The score sets of a campaign: score is its suite's score setting, ior_rules the rule
    names of each of its ior launches."""
    if score == IO500:
        return [IO500]
    if any(_seed_ior_rule(name) for names in ior_rules for name in names):
        return [JUPITER]
    return []


def _seed_ior_rule(name):
    rule = rules.RULES.get(name)
    return rule is not None and rule.workloads is not None and "ior" in rule.workloads


def of_suite(suite):
    """rule_sets of a loaded suite file."""
    return rule_sets(suite.score, [ln.rules for ln in suite.launches
                                   if ln.workload == "ior" and not ln.touch])


def of_run_dir(score, workloads, verdicts):
    """rule_sets of a run directory: its manifest's score, {launch id: workload} of its
    manifest, and its verdicts (each lists the rules that judged the launch)."""
    return rule_sets(score, [[r["rule"] for r in v["rules"]] for launch, v in verdicts.items()
                             if workloads.get(launch) == "ior"])


def row_sum(row):
    """The figure the seed scores a row by: RDbwmean + WRbwmean (MiB/s)."""
    return row["RDbwmean"] + row["WRbwmean"]


def passed_all_judged(row):
    """A row that passed every rule it was judged by without being judged by the seed's all
    at the seed's strength (status "judged by N of M seed rules")."""
    return str(row.get("status", "")).startswith("judged by ")


def best_run(rows):
    """The best compliant easy POSIX row at any node count (a rules.Score), what two systems
    are paired by. A campaign with no compliant run (a try at lowered thresholds) is paired by
    its best run that passed every rule it was judged by: its row keeps that status, which the
    comparison shows."""
    best = rules.score(rows, min_nodes=ANY_NODES)
    if best.row is not None:
        return best
    passed = [dict(r, status=rules.COMPLIANT) for r in rows if passed_all_judged(r)]
    found = rules.score(passed, min_nodes=ANY_NODES)
    if found.row is None:
        return best
    row = next(r for r in rows if r["launch"] == found.row["launch"] and passed_all_judged(r))
    return rules.Score(found.value, row, best.qualitative, "")


def jupiter(rows):
    """The JUPITER score of a campaign's IOR table rows, as score.json keeps it."""
    s = rules.score(rows)
    best = best_run(rows).row
    return {"rule": JUPITER_RULE, "unit": "MiB/s", "value": s.value,
            "launch": s.row["launch"] if s.row else None,
            "nodes": s.row["nodes"] if s.row else None, "why_none": s.why_none or None,
            "qualitative": [{"launch": r["launch"], "nodes": r["nodes"], "value": row_sum(r),
                             "status": r["status"]} for r in s.qualitative],
            "best_any_nodes": None if best is None else {
                "launch": best["launch"], "nodes": best["nodes"], "value": row_sum(best)}}


def io500(result):
    """IO500's score of a campaign (an io500.Io500Result), as score.json keeps it."""
    reasons = list(result.reasons) + [f"{p.name}: {why}" for p in result.phases
                                      for why in p.reasons]
    return {"rule": "IO500: sqrt(BW x MD)", "value": result.score, "bw_gib_s": result.bw,
            "md_kiops": result.md, "valid": result.valid, "reasons": reasons}


def document(suite, verdicts, ior_rows, io500_result=None):
    """score.json of a finished campaign: the suite's verdicts, its IOR table rows and IO500's
    result (None unless it is an IO500 campaign)."""
    scores = {}
    sets = of_suite(suite)
    if JUPITER in sets:
        scores[JUPITER] = jupiter(ior_rows)
    if IO500 in sets and io500_result is not None:
        scores[IO500] = io500(io500_result)
    return {"suite": suite.name, "reduced_scale": suite.reduced_scale,
            "status": {launch: v["status"] for launch, v in verdicts.items()},
            "scores": scores}


def save(run_dir, doc):
    path = Path(run_dir) / SCORE_FILE
    path.write_text(json.dumps(doc, indent=1) + "\n")
    return path
