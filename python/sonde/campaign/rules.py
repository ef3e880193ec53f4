# SPDX-License-Identifier: BSD-3-Clause
"""Rules that judge whether a launch is a valid procurement run, the result table made from the
runs and the score (the rules of the JUPITER IOR benchmark, JSC's jubench-ior README; every
rule is described in docs/suites.md).

A rule reads the records the launch wrote (sonde.results.names spells every member it reads) and
answers with a Verdict: pass or fail with the figures that decided, or error when the records
lack what it needs (naming the missing member: a rule that cannot be evaluated never passes).
An advisory rule answers warning instead of fail: it is reported, and does not make the run
non-compliant. "compliant" means the seed's whole rule set (SEED_RULES) at the seed's
thresholds and with the seed's fixed parameters passed; a launch judged by fewer of them, or by
easier ones, is "judged by N of M seed rules" and never scored. A run at reduced scale
(sonde-suite --scale below 1) is never compliant, and a launch whose step lists no rule is
"no rules", never compliant.
"""

import os
from dataclasses import dataclass, field, replace

from ..results.names import (
    IOR,
    End,
    Header,
    IORExtra,
    IORReadExtra,
    IORSummary,
    Measurement,
)
from ..results.units import parse_duration, parse_size

GIB = 1 << 30

PASS, FAIL, ERROR, WARNING = "pass", "fail", "error", "warning"
COMPLIANT, NOT_COMPLIANT, REDUCED_SCALE = "compliant", "not-compliant", "reduced-scale"
# A launch whose step lists no rule: nothing was judged, so it is never called compliant
# (exit_ok is still checked and reported).
NO_RULES = "no rules"
# The rules of the seed (the JUPITER IOR README): the run succeeds, lasts a minute of I/O, moves
# 128 GiB per node, -Q is the tasks per node (which placement must make one number), and every
# parameter is the seed's. Only a launch judged by all of them, at the seed's strength, is
# compliant.
SEED_RULES = ("exit_ok", "min_runtime", "dataset_per_node", "ior_q_equals_tpn",
              "even_placement", "fixed_parameters")
# The seed's score: the best easy POSIX run on more than this many nodes.
SCORE_MIN_NODES = 65


@dataclass
class Verdict:
    rule: str
    verdict: str  # PASS, FAIL, ERROR or WARNING
    reason: str
    advice: str | None = None  # something worth knowing that the rule does not judge

    @property
    def ok(self):
        return self.verdict in (PASS, WARNING)

    def as_dict(self):
        return {"rule": self.rule, "verdict": self.verdict, "ok": self.ok,
                "reason": self.reason, "advice": self.advice}


class Missing(Exception):
    """The records lack a member a rule needs; the message names it ("X", said as "X is
    missing"), or says what is wrong in a clause of its own (said=True)."""

    def __init__(self, what, said=False):
        super().__init__(what)
        self.said = said

    def sentence(self):
        return str(self) if self.said else f"{self} is missing"


# ---- settings: the thresholds a suite may set ([suite.settings]) -----------------------------

@dataclass(frozen=True)
class Setting:
    name: str
    default: str  # the seed's value
    parse: object
    doc: str


SETTINGS = {s.name: s for s in (
    Setting("min_runtime", "60s", parse_duration,
            "the least time spent in I/O phases in one sonde run, the sum of its "
            "measurements' phase times (the seed: one minute of IOR execution)"),
    Setting("dataset_per_node", "128GiB", parse_size,
            "the least data set per node, the bytes every node moved in every phase (the "
            "seed: 128 GiB)"),
)}


def settings_of(given=None):
    """The settings in force: the seed's values, replaced by the suite's. Values are parsed
    (seconds, bytes); a bad value raises ValueError naming the setting."""
    given = dict(given or {})
    out = {}
    for name, s in SETTINGS.items():
        try:
            out[name] = s.parse(given.pop(name, s.default))
        except ValueError as e:
            raise ValueError(f"setting {name}: {e}") from None
    if given:
        raise ValueError(f"unknown setting {sorted(given)[0]!r} (known: "
                         f"{', '.join(sorted(SETTINGS))})")
    return out


