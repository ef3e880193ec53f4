"""Suite files: what a campaign runs, swept how, on how many ranks, under which rules.

A suite is a TOML file with a [suite] table of defaults and one [[step]] table per benchmark:

    [suite]
    name = "quick"
    ranks = 2                  # defaults for every step
    repetitions = 1
    scratch = "/tmp/sonde-quick"

    [[step]]
    name = "ior-easy"
    workload = "ior"
    args = ["-a", "{api}", "-F", "-t", "1m", "-b", "{block_mib}m", "-o", "{scratch}/ior/f"]
    variant = "easy"           # a label the rules and scores group by
    rules = ["verified"]
    [step.sweep]               # cartesian product, one launch per combination
    api = ["POSIX", "MPIIO"]
    [step.params]              # fixed values, substituted like the sweep's
    block_mib = 64
    [step.scale]               # params --scale multiplies, kept multiples of the value given
    block_mib = 16

Placeholders {name} in args take sweep and params values, and {scratch}, {ranks}, {nodes},
{tasks_per_node}. Sweeping nodes and tasks_per_node (and not setting ranks) launches
nodes x tasks_per_node ranks. An argument that comes out empty is dropped, so a sweep value ""
switches a flag off. Errors name the file and the line.
"""

import itertools
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

SUITE_KEYS = {"name", "description", "ranks", "nodes", "tasks_per_node", "repetitions",
              "scratch", "timeout", "rules"}
STEP_KEYS = {"name", "workload", "args", "ranks", "nodes", "tasks_per_node", "repetitions",
             "timeout", "rules", "variant", "sweep", "params", "scale", "mkdir", "fixed"}
WORKLOADS = {"ior", "mib", "btio", "mpiio", "coll"}
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class SuiteError(ValueError):
    """A suite file that cannot be used; the message names the file and line."""


@dataclass
class Launch:
    """One launch of sonde: a step with one sweep combination and one repetition."""

    index: int
    step: str
    workload: str
    args: list
    ranks: int
    nodes: int | None
    tasks_per_node: int | None
    repetition: int
    params: dict
    rules: list
    variant: str | None
    timeout: float
    fixed: dict = field(default_factory=dict)
    mkdir: list = field(default_factory=list)
    swept: tuple = ()  # the sweep's keys, which name the launch

    @property
    def id(self):
        parts = [self.step] + [f"{k}-{v}" for k, v in sorted(self.params.items())
                               if k in self.swept]
        parts.append(f"r{self.repetition}")
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", "_".join(str(p) for p in parts))
        return f"{self.index:03d}-{slug}"


@dataclass
class Suite:
    path: Path
    name: str
    description: str
    scratch: str
    launches: list
    scale: float | None = None

    @property
    def reduced_scale(self):
        return self.scale is not None and self.scale < 1


def _line_of(text, key, section=None, nth=0):
    """1-based line of `key =` inside the nth occurrence of a [[section]] (best effort)."""
    lines = text.splitlines()
    start = 0
    if section:
        hits = [i for i, ln in enumerate(lines)
                if ln.strip().startswith(f"[[{section}]]") or ln.strip() == f"[{section}]"]
        if nth < len(hits):
            start = hits[nth]
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=") if key else None
    for i in range(start, len(lines)):
        if pattern is None or pattern.match(lines[i]):
            return i + 1
    return start + 1


def _check_int(value, what, where):
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise SuiteError(f"{where}: {what} must be a whole number >= 1, not {value!r}")
    return value


