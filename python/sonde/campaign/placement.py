# SPDX-License-Identifier: BSD-3-Clause
"""Where a launch's ranks go: the nodes the launcher can use, the checks that refuse a launch
the machine cannot hold, and the launcher's command line that places nodes x tasks per node as
the suite says (docs/suites.md, "Placement").

    mpirun (Open MPI)   -n R --map-by ppr:T:node [--host h1:T,...,hN:T] [--oversubscribe]
    mpiexec (MPICH)     -n R -ppn T [-hosts h1,...,hN]
    srun                -N N --ntasks-per-node T -n R [--overcommit]

The nodes come from --hostfile or --host, else from the Slurm allocation sonde-suite runs in,
else (srun outside an allocation) from the Slurm cluster, else they are this machine alone.
"""

import os
import re
import socket
import subprocess
from dataclasses import dataclass, field


class PlacementError(ValueError):
    """A launch that the known nodes cannot hold; the message says what would help."""


@dataclass
class Nodes:
    count: int
    names: list = field(default_factory=list)  # host names in order, when known
    cores: int | None = None  # cores (slots) per node, when known
    source: str = ""  # where this came from, for messages and the manifest

    def as_dict(self):
        return {"count": self.count, "names": self.names, "cores": self.cores,
                "source": self.source}