def loosened(settings):
    """The settings that are easier to meet than the seed's, as text (empty when none)."""
    seed = settings_of()
    return [f"{k} {_show(k, settings[k])} (the seed: {_show(k, seed[k])})"
            for k in SETTINGS if settings[k] < seed[k]]


def _show(name, value):
    if SETTINGS[name].parse is parse_size:
        return _bytes(value)
    return f"{value:g} s"


def _bytes(n):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.2f} {unit}"
    return f"{n} bytes"


# ---- reading the records --------------------------------------------------------------------

def _header(run):
    if run is None:
        raise Missing("the launch wrote no records (its results.jsonl is missing or empty)",
                      said=True)
    if run.header is None:
        raise Missing("the header record")
    return run.header


def _header_member(run, name):
    h = _header(run)
    if h.get(name) is None:
        raise Missing(f"{name} in the header record")
    return h[name]


def _param(run, name):
    params = _header(run).get(Header.PARAMS) or {}
    if params.get(name) is None:
        raise Missing(f"params.{name} in the header record")
    return params[name]


def _end(run, name):
    _header(run)
    if run.end is None:
        raise Missing("the end record (the run did not finish)")
    if run.end.get(name) is None:
        raise Missing(f"{name} in the end record")
    return run.end[name]


# ---- the rules ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Rule:
    """A named check (docs/suites.md describes each)."""

    name: str
    check: object  # (launch, run, settings) -> (ok, reason) or (ok, reason, advice)
    workloads: frozenset | None = None  # None: every workload
    advisory: bool = False  # fails as a warning, never makes a run non-compliant
    # (launch, run, settings) -> ok: whether the rule would pass had the run's params been
    # others (fixed_parameters' "unless"), where check judges what the run did
    what_if: object = None


def exit_ok(launch, run, settings):
    code = _end(run, End.EXIT_CODE)
    return code == 0, f"exit code {code}"


def io_seconds(run):
    """The time the run spent in I/O phases: the sum of its measurements' phase times (a
    delay before a phase, -d, or the work between phases is no I/O)."""
    _header(run)
    if not run.measurements:
        raise Missing("a measurement record")
    return sum(m[Measurement.SECONDS] for m in run.measurements)


def min_runtime(launch, run, settings):
    wall = _end(run, End.ELAPSED_SECONDS)
    io = io_seconds(run)
    need = settings["min_runtime"]
    return io >= need, (f"{io:.3f} s in {len(run.measurements)} I/O phases, {wall:.1f} s wall "
                        f"time (rule: at least {need:g} s in I/O phases)")


def _placement(run):
    """Ranks on each node, from the header (node 0 first)."""
    return _header_member(run, Header.TASKS_ON_NODE)


def even_placement(launch, run, settings):
    counts = _placement(run)
    hosts = _header(run).get(Header.HOSTNAMES) or [f"node {i}" for i in range(len(counts))]
    if len(set(counts)) == 1:
        return True, f"{len(counts)} nodes of {counts[0]} ranks each"
    each = ", ".join(f"{h} {c}" for h, c in zip(hosts, counts, strict=False))
    return False, (f"ranks per node differ: {each} (rule: the same number of ranks on every "
                   "node, or tasks per node, -Q and the data set per node mean nothing)")


def _asked_per_node(run):
    """The data set per node the parameters ask for: the seed's formula."""
    block = _param(run, IOR.BLOCK_SIZE)
    segments = _param(run, IOR.SEGMENT_COUNT)
    tpn = _header_member(run, Header.TASKS_PER_NODE)
    return block * segments * tpn, block, segments, tpn


def dataset_per_node_asked(launch, run, settings):
    """Whether the parameters ask for enough (the seed's condition for changing the hard
    variant's segment count: would the fixed count miss the data set?)."""
    return _asked_per_node(run)[0] >= settings["dataset_per_node"]


