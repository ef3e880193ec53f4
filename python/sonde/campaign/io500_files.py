# SPDX-License-Identifier: BSD-3-Clause
"""The result directory of an IO500 campaign in IO500's own layout, which IO500's verifier
(``io500-verify config.ini result.txt``) accepts (io500_ini.py: the hashes):

  config.ini          the configuration the campaign ran, in IO500's sections and keys, every
                      option of IO500's table (what sonde does not decide keeps IO500's default)
  result.txt          [run] (procs, version, config-hash, result-dir, mode, ; START), one section
                      per phase (t_start, exe, the phase's own figures, ; ERROR INVALID reasons,
                      score, t_delta, t_end), [SCORE] (MD, BW, SCORE, hash), ; END
  result_summary.txt  "IO500 version ..." and IO500's [RESULT] and [SCORE ] lines
  <phase>.txt         the phase's own output (the launch's stdout), as IO500 keeps IOR's and
                      mdtest's output

The per-rank CSVs (<phase>.csv), the stonewall files and the timestamp file are already in the
run directory: the suite's command lines put them there, as IO500 does.

Every figure comes from the campaign: the configuration from the parameters each phase's
binary recorded in its header (as it parsed them), the times from the manifest.
"""

import shutil
from datetime import UTC, datetime
from pathlib import Path

from .. import results as _results
from ..results.manifest import Manifest
from ..results.names import (
    FIND,
    IOR,
    MDTEST,
    FindExtra,
    Header,
    MdtestCreateStonewallExtra,
    Measurement,
)
from . import io500_ini

_OPTIONAL = ("find-easy", "find-hard", "mdworkbench", "mdworkbench-create", "mdworkbench-bench",
             "mdworkbench-delete", "ior-rnd4K-easy-read")  # phases of IO500's extended mode


def _phase_runs(run_dir):
    """{phase: (manifest entry, last Run of its results or None)}: each phase's last launch."""
    out = {}
    for entry in Manifest.load(run_dir).data["launches"]:
        path = Path(run_dir) / entry["id"] / "results.jsonl"
        runs = _results.load(path) if path.exists() else []
        out[entry["step"]] = (entry, runs[-1] if runs else None)
    return out


def _params(runs, phase):
    """The parameters a phase's binary recorded in its header ({} without them)."""
    run = runs.get(phase, (None, None))[1]
    if run is None or not run.header:
        return {}
    return run.header.get(Header.PARAMS) or {}


def _size(n):
    """A byte count as IOR reads it: with k, m or g when it is a whole number of them."""
    if n is None:
        return None
    for suffix, unit in (("g", 1 << 30), ("m", 1 << 20), ("k", 1 << 10)):
        if n and n % unit == 0:
            return f"{n // unit}{suffix}"
    return str(n)


def _bool(value):
    return None if value is None else ("TRUE" if value else "FALSE")


def _text(value):
    return None if value is None else str(value)


def campaign_config(runs, run_dir):
    """The configuration of the campaign in IO500's options: {section: {option: value}}."""
    config = io500_ini.defaults()
    g = config["global"]
    # each group's parameters from its write phase, or its read when the write recorded none
    easy = _params(runs, "ior-easy-write") or _params(runs, "ior-easy-read")
    hard = _params(runs, "ior-hard-write") or _params(runs, "ior-hard-read")
    api = easy.get(IOR.API)
    g.update({"datadir": _params(runs, "find").get(FIND.WORKDIR) or g["datadir"],
              "timestamp-datadir": "FALSE", "resultdir": str(Path(run_dir).resolve()),
              "timestamp-resultdir": "FALSE", "api": api or g["api"],
              "drop-caches": _bool(any(_params(runs, p).get(IOR.DROP_CACHE)
                                       for p in ("ior-easy-write", "ior-hard-write",
                                                 "ior-easy-read", "ior-hard-read"))),
              "dataPacketType": easy.get(IOR.DATA_PACKET_TYPE) or g["dataPacketType"]})
    config["debug"]["stonewall-time"] = _text(
        _params(runs, "ior-easy-write").get(IOR.DEADLINE_FOR_STONEWALLING))
    config["ior-easy"].update({
        "transferSize": _size(easy.get(IOR.TRANSFER_SIZE)),
        "blockSize": _size(easy.get(IOR.BLOCK_SIZE)),
        "filePerProc": _bool(easy.get(IOR.FILE_PER_PROC)),
        "uniqueDir": _bool(easy.get(IOR.UNIQUE_DIR)),
        "verbosity": _text(easy.get(IOR.VERBOSE) or None)})
    config["ior-hard"].update({
        "segmentCount": _text(hard.get(IOR.SEGMENT_COUNT)),
        "collective": _bool(hard.get(IOR.COLLECTIVE)),
        "verbosity": _text(hard.get(IOR.VERBOSE) or None)})
    for group in ("mdtest-easy", "mdtest-hard"):
        write = _params(runs, f"{group}-write") or _params(runs, f"{group}-stat")
        config[group]["n"] = _text(write.get(MDTEST.ITEMS))
        if group == "mdtest-hard":
            config[group]["files-per-dir"] = _text(write.get(MDTEST.ITEMS_PER_DIR) or None)
    for phase, (entry, _) in runs.items():
        key = {"ior": IOR.API, "mdtest": MDTEST.API}.get(entry["workload"])
        phase_api = _params(runs, phase).get(key) if key else None
        if phase in config and phase_api and phase_api != g["api"]:
            config[phase]["API"] = phase_api  # IO500 passes a phase's API to its -a
    find, find_run = _params(runs, "find"), runs.get("find", (None, None))[1]
    config["find"].update({
        "nproc": _text((find_run.header or {}).get(Header.RANKS) if find_run else None),
        "pfind-queue-length": _text(find.get(FIND.QUEUE_LENGTH)),
        "pfind-steal-next": _bool(find.get(FIND.STEAL_FROM_NEXT))})
    for phase in _OPTIONAL:
        config[phase]["run"] = "FALSE"  # sonde runs IO500's standard mode only
    defaults = io500_ini.defaults()
    for section, options in config.items():
        for name, value in options.items():
            if value is None and defaults[section][name] is not None:
                options[name] = defaults[section][name]  # an unknown figure keeps the default
    return config


