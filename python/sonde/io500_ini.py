# SPDX-License-Identifier: BSD-3-Clause
"""An IO500 configuration file (.ini, github.com/IO500/io500) read as IO500 reads it, and the
sonde campaign it makes: suites/io500.toml with the .ini's values in its [step.params].

IO500's rules for the file (src/ini-parse.c): `[section]` and `key = value` lines, `#` or `;`
comments (a value ends at either), section and key names in any case, an empty value leaves the
key unset, booleans TRUE/FALSE/1/0, integers checked. Sections are IO500's phases; a key a
section does not have is an error. Each key either changes the campaign as IO500 would, or,
when sonde cannot do what it asks, is refused with one line naming it; a key left at IO500's
default changes nothing and is accepted.
"""

import json
import re
import tomllib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from .io500_phases import PHASE_NAMES, PHASES

STRING, BOOL, INT, UINT = "string", "bool", "int", "uint"
_EXTENDED = "belongs to IO500's extended mode; sonde runs the standard mode"
_FIND_KEYS = {"external-script": (STRING, None), "external-mpi-args": (STRING, ""),
              "external-extra-args": (STRING, ""), "nproc": (UINT, None), "run": (BOOL, "TRUE"),
              "pfind-queue-length": (INT, "10000"), "pfind-steal-next": (BOOL, "FALSE"),
              "pfind-parallelize-single-dir-access-using-hashing": (BOOL, "FALSE")}
_API_RUN = {"API": (STRING, None), "run": (BOOL, "TRUE")}

# Every section and key IO500's standard and extended phases declare, with IO500's default.
SECTIONS = {
    "global": {"datadir": (STRING, "./datafiles"), "timestamp-datadir": (BOOL, "TRUE"),
               "resultdir": (STRING, "./results"), "timestamp-resultdir": (BOOL, "TRUE"),
               "api": (STRING, "POSIX"), "drop-caches": (BOOL, "FALSE"),
               "drop-caches-cmd": (STRING, 'sudo -n bash -c "echo 3 > /proc/sys/vm/drop_caches"'),
               "io-buffers-on-gpu": (BOOL, "FALSE"), "verbosity": (UINT, "1"),
               "scc": (BOOL, "FALSE"), "dataPacketType": (STRING, "timestamp")},
    "debug": {"stonewall-time": (INT, "300"), "pause-dir": (STRING, None)},
    "ior-easy": {"API": (STRING, None), "transferSize": (STRING, "2m"),
                 "blockSize": (STRING, "9920000m"), "filePerProc": (BOOL, "TRUE"),
                 "uniqueDir": (BOOL, "FALSE"), "run": (BOOL, "TRUE"), "verbosity": (INT, None)},
    "mdtest-easy": {"API": (STRING, None), "n": (UINT, "1000000"), "run": (BOOL, "TRUE")},
    "timestamp": {},
    "ior-hard": {"API": (STRING, None), "segmentCount": (INT, "10000000"),
                 "collective": (BOOL, None), "run": (BOOL, "TRUE"), "verbosity": (INT, None)},
    "mdtest-hard": {"API": (STRING, None), "n": (UINT, "1000000"),
                    "files-per-dir": (UINT, None), "run": (BOOL, "TRUE")},
    "find": _FIND_KEYS,
    "mdworkbench": {"API": (STRING, None), "waitingTime": (STRING, "0.0"),
                    "precreatePerSet": (UINT, None), "filesPerProc": (UINT, None),
                    "run": (BOOL, "TRUE"), "verbosity": (INT, None)},
    "find-easy": _FIND_KEYS, "find-hard": _FIND_KEYS,
    **{name: {"run": (BOOL, "TRUE")} for name in ("mdworkbench-create", "mdworkbench-bench",
                                                  "mdworkbench-delete")},
    **{name: dict(_API_RUN) for name in PHASE_NAMES if name not in ("timestamp", "find")},
}
for _name in ("ior-hard-write", "ior-hard-read"):
    SECTIONS[_name]["collective"] = (BOOL, None)
EXTENDED = {"mdworkbench", "mdworkbench-create", "mdworkbench-bench", "mdworkbench-delete",
            "find-easy", "find-hard"}
# What each phase's step takes from which .ini section (its family).
FAMILY = {p.name: p.family for p in PHASES if p.family}
# The backend options sonde's ior and mdtest take, from IO500's API key ("POSIX --posix.odirect")
API_OPTIONS = {"--posix.odirect"}
BACKENDS = {"ior": ("POSIX", "MPIIO"), "mdtest": ("POSIX",)}
SIZE = re.compile(r"^(\d+)([kmgtp]?)$", re.IGNORECASE)
MIB = 1 << 20

