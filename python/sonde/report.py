# SPDX-License-Identifier: BSD-3-Clause
"""sonde-report: one self-contained HTML file (interactive figures with BokehJS inlined, no
network) with PNGs beside it, organised by question: what ran and what failed, then one
section per workload (summary table, bandwidth per iteration, scaling, latency, per-call
timelines, collectives), the procurement tables (IOR table and score, IO500 when present,
the rules' verdicts), and the run environment. --compare A B [C ...] puts campaigns side by
side with ratios, marked within noise where the runs' ranges overlap.

build() and build_comparison() make a Page (tables of cells, figures of numbers: what the tests
check against the records); write() renders it."""

import argparse
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape

from . import results as _results
from .campaign import argcheck, scores
from .campaign import rules as _rules
from .cli import EXIT_USAGE
from .results import ResultsError, load
from .results.manifest import Manifest
from .results.names import COLL, TRAIN, COLLExtra
from .suite import default_sonde
from .views import campaign as _campaign
from .views import compare as _compare
from .views import (
    mix_report,
    plots,
    render_html,
    render_png,
    stragglers,
    systems,
    train_report,
    words,
)
from .views import summary as _summary
from .views.page import Cell, Page, Section, Table, num, text

PROG = "sonde-report"
VERSION = "0.1.0"


# ---- what ran, what failed ------------------------------------------------------------------

def run_status(run):
    """(text, cls): "ok", "exit N: reason", or for a run without an end record how it ended
    (Run.ending: killed by the launcher)."""
    if run.end is None:
        return ((run.ending or "did not finish") + (" (file cut short)" if run.truncated
                                                    else ""), "bad")
    if run.end["exit_code"] == 0:
        return "ok", "good"
    return f"exit {run.end['exit_code']}: {run.end.get('reason', '?')}", "bad"


def launch_entry(run):
    """The manifest's entry of a suite launch's run (its status, exit code and reason as
    sonde-suite saw them: "timed out after 300 s"), or None."""
    return run.launch if _campaign.dir_of(run) is not None else None


NO_RESULTS = " (suite launch, no results)"


def suite_reason(entry):
    """The reason sonde-suite gives for a launch that failed ("timed out after 300 s"), when it
    says more than the run's own end record (which a stopped run may not have)."""
    if entry.get("status") in (None, "ok", "pending") or not entry.get("reason"):
        return None
    return entry["reason"] if not entry["reason"].startswith("exit code") else None


def failures(runs, labels, dirs):
    """[(run cell, result, why, path, failing rank)] of every run that did not end with exit
    code 0 and every suite launch that left no results. A run without an end record takes its
    suite launch's reason (a launch sonde-suite stopped after its timeout keeps "timed out
    after N s")."""
    failed = []
    for run in runs:
        status, cls = run_status(run)
        if cls != "bad":
            continue
        end, entry = run.end or {}, launch_entry(run) or {}
        why = end.get("error") or (None if end else
                                   "the launcher killed it (SIGKILL: srun turns its own SIGTERM "
                                   "into one), or it is still running")
        if suite_reason(entry):  # the suite stopped it: its reason first, the run's after
            status, why = entry["reason"], "; ".join(w for w in (status, why) if w)
        failed.append((_run_cell(run, labels), text(status, "bad"), text(why),
                       text(end.get("path")), num(end.get("rank"))))
    for d in dirs:
        for e in _manifest(d).get("launches", []):
            if e.get("status") not in ("ok", "pending") and not (d / e["id"] /
                                                                  "results.jsonl").exists():
                failed.append((text(f"{e['id']}{NO_RESULTS}"),
                               text(f"{e.get('status')}: exit {e.get('exit_code')}", "bad"),
                               text(e.get("reason")), text(None), num(None)))
    return failed


