# SPDX-License-Identifier: BSD-3-Clause
"""sonde-suite submit: the suite as one Slurm batch job that can start. Before sbatch, the
partition is asked for what it has (scontrol show partition: its nodes, MaxNodes, MaxTime;
sinfo: the CPUs of its nodes), and a suite whose largest launch cannot fit is refused with one
line, as run refuses one the launcher's nodes cannot hold (placement.py). The job asks for the
nodes and tasks per node the largest launches need; its time limit is --time, or the sum of the
launches' timeouts (the runner stops each at its timeout) and a margin for sonde-suite's own
work, capped at the partition's MaxTime. What was chosen is printed."""

import math
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ..results.manifest import holds_run
from . import argcheck, preflight, suitefile

# Minutes for what sonde-suite does besides the launches: start, mkdir, tables, report.
MARGIN_MINUTES = 5
REPO = Path(__file__).resolve().parents[2]


class SubmitError(ValueError):
    """A job that Slurm would never start, or a partition that cannot be read: one line."""


@dataclass
class Partition:
    name: str
    nodes: int  # the nodes a job may have: the partition's, within its MaxNodes
    cpus: int | None  # the fewest CPUs of its nodes
    max_time: int | None  # minutes; None: no limit
    why_nodes: str  # how nodes was found, for messages


