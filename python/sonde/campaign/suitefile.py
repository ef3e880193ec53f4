# SPDX-License-Identifier: BSD-3-Clause
"""Suite files: what a campaign runs, swept how, placed on how many nodes, under which rules.
docs/suites.md is the reference; in short, a TOML file with a [suite] table of defaults and one
[[step]] table per benchmark:

    [suite]
    name = "quick"
    ranks = 2                  # defaults for every step
    repetitions = 1
    scratch = "/tmp/sonde-quick"
    timeout = "1h"
    rules = ["verified"]
    [suite.settings]           # thresholds of the rules (the seed's by default)
    min_runtime = "60s"

    [[step]]
    name = "ior-easy"
    workload = "ior"
    args = ["-a", "{api}", "-F", "-t", "1m", "-b", "{block_mib}m", "-o", "{scratch}/ior/f"]
    variant = "easy"           # a label the rules and scores group by
    [step.sweep]               # cartesian product, one launch per combination
    api = ["POSIX", "MPIIO"]
    [step.params]              # fixed values, substituted like the sweep's
    block_mib = 64
    [step.scale]               # params --scale multiplies, kept multiples of the value given
    block_mib = 16
    [step.fixed]               # parameters the fixed_parameters rule checks in the records
    transferSize = "1m"
    [step.free]                # parameters it lets differ from the defaults, with the reason
    interTestDelay = "settles the file system between phases"

A step may instead touch files (`touch = ["{run_dir}/timestampfile"]`, no workload or args):
sonde-suite makes them, or refreshes their times, when the step's turn comes (IO500's timestamp
between its phases). `score = "io500"` in [suite] makes the campaign an IO500 one
(io500.py): its steps must be IO500's phases in IO500's order.

Placeholders {name} in args and mkdir take sweep and params values, and {scratch}, {ranks},
{nodes}, {tasks_per_node}; {run_dir} is left for the runner, which puts the run directory
there. nodes and tasks_per_node (settable and sweepable) place the launch:
nodes x tasks_per_node ranks, tasks_per_node on each node. An argument that comes out empty is
dropped, so a sweep value "" switches a flag off. Everything is checked before anything runs:
an error is one line naming the file and the line.
"""

import getpass
import itertools
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ..results import names as _names
from ..results.units import parse_duration
from . import io500_phases
from . import rules as _rules

SUITE_KEYS = {"name", "description", "ranks", "nodes", "tasks_per_node", "repetitions",
              "scratch", "timeout", "rules", "settings", "oversubscribe", "score"}
STEP_KEYS = {"name", "workload", "args", "ranks", "nodes", "tasks_per_node", "repetitions",
             "timeout", "rules", "variant", "sweep", "params", "scale", "mkdir", "fixed",
             "free"}
TOUCH_STEP_KEYS = {"name", "touch"}
# A step that runs several workloads at once in one launch (sonde mix): [[step.concurrent]]
# tables, one per group of ranks.
CONCURRENT_STEP_KEYS = {"name", "concurrent", "solo", "interval", "ranks", "nodes",
                        "tasks_per_node", "repetitions", "timeout", "mkdir", "params"}
GROUP_KEYS = {"ranks", "per_node", "workload", "args"}
SCORES = {"io500"}
RUN_DIR = "{run_dir}"  # left in place here; the runner puts the run directory there
# Keys that shape a launch rather than its arguments.
SHAPE = {"ranks", "nodes", "tasks_per_node"}
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
DEFAULT_TIMEOUT = 3600.0


class SuiteError(ValueError):
    """A suite file that cannot be used; the message names the file and line."""


@dataclass
class Launch:
    """One launch of sonde: a step with one sweep combination and one repetition."""

    index: int
    step: str
    workload: str | None  # None: a step that touches files
    args: list
    ranks: int
    nodes: int | None  # None: not placed (only a rank count)
    tasks_per_node: int | None
    repetition: int
    params: dict
    rules: list
    variant: str | None
    timeout: float
    fixed: dict = field(default_factory=dict)  # name -> {"value": v, "unless": rule or None}
    free: dict = field(default_factory=dict)  # name -> why the suite lets it differ
    mkdir: list = field(default_factory=list)
    swept: tuple = ()  # the sweep's keys, which name the launch
    where: str = ""  # "file:line" of the step, for errors about the launch
    touch: list = field(default_factory=list)  # files to touch instead of launching sonde
    # the sonde.results.names class of the workload's parameters (the suite's workloads)
    param_names: type | None = None

    @property
    def id(self):
        parts = [self.step] + [f"{k}-{v}" for k, v in sorted(self.params.items())
                               if k in self.swept]
        parts.append(f"r{self.repetition}")
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", "_".join(str(p) for p in parts))
        return f"{self.index:03d}-{slug}"


