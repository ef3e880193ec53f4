# SPDX-License-Identifier: BSD-3-Clause
"""sonde-suite: runs a campaign of sonde launches described in a TOML suite file, checks the
procurement rules, prints and saves the result tables and the score.

    sonde-suite run SUITE.toml [--launcher mpirun|srun] [--hostfile F | --host H1,H2]
                    [--oversubscribe] [--out DIR] [--dry-run] [--scale F]
    sonde-suite resume DIR
    sonde-suite io500 CONFIG.ini [--ranks N] [--tasks-per-node N] [run's options]
    sonde-suite submit SUITE.toml [--partition P] [--account A] [--time MIN] [--out DIR]
                       [--scale F] [--oversubscribe]   (sbatch)

docs/suites.md describes suite files, the rules and the placement of launches.
"""

import argparse
import os
import shlex
import shutil
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from .campaign import (
    argcheck,
    io500,
    io500_config,
    io500_ini,
    placement,
    preflight,
    runner,
    scores,
    submit,
    suitefile,
    tables,
)
from .cli import EXIT_USAGE
from .results.manifest import Manifest, ManifestError, holds_run

PROG = "sonde-suite"
REPO = Path(__file__).resolve().parents[2]


def default_sonde():
    """The sonde binary: $SONDE_BIN, the checkout's build, or sonde on PATH."""
    if os.environ.get("SONDE_BIN"):
        return os.environ["SONDE_BIN"]
    built = REPO / "build" / "sonde"
    if built.exists():
        return str(built)
    return shutil.which("sonde") or "sonde"