def _run(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SubmitError(f"cannot ask Slurm ({cmd[0]}: {e})") from None
    if out.returncode != 0:
        raise SubmitError(f"{' '.join(cmd)}: {out.stderr.strip() or 'failed'}")
    return out.stdout


def slurm_minutes(text):
    """Minutes of a Slurm time ("UNLIMITED", "INFINITE": None; "MM", "MM:SS", "HH:MM:SS",
    "D-HH", "D-HH:MM", "D-HH:MM:SS"), rounded down."""
    if text.upper() in ("UNLIMITED", "INFINITE", "NONE"):
        return None
    days, _, rest = text.rpartition("-")
    parts = [int(p) for p in rest.split(":")]
    if days:
        parts += [0] * (3 - len(parts))
        h, m, s = parts
    elif len(parts) == 3:
        h, m, s = parts
    else:
        h, (m, s) = 0, (parts + [0])[:2]
    return (int(days or 0) * 24 + h) * 60 + m + s // 60


def _fields(line):
    return dict(re.findall(r"(\w+)=(\S*)", line))


def partition(name=None):
    """The partition a job would run in: name, else the cluster's default (Default=YES)."""
    lines = [ln for ln in _run(["scontrol", "show", "partition", "-o"] + ([name] if name else
                                                                            [])).splitlines()
             if ln.strip()]
    found = [_fields(ln) for ln in lines]
    if name is None:
        found = [f for f in found if f.get("Default") == "YES"]
        if not found:
            raise SubmitError("the Slurm cluster has no default partition: give --partition")
    f = found[0]
    pname = f["PartitionName"]
    total = int(f.get("TotalNodes", "0"))
    max_nodes = f.get("MaxNodes", "UNLIMITED")
    nodes, why = total, f"partition {pname} has {total} node{'s' if total != 1 else ''}"
    if max_nodes.isdigit() and int(max_nodes) < total:
        nodes, why = int(max_nodes), f"partition {pname} allows {max_nodes} nodes a job (MaxNodes)"
    cpus = [int(c) for c in _run(["sinfo", "-h", "-N", "-p", pname, "-o", "%c"]).split()
            if c.isdigit()]
    return Partition(pname, nodes, min(cpus) if cpus else None,
                     slurm_minutes(f.get("MaxTime", "UNLIMITED")), why)


def check_fits(suite, part, oversubscribe):
    """Refuses (SubmitError) a suite whose largest launch the partition can never hold."""
    placed = [ln for ln in suite.launches if ln.nodes is not None]
    if placed:
        big = max(placed, key=lambda ln: ln.nodes)
        if big.nodes > part.nodes:
            raise SubmitError(
                f"{big.where}: step {big.step}: {big.nodes} nodes of {big.tasks_per_node} "
                f"tasks, but {part.why_nodes}: the job could never start; lower nodes or "
                "choose another --partition")
        wide = max(placed, key=lambda ln: ln.tasks_per_node)
        if part.cpus and wide.tasks_per_node > part.cpus and not oversubscribe:
            raise SubmitError(
                f"{wide.where}: step {wide.step}: {wide.tasks_per_node} tasks per node, but "
                f"the nodes of partition {part.name} have {part.cpus} CPUs: lower "
                "tasks_per_node, or ask for it with --oversubscribe")
    unplaced = [ln for ln in suite.launches if ln.nodes is None and not ln.touch]
    if unplaced and part.cpus and not oversubscribe:
        big = max(unplaced, key=lambda ln: ln.ranks)
        if big.ranks > part.cpus * part.nodes:
            raise SubmitError(
                f"{big.where}: step {big.step}: {big.ranks} ranks, but partition {part.name} "
                f"has {part.cpus * part.nodes} CPUs: lower ranks, or ask for it with "
                "--oversubscribe")


def job_shape(suite, part, oversubscribe):
    """(nodes, tasks per node) of the job: the most nodes and tasks per node of the placed
    launches; launches of ranks only get enough of the partition's CPUs (one node when
    oversubscribing or when its CPUs are unknown)."""
    placed = [ln for ln in suite.launches if ln.nodes is not None]
    ranks = max((ln.ranks for ln in suite.launches if ln.nodes is None and not ln.touch),
                default=0)
    if placed:
        nodes = max(ln.nodes for ln in placed)
        tpn = max(ln.tasks_per_node for ln in placed)
    elif oversubscribe or not part.cpus:
        nodes, tpn = 1, 0
    else:
        nodes, tpn = math.ceil(ranks / part.cpus), 0
    return nodes, max(tpn, math.ceil(ranks / nodes))


def hms(minutes):
    return f"{minutes // 60}:{minutes % 60:02d}:00"


def time_limit(suite, part, asked):
    """(minutes, how they were chosen) of the job."""
    if asked is not None:
        if asked < 1:
            raise SubmitError("--time must be at least 1 minute")
        if part.max_time is not None and asked > part.max_time:
            raise SubmitError(f"--time {asked} is more than partition {part.name}'s MaxTime "
                              f"({hms(part.max_time)}): the job could never start")
        return asked, "--time"
    timed = [ln.timeout for ln in suite.launches if not ln.touch]
    minutes = math.ceil(sum(timed) / 60) + MARGIN_MINUTES
    how = (f"the sum of the timeouts of its {len(timed)} launch"
           f"{'es' if len(timed) != 1 else ''}, {hms(math.ceil(sum(timed) / 60))}, and "
           f"{MARGIN_MINUTES} minutes for sonde-suite")
    if part.max_time is not None and minutes > part.max_time:
        return part.max_time, (f"{how} capped at partition {part.name}'s MaxTime: the "
                               "campaign may not finish; continue it with sonde-suite resume")
    return minutes, how


def script(suite, run_dir, shape, minutes, sonde, scale, oversubscribe=False, partition=None,
           account=None):
    """The batch script: the allocation, then sonde-suite run with srun inside it."""
    nodes, tpn = shape
    cmd = [sys.executable, "-m", "sonde.suite", "run", str(Path(suite.path).resolve()),
           "--launcher", "srun", "--out", str(run_dir.resolve()), "--sonde", sonde]
    if scale is not None:
        cmd += ["--scale", str(scale)]
    if oversubscribe:
        cmd.append("--oversubscribe")
    return "\n".join([
        "#!/bin/bash",
        f"#SBATCH --job-name=sonde-{suite.name}",
        *([f"#SBATCH --partition={partition}"] if partition else []),
        *([f"#SBATCH --account={account}"] if account else []),
        f"#SBATCH --nodes={nodes}",
        f"#SBATCH --ntasks-per-node={tpn}",
        f"#SBATCH --time={minutes}",
        f"#SBATCH --output={run_dir.resolve()}/slurm-%j.out",
        *(["#SBATCH --overcommit"] if oversubscribe else []),
        f"cd {shlex.quote(os.getcwd())}",
        f"export PYTHONPATH={shlex.quote(str(REPO / 'python'))}${{PYTHONPATH:+:$PYTHONPATH}}",
        "exec " + shlex.join(cmd),
        "",
    ])


def add_parser(sub):
    p = sub.add_parser("submit", help="submit the suite as a Slurm batch job (sbatch)")
    p.add_argument("suite", metavar="SUITE.toml", help="suite file")
    p.add_argument("--out", metavar="DIR", help="run directory (default: results/<time>)")
    p.add_argument("--partition", metavar="NAME",
                   help="the partition to run in (default: the cluster's default partition)")
    p.add_argument("--account", metavar="NAME", help="the account to charge the job to")
    p.add_argument("--time", type=int, metavar="MIN", default=None,
                   help="the job's time limit in minutes (default: the sum of the launches' "
                        f"timeouts and {MARGIN_MINUTES} minutes, capped at the partition's "
                        "MaxTime)")
    p.add_argument("--scale", type=float, metavar="F", help="as for run")
    p.add_argument("--oversubscribe", action="store_true", help="as for run")
    p.add_argument("--sonde", metavar="PATH", default=None, help="the sonde binary")
    return p


def prepare(args, sonde, run_dir):
    """(script text, what was chosen) of the job, everything checked; raises SubmitError or
    suitefile.SuiteError."""
    try:
        suite = suitefile.load(args.suite, args.scale, workloads=argcheck.workloads(sonde))
    except argcheck.Refused as e:
        raise SubmitError(str(e)) from None
    oversubscribe = args.oversubscribe or suite.oversubscribe
    part = partition(args.partition)
    check_fits(suite, part, oversubscribe)
    shape = job_shape(suite, part, oversubscribe)
    minutes, how = time_limit(suite, part, args.time)
    if holds_run(run_dir):
        raise SubmitError(f"{run_dir} already holds a run; choose another --out")
    try:
        preflight.check(suite, sonde, run_dir.resolve())
    except preflight.Refusal as e:
        raise SubmitError(str(e)) from None
    text = script(suite, run_dir, shape, minutes, sonde, args.scale, oversubscribe,
                  args.partition, args.account)
    chose = (f"{suite.name}: {shape[0]} node{'s' if shape[0] != 1 else ''} x {shape[1]} tasks "
             f"per node in partition {part.name}"
             + (f" (account {args.account})" if args.account else "")
             + f", time limit {hms(minutes)} ({how})"
             + ("; oversubscribed (--overcommit)" if oversubscribe else ""))
    return text, chose


def submit(text, run_dir):
    """sbatch of the script kept in run_dir; the job id."""
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / "job.sbatch"
    path.write_text(text)
    try:
        job_id = _run(["sbatch", "--parsable", str(path)]).strip().split(";")[0]
    except SubmitError as e:
        raise SubmitError(f"sbatch refused the job: {e}") from None
    (run_dir / "job_id").write_text(job_id + "\n")
    return job_id
