# SPDX-License-Identifier: BSD-3-Clause
"""Systems side by side (sonde-report --compare on suite run directories). A system is the
campaigns of one source; two systems that ran the same suite share every launch id, so each
run's status and reasons are its own campaign's verdict (campaign.py).

Per system, the seed's IOR table with each run's status and why; then the scores side by side
with the ratio to the first system: the JUPITER score (the best compliant easy POSIX run on
more than 64 nodes), each system's best compliant easy POSIX run whatever its node count (how
procurement pairs vendors, each at the node count it chose; a system with no compliant run, a
try at lowered thresholds, is paired by its best run that passed every rule judged, with its
status), and IO500's score where a system
ran an IO500 campaign. A system's score under a rule set its suites do not carry is not
shown as a figure."""

from dataclasses import dataclass

from ..campaign import rules as _rules
from ..campaign import scores
from . import campaign as _campaign
from . import words
from .page import Section, Table, num, text


@dataclass
class System:
    name: str
    source: str
    campaigns: list  # campaign.Campaign, each with its own runs and verdicts
    loose: list  # ior runs of the source that belong to no suite run directory

    def ior_rows(self):
        """[(campaign or None, run, row)] of the system's ior runs with a summary."""
        out = [(c, run, row) for c in self.campaigns for run, row in c.ior_rows()]
        return out + [(None, run, _campaign.ior_table_row(run, _rules.NO_RULES))
                      for run in self.loose]

    def score_sets(self):
        return {s for c in self.campaigns for s in c.score_sets()}

    def io500(self):
        """IO500's result of the system's (first) IO500 campaign, or None."""
        return next((r for r in (c.io500() for c in self.campaigns) if r is not None), None)


def of_sources(names, sources, loaded):
    """The systems of --compare: names[k] of sources[k], whose runs are loaded[k]."""
    out = []
    for name, source, runs in zip(names, sources, loaded, strict=True):
        loose = [r for r in runs if _campaign.dir_of(r) is None and r.workload == "ior"
                 and r.summaries]
        out.append(System(name, str(source), _campaign.of_runs(runs, [source]), loose))
    return out


def status_cell(status, why=None):
    """A launch's status, coloured: compliant green, not-compliant red, no rules grey; why
    (its reasons) on hover."""
    cls = {_rules.COMPLIANT: "good", _rules.NOT_COMPLIANT: "bad",
           _rules.NO_RULES: "muted"}.get(status, "")
    return text(status, cls, tip=why)


def ior_table(k, system):
    cols = _rules.IOR_TABLE
    several = len(system.campaigns) > 1
    rows = []
    for c, run, r in system.ior_rows():
        launch = r["launch"] or run.run_id
        verdict = c.verdicts.get(r["launch"]) if c else None
        why = _campaign.why(verdict) if verdict else (
            "no verdict: not a suite run" if c is None else "no verdict in verdicts.json")
        rows.append([text(f"{c.name}: {launch}" if several and c else launch, "name",
                          tip=f"run id {run.run_id}")]
                    + [text(r[col]) if col == "api" else num(r[col]) for col in cols]
                    + [num(r["nodes"]), num(r["ranks"]), num(r["tasks_per_node"]),
                       status_cell(r["status"], why)])
    return Table(f"ior-table-{k}", f"IOR results of {system.name} (the JUPITER table)",
                 ["launch"] + cols + ["nodes", "ranks", "tasks per node", "status"],
                 rows, f"{system.source}: MiB/s and seconds from IOR's Summary of all tests; "
                       "the status is this system's own verdict (verdicts.json), why on hover "
                       "(one line per run, like the seed's table).")


def _ratio(values, k):
    a, b = values[0], values[k]
    return num(b / a if a and b is not None else None)


def _figure_row(what, cells, values):
    """A row of the scores table: what, then each system's cell and (after the first) the
    ratio of its value to the first system's."""
    row = [text(what)]
    for k, cell in enumerate(cells):
        row.append(cell)
        if k:
            ratio = _ratio(values, k)
            if ratio.value is not None:
                ratio.cls = "good" if ratio.value > 1 else "bad" if ratio.value < 1 else ""
            row.append(ratio)
    return row


def _score_cell(s, carried):
    """A system's cell of a rules.Score: its value (the run it comes from as the tip), or why
    there is none."""
    if not carried:
        return text("not scored: no JUPITER rules in its suite", "muted")
    if s.value is None:
        return text(f"none: {s.why_none}", "muted")
    cell = num(s.value)
    cell.tip = f"{s.row['launch']} on {words.plural(s.row['nodes'], 'node')}"
    return cell