def parser():
    p = argparse.ArgumentParser(prog=PROG, description="Run a suite of sonde benchmarks.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = sub.add_parser("run", help="run the steps of a suite file")
    run.add_argument("suite", metavar="SUITE.toml", help="suite file")
    run.add_argument("--launcher", choices=["mpirun", "srun"], default=None,
                     help="how to launch each step (default: srun inside a Slurm allocation, "
                          "else mpirun)")
    run.add_argument("--hostfile", metavar="FILE",
                     help="mpirun: the nodes to place launches on (HOST, HOST slots=N or HOST:N "
                          "lines)")
    run.add_argument("--host", metavar="H1,H2",
                     help="mpirun: the nodes to place launches on (HOST or HOST:SLOTS, comma "
                          "separated)")
    run.add_argument("--oversubscribe", action="store_true",
                     help="allow more tasks per node than the nodes have cores")
    run.add_argument("--out", metavar="DIR", help="run directory (default: results/<time>)")
    run.add_argument("--dry-run", action="store_true",
                     help="check everything (every launch's arguments by the sonde binary "
                          "itself, and the rules they already break) and print the command "
                          "line of every launch without running it")
    run.add_argument("--scale", type=float, metavar="F",
                     help="scale the sizes the suite marks ([step.scale]) by F; nodes and tasks "
                          "are unchanged (the run is reported as reduced-scale, never as "
                          "compliant)")
    run.add_argument("--scratch", metavar="DIR",
                     help="the run's data directory ({scratch}), used as given and kept "
                          "(default: the suite's scratch/USER/RUN_ID, this run's own, removed "
                          "when the run completes)")
    run.add_argument("--keep-scratch", action="store_true",
                     help="keep the run's own data directory when the run completes")
    run.add_argument("--sonde", metavar="PATH", default=None, help="the sonde binary")
    run.add_argument("--show-output", action="store_true",
                     help="print each launch's own output (the workload's tables) after it")
    ini = sub.add_parser("io500", help="run an IO500 .ini as suites/io500.toml's campaign")
    ini.add_argument("suite", metavar="CONFIG.ini", help="IO500 configuration file")
    ini.add_argument("--ranks", type=int, metavar="N",
                     help="MPI ranks of every phase (default: $SLURM_NTASKS, else 2)")
    ini.add_argument("--tasks-per-node", type=int, metavar="N", help="ranks on each node")
    for action in run._actions:  # run's options, shared
        if action.dest not in ("help", "suite"):
            ini._add_action(action)
    resume = sub.add_parser("resume", help="continue an interrupted or failed run directory")
    resume.add_argument("run_dir", metavar="DIR", help="run directory of the suite")
    resume.add_argument("--sonde", metavar="PATH", default=None, help="the sonde binary")
    submit.add_parser(sub)
    return p


def error(msg):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    return EXIT_USAGE


def default_out():
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H-%M-%S")
    return Path("results") / stamp


def say_scale(suite, out=None):
    """--scale changes sizes only: say which, and that the run cannot be compliant."""
    if suite.scale is None:
        return
    changed = "; ".join(f"{step} {key} {old} -> {new}" for step, key, old, new in suite.scaled)
    changed = changed or "the suite marks no size to scale"
    never = "; a reduced-scale run is never compliant" if suite.reduced_scale else ""
    print(f"{PROG}: --scale {suite.scale:g} scales sizes only ({changed}); nodes, tasks per "
          f"node and ranks are as the suite says{never}", file=out or sys.stderr)


def prepare(args, sonde):
    """The suite and its launcher for the binary sonde, everything checked: (suite, launcher)
    or an error text."""
    try:
        suite = suitefile.load(args.suite, args.scale, workloads=argcheck.workloads(sonde))
        name = args.launcher or ("srun" if "SLURM_JOB_ID" in os.environ else "mpirun")
        launcher = placement.Launcher.find(name, sonde, args.hostfile, args.host,
                                           args.oversubscribe or suite.oversubscribe)
        launcher.check(suite)
    except (suitefile.SuiteError, placement.PlacementError, argcheck.Refused) as e:
        return None, str(e)
    return (suite, launcher), None


def cmd_run(args):
    sonde = args.sonde or default_sonde()
    prepared, problem = prepare(args, sonde)
    if problem:
        return error(problem)
    suite, launcher = prepared
    if args.out:
        run_dir = Path(args.out)
    else:
        run_dir = Path("RUN_DIR") if args.dry_run else default_out()
    # the run's own data directory: another user's run, or another run, never shares it
    scratch = args.scratch or suitefile.run_scratch(suite.scratch_base, run_dir.resolve().name)
    try:
        suite = suitefile.load(args.suite, args.scale, scratch, suite.workloads)
    except suitefile.SuiteError as e:
        return error(str(e))
    # every launch as the binary reads it, before anything is made or launched
    try:
        preflight.check(suite, sonde, run_dir)
    except preflight.Refusal as e:
        return error(str(e))
    say_scale(suite)
    if args.dry_run:
        out = run_dir
        for ln in suite.launches:
            ln = runner.with_run_dir(ln, out)
            if ln.touch:
                print(shlex.join(["touch"] + ln.touch))
            else:
                print(shlex.join(launcher.command(ln, sonde, out / ln.id / "results.jsonl")))
        return 0
    if holds_run(run_dir):
        return error(f"{run_dir} already holds a run; resume it with '{PROG} resume "
                     f"{run_dir}' or choose another --out")
    problem = make_scratch(suite, own=not args.scratch)
    if problem:
        return error(problem)
    run_dir.mkdir(parents=True, exist_ok=True)
    manifest = runner.new_manifest(run_dir, suite, launcher, sonde)
    manifest.data.update(scratch=suite.scratch, scratch_removed_after=not (
        args.scratch or args.keep_scratch))
    manifest.save()
    return execute(suite, manifest, launcher, sonde, args.show_output)


def execute(suite, manifest, launcher, sonde, show_output=False):
    print(f"{PROG}: {suite.name}: {len(suite.launches)} launches with {launcher.name} on "
          f"{launcher.nodes.source}, results in {manifest.run_dir}", file=sys.stderr)
    try:
        failed = runner.run_launches(suite, manifest, launcher, sonde,
                                     echo=sys.stdout if show_output else None)
    except runner.Interrupted:
        print(f"{PROG}: interrupted; completed launches are kept. Continue with: {PROG} "
              f"resume {manifest.run_dir}", file=sys.stderr)
        return 130
    _, ior, verdicts, _ = tables.report(suite, manifest, sys.stdout)
    io500_result = io500.report(manifest.run_dir, sys.stdout) if suite.score == "io500" else None
    scores.save(manifest.run_dir, scores.document(suite, verdicts, ior, io500_result))
    remove_scratch(manifest, failed)
    if failed:
        print(f"{PROG}: {failed} launch(es) failed (see {manifest.path}); "
              f"rerun them with: {PROG} resume {manifest.run_dir}", file=sys.stderr)
        return 1
    return 0


def make_scratch(suite, own):
    """Makes the run's data directory. own: the run's own, below the suite's scratch, which is
    made when it is missing as /tmp is (mode 1777, sticky: every user makes their own directory
    there, and removes only their own). An error text when this user cannot."""
    if own:
        problem = _make_scratch_base(suite)
        if problem:
            return problem
    try:
        Path(suite.scratch).mkdir(parents=True, exist_ok=True)
    except OSError as e:
        return f"cannot make the run's data directory {suite.scratch}: {e.strerror}"
    return None


def _make_scratch_base(suite):
    base = Path(suite.scratch_base)
    try:
        base.mkdir(parents=True)
        base.chmod(0o1777)
    except FileExistsError:
        pass
    except OSError as e:
        return f"cannot make the suite's scratch {base}: {e.strerror} (set --scratch DIR)"
    user = Path(suite.scratch).parent
    if not user.exists() and not os.access(base, os.W_OK | os.X_OK):
        return (f"the suite's scratch {base} is not writable for you: each run makes "
                f"{base}/USER/RUN_ID there; ask for a shared scratch or set --scratch DIR")
    return None


def remove_scratch(manifest, failed):
    """A complete run's own data directory goes (its results are in the run directory); a run
    with failed launches keeps it for resume."""
    scratch = manifest.data.get("scratch")
    if not scratch or not manifest.data.get("scratch_removed_after") or not Path(scratch).exists():
        return
    if failed:
        print(f"{PROG}: the run's data in {scratch} is kept for '{PROG} resume'",
              file=sys.stderr)
        return
    shutil.rmtree(scratch, ignore_errors=True)
    print(f"{PROG}: removed the run's data directory {scratch} (--keep-scratch keeps it)",
          file=sys.stderr)


def cmd_io500(args):
    """Writes the .ini's campaign and a copy of the .ini beside its results (a dry run: the
    campaign to a temporary file) and runs it as `run` would."""
    template = REPO / "suites" / "io500.toml"
    if not template.exists():  # installed: <prefix>/share/sonde/suites
        sonde = Path(shutil.which(args.sonde or default_sonde()) or "sonde").resolve()
        template = sonde.parents[1] / "share" / "sonde" / "suites" / "io500.toml"
    ranks = args.ranks or os.environ.get("SLURM_NTASKS", "2")
    if not str(ranks).isdigit():
        return error(f"the rank count must be a whole number, not {ranks!r} ($SLURM_NTASKS)")
    try:
        made = io500_config.campaign(args.suite, template, int(ranks),
                                     args.sonde or default_sonde(), args.tasks_per_node,
                                     args.out)
    except (io500_ini.IniError, argcheck.Refused, OSError) as e:
        return error(str(e))
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp) if args.dry_run else made.run_dir
        if not args.dry_run and holds_run(where):
            return error(f"{where} already holds a run; choose another resultdir or --out")
        where.mkdir(parents=True, exist_ok=True)
        if not args.dry_run:  # kept as IO500 keeps it in its result directory
            shutil.copyfile(args.suite, where / "config-orig.ini")
        args.suite, args.out = str(where / "io500.toml"), str(made.run_dir)
        # IO500's datadir (with its timestamp) is the data directory, used as the .ini says
        args.scratch = args.scratch or str(made.datadir)
        Path(args.suite).write_text(made.toml)
        return cmd_run(args)


