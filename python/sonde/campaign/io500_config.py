# SPDX-License-Identifier: BSD-3-Clause
"""The sonde campaign an IO500 .ini makes: suites/io500.toml with the .ini's values in its
[step.params] (sonde-suite io500 CONFIG.ini). The file is read as IO500 reads it
(io500_ini); each key either changes the campaign as IO500 would, or, when sonde cannot
do what it asks, is refused with one line naming it; a key left at IO500's default changes
nothing and is accepted.
"""

import json
import re
import tomllib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..results.units import parse_size
from . import argcheck
from .io500_ini import SECTIONS, IniError, parse
from .io500_phases import PHASES

_EXTENDED = "belongs to IO500's extended mode; sonde runs the standard mode"
EXTENDED = {"mdworkbench", "mdworkbench-create", "mdworkbench-bench", "mdworkbench-delete",
            "find-easy", "find-hard"}
# What each phase's step takes from which .ini section (its family).
FAMILY = {p.name: p.family for p in PHASES if p.family}
# The backend sonde's mdtest runs IO500's metadata phases on (ior: every backend the binary has)
MDTEST_BACKENDS = ("POSIX",)
# The placeholder of the API's options in suites/io500.toml's args: an .ini's campaign puts
# the options its API key gives there, each one argument
API_OPTION = "{api_option}"
# How IO500 spells a size: a whole number with at most one unit letter; another spelling is
# refused, since IOR's reading of it differs from sonde's (IOR takes "1.5m" as 1 byte).
IO500_SIZE = re.compile(r"^\d+[kmgtp]?$", re.IGNORECASE)
MIB = 1 << 20


class Config:
    """The keys of one .ini with IO500's defaults behind them."""

    def __init__(self, path, keys, sonde_binary):
        self.path = Path(path)
        self.keys = keys
        self.sonde = sonde_binary

    def get(self, section, name):
        key = self.keys.get((section, name))
        return key.value if key else SECTIONS[section][name][1]

    def refuse(self, section, name, why):
        key = self.keys.get((section, name))
        line = f":{key.line}" if key else ""
        value = f" = {key.value}" if key else ""
        return IniError(f"{self.path}{line}: [{section}] {name}{value}: {why}")

    def only_default(self, section, name, why):
        """The key must be unset or at IO500's default: sonde cannot do anything else."""
        key = self.keys.get((section, name))
        if key is not None and key.value != SECTIONS[section][name][1]:
            raise self.refuse(section, name, why)


def _check_unsupported(cfg, ranks):
    for section in EXTENDED:
        for name in SECTIONS[section]:
            cfg.only_default(section, name, _EXTENDED)
    for section, name, why in (
            ("global", "drop-caches", "sonde-suite does not run a command between the phases; "
                                      "drop the caches in the job script"),
            ("global", "io-buffers-on-gpu", "sonde has no GPU buffers"),
            ("global", "verbosity", "sonde-suite has no verbosity levels (--show-output shows "
                                    "each phase's output)"),
            ("global", "scc", "the Student Cluster Competition's 30 s rule is not implemented"),
            ("global", "dataPacketType", "sonde mdtest writes one kind of data; only timestamp "
                                         "runs as IO500 does"),
            ("mdtest-hard", "files-per-dir", "a debug option that invalidates the run; sonde "
                                             "does not run it"),
            ("find", "external-script", "sonde runs its own find (pfind's), no external script"),
            ("find", "external-mpi-args", "sonde runs its own find, no external script"),
            ("find", "external-extra-args", "sonde runs its own find, no external script"),
            ("find", "pfind-parallelize-single-dir-access-using-hashing",
             "sonde find does not hash directory reads (-H)"),
            ("ior-easy", "verbosity", "IOR's -v in the campaign is not implemented"),
            ("ior-hard", "verbosity", "IOR's -v in the campaign is not implemented")):
        cfg.only_default(section, name, why)
    for section in [s for s in SECTIONS if "run" in SECTIONS[s]]:
        cfg.only_default(section, "run", "sonde runs every phase of the campaign (a phase not "
                                          "run makes IO500's score invalid)")
    if cfg.get("debug", "pause-dir") is not None:
        raise cfg.refuse("debug", "pause-dir", "pausing between phases is not implemented")
    nproc = cfg.get("find", "nproc")
    if nproc is not None and int(nproc) != ranks:
        raise cfg.refuse("find", "nproc", f"sonde runs the find on the campaign's {ranks} ranks")


def _api(cfg, phase, workload):
    """(backend, its options as arguments) of a phase: its API, else its section's, else
    [global] api. IO500 passes each word after the API's name to ior or mdtest and warns of one
    that does not start --<api>.; sonde takes exactly the API's own options (its option tables'
    --<api>.<name> spellings, a value after = or as the next word) and refuses any other word
    with one line naming it, since IO500's rules let the API key set that API's options only."""
    section = FAMILY.get(phase, phase)
    for where in ((phase, "API"), (section, "API"), ("global", "api")):
        value = cfg.get(*where)
        if value is not None:
            break
    words = value.split()
    backend, options = words[0].upper(), words[1:]
    have = argcheck.backends(cfg.sonde) if workload == "ior" else MDTEST_BACKENDS
    if backend not in have:
        raise cfg.refuse(*where, f"sonde {workload} runs {' or '.join(have)}")
    own = argcheck.api_params(cfg.sonde, workload, backend)
    types = {p["name"]: p["type"] for p in argcheck.described(cfg.sonde)[workload]}
    takes_value = {s: types[name] != "bool" for name, spelled in own.items() for s in spelled}
    out = []
    while options:
        word = options.pop(0)
        spelling, has_value = word.split("=", 1)[0], "=" in word
        if spelling not in takes_value:
            theirs = ", ".join(sorted(takes_value)) or "none"
            raise cfg.refuse(*where, f"option {word} is not one of sonde {workload}'s {backend} "
                                     f"options (its: {theirs}); IO500's API key sets only the "
                                     "API's own")
        if "{" in word or "}" in word:
            raise cfg.refuse(*where, f"option {word}: a braced name is a placeholder in a "
                                     "sonde suite file")
        out.append(word)
        if takes_value[spelling] and not has_value:
            if not options:
                raise cfg.refuse(*where, f"option {word} needs a value")
            out.append(options.pop(0))
    return backend, out