def overview(runs, labels, dirs):
    facts = []
    versions = sorted({f"{h['sonde_version']} ({h.get('git_describe', '?')})"
                       for h in (r.header for r in runs) if h})
    mpis = sorted({(r.header or {}).get("mpi_library") for r in runs} - {None})
    fss = sorted({f"{fs['type']} at {fs['mount'] or fs['path']}"
                  for fs in ((r.header or {}).get("filesystem") for r in runs) if fs})
    hosts = sorted({h for r in runs for h in (r.header or {}).get("hostnames", [])})
    ranks = [(r.header or {}).get("ranks") for r in runs if r.header]
    starts = sorted((r.header or {}).get("start_time") for r in runs if r.header)
    failed = failures(runs, labels, dirs)
    facts.append((f"{run_count(runs, failed)}," if failed else words.plural(len(runs), "run"))
                 + " of "
                 f"{', '.join(dict.fromkeys(r.workload for r in runs))}"
                 + (f", {min(ranks)} to {max(ranks)} ranks" if ranks and min(ranks) != max(ranks)
                    else f", {words.plural(ranks[0], 'rank')} each" if ranks else "")
                 + (f", on {words.plural(len(hosts), 'node')}" if hosts else "")
                 + (f", from {starts[0]} to {starts[-1]}" if starts else "") + ".")
    if versions:
        facts.append("sonde " + ", ".join(versions) + "; MPI: " + "; ".join(mpis) + ".")
    if fss:
        facts.append("File systems: " + "; ".join(fss) + ".")
    rows = []
    for run in runs:
        h = run.header or {}
        status, cls = run_status(run)
        status = suite_reason(launch_entry(run) or {}) or status
        rows.append([_run_cell(run, labels), text(run.workload),
                     num(h.get("ranks")), num(h.get("nodes")), text(h.get("start_time")),
                     num((run.end or {}).get("elapsed_seconds")),
                     num(len(run.measurements)), text(status, cls)])
    ran = Table("runs", "What ran", ["run", "workload", "ranks", "nodes", "start (UTC)",
                                      "seconds", "measurements", "result"], rows)
    tables = [ran]
    if failed:
        tables.append(Table("failures", "What failed and why",
                            ["run", "result", "why", "path", "failing rank"],
                            [list(f) for f in failed],
                            "From each run's end record (its reason, the one-line error, the "
                            "path and rank it concerns), the suite's reason for a run it "
                            "stopped (its timeout), and the suite launches that left no "
                            "results."))
    else:
        facts.append("Every run finished with exit code 0.")
    return Section("overview", "Overview", facts, tables)


def _manifest(d):
    """The manifest of a source directory as a dict, {} when it is not a suite run directory."""
    found = Manifest.find(d)
    return found.data if found else {}


# ---- per workload ---------------------------------------------------------------------------

def measurements_frame(runs):
    """The runs' measurements as sonde.results.to_dataframe gives them (one row each, in run
    order), with each row's figure and unit by plots.figure_of: what the summary tables
    aggregate."""
    df = _results.to_dataframe(runs)
    if df.empty:
        return df
    plain = df.astype(object).where(df.notna(), None)
    figures = [plots.figure_of(r) for r in plain.to_dict("records")]
    return df.assign(figure=[f for f, _ in figures], unit=[u for _, u in figures])


def phase_figures(g):
    """The figures of one run's phase over its iterations (rows of measurements_frame): first
    (iteration 0, when there are later ones), mean (of the later iterations, or of all when
    there is only one), min, max, mean seconds."""
    values = [v for v in g["figure"] if v is not None]
    if not values:
        return {}
    iterated = len(values) > 1 and g["iteration"].iloc[0] == 0
    later = values[1:] if iterated else values
    return {"first": values[0] if iterated else None, "mean": sum(later) / len(later),
            "min": min(values), "max": max(values), "seconds": float(g["seconds"].mean())}


def verification(g):
    checked = g[g["verify_checked"].fillna(False)]
    if checked.empty:
        return text("not checked", "muted")
    errors = int(checked["verify_errors"].sum())
    return text("ok" if not errors else f"{errors} errors", "good" if not errors else "bad")


def _run_cell(run, labels):
    return text(labels(run), tip=f"run id {run.run_id}")


def _short_run_cell(run, labels):
    """The run in one line (wide tables of numbers, like the seed's): its whole label and id
    on hover."""
    return text(labels.short(run), "name", tip=f"{labels(run)} (run id {run.run_id})")


def drop_empty_columns(table, optional):
    """The table without those of the optional columns where no row has a figure: a column
    of "-" says nothing (p50 and p99 of collectives timed without per-call timing)."""
    _drop(table, [k for k, c in enumerate(table.columns)
                  if c in optional and all(row[k].text == "-" for row in table.rows)])
    return table


def _drop(table, gone):
    table.columns = [c for k, c in enumerate(table.columns) if k not in gone]
    table.rows = [[cell for k, cell in enumerate(row) if k not in gone] for row in table.rows]