DEFAULT_SCRATCH = "/tmp/sonde-suite"


def run_scratch(base, run_id, user=None):
    """The scratch directory of one run: BASE/USER/RUN_ID, so that two users, or two runs of
    one user, never share (or fail on) one another's files."""
    user = user or getpass.getuser()
    return str(Path(base) / user / run_id)


@dataclass
class Suite:
    path: Path
    name: str
    description: str
    scratch: str  # what {scratch} stands for: this run's directory
    launches: list
    scratch_base: str = ""  # the suite file's scratch, below which each run gets its own
    scale: float | None = None
    settings: dict = field(default_factory=dict)  # the rules' thresholds in force, parsed
    oversubscribe: bool = False  # the suite asks for more ranks than cores
    scaled: list = field(default_factory=list)  # (step, param, value, scaled value)
    score: str | None = None  # "io500": io500.py judges and scores the run
    # {workload: sonde.results.names Params class}: the binary's (argcheck.workloads), or the
    # classes of sonde.results.names when no binary was asked
    workloads: dict = field(default_factory=lambda: dict(_names.WORKLOADS))

    @property
    def reduced_scale(self):
        return self.scale is not None and self.scale < 1


class _Text:
    """The file's text, to name the line of a key (TOML parsers give no positions)."""

    def __init__(self, path, text):
        self.path = path
        self.lines = text.splitlines()

    def _table(self, table, nth):
        """Line range (start, end) of the nth [[table]] / [table], sub-tables included."""
        heads = [i for i, ln in enumerate(self.lines)
                 if ln.strip() in (f"[[{table}]]", f"[{table}]")]
        if nth >= len(heads):
            return 0, len(self.lines)
        start = heads[nth]
        # the next table head that is not one of this table's sub-tables ([step.sweep])
        other = re.compile(r"^\s*\[\[?(?!" + re.escape(table) + r"\.)")
        end = next((i for i in range(start + 1, len(self.lines)) if other.match(self.lines[i])),
                   len(self.lines))
        return start, end

    def line(self, key=None, table=None, nth=0, sub=None):
        """1-based line of `key =` in the nth [[table]] (in its [table.sub] when sub is
        given), or of the table's head."""
        start, end = self._table(table, nth) if table else (0, len(self.lines))
        if sub:
            head = next((i for i in range(start, end)
                         if self.lines[i].strip() == f"[{table}.{sub}]"), None)
            if head is not None:
                start = head
                end = next((i for i in range(head + 1, end)
                            if self.lines[i].strip().startswith("[")), end)
        if key is None:
            return start + 1
        pattern = re.compile(rf"^\s*\"?{re.escape(key)}\"?\s*=")
        inside_sub = sub is not None
        for i in range(start, end):
            if i > start and not inside_sub and self.lines[i].strip().startswith("["):
                break  # a key of the step itself comes before its sub-tables
            if pattern.match(self.lines[i]):
                return i + 1
        return start + 1

    def error(self, message, key=None, table=None, nth=0, sub=None):
        return SuiteError(f"{self.path}:{self.line(key, table, nth, sub)}: {message}")


def _whole(value, what, err):
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise err(f"{what} must be a whole number >= 1, not {value!r}")
    return value