BEST_RUN = ("best easy POSIX run at any node count (compliant; else one that passed every rule "
            "it was judged by): RDbwmean + WRbwmean, MiB/s")


def _jupiter_rows(systems):
    carried = [scores.JUPITER in s.score_sets() for s in systems]
    rowsets = [[r for _, _, r in s.ior_rows()] for s in systems]
    rows = []
    for what, score_of in ((f"JUPITER score, MiB/s ({scores.JUPITER_RULE})", _rules.score),
                           (BEST_RUN, scores.best_run)):
        got = [score_of(r) if on else None for r, on in zip(rowsets, carried, strict=True)]
        rows.append(_figure_row(what, [_score_cell(g, on) for g, on in zip(got, carried,
                                                                           strict=True)],
                                [g.value if g else None for g in got]))
    best = [scores.best_run(r).row if on else None
            for r, on in zip(rowsets, carried, strict=True)]
    none = [None] * len(systems)
    rows.append(_figure_row("its run", [text(b and f"{b['launch']} on "
                                             f"{words.plural(b['nodes'], 'node')}")
                                        for b in best], none))
    rows.append(_figure_row("its status", [status_cell(b["status"]) if b else text(None)
                                           for b in best], none))
    rows.append(_figure_row("its nodes", [num(b and b["nodes"]) for b in best], none))
    for key in ("RDbwmean", "WRbwmean"):
        values = [b and b[key] for b in best]
        rows.append(_figure_row(f"its {key}, MiB/s", [num(v) for v in values], values))
    for status in (_rules.COMPLIANT, _rules.NOT_COMPLIANT):
        rows.append(_figure_row(f"{status} runs of the IOR table", [
            text(f"{sum(1 for r in rs if r['status'] == status)} of {len(rs)}")
            for rs in rowsets], none))
    return rows


def _io500_rows(systems):
    results = [s.io500() for s in systems]
    rows = []
    for what, get in (("IO500 score", lambda r: r.score),
                      ("IO500 bandwidth, GiB/s", lambda r: r.bw),
                      ("IO500 metadata, kIOPS", lambda r: r.md)):
        values = [get(r) if r else None for r in results]
        rows.append(_figure_row(what, [num(v) if r else text("not an IO500 campaign", "muted")
                                       for v, r in zip(values, results, strict=True)], values))
    rows.append(_figure_row("IO500 validity", [
        text(None) if r is None else text("valid", "good") if r.valid else
        text("INVALID: " + "; ".join(scores.io500(r)["reasons"]), "bad") for r in results],
        [None] * len(systems)))
    return rows


def section(systems):
    """The section of systems side by side, or None when no source is a suite run directory
    with IOR runs or an IO500 campaign."""
    if not any(s.campaigns for s in systems):
        return None
    tables = [ior_table(k, s) for k, s in enumerate(systems) if s.ior_rows()]
    rows = []
    if any(scores.JUPITER in s.score_sets() for s in systems):
        rows += _jupiter_rows(systems)
    if any(scores.IO500 in s.score_sets() for s in systems):
        rows += _io500_rows(systems)
    cols = ["figure"]
    for k, s in enumerate(systems):
        cols += [s.name] + ([f"{s.name}/{systems[0].name}"] if k else [])
    if rows:
        tables.insert(0, Table("systems-score", "Scores side by side", cols, rows,
                               "Each system's score under the rule sets its own suites carry, "
                               "and its best compliant easy POSIX run whatever its node count "
                               "(each system at the node count it chose); the ratio is to the "
                               f"first system, {systems[0].name}: green where higher."))
    if not tables:
        return None
    intro = []
    for s in systems:
        statuses = [r["status"] for _, _, r in s.ior_rows()]
        counted = ", ".join(f"{statuses.count(st)} {st}" for st in dict.fromkeys(statuses))
        suites = ", ".join(dict.fromkeys(c.manifest.get("suite_name", "?")
                                         for c in s.campaigns)) or "no suite"
        intro.append(f"{s.name} ({s.source}): suite {suites}; "
                     f"{len(statuses)} IOR runs" + (f": {counted}" if counted else "") + ".")
    return Section("systems", "Systems side by side", intro, tables)