def dataset_per_node(launch, run, settings):
    """The least bytes a node moved in any phase, against the threshold: what the run did,
    not blockSize x segmentCount x tasks per node, which a stonewall (-D) or an uneven
    placement makes a promise the run did not keep."""
    credited, block, segments, tpn = _asked_per_node(run)
    if not run.measurements:
        raise Missing("a measurement record")
    least = None
    for m in run.measurements:
        per_node = m[Measurement.EXTRA].get(IORExtra.NODE_BYTES)
        if per_node is None:
            raise Missing(f"extra.{IORExtra.NODE_BYTES} in the {m[Measurement.PHASE]} "
                          "measurement")
        for node, moved in enumerate(per_node):
            if least is None or moved < least[0]:
                least = (moved, node, m)
    moved, node, m = least
    hosts = _header(run).get(Header.HOSTNAMES) or []
    host = hosts[node] if node < len(hosts) else f"node {node}"
    need = settings["dataset_per_node"]
    reason = (f"{_bytes(moved)} per node: the least a node moved in a phase ({host}, "
              f"{m[Measurement.PHASE]} iteration {m[Measurement.ITERATION]}; "
              f"{len(run.measurements)} phases); the parameters ask for {_bytes(credited)} = "
              f"{IOR.BLOCK_SIZE} {block} x {IOR.SEGMENT_COUNT} {segments} x {tpn} tasks per "
              f"node (rule: at least {_bytes(need)} per node in every phase)")
    advice = None
    memory = node_memory_bytes()
    if memory and moved <= memory:
        advice = (f"the data set per node ({_bytes(moved)}) is not larger than the memory of "
                  f"the host sonde-suite runs on ({_bytes(memory)}): if the compute nodes have "
                  "as much, their caches can hold it")
    return moved >= need, reason, advice


def ior_q_equals_tpn(launch, run, settings):
    q = _param(run, IOR.TASK_PER_NODE_OFFSET)
    tpn = _header_member(run, Header.TASKS_PER_NODE)
    counts = _placement(run)
    if len(set(counts)) > 1:
        return False, (f"-Q {q}, but the nodes ran {', '.join(map(str, counts))} ranks: no "
                       "one tasks per node (rule: -Q = tasks per node)")
    return q == tpn, f"-Q {q}, tasks per node {tpn} (rule: -Q = tasks per node)"


def ior_read_shift(launch, run, settings):
    """Whether -C moved the reads to other nodes, as the binary worked it out."""
    if not _param(run, IOR.REORDER_TASKS):
        return False, "no -C: every task reads back what it wrote"
    reads = [m for m in run.measurements if m[Measurement.PHASE] == "read"]
    if not reads:
        raise Missing("a read measurement")
    extra = reads[0][Measurement.EXTRA]
    for name in (IORReadExtra.READ_SHIFT_RANKS, IORReadExtra.SAME_NODE_READS):
        if extra.get(name) is None:
            raise Missing(f"extra.{name} in the read measurement")
    shift, same = extra[IORReadExtra.READ_SHIFT_RANKS], extra[IORReadExtra.SAME_NODE_READS]
    ranks = _header_member(run, Header.RANKS)
    text = (f"-C shifts reads by {shift} ranks; {same} of {ranks} ranks read data their own "
            "node wrote")
    if shift == 0:
        text += " (-Q x tasks per node is a multiple of the task count)"
    return same == 0, text


def verified(launch, run, settings):
    _header(run)
    checked = [m for m in run.measurements if m[Measurement.VERIFY]["checked"]]
    if not checked:
        return False, "no phase verified its data"
    errors = sum(m[Measurement.VERIFY]["errors"] for m in checked)
    return errors == 0, f"{len(checked)} phases verified, {errors} errors"


