# SPDX-License-Identifier: BSD-3-Clause
"""The IO500 campaign (github.com/IO500/io500, standard mode) run as a sonde suite: its score,
its [RESULT]/[SCORE ] lines and result files, and what makes a run invalid. The phases and what
each may run with are io500_phases; the judging of the parameters, the shared keys and the
ranks is io500_validity; an IO500 .ini becomes the campaign in io500_ini.

A suite is an IO500 campaign when its [suite] table says ``score = "io500"`` and its step
names are IO500's phase names (suites/io500.toml). After the run, ``evaluate_run_dir(dir)``
returns an :class:`Io500Result`; sonde-suite prints its lines and writes IO500's result files
beside the manifest (io500_files.py: result.txt, result_summary.txt, config.ini,
the per-phase output, which io500-verify accepts); sonde-report renders ``Io500Result.rows()``.

Scores, as IO500's calc_score computes them:
  - an IOR phase scores its bandwidth in GiB/s (bytes of all ranks / phase time, the
    stonewall's wear-out included), a metadata phase its rate in kIOPS (mdtest: items of all
    ranks / phase time; find: entries scanned / find time);
  - BW = geometric mean of the 4 IOR phases, MD = geometric mean of the 8 metadata phases,
    SCORE = sqrt(BW x MD); a phase that scored 0 is left out of its mean (the run is then
    invalid anyway).
"""

import math
from dataclasses import dataclass, field
from pathlib import Path

from .. import results as _results
from ..results.manifest import Manifest
from ..results.names import End, FindExtra, Header, IORWriteExtra, Measurement
from . import io500_files, io500_ini
from .io500_phases import PHASE_NAMES, PHASES, STONEWALL
from .io500_validity import (
    campaign_stonewall,
    datadir_problems,
    parameter_problems,
    phase_params,
    placement_problems,
    shared_problems,
)

GIB = 1 << 30


@dataclass
class PhaseResult:
    """What one phase scored, how long it took, and why it is invalid (empty when valid)."""

    name: str
    group: str | None
    unit: str
    value: float | None  # GiB/s or kIOPS; None when the phase has no figure
    seconds: float | None  # the phase's run time
    reasons: list = field(default_factory=list)
    command: list | None = None
    stonewall_value: float | None = None  # IOR's throughput up to the stonewall (GiB/s)
    ranks: int | None = None
    sonde_version: str | None = None

    @property
    def valid(self):
        return not self.reasons


@dataclass
class Io500Result:
    phases: list
    bw: float  # GiB/s
    md: float  # kIOPS
    score: float
    reasons: list = field(default_factory=list)  # why the whole run is invalid

    @property
    def valid(self):
        return not self.reasons and all(p.valid for p in self.phases)

    @property
    def procs(self):
        return max((p.ranks for p in self.phases if p.ranks), default=0)

    @property
    def sonde_version(self):
        return next((p.sonde_version for p in self.phases if p.sonde_version), "unknown")

    def rows(self):
        """One dict per phase: phase, group, value, unit, seconds, valid, reasons."""
        return [{"phase": p.name, "group": p.group, "value": p.value, "unit": p.unit,
                 "seconds": p.seconds, "valid": p.valid, "reasons": list(p.reasons)}
                for p in self.phases]


def geometric_mean(values):
    """IO500's mean of a score group: phases that scored 0 (or nothing) are left out; 0 when
    none is left."""
    kept = [v for v in values if v is not None and v > 0]
    if not kept:
        return 0.0
    return math.exp(sum(math.log(v) for v in kept) / len(kept))


def _args_after_workload(command, workload):
    """The workload's own arguments of a launch command (launcher and --json dropped)."""
    if not command or workload not in command:
        return []
    args = list(command[command.index(workload) + 1:])
    if "--json" in args:
        i = args.index("--json")
        del args[i:i + 2]
    return args