_SECTION = re.compile(r"^\s*\[\s*([0-9a-zA-Z_-]+)\s*\]\s*(\s[#;].*)?$")
_KEY = re.compile(r"^\s*([0-9a-zA-Z_.-]+)\s*=\s*([^#;]*?)\s*(\s[#;].*)?$")
_EMPTY = re.compile(r"^\s*([#;].*)?$")
_CHECK = {INT: re.compile(r"^-?[0-9]+$"), UINT: re.compile(r"^[0-9]+$")}


class IniError(ValueError):
    """An .ini that sonde cannot run; the message names the file, the line and the key."""


@dataclass
class Key:
    section: str
    name: str
    value: str
    line: int


def parse(path):
    """{(section, key): Key} of the keys the file sets, names as IO500 spells them, values
    checked against their types (booleans as TRUE/FALSE)."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise IniError(f"{path}: cannot read: {e.strerror}") from None
    out, section = {}, None
    for number, line in enumerate(text.splitlines(), 1):
        where = f"{path}:{number}"
        m = _SECTION.match(line)
        if m:
            section = next((s for s in SECTIONS if s.lower() == m.group(1).lower()), None)
            if section is None:
                raise IniError(f"{where}: unknown section [{m.group(1)}] (IO500's: "
                               f"{', '.join(SECTIONS)})")
            continue
        m = _KEY.match(line)
        if m:
            key, value = m.group(1), m.group(2).strip()
            if not value:
                continue  # IO500 leaves a key without a value unset
            if section is None:
                raise IniError(f"{where}: '{key}' outside a section")
            keys = SECTIONS[section]
            name = next((k for k in keys if k.lower() == key.lower()), None)
            if name is None:
                raise IniError(f"{where}: unknown key '{key}' in [{section}] (IO500's: "
                               f"{', '.join(keys) or 'none'})")
            out[(section, name)] = Key(section, name, _typed(keys[name][0], value, where, key),
                                       number)
            continue
        if not _EMPTY.match(line):
            raise IniError(f"{where}: not an .ini line: {line.strip()!r}")
    return out


def _typed(kind, value, where, key):
    if kind == BOOL:
        if value.lower() in ("true", "1"):
            return "TRUE"
        if value.lower() in ("false", "0"):
            return "FALSE"
        raise IniError(f"{where}: {key} takes TRUE or FALSE, not {value!r}")
    if kind in _CHECK and not _CHECK[kind].match(value):
        raise IniError(f"{where}: {key} takes a whole number{' >= 0' if kind == UINT else ''}, "
                       f"not {value!r}")
    return value


class Config:
    """The keys of one .ini with IO500's defaults behind them."""

    def __init__(self, path, keys):
        self.path = Path(path)
        self.keys = keys

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
    """(backend, backend option) of a phase: its API, else its section's, else [global] api."""
    section = FAMILY.get(phase, phase)
    for where in ((phase, "API"), (section, "API"), ("global", "api")):
        value = cfg.get(*where)
        if value is not None:
            break
    words = value.split()
    backend, options = words[0], words[1:]
    if backend.upper() not in BACKENDS[workload]:
        raise cfg.refuse(*where, f"sonde {workload} runs {' or '.join(BACKENDS[workload])}")
    bad = [o for o in options if o not in API_OPTIONS]
    if bad or len(options) > 1:
        raise cfg.refuse(*where, f"backend option {(bad or options)[0]} is not supported "
                                 f"(sonde's: {', '.join(sorted(API_OPTIONS))})")
    return backend.upper(), options[0] if options else ""


def _size(cfg, section, name):
    value = cfg.get(section, name)
    m = SIZE.match(value)
    if not m:
        raise cfg.refuse(section, name, "a size is a number with k, m, g, t or p")
    return int(m.group(1)) * 1024 ** " kmgtp".index(m.group(2).lower() or " ")


def _bool(cfg, section, name, phase=None):
    value = cfg.get(phase, name) if phase and cfg.get(phase, name) else cfg.get(section, name)
    return value == "TRUE"


def step_params(cfg, phase, workload):
    """The [step.params] of one phase's step, as the .ini sets them."""
    params = {}
    if workload in BACKENDS:
        params["api"], params["api_option"] = _api(cfg, phase, workload)
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


def campaign(ini, template, ranks, tasks_per_node=None, out=None, now=None):
    """The campaign of an .ini: template (suites/io500.toml) with the .ini's values. The run
    directory is out, else IO500's resultdir (with the timestamp when timestamp-resultdir);
    the data goes to datadir (with the timestamp when timestamp-datadir), made absolute."""
    cfg = Config(ini, parse(ini))
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
            step["params"].update(step_params(cfg, step["name"], step["workload"]))
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
             "# Made by sonde-suite io500 from an IO500 .ini (python/sonde/io500_ini.py)", ""]
    lines += _table("[suite]", doc["suite"])
    for step in doc["step"]:
        lines += [""] + _table("[[step]]", step)
    return "\n".join(lines) + "\n"