def _local_time(iso):
    """A manifest time (UTC, ISO 8601) as IO500 prints a time (local, to the second)."""
    if not iso:
        return None
    t = datetime.strptime(iso, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    return t.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def _pair(key, value):
    return f"{key:<15} = {value}"


def _figure(value):
    return f"{value if value is not None else 0.0:f}"


def _measurement(run, record):
    return next((m for m in (run.measurements if run else [])
                 if m[Measurement.PHASE] == record), None)


def _phase_pairs(phase, run):
    """The figures IO500 prints for a phase between its command and its score: pfind's ranks,
    found and scanned entries; IOR's and mdtest's rates up to the stonewall."""
    if phase.name == "find":
        extra = (_measurement(run, "find") or {}).get(Measurement.EXTRA) or {}
        out = [_pair("nproc", run.header[Header.RANKS])] if run and run.header else []
        if FindExtra.FOUND in extra:
            out += [_pair("found", extra[FindExtra.FOUND]),
                    _pair("total-files", extra[FindExtra.SCANNED])]
        return out
    if not phase.name.endswith("-write"):
        return []
    if phase.name.startswith("ior-"):
        if phase.stonewall_value is None:
            return []
        return [_pair("throughput-stonewall", f"{phase.stonewall_value:.2f}")]
    extra = (_measurement(run, "file-create") or {}).get(Measurement.EXTRA) or {}
    seconds = extra.get(MdtestCreateStonewallExtra.STONEWALL_SECONDS)
    items = extra.get(MdtestCreateStonewallExtra.STONEWALL_ITEMS)
    if not seconds or items is None:
        return []
    return [_pair("rate-stonewall", f"{items / seconds / 1000:f}")]


def result_text(result, runs, run_dir, config_hash, ended):
    """result.txt; ended: the time of the end line (local, as _local_time prints)."""
    manifest = Manifest.load(run_dir).data
    version = f"sonde {result.sonde_version}"
    out = ["[run]", _pair("procs", result.procs), _pair("version", version),
           _pair("config-hash", io500_ini.hex_hash(config_hash)),
           _pair("result-dir", Path(run_dir).resolve()), _pair("mode", "standard")]
    started = _local_time(manifest.get("created"))
    if started:
        out.append(f"; START {started}")
    out += [f"; ERROR INVALID {r}" for r in result.reasons]
    out.append("")
    scores = {}
    for p in result.phases:
        entry, run = runs.get(p.name, ({}, None))
        out += ["", f"[{p.name}]"]
        if _local_time(entry.get("started")):
            out.append(_pair("t_start", _local_time(entry["started"])))
        if p.command and p.group:
            out.append(_pair("exe", " ".join(p.command)))
        out += _phase_pairs(p, run)
        out += [f"; ERROR INVALID {r}" for r in p.reasons]
        if p.group:
            scores[p.name] = _figure(p.value)
            out.append(_pair("score", scores[p.name]))
        seconds = p.seconds if p.seconds is not None else entry.get("seconds")
        if seconds is not None:
            out.append(_pair("t_delta", f"{seconds:.4f}"))
        if _local_time(entry.get("finished")):
            out.append(_pair("t_end", _local_time(entry["finished"])))
    md, bw, score = _figure(result.md), _figure(result.bw), _figure(result.score)
    digest = io500_ini.score_hash(version, scores, md, bw, score, result.valid)
    out += ["", "[SCORE]", _pair("MD", md), _pair("BW", bw),
            _pair("SCORE", score + ("" if result.valid else " [INVALID]")),
            _pair("hash", io500_ini.hex_hash(digest)), f"; END {ended}"]
    return "\n".join(out) + "\n"


def write_files(result, run_dir, summary_lines):
    """Writes config.ini, result.txt, result_summary.txt (the "IO500 version" line, then
    summary_lines) and each phase's <phase>.txt into run_dir. Returns the paths written."""
    run_dir = Path(run_dir)
    runs = _phase_runs(run_dir)
    ini = io500_ini.format_ini(campaign_config(runs, run_dir),
                               f"IO500 configuration of the sonde campaign in {run_dir.resolve()}")
    # the hash of what IO500 will read back from the file, as its verifier computes it
    config_hash = io500_ini.config_hash(io500_ini.read_ini(ini))
    ended = datetime.now().strftime("%Y-%m-%d %H:%M:%S")
    files = {"config.ini": ini,
             "result.txt": result_text(result, runs, run_dir, config_hash, ended),
             "result_summary.txt": "\n".join(
                 [f"IO500 version sonde {result.sonde_version} (standard)", *summary_lines])
             + "\n"}
    written = []
    for name, text in files.items():
        (run_dir / name).write_text(text)
        written.append(run_dir / name)
    for phase, (entry, _) in runs.items():
        stdout = run_dir / entry["id"] / "stdout.txt"
        if phase in io500_ini.SCORED and stdout.is_file():
            shutil.copyfile(stdout, run_dir / f"{phase}.txt")
            written.append(run_dir / f"{phase}.txt")
    return written
