"""sonde-report: one self-contained HTML file (figures inline, no network) with PNGs beside
it, from the results of any workload or a mix: summary tables, bandwidth per phase and
iteration, per-call timelines, latency histograms, collective latency against message size,
BTIO scaling, the run environment; and --compare A B, two runs side by side with ratios."""

import argparse
import base64
import csv
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape

from . import plots
from .cli import EXIT_USAGE
from .results import ResultsError, load

PROG = "sonde-report"
VERSION = "0.1.0"


def parser():
    p = argparse.ArgumentParser(prog=PROG, description="Make an HTML report of sonde results.")
    p.add_argument("inputs", nargs="*", metavar="RUN_DIR|FILE",
                   help="run directories or JSON Lines results files")
    p.add_argument("-o", "--output", metavar="report.html", default=None,
                   help="the HTML file to write, PNGs beside it (default: report.html in the "
                        "run directory, or here)")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"),
                   help="two runs side by side, with ratios B/A")
    return p


def cell(value, cls="", digits=None):
    if value is None:
        text = "-"
    elif isinstance(value, float):
        text = f"{value:.{digits}f}" if digits is not None else (
            f"{value:.1f}" if abs(value) >= 10 else f"{value:.3g}")
    else:
        text = str(value)
    if not cls and isinstance(value, str):
        cls = "text"
    return {"text": text, "cls": cls}


def table(tid, title, columns, rows, note=None):
    return {"id": tid, "title": title, "columns": columns, "rows": rows, "note": note}


def summary_table(runs):
    rows = []
    for run in runs:
        h = run.header or {}
        phases = list(dict.fromkeys(m["phase"] for m in run.measurements))
        for phase in phases or ["-"]:
            ms = [m for m in run.measurements if m["phase"] == phase]
            bws = [m["bandwidth_mib_s"] for m in ms if m["bandwidth_mib_s"] is not None]
            secs = [m["seconds"] for m in ms]
            errors = sum(m["verify"]["errors"] for m in ms)
            checked = any(m["verify"]["checked"] for m in ms)
            verdict = ("-" if not checked else ("ok" if errors == 0 else f"{errors} errors"))
            status = "complete" if run.complete else "incomplete"
            if run.end and run.end["exit_code"] != 0:
                status = f"exit {run.end['exit_code']}"
            rows.append([cell(run.workload), cell(h.get("ranks")), cell(h.get("nodes")),
                         cell(phase), cell(len(ms)),
                         cell(sum(bws) / len(bws) if bws else None),
                         cell(max(bws) if bws else None), cell(min(bws) if bws else None),
                         cell(sum(secs) / len(secs) if secs else None),
                         cell(verdict, "bad" if errors else ("good" if checked else "")),
                         cell(status, "" if status == "complete" else "bad"),
                         cell(run.run_id)])
    return table("summary", "Summary", ["workload", "ranks", "nodes", "phase", "measurements",
                                        "mean MiB/s", "max MiB/s", "min MiB/s", "mean s",
                                        "verification", "run", "run id"], rows)


def environment_table(runs):
    rows = []
    for run in runs:
        h = run.header or {}
        fs = h.get("filesystem") or {}
        slurm = h.get("slurm") or {}
        rows.append([cell(run.run_id), cell(run.workload), cell(h.get("start_time")),
                     cell(h.get("sonde_version")),
                     cell((h.get("mpi_library") or "").split(",")[0] or None),
                     cell(h.get("ranks")), cell(h.get("tasks_per_node")),
                     cell(", ".join(h.get("hostnames", [])[:8])),
                     cell(f"{fs.get('type', '-')} {fs.get('mount', '')}".strip()),
                     cell(slurm.get("job_id")),
                     cell(" ".join(h.get("command_line", [])))])
    return table("environment", "Run environment",
                 ["run id", "workload", "start (UTC)", "sonde", "MPI", "ranks", "tasks/node",
                  "hosts", "file system", "Slurm job", "command line"], rows)


def csv_table(path, tid, title, note=None):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if len(rows) < 1:
        return None
    body = []
    for r in rows[1:]:
        out = []
        for v in r:
            try:
                out.append(cell(float(v)))
            except ValueError:
                out.append(cell(v, "bad" if v == "not-compliant" else ""))
        body.append(out)
    return table(tid, title, rows[0], body, note)


def suite_tables(dirs):
    """The tables sonde-suite left in a run directory, with its rules' verdicts."""
    out = []
    for d in dirs:
        if (d / "ior-table.csv").exists():
            out.append(csv_table(d / "ior-table.csv", "ior-table",
                                 f"IOR results ({d.name}), MiB/s and seconds",
                                 "The procurement table: read and write bandwidth over the "
                                 "iterations of each launch."))
        if (d / "verdicts.json").exists():
            verdicts = json.loads((d / "verdicts.json").read_text())
            rows = []
            for launch, v in verdicts.items():
                bad = [f"{r['rule']}: {r['reason']}" for r in v["rules"] if not r["ok"]]
                rows.append([cell(launch), cell(v["status"],
                                                "good" if v["status"] == "compliant"
                                                else "bad"),
                             cell("; ".join(bad) or "all rules met")])
            out.append(table("verdicts", f"Rules ({d.name})", ["launch", "status", "why"],
                             rows))
    return [t for t in out if t]


