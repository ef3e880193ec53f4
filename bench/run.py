#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""make bench: runs the benchmark cases (bench/cases/*.py) and writes a results table.

Each case compares sonde with a reference tool on the same pattern in the same run: every run of
either tool starts from the same state (benchlib.Context.settle), the tools alternate which goes
first in each round, warm-up rounds are discarded. The table gives each tool's median and spread
(min-max over the rounds), the ratio (the median of the rounds' sonde/reference ratios), the
interval that holds it with 93.3 % confidence, and the verdict: pass when the interval lies at or
above the target, FAIL when below, noisy when it reaches across; a noisy row gets more rounds, up
to three looks (benchlib.LOOKS). Each row keeps the command lines both sides ran. Results go to
bench/results/<UTC time>.md and .json. Exit status 1 when a row fails or is noisy, or a case
cannot run.

Knobs: SONDE_BENCH_REPEATS (measured rounds, default 9), SONDE_BENCH_DISK_REPEATS (rows on a
disk, default 15), SONDE_BENCH_WARMUP (default 1), SONDE_BENCH_SETTLE (seconds of pause before
every run, default 0), SONDE_BENCH_BUILD (build directory, default build/), and each case's own
(see its docstring). --smoke: one round of every case with small sizes and no pause, to show that
everything runs (no verdicts)."""

import argparse
import datetime
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from benchlib import (  # noqa: E402 (after the path is set)
    CONFIDENCE,
    LOOKS,
    REPO,
    WRONG_VERDICT,
    BenchError,
    Context,
)

# --smoke: every case's sizes made small (unless set), so the whole bench runs in minutes.
SMOKE_SIZES = {"SONDE_BENCH_POSIX_SIZE": "64m", "SONDE_BENCH_MIB_SIZE": "32m",
               "SONDE_BENCH_IOR_EASY": "64m", "SONDE_BENCH_IOR_HARD": "8m",
               "SONDE_BENCH_MPIIO_SIZE": "32m", "SONDE_BENCH_BTIO_GRIDS": "64",
               "SONDE_BENCH_BTIO_MIB": "20", "SONDE_BENCH_COLL_SCALE": "0.05",
               "SONDE_BENCH_MDTEST_ITEMS": "500", "SONDE_BENCH_REPORT_RECORDS": "80000",
               "SONDE_BENCH_IOR_BACKENDS": "32m",
               "SONDE_BENCH_TRAIN_FILES": "256", "SONDE_BENCH_TRAIN_VERIFY_FILES": "64"}


def load_cases():
    """Every case object of every module in bench/cases/, in file order."""
    cases = []
    for path in sorted((HERE / "cases").glob("*.py")):
        spec = importlib.util.spec_from_file_location(f"bench_cases_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for case in getattr(module, "CASES", []):
            if not (hasattr(case, "name") and callable(getattr(case, "run", None))):
                raise BenchError(f"{path}: CASES holds {case!r}, which has no name and run()")
            cases.append(case)
    return cases


def tool_versions():
    def first_line(argv):
        try:
            out = subprocess.run(argv, capture_output=True, text=True, timeout=30)
            return (out.stdout or out.stderr).strip().splitlines()[0]
        except (OSError, IndexError, subprocess.TimeoutExpired):
            return "unknown"

    git = subprocess.run(["git", "describe", "--always", "--dirty", "--tags"], cwd=REPO,
                         capture_output=True, text=True)
    return {"git_describe": git.stdout.strip() or "unknown",
            "fio": first_line(["fio", "--version"]), "host": platform.node(),
            "kernel": platform.release(), "cpus": os.cpu_count()}


def spread(samples):
    return f"{min(samples):.1f}-{max(samples):.1f}"


def interval(row):
    low, high = row.interval
    return f"{low:.3f}-{high:.3f}"


def markdown(when, env, ctx, rows, failures):
    rounds = (f"{ctx.repeats} measured rounds ({ctx.disk_repeats} for rows on a disk) after "
              f"{ctx.warmup} warm-up, as many again while a row of the comparison is noisy, up "
              f"to {LOOKS} looks")
    if ctx.smoke:
        rounds = "smoke run: one round, small sizes, no verdicts"
    lines = [f"# sonde bench, {when}", "",
             f"git {env['git_describe']}, {env['fio']}, host {env['host']}, Linux {env['kernel']}, "
             f"{env['cpus']} CPUs; {rounds}; every run after sync, drained writeback and a "
             f"{ctx.settle_s:g} s pause; the tools alternate which goes first; medians and "
             "min-max spreads; the ratio is the median of the rounds' ratios.", "",
             "| case | variant | sonde | (spread) | reference | (spread) | unit | rounds | ratio | "
             f"({CONFIDENCE:.1%} interval) | target | result |",
             "| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- |"]
    for r in rows:
        lines.append(f"| {r.case} | {r.variant} | {r.sonde_median:.1f} | {spread(r.sonde)} | "
                     f"{r.ref_median:.1f} ({r.reference}) | {spread(r.ref)} | {r.unit} | "
                     f"{len(r.sonde)} | {r.ratio:.3f} | {interval(r)} | {r.target_text} | "
                     f"{r.verdict} |")
    for name, error in failures:
        lines.append(f"| {name} | (did not run) | | | | | | | | | | ERROR: "
                     f"{error.splitlines()[0]} |")
    lines += ["", "Each round runs both tools moments apart; its ratio divides out what drifts on "
              f"the machine. A row passes when the {CONFIDENCE:.1%} interval of the median ratio "
              "lies at or above the target, FAILs when it lies below, and is noisy when it "
              "reaches across: its rounds cannot tell which side the ratio is on; a noisy row's "
              f"comparison gets more rounds, up to {LOOKS} looks, and the chance that a verdict "
              f"is wrong stays at most {WRONG_VERDICT:.0%} over all of them. A same_tool row "
              "runs the reference against itself: it passes when its interval holds 1 (no side "
              "of a round is favoured), and its interval's width is the finest ratio this "
              "machine resolves.", "", "## Samples and command lines", ""]
    for r in rows:
        lines += [f"### {r.case}: {r.variant}", "",
                  f"- sonde: {', '.join(f'{v:.1f}' for v in r.sonde)} "
                  f"(median {statistics.median(r.sonde):.1f}, spread {r.sonde_spread:.1%})",
                  f"- {r.reference}: {', '.join(f'{v:.1f}' for v in r.ref)} "
                  f"(median {statistics.median(r.ref):.1f}, spread {r.ref_spread:.1%})",
                  f"- ratios by round: {', '.join(f'{v:.3f}' for v in r.round_ratios)} "
                  f"(median {r.ratio:.3f}, {CONFIDENCE:.1%} interval {interval(r)})",
                  f"- sonde ran: `{r.sonde_cmd}`", f"- reference ran: `{r.ref_cmd}`", ""]
    return "\n".join(lines) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cases", nargs="*", help="case names to run (default: all)")
    p.add_argument("--repeats", type=int, default=int(os.environ.get("SONDE_BENCH_REPEATS", 9)))
    p.add_argument("--disk-repeats", type=int,
                   default=int(os.environ.get("SONDE_BENCH_DISK_REPEATS", 15)))
    p.add_argument("--warmup", type=int, default=int(os.environ.get("SONDE_BENCH_WARMUP", 1)))
    p.add_argument("--settle", type=float,
                   default=float(os.environ.get("SONDE_BENCH_SETTLE", 0)),
                   help="seconds of pause before every run, after sync and writeback")
    p.add_argument("--smoke", action="store_true",
                   help="one round of every case, small sizes, no pause: does everything run?")
    p.add_argument("--build", type=Path,
                   default=Path(os.environ.get("SONDE_BENCH_BUILD", REPO / "build")))
    p.add_argument("--out", type=Path, default=HERE / "results", help="results directory")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    args = p.parse_args(argv)
    if args.smoke:
        args.repeats, args.disk_repeats, args.warmup, args.settle = 1, 1, 0, 0
        for name, value in SMOKE_SIZES.items():
            os.environ.setdefault(name, value)
    if args.repeats < 1 or args.disk_repeats < 1 or args.warmup < 0 or args.settle < 0:
        p.error("--repeats and --disk-repeats must be at least 1, --warmup and --settle at "
                "least 0")

    try:
        cases = load_cases()
    except BenchError as e:
        print(f"bench: error: {e}", file=sys.stderr)
        return 2
    if args.list:
        for c in cases:
            print(f"{c.name:16s} {getattr(c, 'description', '')}")
        return 0
    unknown = set(args.cases) - {c.name for c in cases}
    if unknown:
        p.error(f"unknown case(s): {', '.join(sorted(unknown))} (--list shows them)")
    chosen = [c for c in cases if not args.cases or c.name in args.cases]

    ctx = Context(build=args.build.resolve(), repeats=args.repeats, warmup=args.warmup,
                  disk_repeats=args.disk_repeats, settle_s=args.settle, smoke=args.smoke)
    now = datetime.datetime.now(datetime.UTC)
    rows, failures = [], []
    for case in chosen:
        print(f"bench: {case.name}: {getattr(case, 'description', '')}", flush=True)
        try:
            got = case.run(ctx)
        except BenchError as e:
            print(f"bench: {case.name}: error: {e}", file=sys.stderr)
            failures.append((case.name, str(e)))
            continue
        for r in got:
            r.smoke = ctx.smoke
            print(f"  {r.variant}: sonde {r.sonde_median:.1f} ({spread(r.sonde)}) {r.unit}, "
                  f"{r.reference} {r.ref_median:.1f} ({spread(r.ref)}), ratio {r.ratio:.3f} "
                  f"({interval(r)}, target {r.target_text}): {r.verdict}\n"
                  f"    sonde:     {r.sonde_cmd}\n    reference: {r.ref_cmd}", flush=True)
        rows.extend(got)

    env = tool_versions()
    when = now.strftime("%Y-%m-%dT%H:%M:%SZ")
    stem = now.strftime("%Y-%m-%dT%H-%M-%SZ")
    args.out.mkdir(parents=True, exist_ok=True)
    md = args.out / f"{stem}.md"
    md.write_text(markdown(when, env, ctx, rows, failures))
    doc = {"time": when, "environment": env, "repeats": ctx.repeats,
           "disk_repeats": ctx.disk_repeats, "looks": LOOKS, "confidence": CONFIDENCE,
           "warmup": ctx.warmup, "settle_s": ctx.settle_s,
           "smoke": ctx.smoke,
           "rows": [r.as_dict() for r in rows],
           "errors": [{"case": n, "error": e} for n, e in failures]}
    (args.out / f"{stem}.json").write_text(json.dumps(doc, indent=2) + "\n")
    counts = {v: sum(r.verdict == v for r in rows) for v in ("pass", "FAIL", "noisy", "smoke")}
    print(f"bench: {counts['pass']} passed, {counts['FAIL']} missed the target, "
          f"{counts['noisy']} noisy, {counts['smoke']} smoke, {len(failures)} case(s) failed to "
          f"run; table in {md}")
    return 1 if counts["FAIL"] or counts["noisy"] or failures else 0


if __name__ == "__main__":
    sys.exit(main())