def io_summary(df, by_id, labels):
    rows = []
    for (run_id, phase), g in df.groupby(["run_id", "phase"], sort=False):
        f = phase_figures(g)
        rows.append([_run_cell(by_id[run_id], labels), text(phase, "short"),
                     text(g["unit"].iloc[0] or "-", "short"), num(len(g)), num(f.get("first")),
                     num(f.get("mean")), num(f.get("min")), num(f.get("max")),
                     num(f.get("seconds")), verification(g)])
    return Table(f"{df['workload'].iloc[0]}-summary", "Summary per run and phase",
                 ["run", "phase", "unit", "iterations", "first iteration",
                  "mean after the first", "min", "max", "mean seconds", "verification"], rows,
                 "Bandwidth in MiB/s where the phase moved data, else operations per second "
                 "(always for the metadata workloads). The first iteration touches files and "
                 "caches first: it is shown apart and the mean is of the later iterations (of "
                 "the one measurement when there is only one). Min and max are over every "
                 "iteration.")


def _value(v, scale=1.0):
    return None if v is None or v != v else float(v) * scale


def coll_summary(df, by_id, labels):
    comm, size = f"param.{COLL.COMM}", f"param.{COLL.SIZE}"
    rows = []
    for run_id, runs in df.groupby("run_id", sort=False):
        ordered = runs.assign(_comm=runs[comm].fillna("")).sort_values(
            ["phase", "_comm", size], kind="stable")
        for r in ordered.astype(object).where(ordered.notna(), None).to_dict("records"):
            per_call = r[f"param.{COLL.TIMING}"] == "per-call"
            n = r[size]
            rows.append([_short_run_cell(by_id[run_id], labels), text(r["phase"], "name"),
                         text(r[comm], "name"),
                         Cell(words.size(n), float(n) if n is not None else None),
                         num(r["ops"]), num(_value(r[f"extra.{COLLExtra.AVG_US}"])),
                         num(_value(r[f"extra.{COLLExtra.MIN_US}"])),
                         num(_value(r[f"extra.{COLLExtra.MAX_US}"])),
                         num(_value(r["lat_p50_s"], 1e6) if per_call else None),
                         num(_value(r["lat_p99_s"], 1e6) if per_call else None),
                         text(words.COLL_TIMING.get(r[f"param.{COLL.TIMING}"],
                                                    r[f"param.{COLL.TIMING}"]))])
    return drop_empty_columns(Table("coll-summary", "Latency per operation and message size",
                 ["run", "operation", "communicator", "message size", "iterations",
                  "mean µs", "fastest rank µs", "slowest rank µs", "p50 µs", "p99 µs",
                  "timing"], rows,
                 "Mean, fastest and slowest rank: mpiBench's figures (each rank's mean time "
                 "per call, averaged, least and greatest over ranks). p50 and p99 are of "
                 "every call, with per-call timing only (their columns are left out when no "
                 "run timed per call)."), ("p50 µs", "p99 µs"))


def workload_sections(runs, labels, figures):
    sections = []
    by_workload = {}
    for run in runs:
        if run.measurements or run.profiles:
            by_workload.setdefault(run.workload, []).append(run)
    df = measurements_frame(runs)
    by_id = {r.run_id: r for r in runs}
    for workload in by_workload:
        mine = df[df["workload"] == workload] if not df.empty else df
        if mine.empty:
            tables = []
        elif workload == COLL.workload:
            tables = [coll_summary(mine, by_id, labels)]
        else:
            tables = [io_summary(mine, by_id, labels)]
        if workload == TRAIN.workload:
            tables += train_report.tables(by_workload[workload], labels)
        sections.append(Section(workload, workload, [], tables,
                                [f for f in figures if f.section == workload]))
    return sections


# ---- procurement tables ---------------------------------------------------------------------

def jupiter_score_line(name, rows):
    """The JUPITER score of one campaign's IOR rows, as a sentence (name: the campaign's, when
    the page holds several)."""
    s = _rules.score(rows)
    of = f" of {name}" if name else ""
    if s.value is None:
        return f"Score{of}: none: {s.why_none}."
    return (f"Score{of} ({scores.JUPITER_RULE}): {s.value:.1f} MiB/s ({s.row['launch']}, "
            f"{s.row['nodes']} nodes).")