def load(path, scale=None):
    """Reads and expands a suite file into its launches."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise SuiteError(f"{path}: cannot read: {e.strerror}") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SuiteError(f"{path}: not valid TOML: {e}") from None
    if scale is not None and not scale > 0:
        raise SuiteError(f"{path}: --scale must be a positive number, not {scale}")

    head = doc.get("suite", {})
    for key in set(doc) - {"suite", "step"}:
        raise SuiteError(f"{path}:{_line_of(text, None, key)}: unknown table [{key}]")
    for key in set(head) - SUITE_KEYS:
        raise SuiteError(f"{path}:{_line_of(text, key, 'suite')}: unknown key '{key}' in "
                         f"[suite] (known: {', '.join(sorted(SUITE_KEYS))})")
    steps = doc.get("step", [])
    if not steps:
        raise SuiteError(f"{path}: no [[step]] tables: nothing to run")
    scratch = str(head.get("scratch", "/tmp/sonde-suite"))
    launches = []
    names = set()
    for n, step in enumerate(steps):
        where_step = f"{path}:{_line_of(text, None, 'step', n)}"
        for key in set(step) - STEP_KEYS:
            raise SuiteError(f"{path}:{_line_of(text, key, 'step', n)}: unknown key '{key}' in "
                             f"[[step]] (known: {', '.join(sorted(STEP_KEYS))})")
        for key in ("name", "workload", "args"):
            if key not in step:
                raise SuiteError(f"{where_step}: [[step]] number {n + 1} has no '{key}'")
        name = step["name"]
        if name in names:
            raise SuiteError(f"{path}:{_line_of(text, 'name', 'step', n)}: step name "
                             f"'{name}' is used twice")
        names.add(name)
        if step["workload"] not in WORKLOADS:
            raise SuiteError(f"{path}:{_line_of(text, 'workload', 'step', n)}: unknown workload "
                             f"'{step['workload']}' (known: {', '.join(sorted(WORKLOADS))})")
        if not isinstance(step["args"], list) or not all(
                isinstance(a, (str, int, float)) for a in step["args"]):
            raise SuiteError(f"{path}:{_line_of(text, 'args', 'step', n)}: args must be a list "
                             "of strings")

        def value(key, default=None, step=step):
            return step.get(key, head.get(key, default))

        where = f"{path}:{_line_of(text, 'ranks', 'step', n)}"
        ranks = _check_int(value("ranks", 1), "ranks", where)
        nodes = value("nodes")
        tpn = value("tasks_per_node")
        if nodes is not None:
            _check_int(nodes, "nodes", where)
        if tpn is not None:
            _check_int(tpn, "tasks_per_node", where)
        reps = _check_int(value("repetitions", 1), "repetitions", where)
        sweep = step.get("sweep", {})
        params = dict(step.get("params", {}))
        for key, vals in sweep.items():
            if not isinstance(vals, list) or not vals:
                raise SuiteError(f"{path}:{_line_of(text, key, 'step', n)}: sweep '{key}' must "
                                 "be a non-empty list")
        for key, multiple in step.get("scale", {}).items():
            if key not in params or not isinstance(params[key], int):
                raise SuiteError(f"{path}:{_line_of(text, key, 'step', n)}: scale '{key}' names "
                                 "no whole-number entry of [step.params]")
            if scale is not None:
                scaled = int(params[key] * scale) // multiple * multiple
                params[key] = max(multiple, scaled)
        for combo in itertools.product(*sweep.values()) if sweep else [()]:
            values = dict(params)
            values.update(zip(sweep.keys(), combo, strict=True))
            # ranks, nodes and tasks_per_node may be swept too: they shape the launch.
            l_nodes = values.get("nodes", nodes)
            l_tpn = values.get("tasks_per_node", tpn)
            l_ranks = values.get("ranks")
            if l_ranks is None:
                explicit = "ranks" in step
                l_ranks = l_nodes * l_tpn if l_nodes and l_tpn and not explicit else ranks
            _check_int(l_ranks, "ranks", where)
            values.update(scratch=scratch, ranks=l_ranks, nodes=l_nodes or 1,
                          tasks_per_node=l_tpn or l_ranks)
            # An argument that substitutes to nothing is left out: a sweep can switch a flag.
            args = [a for a in (_substitute(str(a), values, path,
                                            _line_of(text, "args", "step", n))
                                for a in step["args"]) if a != ""]
            mkdirs = [_substitute(str(d), values, path, _line_of(text, "mkdir", "step", n))
                      for d in step.get("mkdir", [])]
            shown = {k: v for k, v in values.items() if k in sweep or k in params}
            for rep in range(reps):
                launches.append(Launch(
                    index=len(launches), step=name, workload=step["workload"], args=args,
                    ranks=l_ranks, nodes=l_nodes, tasks_per_node=l_tpn, repetition=rep,
                    params=shown, rules=list(value("rules", [])), variant=step.get("variant"),
                    timeout=float(value("timeout", 3600)), fixed=dict(step.get("fixed", {})),
                    mkdir=mkdirs, swept=tuple(sweep)))
    return Suite(path=path, name=str(head.get("name", path.stem)),
                 description=str(head.get("description", "")), scratch=scratch,
                 launches=launches, scale=scale)


def _substitute(text, values, path, line):
    def repl(m):
        key = m.group(1)
        if key not in values:
            raise SuiteError(f"{path}:{line}: placeholder {{{key}}} has no value (define it in "
                             "[step.params] or [step.sweep])")
        return str(values[key])

    return PLACEHOLDER.sub(repl, text)