def mpirun_for(sonde):
    """The mpirun to start the sonde binary with: $SONDE_MPIRUN, else the launcher of the MPI
    the binary is built with (the Launcher line of `sonde --version`), else mpirun on PATH,
    which the system's alternatives may point to another MPI."""
    if os.environ.get("SONDE_MPIRUN"):
        return os.environ["SONDE_MPIRUN"]
    try:
        out = subprocess.run([sonde, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "mpirun"
    found = re.search(r"^Launcher: (.+)$", out.stdout, re.MULTILINE)
    return found.group(1) if found and out.returncode == 0 else "mpirun"


def mpi_flavor(mpirun="mpirun"):
    """'openmpi', 'mpich' (Hydra: MPICH, Intel MPI) or 'unknown', from `mpirun --version`."""
    try:
        out = subprocess.run([mpirun, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    text = out.stdout + out.stderr
    if "Open MPI" in text or "OpenRTE" in text:
        return "openmpi"
    if "HYDRA" in text or "Intel(R) MPI" in text or "MPICH" in text:
        return "mpich"
    return "unknown"


def parse_hosts(text):
    """Hosts of a --host list, "a,b" or "a:2,b:2": [(name, slots or None)]."""
    out = []
    for item in (h.strip() for h in text.split(",")):
        if not item:
            continue
        name, _, slots = item.partition(":")
        if slots and not slots.isdigit():
            raise PlacementError(f"--host {text}: '{item}' is not HOST or HOST:SLOTS")
        out.append((name, int(slots) if slots else None))
    if not out:
        raise PlacementError("--host names no host")
    return out


def parse_hostfile(path):
    """Hosts of a hostfile: one per line, "name", "name slots=N" (Open MPI) or "name:N"
    (MPICH); '#' starts a comment."""
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        raise PlacementError(f"--hostfile {path}: cannot read: {e.strerror}") from None
    out = []
    for lineno, line in enumerate(lines, 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.match(r"^([^\s:]+)(?::(\d+)|\s+slots\s*=\s*(\d+))?(\s+max_slots\s*=\s*\d+)?$", line)
        if not m:
            raise PlacementError(f"{path}:{lineno}: '{line}' is not HOST, HOST slots=N or "
                                 "HOST:N")
        slots = m.group(2) or m.group(3)
        out.append((m.group(1), int(slots) if slots else None))
    if not out:
        raise PlacementError(f"--hostfile {path} names no host")
    return out


def _from_hosts(hosts, source):
    slots = {s for _, s in hosts}
    cores = slots.pop() if len(slots) == 1 else min((s for _, s in hosts if s), default=None)
    return Nodes(len(hosts), [h for h, _ in hosts], cores, source)


def _cpus_per_node(text):
    """Slurm's SLURM_JOB_CPUS_PER_NODE ("2", "64(x16),32"): the smallest."""
    counts = [int(m) for m in re.findall(r"(\d+)(?:\(x\d+\))?", text or "")]
    return min(counts) if counts else None


def _slurm_hostnames(nodelist):
    try:
        out = subprocess.run(["scontrol", "show", "hostnames", nodelist], capture_output=True,
                             text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return out.stdout.split() if out.returncode == 0 else []


def _slurm_cluster():
    """Nodes of the Slurm cluster (srun outside an allocation allocates from it)."""
    try:
        out = subprocess.run(["sinfo", "-h", "-N", "-o", "%N %c"], capture_output=True,
                             text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise PlacementError(f"cannot ask Slurm for its nodes (sinfo: {e})") from None
    if out.returncode != 0:
        raise PlacementError(f"cannot ask Slurm for its nodes: sinfo: {out.stderr.strip()}")
    nodes = {}
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            nodes[parts[0]] = int(parts[1])
    if not nodes:
        raise PlacementError("Slurm reports no node (sinfo)")
    return Nodes(len(nodes), sorted(nodes), min(nodes.values()), "the Slurm cluster (sinfo)")


def known_nodes(launcher, hostfile=None, host=None, environ=None):
    """The nodes a launcher can use, as the options and the environment say."""
    env = os.environ if environ is None else environ
    if hostfile and host:
        raise PlacementError("give --hostfile or --host, not both")
    if hostfile:
        if launcher == "srun":
            raise PlacementError("--hostfile is for mpirun; srun places on its allocation")
        return _from_hosts(parse_hostfile(hostfile), f"hostfile {hostfile}")
    if host:
        if launcher == "srun":
            raise PlacementError("--host is for mpirun; srun places on its allocation")
        return _from_hosts(parse_hosts(host), f"--host {host}")
    if env.get("SLURM_JOB_ID"):
        count = int(env.get("SLURM_JOB_NUM_NODES") or env.get("SLURM_NNODES") or 1)
        names = []
        if launcher != "srun" and env.get("SLURM_JOB_NODELIST"):
            names = _slurm_hostnames(env["SLURM_JOB_NODELIST"])
        return Nodes(count, names, _cpus_per_node(env.get("SLURM_JOB_CPUS_PER_NODE")),
                     f"Slurm job {env['SLURM_JOB_ID']}")
    if launcher == "srun":
        return _slurm_cluster()
    return Nodes(1, [], os.cpu_count(), f"this machine, {socket.gethostname()}")


def check(launch, nodes, oversubscribe):
    """Refuses (PlacementError) a launch the nodes cannot hold."""
    if launch.nodes is not None:
        if launch.nodes > nodes.count:
            raise PlacementError(
                f"{launch.where}: step {launch.step}: {launch.nodes} nodes of "
                f"{launch.tasks_per_node} tasks, but the launcher knows {nodes.count} "
                f"node{'s' if nodes.count != 1 else ''} ({nodes.source}): give --hostfile or "
                "--host, run inside a Slurm allocation of enough nodes, or lower nodes")
        if nodes.cores and launch.tasks_per_node > nodes.cores and not oversubscribe:
            raise PlacementError(
                f"{launch.where}: step {launch.step}: {launch.tasks_per_node} tasks per node, "
                f"but the nodes have {nodes.cores} cores ({nodes.source}): lower "
                "tasks_per_node, or ask for it with --oversubscribe (or oversubscribe = true "
                "in [suite])")
    elif nodes.cores and launch.ranks > nodes.cores * nodes.count and not oversubscribe:
        raise PlacementError(
            f"{launch.where}: step {launch.step}: {launch.ranks} ranks, but the launcher knows "
            f"{nodes.count * nodes.cores} cores ({nodes.source}): lower ranks, place the step "
            "on nodes (nodes, tasks_per_node), or ask for it with --oversubscribe (or "
            "oversubscribe = true in [suite])")


def launcher_args(launch, launcher, flavor, nodes, oversubscribe, mpirun="mpirun"):
    """The launcher's words before the program: how many ranks, on which nodes (mpirun: the
    program that launcher is)."""
    n, t = launch.nodes, launch.tasks_per_node
    hosts = nodes.names[:n] if n is not None and len(nodes.names) >= n else []
    if launcher == "srun":
        cmd = ["srun", "--mpi=pmix"]
        if n is not None:
            cmd += ["-N", str(n), "--ntasks-per-node", str(t)]
        cmd += ["-n", str(launch.ranks)]
        return cmd + (["--overcommit"] if oversubscribe else [])
    if launcher != "mpirun":
        raise ValueError(f"unknown launcher {launcher}")
    if flavor == "openmpi":
        cmd = [mpirun, "-n", str(launch.ranks)]
        if n is not None:
            cmd += ["--map-by", f"ppr:{t}:node"]
            if hosts:
                cmd += ["--host", ",".join(f"{h}:{t}" for h in hosts)]
        if oversubscribe:
            cmd.append("--oversubscribe")
        if os.geteuid() == 0:
            cmd.append("--allow-run-as-root")
        return cmd
    cmd = [mpirun, "-n", str(launch.ranks)]
    if n is not None:
        cmd += ["-ppn", str(t)]
        if hosts:
            cmd += ["-hosts", ",".join(hosts)]
    return cmd


@dataclass
class Launcher:
    """How a suite's launches start: the launcher, its MPI, the nodes it knows, and whether
    more ranks than cores were asked for."""

    name: str  # "mpirun" or "srun"
    flavor: str  # for mpirun: "openmpi", "mpich" or "unknown"
    nodes: Nodes
    oversubscribe: bool = False
    program: str = "mpirun"  # the mpirun that launches this sonde binary (mpirun_for)

    @classmethod
    def find(cls, name, sonde, hostfile=None, host=None, oversubscribe=False):
        """The launcher name ("mpirun" or "srun") for the sonde binary sonde."""
        program = mpirun_for(sonde) if name == "mpirun" else name
        flavor = mpi_flavor(program) if name == "mpirun" else name
        return cls(name, flavor, known_nodes(name, hostfile, host), oversubscribe, program)

    def check(self, suite):
        """Refuses (PlacementError) the first launch of the suite the nodes cannot hold."""
        for ln in suite.launches:
            check(ln, self.nodes, self.oversubscribe)

    def command(self, launch, sonde, results):
        """The exact argv of one launch: its results file, and --strict (a launch whose data
        cannot fit in the file system's free space is refused before it writes)."""
        own = ["--json", str(results), "--strict"]
        args = [str(a) for a in launch.args]
        head = launcher_args(launch, self.name, self.flavor, self.nodes, self.oversubscribe,
                             self.program)
        # sonde mix (a concurrent step): its own options come before its groups
        if launch.workload == "mix":
            return head + [sonde, "mix", *own, *args]
        return head + [sonde, launch.workload] + args + own

    def as_dict(self):
        return {"launcher": self.name, "mpi": self.flavor, "nodes": self.nodes.as_dict(),
                "oversubscribe": self.oversubscribe, "program": self.program}

    @classmethod
    def from_dict(cls, d):
        """The launcher a manifest recorded (resume places launches as the run began)."""
        nodes = Nodes(**d["nodes"])
        return cls(d["launcher"], d["mpi"], nodes, d["oversubscribe"], d["program"])