def procurement(runs, labels, campaigns):
    """The seed's IOR table, each campaign's scores and the rules' verdicts; a launch's status
    is always its own campaign's verdict of it (two systems that ran one suite share launch
    ids)."""
    several = len(campaigns) > 1
    tables, intro = [], []
    ior_rows = [(c.name, run, row) for c in campaigns for run, row in c.ior_rows()]
    ior_rows += [(None, run, _campaign.ior_table_row(run, _rules.NO_RULES)) for run in runs
                 if _campaign.dir_of(run) is None and run.workload == "ior" and run.summaries]
    if ior_rows:
        cols = _rules.IOR_TABLE
        rows = [[_short_run_cell(run, labels)]
                + ([text(name, "name")] if several else [])
                + [text(r[c]) if c == "api" else num(r[c]) for c in cols]
                + [num(r["nodes"]), num(r["ranks"]), num(r["tasks_per_node"]),
                   systems.status_cell(r["status"])] for name, run, r in ior_rows]
        tables.append(Table("ior-table", "IOR results (the JUPITER table)",
                            ["run"] + (["campaign"] if several else []) + cols
                            + ["nodes", "ranks", "tasks per node", "status"],
                            rows, "MiB/s and seconds over each run's iterations, from IOR's "
                            "Summary of all tests (the run's summary records); the status is "
                            "the verdict of the run's own campaign."))
    intro += score_lines(campaigns)
    tables += io500_tables(campaigns)[1]
    rows = [([text(c.name)] if several else [])
            + [text(launch, "name"), status, why]
            for c in campaigns for launch, (status, why) in launch_verdicts(c).items()]
    if rows:
        tables.append(Table("verdicts", "Rules", (["campaign"] if several else [])
                            + ["launch", "status", "why"], rows,
                            "Each launch under the rules its suite step lists (docs/suites.md), "
                            "as its own campaign judged it. A launch whose step lists none reads "
                            "\"no rules\": it is never called compliant."))
    if not tables:
        return None
    return Section("procurement", "Procurement tables", intro, tables)


FAILED = "failed"


def launch_verdicts(c):
    """{launch id: (status cell, why cell)} of a campaign: its rules' verdict, or "failed" with
    the suite's reason for a launch that failed (a launch that timed out is not "no rules")."""
    entries = {e.get("id"): e for e in c.manifest.get("launches", [])}
    out = {}
    for launch, v in c.verdicts.items():
        e = entries.get(launch) or {}
        if e.get("status") not in (None, "ok", "pending"):
            out[launch] = (text(FAILED, "bad"),
                           text(e.get("reason") or f"exit code {e.get('exit_code')}"))
        else:
            out[launch] = (systems.status_cell(v["status"]), text(_campaign.why(v)))
    return out


def verdict_counts(c):
    """"10 compliant, 2 failed": how many launches of the campaign have each status."""
    counts = {}
    for status, _ in launch_verdicts(c).values():
        counts[status.text] = counts.get(status.text, 0) + 1
    return ", ".join(f"{n} {status}" for status, n in counts.items())


def score_lines(campaigns):
    """Each campaign's score sentences: JUPITER's where its suite carries it, IO500's."""
    several = len(campaigns) > 1
    said = [jupiter_score_line(c.name if several else None, [r for _, r in c.ior_rows()])
            for c in campaigns if scores.JUPITER in c.score_sets()]
    return said + io500_tables(campaigns)[0]


def summary(runs, labels, dirs, campaigns):
    """The first section of every report: how many runs and how many failed (each with its
    reason), the launches' verdicts, the scores, and the headline figures per workload."""
    facts = summary_facts(runs, labels, dirs, campaigns)
    headlines = _summary.headlines(*succeeded_frame(runs, labels))
    return Section("summary", "Summary", facts,
                   [_summary.table([headlines], [None])] if headlines else [])


def run_count(runs, failed):
    """"22 runs, 2 failed": the runs and the suite launches that left none, and how many of
    them failed."""
    no_results = sum(1 for f in failed if f[0].text.endswith(NO_RESULTS))
    return (f"{words.plural(len(runs) + no_results, 'run')}, "
            + (f"{len(failed)} failed" if failed else "none failed")
            + (f" ({no_results} of them left no results)" if no_results else ""))