# The seed's parameter tables (its "Parameters and Rules"): the base parameters and each
# variant's, with the hard variant's exception for the segment count.
_SEED_BASE = {IOR.API: "POSIX", IOR.REPETITIONS: 3, IOR.INTRA_TEST_BARRIERS: True,
              IOR.REORDER_TASKS: True, IOR.WRITE_FILE: True, IOR.READ_FILE: True,
              IOR.VERBOSE: 1}
SEED_FIXED = {
    "easy": dict(_SEED_BASE, **{IOR.FILE_PER_PROC: True, IOR.TRANSFER_SIZE: 16 << 20,
                                IOR.SEGMENT_COUNT: 1}),
    "hard": dict(_SEED_BASE, **{IOR.FILE_PER_PROC: False, IOR.TRANSFER_SIZE: 4096,
                                IOR.BLOCK_SIZE: 4096,
                                IOR.SEGMENT_COUNT: {"value": 524288,
                                                    "unless": "dataset_per_node"}}),
}
# What the seed leaves free besides its tables' "no" rows, and why; every other parameter of
# a run must be at the binary's default (docs/suites.md lists them).
SEED_FREE = {
    IOR.TEST_FILE: "the path of the test file (the seed's -o)",
    IOR.TASK_PER_NODE_OFFSET: "-Q is judged by ior_q_equals_tpn",
    IOR.PRESET: "a name for fixed values, which are judged themselves",
    IOR.DIRECTIVES: "the text of -O: each directive is judged under its own name",
    IOR.REF_NUM: "a label in the summary",
    IOR.PLATFORM: "a label in the JSON summary",
    IOR.SUMMARY_FORMAT: "the format of the output",
    IOR.SUMMARY_FILE: "where the output goes",
    IOR.SAVE_RANK_PERFORMANCE_DETAILS_CSV: "per-rank figures written after each phase",
    IOR.RANK_DETAILS: "per-rank figures printed after each phase",
    IOR.LATENCY: "latency lines printed after each phase",
    IOR.OUTLIER_THRESHOLD: "warnings worked out after each phase, outside its timed span",
}
SEED_FREE_BY_VARIANT = {"easy": {IOR.BLOCK_SIZE: "the seed: free in the easy variant"},
                        "hard": {}}
# settings key under which evaluate hands the rules the binary's defaults
_DEFAULTS = "defaults"


def seed_free(launch):
    """The parameters the seed leaves free in the launch's variant (ior only)."""
    if launch.workload != IOR.workload:
        return {}
    return dict(SEED_FREE, **SEED_FREE_BY_VARIANT.get(launch.variant, {}))


def fixed_parameters(launch, run, settings):
    """Every [step.fixed] parameter has its value in the run's params, and every other
    parameter is at the binary's default unless the seed or the suite ([step.free]) frees it."""
    params = _header(run).get(Header.PARAMS) or {}
    spec = launch.param_names
    wrong = []
    for key, fixed in launch.fixed.items():
        name = spec.find(key)
        if key not in params:
            raise Missing(f"params.{key} in the header record")
        want = fixed_value(name, fixed["value"])
        if params[key] == want:
            continue
        if fixed.get("unless") and not _rule_passes(fixed["unless"], launch, run, settings,
                                                    {key: want}):
            continue  # the exception the seed allows: the fixed value would fail that rule
        wrong.append(f"{key} {params[key]!r} (fixed: {want!r})")
    checked = 0
    free = dict(seed_free(launch), **launch.free)
    defaults = settings.get(_DEFAULTS, {}).get(launch.workload)
    if launch.workload == IOR.workload:
        if defaults is None or isinstance(defaults, Exception):
            why = f" ({defaults})" if defaults is not None else ""
            raise Missing(f"the defaults of the binary's {launch.workload} parameters{why}")
        for key in sorted(set(params) | set(defaults)):
            if key in launch.fixed or key in free:
                continue
            if key not in params:
                raise Missing(f"params.{key} in the header record")
            if key not in defaults:
                raise Missing(f"the binary's default of {key}")
            checked += 1
            if params[key] != defaults[key]:
                wrong.append(f"{key} {params[key]!r} (default: {defaults[key]!r})")
    declared = "".join(f"; free by the suite: {k} ({why})" for k, why in launch.free.items())
    if wrong:
        return False, "changed: " + ", ".join(wrong) + declared
    at_default = f", {checked} others at their defaults" if checked else ""
    return True, f"{len(launch.fixed)} fixed parameters as required{at_default}{declared}"


