#!/usr/bin/env python3
"""make bench: runs the benchmark cases (bench/cases/*.py) and writes a results table.

Each case compares sonde with a reference tool on the same pattern in the same run, rounds
alternating between the two, warm-up rounds discarded; the table gives the medians, the ratio
sonde/reference and whether it meets the case's target. Results go to
bench/results/<UTC time>.md and .json. Exit status 1 when a case misses its target.

Knobs: SONDE_BENCH_REPEATS (measured rounds, default 5), SONDE_BENCH_WARMUP (default 1),
SONDE_BENCH_BUILD (build directory, default build/), and each case's own (see its docstring)."""

import argparse
import datetime
import importlib.util
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from benchlib import REPO, BenchError, Context  # noqa: E402 (after the path is set)


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


def markdown(when, env, ctx, rows, failures):
    lines = [f"# sonde bench, {when}", "",
             f"git {env['git_describe']}, {env['fio']}, host {env['host']}, Linux {env['kernel']}, "
             f"{env['cpus']} CPUs; {ctx.repeats} measured rounds after {ctx.warmup} warm-up, "
             "tools alternating within each round; medians.", "",
             "| case | variant | sonde | reference | unit | ratio | target | result |",
             "| --- | --- | ---: | ---: | --- | ---: | ---: | --- |"]
    for r in rows:
        lines.append(f"| {r.case} | {r.variant} | {r.sonde_median:.1f} | "
                     f"{r.ref_median:.1f} ({r.reference}) | {r.unit} | {r.ratio:.3f} | "
                     f"{r.target:.2f} | {'pass' if r.passed else 'FAIL'} |")
    for name, error in failures:
        lines.append(f"| {name} | (did not run) | | | | | | ERROR: {error.splitlines()[0]} |")
    lines += ["", "## Samples", ""]
    for r in rows:
        lines.append(f"- {r.case}, {r.variant}: sonde {', '.join(f'{v:.1f}' for v in r.sonde)}; "
                     f"{r.reference} {', '.join(f'{v:.1f}' for v in r.ref)}")
    return "\n".join(lines) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cases", nargs="*", help="case names to run (default: all)")
    p.add_argument("--repeats", type=int, default=int(os.environ.get("SONDE_BENCH_REPEATS", 5)))
    p.add_argument("--warmup", type=int, default=int(os.environ.get("SONDE_BENCH_WARMUP", 1)))
    p.add_argument("--build", type=Path,
                   default=Path(os.environ.get("SONDE_BENCH_BUILD", REPO / "build")))
    p.add_argument("--out", type=Path, default=HERE / "results", help="results directory")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    args = p.parse_args(argv)
    if args.repeats < 1 or args.warmup < 0:
        p.error("--repeats must be at least 1 and --warmup at least 0")

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

    ctx = Context(build=args.build.resolve(), repeats=args.repeats, warmup=args.warmup)
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
            print(f"  {r.variant}: sonde {r.sonde_median:.1f} {r.unit}, {r.reference} "
                  f"{r.ref_median:.1f} {r.unit}, ratio {r.ratio:.3f} "
                  f"(target {r.target:.2f}): {'pass' if r.passed else 'FAIL'}", flush=True)
        rows.extend(got)

    env = tool_versions()
    when = now.strftime("%Y-%m-%dT%H:%M:%SZ")
    stem = now.strftime("%Y-%m-%dT%H-%M-%SZ")
    args.out.mkdir(parents=True, exist_ok=True)
    md = args.out / f"{stem}.md"
    md.write_text(markdown(when, env, ctx, rows, failures))
    doc = {"time": when, "environment": env, "repeats": ctx.repeats, "warmup": ctx.warmup,
           "rows": [r.as_dict() for r in rows],
           "errors": [{"case": n, "error": e} for n, e in failures]}
    (args.out / f"{stem}.json").write_text(json.dumps(doc, indent=2) + "\n")
    missed = [r for r in rows if not r.passed]
    print(f"bench: {len(rows) - len(missed)} passed, {len(missed)} missed the target, "
          f"{len(failures)} case(s) failed to run; table in {md}")
    return 1 if missed or failures else 0


if __name__ == "__main__":
    sys.exit(main())