def summary_facts(runs, labels, dirs, campaigns, name=None):
    """The summary's sentences of one campaign (name: its name when the page compares)."""
    failed = failures(runs, labels, dirs)
    of = f"{name}: " if name else ""
    facts = [of + run_count(runs, failed) + "."]
    facts += [f"{of}failed: {f[0].text}: {f[1].text}"
              + (f" ({f[2].text})" if f[2].text not in ("-", f[1].text) else "") + "."
              for f in failed]
    several = len(campaigns) > 1
    for c in campaigns:
        if c.verdicts:
            said = f"verdicts{f' of {c.name}' if several else ''}: {verdict_counts(c)}."
            facts.append(of + said if of else said[0].upper() + said[1:])
    return facts + score_lines(campaigns)


def comparison_summary(names, sources, campaigns):
    """The summary of each campaign, side by side: its sentences, and one headline table with
    a group of columns per campaign."""
    facts, per_campaign = [], []
    for name, source, runs in zip(names, sources, campaigns, strict=True):
        labels = words.Labels(runs)
        facts += summary_facts(runs, labels, _dirs([source]),
                               _campaign.of_runs(runs, [source]), name)
        per_campaign.append(_summary.headlines(*succeeded_frame(runs, labels)))
    return Section("summary", "Summary", facts,
                   [_summary.table(per_campaign, names)] if any(per_campaign) else [])


def succeeded_frame(runs, labels):
    """(measurements_frame of the runs that ended with exit code 0, a run id's short name): a
    figure of a run that failed is never a headline."""
    ok = [r for r in runs if run_status(r)[1] != "bad"]
    return measurements_frame(ok), {r.run_id: labels.short(r) for r in ok}.get


def io500_tables(campaigns):
    """(sentences, tables) of each IO500 campaign: its score line and one row per phase, from
    sonde.campaign.io500.evaluate_run_dir (the result's bw, md, score, valid and reasons, and
    rows(): phase, group, value, unit, seconds, valid, reasons)."""
    said, tables = [], []
    for c in campaigns:
        result = c.io500()
        if result is None:
            continue
        verdict = "valid" if result.valid else "INVALID" + (
            f": {'; '.join(result.reasons)}" if result.reasons else "")
        said.append(f"IO500 ({c.name}): score {result.score:.4g}, bandwidth {result.bw:.4g} "
                    f"GiB/s, metadata {result.md:.4g} kIOPS, {result.procs} ranks: {verdict}.")
        rows = [[text(r["phase"]), text(r["group"] or "-"), num(r["value"]), text(r["unit"]),
                 num(r["seconds"]),
                 text("valid", "good") if r["valid"] else text("INVALID", "bad"),
                 text("; ".join(r["reasons"]) or None)] for r in result.rows()]
        tables.append(Table(f"io500-{len(tables)}", f"IO500 phases ({c.name})",
                            ["phase", "group", "score", "unit", "seconds", "validity", "why"],
                            rows, "Each phase's score as IO500 computes it (GiB/s for the IOR "
                            "phases, kIOPS for the metadata ones); BW and MD are the geometric "
                            "means of their group, the score their geometric mean."))
    return said, tables


# ---- environment ----------------------------------------------------------------------------

def environment(runs, labels):
    """Every run's environment; what is the same for every run (sonde, MPI, hosts, ...) is
    said once above the table instead of repeated in a column of long identical cells."""
    rows = []
    for run in runs:
        h = run.header or {}
        fs = h.get("filesystem") or {}
        slurm = h.get("slurm") or {}
        hosts = h.get("hostnames", [])
        rows.append([text(run.run_id, "name"), _short_run_cell(run, labels),
                     text(h.get("start_time"), "name"),
                     text(f"{h.get('sonde_version', '-')} ({h.get('git_describe', '-')})"),
                     text(h.get("mpi_library")), num(h.get("ranks")),
                     num(h.get("tasks_per_node")),
                     text(", ".join(hosts[:8]) + (f" and {len(hosts) - 8} more"
                                                  if len(hosts) > 8 else "")),
                     # the path is in the command line
                     text(f"{fs.get('type', '-')} at {fs.get('mount', '')}" if fs else None),
                     text(slurm.get("job_id")), text(" ".join(h.get("command_line", [])),
                                                     "text code")])
    table = Table("environment", "Every run", ["run id", "run", "start (UTC)", "sonde", "MPI",
                                               "ranks", "tasks per node", "hosts",
                                               "file system", "Slurm job", "command line"],
                  rows)
    return Section("environment", "Run environment",
                   common_columns(table, ("sonde", "MPI", "hosts", "Slurm job")), [table])


