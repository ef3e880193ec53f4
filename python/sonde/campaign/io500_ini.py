# SPDX-License-Identifier: BSD-3-Clause
"""IO500's configuration file (.ini, github.com/IO500/io500 at IO500_COMMIT) read as IO500 reads
it, and the two hashes IO500 guards a result with, computed as IO500 computes them, so that its
verifier, ``io500-verify CONFIG.ini result.txt``, accepts the files sonde writes
(io500_files.py). io500_config.py makes a campaign of an .ini.

IO500's rules for the file (src/ini-parse.c): `[section]` and `key = value` lines, `#` or `;`
comments (a value ends at either), section and key names in any case, an empty value leaves the
key unset, booleans TRUE/FALSE/1/0, integers checked. Sections are IO500's phases; a key a
section does not have is an error.

The hash is 32 bits: for each character (a C char, signed) the value is rotated left by 2 bits
and the character added. A key and its value are hashed together (the key's characters, then
the value's, from 0) and XORed into the total, so the pairs may come in any order:
  - config-hash: every option of IO500's option table that has a value (its default, or the
    one the .ini gives), keyed by the option's name as the table spells it;
  - score hash ([SCORE] hash): "version", the score of each phase of the standard score, MD,
    BW and SCORE, each value as printed ("%f"), and the pair ("valid", "NO") for an invalid
    run. The verifier recomputes it from result.txt and accepts an invalid run's file with
    "[OK] But this is an invalid run!".
A hash is printed in upper-case hexadecimal without leading zeros.
"""

import re
from dataclasses import dataclass
from pathlib import Path

IO500_COMMIT = "02091cf254d836b88bb89bbce393e45ef854af6e"  # the io500 whose format this is

_MASK = 0xFFFFFFFF


def hash_text(value, text):
    """value updated with every character of text (UTF-8 bytes, each a signed C char)."""
    for b in text.encode():
        value = ((((value << 2) | (value >> 30)) & _MASK) + (b - 256 if b > 127 else b)) & _MASK
    return value


def hash_pair(total, key, value):
    """total with the hash of key followed by value XORed in."""
    return total ^ hash_text(hash_text(0, key), value)


def hex_hash(value):
    return f"{value:X}"


# IO500's option table at IO500_COMMIT (`io500 --list`): each section with its options in
# IO500's order, each option's type and default (None: no default). Every option of every
# section counts in the config hash, the extended mode's too.
STRING, BOOL, INT, UINT = "string", "bool", "int", "uint"
_API = ("API", STRING, None)
_RUN = ("run", BOOL, "TRUE")
_IOR_PHASE = (_API, _RUN)
_MD_PHASE = (_API, _RUN)
_FIND = (("external-script", STRING, None), ("external-mpi-args", STRING, ""),
         ("external-extra-args", STRING, ""), ("nproc", UINT, None), _RUN,
         ("pfind-queue-length", INT, "10000"), ("pfind-steal-next", BOOL, "FALSE"),
         ("pfind-parallelize-single-dir-access-using-hashing", BOOL, "FALSE"))
