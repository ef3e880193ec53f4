"""Rules that decide whether a launch is valid for a procurement, and the scores and tables
made from valid runs (the IOR JUPITER rules: ../shared/seeds/ior-jupiter-benchmark-README.md).

A rule looks at a launch and the sonde results it produced, and answers ok (True/False) with
a reason; None means the results do not say (a rule that cannot be checked is not passed).
"""

from dataclasses import dataclass

GIB = 1 << 30


@dataclass
class Verdict:
    rule: str
    ok: bool | None
    reason: str


def _params(run):
    return (run.header or {}).get("params", {}) if run else {}


def _first(d, *keys):
    for k in keys:
        if k in d and d[k] is not None:
            return d[k]
    return None


def exit_ok(launch, run, ctx):
    if run is None or run.end is None:
        return None, "the run wrote no end record"
    code = run.end["exit_code"]
    return code == 0, f"exit code {code}"


def min_runtime_60s(launch, run, ctx):
    if run is None or run.end is None:
        return None, "no end record: run time unknown"
    t = run.end["elapsed_seconds"]
    return t >= 60, f"ran {t:.1f} s (rule: at least 60 s)"


def dataset_per_node_128gib(launch, run, ctx):
    """block size x segment count x tasks per node >= 128 GiB (or larger than node memory)."""
    p = _params(run)
    block = _first(p, "block_size", "blockSize")
    segments = _first(p, "segment_count", "segmentCount")
    tpn = (run.header or {}).get("tasks_per_node") if run else None
    if None in (block, segments, tpn):
        return None, "block size, segment count or tasks per node missing from the results"
    per_node = block * segments * tpn
    need = 128 * GIB
    mem = ctx.get("node_memory_bytes")
    if mem and mem > need:
        need = mem
    return per_node >= need, (f"{per_node / GIB:.2f} GiB per node (rule: >= "
                              f"{need / GIB:.0f} GiB)")


def ior_q_equals_tpn(launch, run, ctx):
    p = _params(run)
    q = _first(p, "tasks_per_node_offset", "tasksPerNodeOffset", "Q")
    tpn = (run.header or {}).get("tasks_per_node") if run else None
    if q is None or tpn is None:
        return None, "tasksPerNodeOffset or tasks per node missing from the results"
    return q == tpn, f"-Q {q}, tasks per node {tpn}"


def read_shift(ranks, tpn, q):
    """IOR's read shift under -C with block placement: Q counts nodes of tpn tasks."""
    return (q * tpn) % ranks if ranks else 0


def ior_read_shift_nonzero(launch, run, ctx):
    p = _params(run)
    header = run.header or {} if run else {}
    q = _first(p, "tasks_per_node_offset", "tasksPerNodeOffset", "Q")
    ranks, tpn = header.get("ranks"), header.get("tasks_per_node")
    if None in (q, ranks, tpn):
        return None, "tasksPerNodeOffset, ranks or tasks per node missing from the results"
    shift = read_shift(ranks, tpn, q)
    return shift != 0, (f"reads shifted by {shift} ranks ({shift // tpn if tpn else 0} nodes)"
                        + ("" if shift else ": every task reads back its own data"))


def verified(launch, run, ctx):
    if run is None:
        return None, "no results"
    checked = [m for m in run.measurements if m["verify"]["checked"]]
    if not checked:
        return False, "no phase verified its data"
    errors = sum(m["verify"]["errors"] for m in checked)
    return errors == 0, f"{len(checked)} phases verified, {errors} errors"


def fixed_parameters(launch, run, ctx):
    """Every fixed option of the step appears on the command line with its fixed value."""
    args = launch.args
    wrong = []
    for flag, value in launch.fixed.items():
        if value is True:
            if flag not in args:
                wrong.append(flag)
        elif flag not in args or args.index(flag) + 1 >= len(args) or \
                args[args.index(flag) + 1] != str(value):
            wrong.append(f"{flag} {value}")
    return not wrong, ("fixed parameters as required" if not wrong
                       else "fixed parameters changed: " + ", ".join(wrong))


RULES = {f.__name__: f for f in (exit_ok, min_runtime_60s, dataset_per_node_128gib,
                                  ior_q_equals_tpn, ior_read_shift_nonzero, verified,
                                  fixed_parameters)}


def evaluate(launch, run, ctx, reduced_scale=False):
    """Verdicts of every rule of the launch (exit_ok always), and the compliance word."""
    names = ["exit_ok"] + [r for r in launch.rules if r != "exit_ok"]
    verdicts = []
    for name in names:
        if name not in RULES:
            verdicts.append(Verdict(name, False, "unknown rule"))
            continue
        ok, reason = RULES[name](launch, run, ctx)
        verdicts.append(Verdict(name, ok, reason))
    if reduced_scale:
        status = "reduced-scale"
    elif all(v.ok for v in verdicts):
        status = "compliant"
    else:
        status = "not-compliant"
    return verdicts, status


def phase_figures(run, phase):
    """Max/mean/min bandwidth (MiB/s) and mean time (s) of a phase over its iterations."""
    rows = [m for m in run.measurements if m["phase"] == phase]
    bws = [m["bandwidth_mib_s"] for m in rows if m["bandwidth_mib_s"] is not None]
    if not bws:
        return None
    return {"max": max(bws), "mean": sum(bws) / len(bws), "min": min(bws),
            "mean_s": sum(m["seconds"] for m in rows) / len(rows), "n": len(rows)}


IOR_TABLE = ["api", "RDbwmax", "RDbwmean", "RDbwmin", "RDbmeans[s]", "WRbwmax", "WRbwmean",
             "WRbwmin", "WRbmeans[s]"]


def ior_row(run):
    """The seed README's result row (MiB/s, seconds) of one IOR run."""
    p = _params(run)
    row = {"api": _first(p, "api", "a") or "?"}
    for prefix, phase in (("RD", "read"), ("WR", "write")):
        f = phase_figures(run, phase)
        row[f"{prefix}bwmax"] = f["max"] if f else None
        row[f"{prefix}bwmean"] = f["mean"] if f else None
        row[f"{prefix}bwmin"] = f["min"] if f else None
        row[f"{prefix}bmeans[s]"] = f["mean_s"] if f else None
    return row


def score(rows):
    """RDbwmean + WRbwmean of the best easy run: (score, the row), or (None, None)."""
    best, best_row = None, None
    for row in rows:
        if row.get("variant") != "easy":
            continue
        if row.get("RDbwmean") is None or row.get("WRbwmean") is None:
            continue
        s = row["RDbwmean"] + row["WRbwmean"]
        if best is None or s > best:
            best, best_row = s, row
    return best, best_row