def common_columns(table, candidates):
    """Takes out of the table those of the candidate columns whose cells all read the same,
    when there are several rows; returns them as sentences ("MPI: Open MPI 4.1.4.")."""
    said, gone = [], []
    for k, c in enumerate(table.columns):
        values = {row[k].text for row in table.rows}
        if c in candidates and len(table.rows) > 1 and len(values) == 1:
            said.append(f"{c} (every run): {values.pop()}.")
            gone.append(k)
    _drop(table, gone)
    return said


# ---- the page -------------------------------------------------------------------------------

def _dirs(sources):
    return [Path(p) for p in sources if Path(p).is_dir()]


def build(sources, runs=None):
    """The report of results files and run directories."""
    runs = runs if runs is not None else load(*sources)
    labels = words.Labels(runs)
    figures = [f for view in (*plots.ALL, stragglers.finish_times, train_report.figures)
               for f in view(runs, labels)]
    dirs = _dirs(sources)
    campaigns = _campaign.of_runs(runs, sources)
    sections = [summary(runs, labels, dirs, campaigns), overview(runs, labels, dirs)] \
        + workload_sections(runs, labels, figures)
    mixed = mix_report.section(runs, labels)
    if mixed:
        sections.append(mixed)
    proc = procurement(runs, labels, campaigns)
    if proc:
        sections.append(proc)
    sections.append(environment(runs, labels))
    names = [_manifest(d).get("suite_name") for d in dirs]
    title = "sonde report" + (f": suite {', '.join(n for n in names if n)}"
                              if any(names) else "")
    return Page(title, [str(s) for s in sources], sections)


JUDGEMENT_CLASS = {"better": "good", "worse": "bad", "same": "text"}


def build_comparison(sources, campaigns, sonde_binary):
    """The comparison of campaigns (each a list of runs), the first the reference; which
    parameters are paths (left out of a match) the option tables of sonde_binary say. Raises
    argcheck.Refused when the binary cannot be asked."""
    paths = argcheck.path_params(sonde_binary)
    names = [Path(s).name or str(s) for s in sources]
    for k in range(len(names)):  # "A", "B", ... when two sources share a name
        if names.count(names[k]) > 1:
            names = [chr(ord("A") + i) for i in range(len(names))]
            break
    matched = _compare.match(campaigns, paths)
    cols = ["measurement", "unit"]
    for k, n in enumerate(names):
        cols += [f"{n} mean", f"{n} min", f"{n} max"] + ([f"{n}/{names[0]}", f"{n} is"]
                                                         if k else [])
    rows = []
    for r in matched:
        row = [text(r.short, "name", tip=r.label), text(r.unit, "name")]
        for k, values in enumerate(r.values):
            row += [num(r.means[k]), num(min(values) if values else None),
                    num(max(values) if values else None)]
            if k:
                ratio, said = num(r.ratio(k)), r.judgement(k)
                ratio.cls = JUDGEMENT_CLASS.get(said, "muted")
                row += [ratio, text(said, JUDGEMENT_CLASS.get(said, "muted"))]
        rows.append(row)
    unmatched = _compare.unmatched(campaigns, paths)
    intro = [f"{n}: {words.plural(len(c), 'run')} ({s}), {unmatched[k]} measurements without a "
             "match" for k, (n, c, s) in enumerate(zip(names, campaigns, sources, strict=True))]
    table = Table("compare", "Matched measurements", cols, rows,
                  "A measurement matches when workload, phase, ranks, nodes, the ranks on "
                  "each node and parameters "
                  "are the same (paths, the parameters that name a file or directory, and "
                  "random seeds aside: "
                  f"{', '.join(sorted(_compare.SEEDS))}), and a sonde mix group beside "
                  "the same other groups; runs that failed are not compared. Mean, min and "
                  "max over its "
                  "iterations; the ratio is green where the later campaign is better (more "
                  "MiB/s or operations/s, fewer µs or seconds), red where worse, grey where "
                  "within noise (the ranges overlap) or where either side has one sample, "
                  "which has no range to judge a difference by.")
    section = Section("compare", "Comparison", intro, [table],
                      plots.comparison(matched, names))
    all_runs = [r for c in campaigns for r in c]
    side_by_side = systems.section(systems.of_sources(names, sources, campaigns))
    return Page(f"sonde comparison: {' / '.join(names)}", [str(s) for s in sources],
                [comparison_summary(names, sources, campaigns), section]
                + ([side_by_side] if side_by_side else [])
                + [environment(all_runs, words.Labels(all_runs))])