def load(path, scale=None, scratch=None, workloads=None):
    """Reads a suite file, checks all of it, and expands it into its launches. scratch: the
    directory {scratch} stands for in this run (sonde-suite gives each run its own, below the
    suite's scratch: run_scratch); the suite's own scratch when None. workloads: the
    workloads steps may name, {name: Params class} (argcheck.workloads of the binary that will
    run them); those sonde.results.names has classes for when None."""
    path = Path(path)
    try:
        raw = path.read_text()
    except OSError as e:
        raise SuiteError(f"{path}: cannot read: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise SuiteError(f"{path}: not UTF-8 text (byte {e.start}): a suite file is TOML, "
                         "which is UTF-8") from None
    try:
        doc = tomllib.loads(raw)
    except tomllib.TOMLDecodeError as e:
        raise SuiteError(f"{path}: not valid TOML: {e}") from None
    if scale is not None and not scale > 0:
        raise SuiteError(f"{path}: --scale must be a positive number, not {scale}")
    text = _Text(path, raw)

    head = doc.get("suite", {})
    for key in set(doc) - {"suite", "step"}:
        raise text.error(f"unknown table [{key}] (known: [suite], [[step]])", table=key)
    for key in sorted(set(head) - SUITE_KEYS):
        raise text.error(f"unknown key '{key}' in [suite] (known: "
                         f"{', '.join(sorted(SUITE_KEYS))})", key, "suite")
    try:
        settings = _rules.settings_of(head.get("settings", {}))
    except ValueError as e:
        bad = next((k for k in head.get("settings", {}) if k in str(e)), None)
        raise text.error(str(e), bad, "suite", sub="settings") from None
    oversubscribe = head.get("oversubscribe", False)
    if not isinstance(oversubscribe, bool):
        raise text.error(f"oversubscribe must be true or false, not {oversubscribe!r}",
                         "oversubscribe", "suite")
    steps = doc.get("step", [])
    if not steps:
        raise SuiteError(f"{path}: no [[step]] tables: nothing to run")
    score = head.get("score")
    if score is not None and score not in SCORES:
        raise text.error(f"unknown score '{score}' (known: {', '.join(sorted(SCORES))})",
                         "score", "suite")
    suite = Suite(path=path, name=str(head.get("name", path.stem)),
                  description=str(head.get("description", "")),
                  scratch=str(scratch or head.get("scratch", DEFAULT_SCRATCH)),
                  scratch_base=str(head.get("scratch", DEFAULT_SCRATCH)), launches=[],
                  scale=scale, settings=settings, oversubscribe=oversubscribe, score=score,
                  workloads=dict(_names.WORKLOADS if workloads is None else workloads))
    seen = set()
    for n, step in enumerate(steps):
        if "touch" in step:
            _load_touch_step(suite, text, step, n, seen)
        elif "concurrent" in step:
            _load_concurrent_step(suite, text, head, step, n, seen)
        else:
            _load_step(suite, text, head, step, n, seen)
    if score == "io500":
        problem = io500_phases.check_steps([ln.step for ln in suite.launches])
        if problem:
            raise SuiteError(f"{path}: {problem}")
    return suite


def _load_touch_step(suite, text, step, n, seen):
    """A step that touches files: one launch without a workload."""
    def err(message, key=None):
        return text.error(message, key, "step", n)

    for key in sorted(set(step) - TOUCH_STEP_KEYS):
        raise err(f"'{key}' in a step that touches files (it takes only: "
                  f"{', '.join(sorted(TOUCH_STEP_KEYS))})", key)
    if "name" not in step:
        raise err(f"[[step]] number {n + 1} has no 'name'")
    if step["name"] in seen:
        raise err(f"step name '{step['name']}' is used twice", "name")
    seen.add(step["name"])
    paths = step["touch"]
    if not isinstance(paths, list) or not paths or not all(isinstance(t, str) for t in paths):
        raise err("touch must be a non-empty list of paths", "touch")
    line = text.line("touch", "step", n)
    values = {"scratch": suite.scratch}
    suite.launches.append(Launch(
        index=len(suite.launches), step=step["name"], workload=None, args=[], ranks=1,
        nodes=None, tasks_per_node=None, repetition=0, params={}, rules=[], variant=None,
        timeout=DEFAULT_TIMEOUT, where=f"{text.path}:{text.line(None, 'step', n)}",
        touch=[_substitute(t, values, text.path, line) for t in paths]))