def key_of(m, workload):
    """What makes two measurements comparable across runs: workload, phase and the
    parameters that are not paths."""
    params = {k: v for k, v in sorted(m.get("params", {}).items())
              if not (isinstance(v, str) and "/" in v) and not isinstance(v, (dict, list))}
    return (workload, m["phase"], json.dumps(params, sort_keys=True))


def figure_of(m, workload):
    """Bandwidth (MiB/s) for I/O; average latency (µs) for collectives."""
    if workload == "coll":
        return m.get("extra", {}).get("avg_us"), "µs"
    return m["bandwidth_mib_s"], "MiB/s"


def compare(runs_a, runs_b, name_a, name_b):
    def means(runs):
        acc = {}
        for run in runs:
            for m in run.measurements:
                v, unit = figure_of(m, run.workload)
                if v is not None:
                    acc.setdefault(key_of(m, run.workload), ([], unit))[0].append(v)
        return {k: (sum(v) / len(v), unit) for k, (v, unit) in acc.items()}

    a, b = means(runs_a), means(runs_b)
    rows, labels, av, bv = [], [], [], []
    for k in list(dict.fromkeys(list(a) + list(b))):
        va, unit = a.get(k, (None, None))
        vb, unit_b = b.get(k, (None, None))
        unit = unit or unit_b
        ratio = vb / va if va and vb is not None else None
        # For latency lower is better; say which way a ratio points.
        better = None
        if ratio is not None:
            better = (ratio > 1) if unit == "MiB/s" else (ratio < 1)
        params = json.loads(k[2])
        short = " ".join(f"{p}={v}" for p, v in params.items())
        rows.append([cell(k[0]), cell(k[1]), cell(short), cell(unit), cell(va), cell(vb),
                     cell(ratio, "" if better is None else ("good" if better else "bad"),
                          digits=3)])
        labels.append(f"{k[0]} {k[1]}")
        av.append(va)
        bv.append(vb)
    t = table("compare", f"A = {name_a}, B = {name_b}",
              ["workload", "phase", "parameters", "unit", "A", "B", "B/A"], rows,
              "Means over iterations of each comparable measurement; green where B is "
              "better (more bandwidth, less latency).")
    figs = [plots.compare_bars(labels[:40], av[:40], bv[:40], "A", "B", "mean")] if rows else []
    return [t], figs


def run_dirs(paths):
    return [Path(p) for p in paths if Path(p).is_dir()]


def render(title, sources, tables, figures, output):
    env = Environment(loader=PackageLoader("sonde", "templates"),
                      autoescape=select_autoescape(["html"]))
    fig_dir = output.parent / (output.stem + "-figures")
    fig_dir.mkdir(parents=True, exist_ok=True)
    items = []
    for f in figures:
        (fig_dir / f"{f.name}.png").write_bytes(f.png)
        items.append({"name": f.name, "title": f.title, "caption": f.caption,
                      "b64": base64.b64encode(f.png).decode()})
    html = env.get_template("report.html").render(
        title=title, version=VERSION, sources=[str(s) for s in sources], tables=tables,
        figures=items, made=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"))
    output.write_text(html)
    return output


def main(argv=None):
    p = parser()
    args = p.parse_args(argv)
    if args.compare and args.inputs:
        p.error("--compare takes its two runs as its arguments; give no other inputs")
    if not args.compare and not args.inputs:
        p.error("give a run directory or results files (or --compare A B)")
    sources = args.compare or args.inputs
    try:
        loaded = [load(s) for s in sources] if args.compare else [load(*sources)]
    except ResultsError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    for src, runs in zip(args.compare or [" ".join(sources)], loaded, strict=True):
        if not runs:
            print(f"{PROG}: error: no results in {src}", file=sys.stderr)
            return EXIT_USAGE
    dirs = run_dirs(sources)
    default = (dirs[0] / "report.html") if len(dirs) == 1 and not args.compare else \
        Path("report.html")
    output = Path(args.output) if args.output else default
    if args.compare:
        tables, figures = compare(loaded[0], loaded[1], *sources)
        runs = loaded[0] + loaded[1]
        tables.append(environment_table(runs))
        title = "sonde comparison"
    else:
        runs = loaded[0]
        tables = [summary_table(runs)] + suite_tables(dirs) + [environment_table(runs)]
        figures = [f for draw in plots.ALL for f in draw(runs)]
        title = "sonde report"
    render(title, sources, tables, figures, output)
    print(f"{output} ({len(figures)} figures, {sum(len(t['rows']) for t in tables)} table rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