def _draw(figures):
    """(script, divs, PNGs) of the figures: the PNGs drawn by worker processes while this one
    builds the page's figures (matplotlib takes as long as the rest of the report)."""
    if len(figures) < 2 or (os.cpu_count() or 1) < 2:
        script, divs = render_html.embed(figures)
        return script, divs, [render_png.png(f) for f in figures]
    workers = min(len(figures), os.cpu_count())
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        pngs = [pool.submit(render_png.png, f) for f in figures]
        script, divs = render_html.embed(figures)
        return script, divs, [p.result() for p in pngs]


def write(page, output):
    """The HTML file and the PNGs beside it (OUTPUT-figures/NAME.png)."""
    output = Path(output)
    fig_dir = output.parent / (output.stem + "-figures")
    fig_dir.mkdir(parents=True, exist_ok=True)
    figures = page.figures()
    script, divs, pngs = _draw(figures)
    used = {}
    items = {}
    for f, div, png in zip(figures, divs, pngs, strict=True):
        used[f.name] = used.get(f.name, 0) + 1
        stem = f.name if used[f.name] == 1 else f"{f.name}-{used[f.name]}"
        (fig_dir / f"{stem}.png").write_bytes(png)
        items[id(f)] = {"figure": f, "div": div, "png": f"{fig_dir.name}/{stem}.png",
                        "anchor": f"figure-{stem}"}
    figure_items = {s.id: [items[id(f)] for f in s.figures] for s in page.sections}
    env = Environment(loader=PackageLoader("sonde", "templates"),
                      autoescape=select_autoescape(["html"]))
    html = env.get_template("report.html").render(
        page=page, version=VERSION, figure_items=figure_items,
        bokeh_js=render_html.javascript(), bokeh_script=script,
        made=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"))
    output.write_text(html)
    return output


def parser():
    p = argparse.ArgumentParser(prog=PROG, description="Make an HTML report of sonde results.")
    p.add_argument("inputs", nargs="*", metavar="RUN_DIR|FILE",
                   help="run directories or JSON Lines results files")
    p.add_argument("-o", "--output", metavar="report.html", default=None,
                   help="the HTML file to write, PNGs beside it (default: report.html in the "
                        "run directory, or here)")
    p.add_argument("--compare", nargs="+", metavar="CAMPAIGN",
                   help="two or more campaigns (run directories or results files) side by "
                        "side, with ratios to the first")
    p.add_argument("--sonde", metavar="BINARY", default=None,
                   help="the sonde whose option tables say which parameters are paths, left "
                        "out of --compare's match (default: $SONDE_BIN, the checkout's build, "
                        "or sonde on PATH)")
    return p


def main(argv=None):
    p = parser()
    args = p.parse_args(argv)
    if args.compare and args.inputs:
        p.error("--compare takes its campaigns as its arguments; give no other inputs")
    if args.compare and len(args.compare) < 2:
        p.error("--compare needs at least two campaigns")
    if not args.compare and not args.inputs:
        p.error("give a run directory or results files (or --compare A B)")
    sources = args.compare or args.inputs
    try:
        loaded = [load(s) for s in sources] if args.compare else [load(*sources)]
    except ResultsError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    for src, runs in zip(args.compare or [" ".join(sources)], loaded, strict=True):
        if not any(r.header for r in runs):
            why = " (cut inside its first record)" if any(r.truncated for r in runs) else ""
            print(f"{PROG}: error: no results in {src}{why}", file=sys.stderr)
            return EXIT_USAGE
    dirs = _dirs(sources)
    default = (dirs[0] / "report.html") if len(dirs) == 1 and not args.compare else \
        Path("report.html")
    output = Path(args.output) if args.output else default
    try:
        page = build_comparison(sources, loaded, args.sonde or default_sonde()) \
            if args.compare else build(sources, loaded[0])
    except argcheck.Refused as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    write(page, output)
    print(f"{output} ({len(page.figures())} figures, "
          f"{sum(len(t.rows) for t in page.tables())} table rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