def phase_result(phase, run, command, status, sonde_binary, stonewall=STONEWALL):
    """Scores one phase from the launch's results (a sonde.results.Run, or None when it wrote
    none), its command line and its manifest status; stonewall is the campaign's; sonde_binary
    the sonde whose option tables say which options are the API's own."""
    res = PhaseResult(phase.name, phase.group, phase.unit, None, None, command=command)
    if phase.workload is None:
        res.value = 0.0
        return res
    params = phase_params(run)
    if params is not None:
        res.reasons += parameter_problems(phase, params, sonde_binary, stonewall)
    if run is None:
        res.reasons.append("the phase wrote no results" + (f" ({status})" if status else ""))
        return res
    if run.header:
        res.ranks = run.header.get(Header.RANKS)
        res.sonde_version = run.header.get(Header.SONDE_VERSION)
    if run.end is not None:
        res.seconds = run.end.get(End.ELAPSED_SECONDS)
        if run.end.get(End.EXIT_CODE) != 0:
            res.reasons.append(f"the phase failed (exit code {run.end.get(End.EXIT_CODE)})")
    else:
        res.reasons.append("the phase did not finish (no end record)")
    rows = [m for m in run.measurements if m[Measurement.PHASE] == phase.record]
    if len(rows) != 1:
        res.reasons.append(f"{len(rows)} '{phase.record}' measurements, IO500 runs one")
    if rows:
        m = rows[0]
        seconds, extra = m[Measurement.SECONDS], m.get(Measurement.EXTRA) or {}
        if phase.workload == "ior":
            res.value = m[Measurement.BYTES] / seconds / GIB if seconds else 0.0
            sw = extra.get(IORWriteExtra.STONEWALL_AGGREGATE)
            if phase.write and sw is not None:  # IO500 gives it for the writes only
                res.stonewall_value = sw / 1024
        else:
            res.value = m[Measurement.OPS] / seconds / 1000 if seconds else 0.0
        errors = (m.get(Measurement.VERIFY) or {}).get("errors")
        if errors:
            res.reasons.append(f"{errors} verification errors")
        if phase.workload == "find" and not extra.get(FindExtra.FOUND):
            res.reasons.append("Find didn't find anything, this is likely invalid.")
    if not res.value:
        res.reasons.append("Resulting score shouldn't be 0.0")
    if phase.write and res.seconds is not None and res.seconds < STONEWALL:
        res.reasons.append(f"Runtime is smaller than expected minimum runtime "
                           f"({res.seconds:.3f} s < {STONEWALL} s)")
    return res


def evaluate(launches, sonde_binary, reduced_scale=False):
    """launches: {phase name: (command list, Run or None, status)}. Phases missing from it are
    invalid; sonde_binary as phase_result takes it. Returns an Io500Result."""
    runs = {p.name: launches.get(p.name, (None, None, "not run"))[1] for p in PHASES}
    params = {name: phase_params(run) for name, run in runs.items()}
    stonewall = campaign_stonewall(params, PHASES)
    shared = shared_problems(params, PHASES)
    placed = placement_problems({name: run.header for name, run in runs.items()
                                 if run is not None})
    elsewhere = datadir_problems(params, PHASES)
    phases = []
    for phase in PHASES:
        command, run, status = launches.get(phase.name, (None, None, "not run"))
        if phase.workload is None:
            res = PhaseResult(phase.name, None, phase.unit, 0.0, None)
            if status not in ("ok", None):
                res.reasons.append(f"the timestamp file was not made ({status})")
        else:
            res = phase_result(phase, run, command, status, sonde_binary, stonewall)
            res.reasons += (shared.get(phase.name, []) + elsewhere.get(phase.name, []) +
                            placed.get(phase.name, []))
        phases.append(res)
    bw = geometric_mean(p.value for p in phases if p.group == "BW")
    md = geometric_mean(p.value for p in phases if p.group == "MD")
    reasons = []
    if stonewall != STONEWALL:
        reasons.append(f"stonewall-time {stonewall}s != {STONEWALL}s: the write phases ran with "
                       "a debug stonewall")
    if reduced_scale:
        reasons.append("reduced scale (--scale): an IO500 run at reduced scale is never valid")
    return Io500Result(phases, bw, md, math.sqrt(bw * md), reasons)