def _rule_passes(rule, launch, run, settings, replaced):
    """Whether rule passes on the run with some params replaced (what-if for 'unless')."""
    header = dict(run.header, params=dict(run.header[Header.PARAMS], **replaced))
    rule = RULES[rule]
    what_if = rule.what_if or (lambda *a: rule.check(*a)[0])
    return bool(what_if(launch, replace(run, header=header), settings))


def fixed_value(name, value):
    """A fixed value of a suite file as the records hold it (sizes in bytes)."""
    if name.types == (int,) and isinstance(value, str):
        return parse_size(value)
    return value


def _seed_fixed_as_declared(launch):
    """Whether the launch's [step.fixed] is the seed's table of its variant, and it frees
    nothing the seed does not."""
    seed = SEED_FIXED.get(launch.variant) if launch.workload == IOR.workload else None
    if seed is None or set(launch.fixed) != set(seed):
        return False
    spec = launch.param_names
    for key, want in seed.items():
        want = want if isinstance(want, dict) else {"value": want, "unless": None}
        have = launch.fixed[key]
        if (fixed_value(spec.find(key), have["value"]) != want["value"]
                or have.get("unless") != want["unless"]):
            return False
    return set(launch.free) <= set(seed_free(launch))


def seed_rules_applied(launch, settings):
    """The seed's rules that judge the launch at the seed's strength: listed by its step, at
    thresholds no easier than the seed's, and fixed_parameters with the seed's tables."""
    seed = settings_of()
    applied = []
    for name in SEED_RULES:
        if name != "exit_ok" and name not in launch.rules:
            continue
        if name in SETTINGS and settings[name] < seed[name]:
            continue
        if name == "fixed_parameters" and not _seed_fixed_as_declared(launch):
            continue
        applied.append(name)
    return applied


RULES = {r.name: r for r in (
    Rule("exit_ok", exit_ok),
    Rule("min_runtime", min_runtime),
    Rule("dataset_per_node", dataset_per_node, frozenset({"ior"}),
         what_if=dataset_per_node_asked),
    Rule("ior_q_equals_tpn", ior_q_equals_tpn, frozenset({"ior"})),
    Rule("ior_read_shift", ior_read_shift, frozenset({"ior"}), advisory=True),
    Rule("even_placement", even_placement),
    Rule("verified", verified),
    Rule("fixed_parameters", fixed_parameters),
)}


def with_defaults(settings, defaults):
    """The settings the rules read, with the binary's defaults (as evaluate takes them)."""
    return dict(settings, **{_DEFAULTS: defaults or {}})


def evaluate(launch, run, settings, reduced_scale=False, defaults=None):
    """Verdicts of every rule of the launch (exit_ok always), and the run's status. defaults:
    workload -> the binary's defaults of its parameters (defaults.binary_defaults), or
    the error that kept them from being read; fixed_parameters compares an ior run's params
    with them."""
    judged = with_defaults(settings, defaults)
    verdicts = []
    for name in ["exit_ok"] + [r for r in launch.rules if r != "exit_ok"]:
        rule = RULES[name]
        try:
            ok, reason, *more = rule.check(launch, run, judged)
            verdict = PASS if ok else WARNING if rule.advisory else FAIL
            verdicts.append(Verdict(name, verdict, reason, more[0] if more else None))
        except Missing as e:
            verdicts.append(Verdict(name, ERROR, f"cannot be evaluated: {e.sentence()}"))
    applied = seed_rules_applied(launch, settings)
    if reduced_scale:
        status = REDUCED_SCALE
    elif len(verdicts) == 1:
        status = NO_RULES
    elif not all(v.ok for v in verdicts):
        status = NOT_COMPLIANT
    elif len(applied) == len(SEED_RULES):
        status = COMPLIANT
    else:
        status = judged_by(len(applied))
    return verdicts, status