OPTIONS = (
    ("global", (("datadir", STRING, "./datafiles"), ("timestamp-datadir", BOOL, "TRUE"),
                ("resultdir", STRING, "./results"), ("timestamp-resultdir", BOOL, "TRUE"),
                ("api", STRING, "POSIX"), ("drop-caches", BOOL, "FALSE"),
                ("drop-caches-cmd", STRING,
                 'sudo -n bash -c "echo 3 > /proc/sys/vm/drop_caches"'),
                ("io-buffers-on-gpu", BOOL, "FALSE"), ("verbosity", UINT, "1"),
                ("scc", BOOL, "FALSE"), ("dataPacketType", STRING, "timestamp"))),
    ("debug", (("stonewall-time", INT, "300"), ("pause-dir", STRING, None))),
    ("ior-easy", (_API, ("transferSize", STRING, "2m"), ("blockSize", STRING, "9920000m"),
                  ("filePerProc", BOOL, "TRUE"), ("uniqueDir", BOOL, "FALSE"), _RUN,
                  ("verbosity", INT, None))),
    ("ior-easy-write", _IOR_PHASE),
    ("mdtest-easy", (_API, ("n", UINT, "1000000"), _RUN)),
    ("mdtest-easy-write", _MD_PHASE),
    ("mdworkbench", (_API, ("waitingTime", STRING, "0.0"), ("precreatePerSet", UINT, None),
                     ("filesPerProc", UINT, None), _RUN, ("verbosity", INT, None))),
    ("mdworkbench-create", (_RUN,)),
    ("timestamp", ()),
    ("find-easy", _FIND),
    ("ior-hard", (_API, ("segmentCount", INT, "10000000"), ("collective", BOOL, None), _RUN,
                  ("verbosity", INT, None))),
    ("ior-hard-write", (_API, ("collective", BOOL, None), _RUN)),
    ("mdtest-hard", (_API, ("n", UINT, "1000000"), ("files-per-dir", UINT, None), _RUN)),
    ("mdtest-hard-write", _MD_PHASE),
    ("find", _FIND),
    ("find-hard", _FIND),
    ("mdworkbench-bench", (_RUN,)),
    ("ior-easy-read", _IOR_PHASE),
    ("mdtest-easy-stat", _MD_PHASE),
    ("ior-hard-read", (_API, ("collective", BOOL, None), _RUN)),
    ("mdtest-hard-stat", _MD_PHASE),
    ("mdworkbench-delete", (_RUN,)),
    ("mdtest-easy-delete", _MD_PHASE),
    ("mdtest-hard-read", _MD_PHASE),
    ("mdtest-hard-delete", _MD_PHASE),
    ("ior-rnd4K-easy-read", _IOR_PHASE),
)
# {section: {option: (type, default)}}
SECTIONS = {section: {name: (kind, default) for name, kind, default in options}
            for section, options in OPTIONS}

# IO500's line syntax: "[section]" and "key = value", either optionally followed by a comment
# (whitespace, then ; or #); a value holds no ; or #.
_WS = "[ \t\n\r\f\v]"
SECTION = re.compile(rf"^{_WS}*\[{_WS}*([0-9a-zA-Z_-]+){_WS}*\]{_WS}*({_WS}[#;].*)?$")
PAIR = re.compile(rf"^{_WS}*([0-9a-zA-Z_.-]+){_WS}*={_WS}*([^#;]*){_WS}*({_WS}[#;].*)?$")
_EMPTY = re.compile(rf"^{_WS}*([#;].*)?$")
_CHECK = {INT: re.compile(r"^-?[0-9]+$"), UINT: re.compile(r"^[0-9]+$")}


class IniError(ValueError):
    """An .ini that IO500 (or sonde) would refuse; the message names what."""


def parse_lines(text):
    """IO500's reading of an .ini or result file: (kind, name, value, line number), kind
    "section" (value None), "pair" (a value with trailing blanks cut; pairs without a value
    are left out) or "other" (any other non-empty line, value None)."""
    out = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line:
            continue
        m = SECTION.match(line)
        if m:
            out.append(("section", m[1], None, number))
            continue
        m = PAIR.match(line)
        if m:
            value = m[2].rstrip(" \t\r")
            if value:
                out.append(("pair", m[1], value, number))
            continue
        out.append(("other", line, None, number))
    return out


def defaults():
    """{section: {option: value or None}} as IO500 starts before it reads an .ini."""
    return {section: {name: default for name, (_, default) in options.items()}
            for section, options in SECTIONS.items()}


@dataclass
class Key:
    section: str
    name: str
    value: str
    line: int


def read_keys(text, where="the .ini"):
    """{(section, key): Key} of the keys text sets, names as IO500 spells them, values checked
    against their types (booleans as TRUE/FALSE). IniError for what IO500 refuses, naming
    where (a file name) and the line."""
    out, section = {}, None
    for kind, name, value, number in parse_lines(text):
        at = f"{where}:{number}"
        if kind == "section":
            section = next((s for s in SECTIONS if s.lower() == name.lower()), None)
            if section is None:
                raise IniError(f"{at}: unknown section [{name}] (IO500's: "
                               f"{', '.join(SECTIONS)})")
        elif kind == "pair":
            if section is None:
                raise IniError(f"{at}: '{name}' outside a section")
            keys = SECTIONS[section]
            key = next((k for k in keys if k.lower() == name.lower()), None)
            if key is None:
                raise IniError(f"{at}: unknown key '{name}' in [{section}] (IO500's: "
                               f"{', '.join(keys) or 'none'})")
            out[(section, key)] = Key(section, key, _typed(keys[key][0], value, at, name),
                                      number)
        elif not _EMPTY.match(name):
            raise IniError(f"{at}: not an .ini line: {name.strip()!r}")
    return out