def _load_concurrent_step(suite, text, head, step, n, seen):
    """A step whose groups of ranks run their workloads at once: one `sonde mix` launch
    (docs/workloads/mix.md), its ranks the sum of the groups'. It is judged by no rule: the
    rules judge one workload's run."""
    def err(message, key=None, sub=None):
        return text.error(message, key, "step", n, sub)

    for key in sorted(set(step) - CONCURRENT_STEP_KEYS):
        raise err(f"unknown key '{key}' in a concurrent step (it takes: "
                  f"{', '.join(sorted(CONCURRENT_STEP_KEYS))})", key)
    if "name" not in step:
        raise err(f"[[step]] number {n + 1} has no 'name'")
    name = step["name"]
    if name in seen:
        raise err(f"step name '{name}' is used twice", "name")
    seen.add(name)
    groups = step["concurrent"]
    if not isinstance(groups, list) or not groups or not all(isinstance(g, dict)
                                                             for g in groups):
        raise err("concurrent must be [[step.concurrent]] tables, one per group", "concurrent")

    def value(key, default=None):
        return step.get(key, head.get(key, default))

    def where(key):
        return (lambda m: err(m, key)) if key in step else (lambda m: text.error(m, key, "suite"))

    nodes, tpn = value("nodes"), value("tasks_per_node")
    nodes, tpn, ranks = _shape(nodes, tpn, step.get("ranks"), None, where)
    args = ["--solo"] if step.get("solo") else []
    if "interval" in step:
        try:
            seconds = _rules.parse_duration(step["interval"])
        except ValueError as e:
            raise err(f"interval: {e}", "interval") from None
        args += ["--interval", f"{seconds:g}"]
    total = 0
    for k, g in enumerate(groups, 1):
        for key in sorted(set(g) - GROUP_KEYS):
            raise err(f"unknown key '{key}' in group {k} of a concurrent step (known: "
                      f"{', '.join(sorted(GROUP_KEYS))})", "concurrent")
        if g.get("workload") not in suite.workloads or not isinstance(g.get("args"), list):
            raise err(f"group {k} of a concurrent step needs a workload (known: "
                      f"{', '.join(sorted(suite.workloads))}) and args (a list)", "concurrent")
        if ("ranks" in g) == ("per_node" in g):
            raise err(f"group {k}: ranks = N (N ranks) or per_node = N (N of each node), one "
                      "of the two", "concurrent")
        def group_err(m, k=k):
            return err(f"group {k}: {m}", "concurrent")

        if "ranks" in g:
            count = _whole(g["ranks"], "ranks", group_err)
            total += count
            spec = f"{count}:"
        else:
            count = _whole(g["per_node"], "per_node", group_err)
            if nodes is None:
                raise err(f"group {k}: per_node needs the step's nodes", "concurrent")
            total += count * nodes
            spec = f"{count}/node:"
        args += ["--group", spec, g["workload"], *g["args"]]
    if ranks is not None and nodes is not None and total != ranks:
        raise err(f"the groups take {total} ranks, the step has nodes x tasks_per_node = "
                  f"{nodes} x {tpn}", "concurrent")
    ranks = total
    try:
        timeout = _rules.parse_duration(value("timeout", DEFAULT_TIMEOUT))
    except ValueError as e:
        raise where("timeout")(f"timeout: {e}") from None
    reps = _whole(value("repetitions", 1), "repetitions", where("repetitions"))
    params = dict(step.get("params", {}))
    values = dict(params, scratch=suite.scratch, ranks=ranks, nodes=nodes or 1,
                  tasks_per_node=tpn or ranks)
    line = text.line("concurrent", "step", n)
    args = [a for a in (_substitute(str(a), values, text.path, line) for a in args) if a != ""]
    mkdirs = [_substitute(str(d), values, text.path, text.line("mkdir", "step", n))
              for d in step.get("mkdir", [])]
    for rep in range(reps):
        suite.launches.append(Launch(
            index=len(suite.launches), step=name, workload="mix", args=args, ranks=ranks,
            nodes=nodes, tasks_per_node=tpn, repetition=rep, params=params, rules=[],
            variant=None, timeout=timeout, mkdir=mkdirs,
            where=f"{text.path}:{text.line(None, 'step', n)}"))


