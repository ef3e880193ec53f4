# SPDX-License-Identifier: BSD-3-Clause
"""Suite run directories as sonde-report reads them. A verdict belongs to one campaign (one run
directory) and one launch of it: two systems that ran the same suite have the same launch ids,
so everything here is keyed by (campaign, launch id), never by the launch id alone.

A campaign holds its manifest, its verdicts (verdicts.json), the runs loaded from it, its IOR
table rows with each launch's own status, and the scores its suite carries (scores.py)."""

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..campaign import io500, scores
from ..campaign import rules as _rules
from ..results.manifest import Manifest
from ..results.names import Header
from . import words

VERDICTS = "verdicts.json"


def _json(path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def dir_of(run):
    """The suite run directory a run belongs to (RUN_DIR of RUN_DIR/<launch id>/results.jsonl
    whose manifest lists that launch), or None for a results file of no suite."""
    if run.launch is None or run.path is None:
        return None
    return Path(run.path).resolve().parent.parent


def why(verdict):
    """The reasons of a launch's status: the rules that did not hold, or that all held."""
    bad = [f"{r['rule']}: {r['reason']}" for r in verdict["rules"] if not r["ok"]]
    judged = [r for r in verdict["rules"] if r["rule"] != "exit_ok"]
    if bad:
        return "; ".join(bad)
    return "the step lists no rule" if not judged else \
        f"all {words.plural(len(judged), 'rule')} met"


def ior_table_row(run, status):
    """The seed's table row of an ior run (rules.ior_row) with what the score selects on: its
    launch, variant, shape from the header, and status."""
    launch = run.launch or {}
    h = run.header or {}
    return dict(_rules.ior_row(run), launch=launch.get("id"), variant=launch.get("variant") or "",
                nodes=h.get(Header.NODES), ranks=h.get(Header.RANKS),
                tasks_per_node=h.get(Header.TASKS_PER_NODE), status=status)


@dataclass
class Campaign:
    dir: Path
    name: str
    manifest: dict
    verdicts: dict  # launch id -> {"status", "rules"}, this campaign's only
    runs: list = field(default_factory=list)

    @property
    def workloads(self):
        return {e["id"]: e.get("workload") for e in self.manifest.get("launches", [])}

    def status(self, launch_id):
        return self.verdicts.get(launch_id, {}).get("status", _rules.NO_RULES)

    def score_sets(self):
        return scores.of_run_dir(self.manifest.get("score"), self.workloads, self.verdicts)

    def ior_rows(self):
        """[(run, row)]: the seed's table row of each ior run with a summary, its status this
        campaign's verdict of its launch."""
        return [(run, ior_table_row(run, self.status((run.launch or {}).get("id"))))
                for run in self.runs if run.workload == "ior" and run.summaries]

    def io500(self):
        """IO500's result of the campaign, None unless it is an IO500 campaign."""
        return io500.evaluate_run_dir(self.dir) if self.manifest.get("score") == "io500" \
            else None


def names_of(dirs):
    """A short distinct name for each directory: its name, or as many trailing parts of its
    path as tell it from the others (systems/A/run and systems/B/run: A/run and B/run)."""
    parts = [d.parts for d in dirs]
    for n in range(1, max((len(p) for p in parts), default=1) + 1):
        names = ["/".join(p[-n:]) for p in parts]
        if len(set(names)) == len(names):
            return names
    return [str(d) for d in dirs]


def of_runs(runs, sources=()):
    """The campaigns of runs, in first-seen order: each suite run directory they come from,
    and each source directory that holds a manifest (a campaign whose every launch failed
    left no runs). Each holds its own runs only."""
    found = {}
    for d in [Path(s).resolve() for s in sources if Manifest.find(s) is not None]:
        found.setdefault(d, [])
    for run in runs:
        d = dir_of(run)
        if d is not None:
            found.setdefault(d, []).append(run)
    dirs = list(found)
    return [Campaign(d, name, Manifest.load(d).data, _json(d / VERDICTS) or {}, found[d])
            for d, name in zip(dirs, names_of(dirs), strict=True)]