def parse(path):
    """read_keys of the file at path."""
    path = Path(path)
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise IniError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    return read_keys(text, str(path))


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


def read_ini(text):
    """The configuration IO500 makes of an .ini: its defaults with the file's values."""
    config = defaults()
    for key in read_keys(text).values():
        config[key.section][key.name] = key.value
    return config


def config_hash(config):
    """IO500's config-hash of a configuration ({section: {option: value}})."""
    total = 0
    for options in config.values():
        for name, value in options.items():
            if value is not None:
                total = hash_pair(total, name, value)
    return total


def format_ini(config, comment=None):
    """The .ini IO500 writes of a configuration (its config.ini): every section and option in
    IO500's order, an option without a value as "name = ". comment: a first line, after ";"."""
    lines = [f"; {comment}"] if comment else []
    for section, options in OPTIONS:
        lines.append(f"[{section}]")
        for name, _, _ in options:
            value = config[section][name]
            if value is not None and (value != value.strip() or re.search("[#;\n]", value)):
                raise IniError(f"[{section}] {name} = {value!r}: IO500's .ini cannot hold it")
            lines.append(f"{name} = {'' if value is None else value}")
        lines.append("")
    return "\n".join(lines) + "\n"


# The phases whose scores the standard score (and its hash) takes, with IO500's name.
SCORED = frozenset({"ior-easy-write", "mdtest-easy-write", "ior-hard-write",
                     "mdtest-hard-write", "find", "ior-easy-read", "mdtest-easy-stat",
                     "ior-hard-read", "mdtest-hard-stat", "mdtest-easy-delete",
                     "mdtest-hard-read", "mdtest-hard-delete"})
_KNOWN = frozenset(SECTIONS)


def score_hash(version, phase_scores, md, bw, score, valid):
    """The [SCORE] hash IO500 writes: phase_scores {phase: score text}, the others as printed."""
    total = hash_pair(0, "version", version)
    for phase, text in phase_scores.items():
        total = hash_pair(total, phase, text)
    for key, text in (("MD", md), ("BW", bw), ("SCORE", score)):
        total = hash_pair(total, key, text)
    return total if valid else hash_pair(total, "valid", "NO")


def read_result(text):
    """What io500-verify reads of a result.txt: {"config-hash", "hash"} as written (None when
    missing) and "score-hash", the score hash recomputed from the file's figures the way the
    verifier does (the "valid NO" pair not included: see verdict())."""
    found = {"config-hash": None, "hash": None}
    total, section = 0, None
    for kind, key, value, _ in parse_lines(text):
        if kind == "section":
            section = key
        elif kind != "pair":
            continue
        elif key == "version":
            total = hash_pair(total, key, value)
        elif key == "config-hash":
            found[key] = value
        elif section == "SCORE":
            if key == "hash":
                found[key] = value
            else:
                total = hash_pair(total, key, value.split(" ")[0] if key == "SCORE" else value)
        elif section is not None and key == "score" and (section in SCORED
                                                          or section not in _KNOWN):
            total = hash_pair(total, section, value)
    found["score-hash"] = total
    return found


def verdict(ini_text, result_text):
    """io500-verify's verdict on a pair of files: "ok", "ok-invalid" (the hashes match an
    invalid run), or the reason it rejects them."""
    try:
        want_config = hex_hash(config_hash(read_ini(ini_text)))
    except IniError as e:
        return f"the .ini is refused: {e}"
    got = read_result(result_text)
    if got["config-hash"] is None:
        return "Empty config hash read"
    if got["config-hash"] != want_config:
        return f"Configuration hash expected: {want_config} read: {got['config-hash']}"
    if hex_hash(got["score-hash"]) == got["hash"]:
        return "ok"
    if hex_hash(hash_pair(got["score-hash"], "valid", "NO")) == got["hash"]:
        return "ok-invalid"
    return f"Score hash expected: {hex_hash(got['score-hash'])} read: {got['hash']}"
