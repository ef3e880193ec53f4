# SPDX-License-Identifier: BSD-3-Clause
"""Rules that judge whether a launch is a valid procurement run, the result table made from the
runs and the score (the rules of the JUPITER IOR benchmark, JSC's jubench-ior README; every
rule is described in docs/suites.md).

A rule reads the records the launch wrote (sonde.names spells every member it reads) and
answers with a Verdict: pass or fail with the figures that decided, or error when the records
lack what it needs (naming the missing member: a rule that cannot be evaluated never passes).
An advisory rule answers warning instead of fail: it is reported, and does not make the run
non-compliant. A run at reduced scale (sonde-suite --scale below 1) is never compliant, and a
launch whose step lists no rule is "no rules", never compliant.
"""

import os
import re
from dataclasses import dataclass, field, replace

from .names import IOR, End, Header, IORReadExtra, IORSummary, Measurement, params_of

GIB = 1 << 30

PASS, FAIL, ERROR, WARNING = "pass", "fail", "error", "warning"
COMPLIANT, NOT_COMPLIANT, REDUCED_SCALE = "compliant", "not-compliant", "reduced-scale"
# A launch whose step lists no rule: nothing was judged, so it is never called compliant
# (exit_ok is still checked and reported).
NO_RULES = "no rules"
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
    """The records lack a member a rule needs; the message names it."""


# ---- settings: the thresholds a suite may set ([suite.settings]) -----------------------------

DURATION = re.compile(r"^\s*(?:(\d+(?:\.\d+)?)\s*h)?\s*(?:(\d+(?:\.\d+)?)\s*m)?\s*"
                      r"(?:(\d+(?:\.\d+)?)\s*s?)?\s*$")
SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(i?b?)\s*$", re.IGNORECASE)


def parse_duration(value):
    """Seconds of a duration: a number of seconds, or text like "90s", "30m", "4h", "1h30m"."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a duration")
    if isinstance(value, (int, float)):
        if value < 0:
            raise ValueError(f"{value!r} is negative")
        return float(value)
    m = DURATION.match(str(value)) if str(value).strip() else None
    if not m or not any(m.groups()):
        raise ValueError(f"{value!r} is not a duration (seconds, or a number with h, m or s: "
                         "90, \"90s\", \"30m\", \"4h\", \"1h30m\")")
    h, mi, s = (float(g) if g else 0.0 for g in m.groups())
    return h * 3600 + mi * 60 + s


def parse_size(value):
    """Bytes of a size: a number of bytes, or text with a binary unit: "128GiB", "16m", "4k"."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a size")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"{value!r} is negative")
        return value
    m = SIZE.match(str(value))
    if not m:
        raise ValueError(f"{value!r} is not a size (bytes, or a number with k, m, g, t or p: "
                         "4096, \"16m\", \"128GiB\")")
    scale = 1 << (10 * "kmgtp".find(m.group(2).lower()) + 10) if m.group(2) else 1
    n = float(m.group(1)) * scale
    if n != int(n):
        raise ValueError(f"{value!r} is not a whole number of bytes")
    return int(n)


@dataclass(frozen=True)
class Setting:
    name: str
    default: str  # the seed's value
    parse: object
    doc: str


SETTINGS = {s.name: s for s in (
    Setting("min_runtime", "60s", parse_duration,
            "the least wall time of one sonde run (the seed: one minute)"),
    Setting("dataset_per_node", "128GiB", parse_size,
            "the least data set per node, block x segments x tasks per node (the seed: "
            "128 GiB)"),
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
        raise Missing("the launch wrote no records (results.jsonl is missing or empty)")
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


def exit_ok(launch, run, settings):
    code = _end(run, End.EXIT_CODE)
    return code == 0, f"exit code {code}"


def min_runtime(launch, run, settings):
    t = _end(run, End.ELAPSED_SECONDS)
    need = settings["min_runtime"]
    return t >= need, f"ran {t:.1f} s (rule: at least {need:g} s)"


def dataset_per_node(launch, run, settings):
    block = _param(run, IOR.BLOCK_SIZE)
    segments = _param(run, IOR.SEGMENT_COUNT)
    tpn = _header_member(run, Header.TASKS_PER_NODE)
    per_node = block * segments * tpn
    need = settings["dataset_per_node"]
    reason = (f"{_bytes(per_node)} per node = {IOR.BLOCK_SIZE} {block} x {IOR.SEGMENT_COUNT} "
              f"{segments} x {tpn} tasks per node (rule: at least {_bytes(need)})")
    advice = None
    memory = node_memory_bytes()
    if memory and per_node <= memory:
        advice = (f"the data set per node ({_bytes(per_node)}) is not larger than the memory of "
                  f"the host sonde-suite runs on ({_bytes(memory)}): if the compute nodes have "
                  "as much, their caches can hold it")
    return per_node >= need, reason, advice


def ior_q_equals_tpn(launch, run, settings):
    q = _param(run, IOR.TASK_PER_NODE_OFFSET)
    tpn = _header_member(run, Header.TASKS_PER_NODE)
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


def fixed_parameters(launch, run, settings):
    """Every fixed parameter of the step has its value in the run's params."""
    params = _header(run).get(Header.PARAMS) or {}
    spec = params_of(launch.workload)
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
    if wrong:
        return False, "changed: " + ", ".join(wrong)
    return True, f"{len(launch.fixed)} fixed parameters as required"


def _rule_passes(rule, launch, run, settings, replaced):
    """Whether rule passes on the run with some params replaced (what-if for 'unless')."""
    header = dict(run.header, params=dict(run.header[Header.PARAMS], **replaced))
    return bool(RULES[rule].check(launch, replace(run, header=header), settings)[0])


def fixed_value(name, value):
    """A fixed value of a suite file as the records hold it (sizes in bytes)."""
    if name.types == (int,) and isinstance(value, str):
        return parse_size(value)
    return value


RULES = {r.name: r for r in (
    Rule("exit_ok", exit_ok),
    Rule("min_runtime", min_runtime),
    Rule("dataset_per_node", dataset_per_node, frozenset({"ior"})),
    Rule("ior_q_equals_tpn", ior_q_equals_tpn, frozenset({"ior"})),
    Rule("ior_read_shift", ior_read_shift, frozenset({"ior"}), advisory=True),
    Rule("verified", verified),
    Rule("fixed_parameters", fixed_parameters),
)}


def evaluate(launch, run, settings, reduced_scale=False):
    """Verdicts of every rule of the launch (exit_ok always), and the run's status."""
    verdicts = []
    for name in ["exit_ok"] + [r for r in launch.rules if r != "exit_ok"]:
        rule = RULES[name]
        try:
            ok, reason, *more = rule.check(launch, run, settings)
            verdict = PASS if ok else WARNING if rule.advisory else FAIL
            verdicts.append(Verdict(name, verdict, reason, more[0] if more else None))
        except Missing as e:
            verdicts.append(Verdict(name, ERROR, f"cannot be evaluated: {e} is missing"))
    if reduced_scale:
        status = REDUCED_SCALE
    elif len(verdicts) == 1:
        status = NO_RULES
    elif all(v.ok for v in verdicts):
        status = COMPLIANT
    else:
        status = NOT_COMPLIANT
    return verdicts, status


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