def result_lines(result):
    """IO500's stdout: one [RESULT] line per phase (timestamp as [      ]), then [SCORE ]."""
    lines = []
    for p in result.phases:
        tag = "[RESULT]" if p.group else "[      ]"
        value = f"{p.value if p.value is not None else 0.0:f}"
        seconds = p.seconds if p.seconds is not None else 0.0
        mark = "" if p.valid else " [INVALID]"
        lines.append(f"{tag} {p.name:>20} {value:>15} {p.unit} : time {seconds:.3f} "
                     f"seconds{mark}")
    mark = "" if result.valid else " [INVALID]"
    lines.append(f"[SCORE ] Bandwidth {result.bw:f} GiB/s : IOPS {result.md:f} kiops : "
                 f"TOTAL {result.score:f}{mark}")
    return lines


def invalid_lines(result):
    """"ERROR INVALID <phase>: <reason>" for every reason, the run's first."""
    out = [f"ERROR INVALID {r}" for r in result.reasons]
    for p in result.phases:
        out += [f"ERROR INVALID {p.name}: {r}" for r in p.reasons]
    return out


def _load_run(path):
    if not path.exists():
        return None
    runs = _results.load(path)
    return runs[-1] if runs else None


def evaluate_run_dir(run_dir):
    """The IO500 result of a sonde-suite run directory, or None when its suite is not an
    IO500 campaign. Each phase is the last launch of the step of that name."""
    manifest = Manifest.load(run_dir)
    if manifest.data.get("score") != "io500":
        return None
    launches = {}
    for entry in manifest.data["launches"]:
        if entry["step"] in PHASE_NAMES:
            run = _load_run(Path(run_dir) / entry["id"] / "results.jsonl")
            launches[entry["step"]] = (entry.get("command"), run, entry.get("status"))
    # the sonde that ran the campaign says which options were the API's own
    return evaluate(launches, manifest.data.get("sonde"), manifest.data.get("reduced_scale", False))


def report(run_dir, out):
    """Prints IO500's lines for a finished run directory and writes IO500's result files
    beside its manifest (io500_files). Returns the Io500Result (None: not an IO500
    run)."""
    result = evaluate_run_dir(run_dir)
    if result is None:
        return None
    run_dir = Path(run_dir)
    lines = result_lines(result)
    print("\nIO500 (standard phases, IO500's scoring):", file=out)
    for line in invalid_lines(result) + lines:
        print(line, file=out)
    try:
        io500_files.write_files(result, run_dir, lines)
    except io500_ini.IniError as e:
        print(f"IO500's result files are not written: {e}", file=out)
    print(f"\nThe result files are stored in the directory: {run_dir}", file=out)
    # A campaign with a failed phase keeps its data, for sonde-suite resume to read.
    if all(e["status"] == "ok" for e in Manifest.load(run_dir).data["launches"]):
        removed = purge(result)
        if removed:
            print(f"Removed the files the IOR phases kept (-k): {len(removed)}", file=out)
    return result


def _option(args, flag):
    """The value of a flag in args (separate or attached), or None."""
    for i, a in enumerate(args):
        if a == flag and i + 1 < len(args):
            return args[i + 1]
    return None


def purge(result):
    """IO500 removes its data at the end: the IOR files its phases keep with -k (the test file,
    or one per rank with -F, named as IOR names them), then the data directories left empty.
    Only regular files are removed, never through a link. Returns the paths removed."""
    removed, dirs = [], set()
    for p in result.phases:
        args = _args_after_workload(p.command, "ior") + _args_after_workload(p.command,
                                                                             "mdtest")
        test_file = _option(args, "-o")
        if test_file and p.name.startswith("ior") and p.ranks:
            names = [test_file] + [f"{test_file}.{r:08d}" for r in range(p.ranks)]
            for name in names:
                path = Path(name)
                if path.is_file() and not path.is_symlink():
                    path.unlink()
                    removed.append(path)
            dirs.add(Path(test_file).parent)
        if _option(args, "-d"):
            dirs.add(Path(_option(args, "-d")))
    for d in sorted(dirs, key=lambda d: len(d.parts), reverse=True):
        for empty in (d, d.parent):
            try:
                empty.rmdir()
            except OSError:
                pass
    return removed