def _load_step(suite, text, head, step, n, seen):
    def err(message, key=None, sub=None):
        return text.error(message, key, "step", n, sub)

    for key in sorted(set(step) - STEP_KEYS):
        raise err(f"unknown key '{key}' in [[step]] (known: {', '.join(sorted(STEP_KEYS))})",
                  key)
    for key in ("name", "workload", "args"):
        if key not in step:
            raise err(f"[[step]] number {n + 1} has no '{key}'")
    name = step["name"]
    if name in seen:
        raise err(f"step name '{name}' is used twice", "name")
    seen.add(name)
    workload = step["workload"]
    if workload not in suite.workloads:
        raise err(f"unknown workload '{workload}' (known: {', '.join(sorted(suite.workloads))})",
                  "workload")
    if not isinstance(step["args"], list) or not all(
            isinstance(a, (str, int, float)) for a in step["args"]):
        raise err("args must be a list of strings", "args")

    def value(key, default=None):
        return step.get(key, head.get(key, default))

    def where(key):
        """An error maker for the line that sets key: in the step, its sweep, or [suite]."""
        if key in step:
            return lambda m: err(m, key)
        if key in step.get("sweep", {}):
            return lambda m: err(m, key, "sweep")
        if key in head:
            return lambda m: text.error(m, key, "suite")
        return lambda m: err(m)

    rules = value("rules", [])
    _check_rules(rules, workload, where("rules"))
    try:
        timeout = parse_duration(value("timeout", DEFAULT_TIMEOUT))
    except ValueError as e:
        raise where("timeout")(f"timeout: {e}") from None
    if timeout <= 0:
        raise where("timeout")("timeout must be more than 0 seconds")
    ranks = _whole(value("ranks", 1), "ranks", where("ranks"))
    nodes, tpn = value("nodes"), value("tasks_per_node")
    if nodes is not None:
        _whole(nodes, "nodes", where("nodes"))
    if tpn is not None:
        _whole(tpn, "tasks_per_node", where("tasks_per_node"))
    reps = _whole(value("repetitions", 1), "repetitions", where("repetitions"))
    sweep = step.get("sweep", {})
    params = dict(step.get("params", {}))
    for key, vals in sweep.items():
        if not isinstance(vals, list) or not vals:
            raise err(f"sweep '{key}' must be a non-empty list", key, "sweep")
    used = {m.group(1) for a in list(step["args"]) + list(step.get("mkdir", []))
            for m in PLACEHOLDER.finditer(str(a))}
    for table, keys in (("sweep", sweep), ("params", params)):
        for key in keys:
            if key not in used and key not in SHAPE:
                raise err(f"{table} '{key}' is used by no argument (no {{{key}}} in args or "
                          "mkdir)", key, table)
    spec = suite.workloads[workload]
    fixed = _check_fixed(step.get("fixed", {}), spec, rules,
                         lambda m, key=None: err(m, key, "fixed"))
    free = _check_free(step.get("free", {}), spec, rules, fixed,
                       lambda m, key=None: err(m, key, "free"))
    for key, multiple in step.get("scale", {}).items():
        if key not in params or not isinstance(params[key], int) or isinstance(params[key],
                                                                                bool):
            raise err(f"scale '{key}' names no whole-number entry of [step.params]", key,
                      "scale")
        if not isinstance(multiple, int) or multiple < 1:
            raise err(f"scale '{key}' must be a whole number >= 1", key, "scale")
        if suite.scale is not None:
            scaled = max(multiple, int(params[key] * suite.scale) // multiple * multiple)
            suite.scaled.append((step["name"], key, params[key], scaled))
            params[key] = scaled
    line_of = {"args": text.line("args", "step", n), "mkdir": text.line("mkdir", "step", n)}
    for combo in itertools.product(*sweep.values()) if sweep else [()]:
        values = dict(params)
        values.update(zip(sweep.keys(), combo, strict=True))
        l_nodes = values.get("nodes", nodes)
        l_tpn = values.get("tasks_per_node", tpn)
        # ranks of the step or swept must agree with nodes x tasks per node; the suite's
        # ranks is a default for steps that are not placed on nodes
        l_ranks = values.get("ranks", step.get("ranks"))
        l_nodes, l_tpn, l_ranks = _shape(l_nodes, l_tpn, l_ranks, ranks, where)
        values.update(scratch=suite.scratch, ranks=l_ranks, nodes=l_nodes or 1,
                      tasks_per_node=l_tpn or l_ranks)
        args = [a for a in (_substitute(str(a), values, text.path, line_of["args"])
                            for a in step["args"]) if a != ""]
        mkdirs = [_substitute(str(d), values, text.path, line_of["mkdir"])
                  for d in step.get("mkdir", [])]
        shown = {k: v for k, v in values.items() if k in sweep or k in params}
        for rep in range(reps):
            suite.launches.append(Launch(
                index=len(suite.launches), step=name, workload=workload, args=args,
                ranks=l_ranks, nodes=l_nodes, tasks_per_node=l_tpn, repetition=rep,
                params=shown, rules=list(rules), variant=step.get("variant"),
                timeout=timeout, fixed=fixed, free=free, mkdir=mkdirs, swept=tuple(sweep),
                param_names=spec,
                where=f"{text.path}:{text.line(None, 'step', n)}"))


def _shape(nodes, tpn, ranks, default_ranks, where):
    """nodes, tasks per node and ranks of a launch: nodes x tasks per node = ranks. where(key)
    makes the error for the line that sets key."""
    for what, v in (("nodes", nodes), ("tasks_per_node", tpn), ("ranks", ranks)):
        if v is not None:
            _whole(v, what, where(what))
    if nodes is None and tpn is None:
        return None, None, ranks or default_ranks
    if nodes is not None and tpn is None:
        if ranks is None or ranks % nodes:
            raise where("nodes")(f"nodes = {nodes} needs tasks_per_node (or ranks, a multiple "
                                 "of nodes)")
        tpn = ranks // nodes
    if nodes is None:
        nodes = 1 if ranks is None else ranks // tpn
        if ranks is not None and ranks % tpn:
            raise where("ranks")(f"ranks = {ranks} is no multiple of tasks_per_node = {tpn}")
    if ranks is not None and ranks != nodes * tpn:
        raise where("ranks")(f"ranks = {ranks}, but nodes x tasks_per_node = {nodes} x {tpn}")
    return nodes, tpn, nodes * tpn


def _check_rules(rules, workload, err):
    if not isinstance(rules, list) or not all(isinstance(r, str) for r in rules):
        raise err("rules must be a list of rule names")
    for r in rules:
        if r not in _rules.RULES:
            raise err(f"unknown rule '{r}' (known: {', '.join(sorted(_rules.RULES))})")
        only = _rules.RULES[r].workloads
        if only and workload not in only:
            raise err(f"rule '{r}' judges {', '.join(sorted(only))} runs, not {workload}")


def _check_fixed(fixed, spec, rules, err):
    """[step.fixed]: parameter names of the workload with values of their type."""
    if fixed and "fixed_parameters" not in rules:
        raise err("[step.fixed] is judged by the rule fixed_parameters, which the step does "
                  "not list in rules")
    workload = spec.workload
    out = {}
    for key, spec_value in fixed.items():
        name = spec.find(key)
        if name is None or name.where == _names.MEASUREMENT:
            raise err(f"fixed '{key}' is no parameter of {workload} (its names: "
                      f"docs/options/{workload}.md)", key)
        entry = spec_value if isinstance(spec_value, dict) else {"value": spec_value}
        if set(entry) - {"value", "unless"} or "value" not in entry:
            raise err(f"fixed '{key}': a value, or {{ value = ..., unless = \"RULE\" }}", key)
        unless = entry.get("unless")
        if unless is not None and unless not in rules:
            raise err(f"fixed '{key}': unless names '{unless}', which is not one of the step's "
                      "rules", key)
        try:
            typed = _rules.fixed_value(name, entry["value"])
        except ValueError as e:
            raise err(f"fixed '{key}': {e}", key) from None
        if not name.typed(typed):
            raise err(f"fixed '{key}': {entry['value']!r} is not a value of this parameter "
                      f"({' or '.join(t.__name__ for t in name.types)})", key)
        out[key] = {"value": entry["value"], "unless": unless}
    return out


def _check_free(free, spec, rules, fixed, err):
    """[step.free]: parameter names of the workload, each with the reason it may differ from
    its default (the verdict of fixed_parameters prints it)."""
    if free and "fixed_parameters" not in rules:
        raise err("[step.free] is judged by the rule fixed_parameters, which the step does "
                  "not list in rules")
    workload = spec.workload
    for key, why in free.items():
        name = spec.find(key)
        if name is None or name.where == _names.MEASUREMENT:
            raise err(f"free '{key}' is no parameter of {workload} (its names: "
                      f"docs/options/{workload}.md)", key)
        if key in fixed:
            raise err(f"free '{key}' is also fixed", key)
        if not isinstance(why, str) or not why.strip():
            raise err(f"free '{key}': the reason it may differ from its default, as text", key)
    return dict(free)


def _substitute(text, values, path, line):
    def repl(m):
        key = m.group(1)
        if m.group(0) == RUN_DIR:
            return RUN_DIR
        if key not in values:
            raise SuiteError(f"{path}:{line}: placeholder {{{key}}} has no value (define it in "
                             "[step.params] or [step.sweep])")
        return str(values[key])

    return PLACEHOLDER.sub(repl, text)
