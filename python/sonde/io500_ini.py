# SPDX-License-Identifier: BSD-3-Clause
"""IO500's configuration file (.ini) and the two hashes IO500 guards a result with, computed
as IO500 (github.com/IO500/io500 at IO500_COMMIT) computes them, so that its verifier,
``io500-verify CONFIG.ini result.txt``, accepts the files sonde writes
(python/sonde/io500_files.py).

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
# IO500's order, and each option's default (None: no default). Every option of every section
# counts in the config hash, the extended mode's too.
_IOR_PHASE = (("API", None), ("run", "TRUE"))
_MD_PHASE = (("API", None), ("run", "TRUE"))
_FIND = (("external-script", None), ("external-mpi-args", ""), ("external-extra-args", ""),
         ("nproc", None), ("run", "TRUE"), ("pfind-queue-length", "10000"),
         ("pfind-steal-next", "FALSE"),
         ("pfind-parallelize-single-dir-access-using-hashing", "FALSE"))
OPTIONS = (
    ("global", (("datadir", "./datafiles"), ("timestamp-datadir", "TRUE"),
                ("resultdir", "./results"), ("timestamp-resultdir", "TRUE"), ("api", "POSIX"),
                ("drop-caches", "FALSE"),
                ("drop-caches-cmd", 'sudo -n bash -c "echo 3 > /proc/sys/vm/drop_caches"'),
                ("io-buffers-on-gpu", "FALSE"), ("verbosity", "1"), ("scc", "FALSE"),
                ("dataPacketType", "timestamp"))),
    ("debug", (("stonewall-time", "300"), ("pause-dir", None))),
    ("ior-easy", (("API", None), ("transferSize", "2m"), ("blockSize", "9920000m"),
                  ("filePerProc", "TRUE"), ("uniqueDir", "FALSE"), ("run", "TRUE"),
                  ("verbosity", None))),
    ("ior-easy-write", _IOR_PHASE),
    ("mdtest-easy", (("API", None), ("n", "1000000"), ("run", "TRUE"))),
    ("mdtest-easy-write", _MD_PHASE),
    ("mdworkbench", (("API", None), ("waitingTime", "0.0"), ("precreatePerSet", None),
                     ("filesPerProc", None), ("run", "TRUE"), ("verbosity", None))),
    ("mdworkbench-create", (("run", "TRUE"),)),
    ("timestamp", ()),
    ("find-easy", _FIND),
    ("ior-hard", (("API", None), ("segmentCount", "10000000"), ("collective", None),
                  ("run", "TRUE"), ("verbosity", None))),
    ("ior-hard-write", (("API", None), ("collective", None), ("run", "TRUE"))),
    ("mdtest-hard", (("API", None), ("n", "1000000"), ("files-per-dir", None),
                     ("run", "TRUE"))),
    ("mdtest-hard-write", _MD_PHASE),
    ("find", _FIND),
    ("find-hard", _FIND),
    ("mdworkbench-bench", (("run", "TRUE"),)),
    ("ior-easy-read", _IOR_PHASE),
    ("mdtest-easy-stat", _MD_PHASE),
    ("ior-hard-read", (("API", None), ("collective", None), ("run", "TRUE"))),
    ("mdtest-hard-stat", _MD_PHASE),
    ("mdworkbench-delete", (("run", "TRUE"),)),
    ("mdtest-easy-delete", _MD_PHASE),
    ("mdtest-hard-read", _MD_PHASE),
    ("mdtest-hard-delete", _MD_PHASE),
    ("ior-rnd4K-easy-read", _IOR_PHASE),
)
# The options IO500 reads as booleans: it stores true/1 as TRUE and false/0 as FALSE.
BOOLEAN = frozenset({"timestamp-datadir", "timestamp-resultdir", "drop-caches",
                     "io-buffers-on-gpu", "scc", "filePerProc", "uniqueDir", "run", "collective",
                     "pfind-steal-next", "pfind-parallelize-single-dir-access-using-hashing"})

# IO500's line syntax: "[section]" and "key = value", either optionally followed by a comment
# (whitespace, then ; or #); a value holds no ; or #.
_WS = "[ \t\n\r\f\v]"
SECTION = re.compile(rf"^{_WS}*\[{_WS}*([0-9a-zA-Z_-]+){_WS}*\]{_WS}*({_WS}[#;].*)?$")
PAIR = re.compile(rf"^{_WS}*([0-9a-zA-Z_.-]+){_WS}*={_WS}*([^#;]*){_WS}*({_WS}[#;].*)?$")
_EMPTY = re.compile(rf"^{_WS}*([#;].*)?$")


class IniError(ValueError):
    """An .ini that IO500 would refuse."""


def parse_lines(text):
    """IO500's reading of an .ini or result file: ("section", name, None) and ("pair", key,
    value) in file order, a pair's value with trailing blanks cut and pairs without a value
    left out, and ("other", line, None) for any other non-empty line."""
    out = []
    for line in (ln for ln in text.split("\n") if ln):
        m = SECTION.match(line)
        if m:
            out.append(("section", m[1], None))
            continue
        m = PAIR.match(line)
        if m:
            value = m[2].rstrip(" \t\r")
            if value:
                out.append(("pair", m[1], value))
            continue
        out.append(("other", line, None))
    return out


def defaults():
    """{section: {option: value or None}} as IO500 starts before it reads an .ini."""
    return {section: dict(options) for section, options in OPTIONS}


def read_ini(text):
    """The configuration IO500 makes of an .ini: its defaults with the file's values (names
    matched without regard to case, booleans as TRUE/FALSE). IniError for what IO500 refuses."""
    config, section = defaults(), None
    by_name = {s.lower(): s for s in config}
    for kind, key, value in parse_lines(text):
        if kind == "section":
            section = by_name.get(key.lower())
            if section is None:
                raise IniError(f"unknown section [{key}]")
        elif kind == "pair":
            if section is None:
                raise IniError(f"{key} is set outside a section")
            name = next((o for o in config[section] if o.lower() == key.lower()), None)
            if name is None:
                raise IniError(f"[{section}] has no option {key}")
            config[section][name] = _normalised(name, value)
        elif not _EMPTY.match(key):
            raise IniError(f"not an .ini line: {key!r}")
    return config


def _normalised(name, value):
    if name not in BOOLEAN:
        return value
    if value.lower() in ("true", "1"):
        return "TRUE"
    if value.lower() in ("false", "0"):
        return "FALSE"
    raise IniError(f"{name} is a boolean (true or false), not {value!r}")


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
        for name, _ in options:
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
_KNOWN = frozenset(section for section, _ in OPTIONS)


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
    for kind, key, value in parse_lines(text):
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