def judged_by(n):
    """The status of a run that passed every rule it was judged by, not the seed's all."""
    return f"judged by {n} of {len(SEED_RULES)} seed rules"


def node_memory_bytes():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return None


def phase_figures(run, phase):
    """Max/mean/min bandwidth (MiB/s) and mean time (s) of a phase over its iterations."""
    rows = [m for m in run.measurements if m[Measurement.PHASE] == phase]
    bws = [m[Measurement.BANDWIDTH] for m in rows if m[Measurement.BANDWIDTH] is not None]
    if not bws:
        return None
    return {"max": max(bws), "mean": sum(bws) / len(bws), "min": min(bws),
            "mean_s": sum(m[Measurement.SECONDS] for m in rows) / len(rows), "n": len(rows)}


# ---- the seed's result table and score ------------------------------------------------------

IOR_TABLE = ["api", "RDbwmax", "RDbwmean", "RDbwmin", "RDbmeans[s]", "WRbwmax", "WRbwmean",
             "WRbwmin", "WRbmeans[s]"]


def ior_row(run):
    """The seed README's result row of one IOR run (MiB/s, seconds), from the summary records
    the run wrote (IOR's "Summary of all tests" figures of its first test)."""
    row = {"api": (run.header or {}).get(Header.PARAMS, {}).get(IOR.API)}
    summaries = {s[IORSummary.OPERATION]: s for s in run.summaries
                 if s.get(IORSummary.TEST) == 0}
    for prefix, op in (("RD", "read"), ("WR", "write")):
        s = summaries.get(op, {})
        row[f"{prefix}bwmax"] = s.get(IORSummary.BW_MAX)
        row[f"{prefix}bwmean"] = s.get(IORSummary.BW_MEAN)
        row[f"{prefix}bwmin"] = s.get(IORSummary.BW_MIN)
        row[f"{prefix}bmeans[s]"] = s.get(IORSummary.MEAN_TIME)
    return row


def ior_table_row(launch, run, status):
    """The table's row of one launch: ior_row with what the score selects on."""
    header = run.header or {}
    return dict(ior_row(run), launch=launch.id, variant=launch.variant or "",
                nodes=header.get(Header.NODES), ranks=header.get(Header.RANKS),
                tasks_per_node=header.get(Header.TASKS_PER_NODE), status=status)


@dataclass
class Score:
    value: float | None  # RDbwmean + WRbwmean of the scored row, MiB/s
    row: dict | None  # the scored row
    qualitative: list = field(default_factory=list)  # easy POSIX rows on too few nodes
    why_none: str = ""


def score(rows, min_nodes=SCORE_MIN_NODES):
    """The seed's score: RDbwmean + WRbwmean of the best compliant easy run using POSIX on
    more than 64 nodes. Rows need variant, api, nodes, status and the table's figures."""
    easy = [r for r in rows if r.get("variant") == "easy" and r.get("api") == "POSIX"]
    ranked = [r for r in easy if r.get("RDbwmean") is not None and r.get("WRbwmean") is not None]
    big = [r for r in ranked if (r.get("nodes") or 0) >= min_nodes]
    qualitative = [r for r in ranked if (r.get("nodes") or 0) < min_nodes]
    valid = [r for r in big if r.get("status") == COMPLIANT]
    if not valid:
        if not easy:
            why = "no easy run using POSIX"
        elif not big:
            why = f"no easy POSIX run on more than {min_nodes - 1} nodes"
        else:
            why = f"no compliant easy POSIX run on more than {min_nodes - 1} nodes"
        return Score(None, None, qualitative, why)
    best = max(valid, key=lambda r: r["RDbwmean"] + r["WRbwmean"])
    return Score(best["RDbwmean"] + best["WRbwmean"], best, qualitative)