def _size(cfg, section, name):
    value = cfg.get(section, name)
    if not IO500_SIZE.match(value):
        raise cfg.refuse(section, name, "a size is a number with k, m, g, t or p")
    return parse_size(value)


def _bool(cfg, section, name, phase=None):
    value = cfg.get(phase, name) if phase and cfg.get(phase, name) else cfg.get(section, name)
    return value == "TRUE"


def step_params(cfg, phase, workload):
    """The [step.params] of one phase's step, as the .ini sets them."""
    params = {}
    if workload in ("ior", "mdtest"):
        params["api"], params[API_OPTION.strip("{}")] = _api(cfg, phase, workload)
    stonewall = int(cfg.get("debug", "stonewall-time"))
    family = FAMILY.get(phase)
    if phase == "ior-rnd4K-easy-read":
        fpp = _bool(cfg, family, "filePerProc")
        params.update(file_per_proc="-F" if fpp else "", reorder="-C" if fpp else "",
                      shift="-Q2" if fpp else "", stonewall=stonewall,
                      unique_dir="-u" if _bool(cfg, family, "uniqueDir") else "")
    elif family == "ior-easy":
        block = _size(cfg, family, "blockSize")
        if block % MIB:
            raise cfg.refuse(family, "blockSize", "the campaign takes whole MiB")
        _size(cfg, family, "transferSize")
        params.update(transfer=cfg.get(family, "transferSize"), block_mib=block // MIB,
                      file_per_proc="-F" if _bool(cfg, family, "filePerProc") else "",
                      unique_dir="-u" if _bool(cfg, family, "uniqueDir") else "")
    elif family == "ior-hard":
        params.update(segments=int(cfg.get(family, "segmentCount")),
                      collective="-c" if _bool(cfg, family, "collective", phase) else "")
    elif family in ("mdtest-easy", "mdtest-hard"):
        params["files"] = int(cfg.get(family, "n"))
    elif phase == "find":
        params.update(queue_length=int(cfg.get("find", "pfind-queue-length")),
                      steal_next="-N" if _bool(cfg, "find", "pfind-steal-next") else "")
    if phase in ("ior-easy-write", "ior-hard-write", "mdtest-easy-write", "mdtest-hard-write"):
        params["stonewall"] = stonewall
    return params


@dataclass
class Campaign:
    """What sonde-suite runs for an .ini: the suite's TOML text and the run directory."""

    toml: str
    run_dir: Path
    datadir: Path


def campaign(ini, template, ranks, sonde_binary, tasks_per_node=None, out=None, now=None):
    """The campaign of an .ini: template (suites/io500.toml) with the .ini's values. The run
    directory is out, else IO500's resultdir (with the timestamp when timestamp-resultdir);
    the data goes to datadir (with the timestamp when timestamp-datadir), made absolute.
    sonde_binary: the sonde that will run it, whose backends and option tables say what an
    API key may hold (argcheck.Refused when it cannot be asked)."""
    cfg = Config(ini, parse(ini), sonde_binary)
    _check_unsupported(cfg, ranks)
    doc = tomllib.loads(Path(template).read_text())
    stamp = (now or datetime.now()).strftime("%Y.%m.%d-%H.%M.%S")
    datadir = Path(cfg.get("global", "datadir")).absolute()
    if cfg.get("global", "timestamp-datadir") == "TRUE":
        datadir /= stamp
    run_dir = Path(out) if out else Path(cfg.get("global", "resultdir"))
    if not out and cfg.get("global", "timestamp-resultdir") == "TRUE":
        run_dir /= stamp
    suite = doc["suite"]
    suite["scratch"] = str(datadir)
    suite["description"] = f"IO500 standard phases and score, from {cfg.path}"
    suite["ranks"] = ranks
    if tasks_per_node:
        suite["tasks_per_node"] = tasks_per_node
    for step in doc["step"]:
        if "workload" in step:
            params = step_params(cfg, step["name"], step["workload"])
            options = params.pop(API_OPTION.strip("{}"), None)
            if options is not None:  # each of the API's options one argument, in its place
                at = step["args"].index(API_OPTION)
                step["args"][at:at + 1] = options
                del step["params"][API_OPTION.strip("{}")]
            step["params"].update(params)
    return Campaign(dump(doc), run_dir, datadir)


def _value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return json.dumps(v)  # a TOML basic string: JSON's escapes are TOML's


def _table(head, table):
    lines = [head] + [f"{k} = {_value(v)}" for k, v in table.items() if not isinstance(v, dict)]
    for k, v in table.items():
        if isinstance(v, dict):
            name = head.strip("[]")
            lines += ["", f"[{name}.{k}]"] + [f'"{x}" = {_value(y)}' for x, y in v.items()]
    return lines


def dump(doc):
    """TOML text of a suite document (tables of strings, numbers, booleans and lists)."""
    lines = ["# SPDX-License-Identifier: BSD-3-Clause",
             "# Made by sonde-suite io500 from an IO500 .ini "
             "(python/sonde/campaign/io500_config.py)", ""]
    lines += _table("[suite]", doc["suite"])
    for step in doc["step"]:
        lines += [""] + _table("[[step]]", step)
    return "\n".join(lines) + "\n"