def cmd_resume(args):
    run_dir = Path(args.run_dir)
    try:
        manifest = Manifest.load(run_dir)
    except ManifestError as e:
        return error(str(e))
    data = manifest.data
    suite_path = Path(data["suite"])
    if not suite_path.exists():
        return error(f"{suite_path}: the suite file of this run is gone")
    if runner.file_digest(suite_path) != data["suite_sha256"]:
        return error(f"{suite_path} changed since the run started; start a new run instead")
    sonde = args.sonde or data["sonde"]
    try:
        suite = suitefile.load(suite_path, data["scale"], data.get("scratch"),
                               argcheck.workloads(sonde))
    except (suitefile.SuiteError, argcheck.Refused) as e:
        return error(str(e))
    try:
        preflight.check(suite, sonde, run_dir)
    except preflight.Refusal as e:
        return error(str(e))
    problem = make_scratch(suite, own=False)
    if problem:
        return error(problem)
    data["status"] = "running"
    return execute(suite, manifest, placement.Launcher.from_dict(data["placement"]), sonde)


def cmd_submit(args):
    if not shutil.which("sbatch"):
        return error("sbatch is not on PATH: submit needs a Slurm cluster")
    run_dir = Path(args.out) if args.out else default_out()
    try:
        text, chose = submit.prepare(args, args.sonde or default_sonde(), run_dir)
        print(f"{PROG}: submit: {chose}")
        job_id = submit.submit(text, run_dir)
    except (suitefile.SuiteError, submit.SubmitError) as e:
        return error(str(e))
    print(f"submitted job {job_id}; results in {run_dir}")
    return 0


def main(argv=None):
    args = parser().parse_args(argv)
    return {"run": cmd_run, "resume": cmd_resume, "submit": cmd_submit,
            "io500": cmd_io500}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
