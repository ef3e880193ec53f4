# SPDX-License-Identifier: BSD-3-Clause
"""sonde.campaign.io500_ini: an IO500 .ini read with IO500's rules (sections and keys in any case,
comments, empty values unset), what it sets in the campaign, and the keys refused with the
key named. The commands an .ini makes are compared with the toml campaign's in
tests/integration/test_io500_rules.py."""

import tomllib
from datetime import datetime
from pathlib import Path

import pytest

from sonde.campaign import io500_config, io500_ini, io500_phases, suitefile

TEMPLATE = Path(__file__).resolve().parents[2] / "suites" / "io500.toml"
NOW = datetime(2026, 11, 27, 9, 30, 5)


def made(tmp_path, text, ranks=4):
    ini = tmp_path / "config.ini"
    ini.write_text(text)
    return io500_config.campaign(ini, TEMPLATE, ranks, now=NOW)


def params(campaign, step):
    doc = tomllib.loads(campaign.toml)
    return next(s for s in doc["step"] if s["name"] == step)["params"]


def test_defaults_are_io500s(tmp_path):
    """An .ini with only the mandatory datadir: IO500's defaults, its timestamped dirs."""
    c = made(tmp_path, "[global]\ndatadir = ./datafiles\n")
    assert c.datadir == Path("datafiles").absolute() / "2026.11.27-09.30.05"
    assert c.run_dir == Path("results") / "2026.11.27-09.30.05"
    assert params(c, "ior-easy-write") == {"api": "POSIX", "api_option": "", "transfer": "2m",
                                           "block_mib": 9920000, "file_per_proc": "-F",
                                           "unique_dir": "", "stonewall": 300}
    assert params(c, "ior-hard-read") == {"api": "POSIX", "api_option": "", "segments": 10000000,
                                          "collective": ""}
    assert params(c, "mdtest-hard-write")["files"] == 1000000
    assert params(c, "find") == {"queue_length": 10000, "steal_next": ""}
    assert tomllib.loads(c.toml)["suite"]["ranks"] == 4


def test_keys_set_the_campaign(tmp_path):
    c = made(tmp_path, """
[GLOBAL]                  ; sections and keys in any case
datadir = /data/io500     # a comment
timestamp-datadir = false
[Debug]
stonewall-time = 5
[ior-easy]
API = MPIIO
transferSize = 1m
blockSize = 4g
filePerProc = FALSE
uniqueDir =
[ior-easy-read]
API = POSIX --posix.odirect
[ior-hard]
segmentCount = 77
collective = TRUE
[ior-hard-read]
collective = 0
[mdtest-easy]
API = POSIX
n = 5000
[find]
pfind-queue-length = 50
pfind-steal-next = TRUE
""")
    assert c.datadir == Path("/data/io500")
    assert params(c, "ior-easy-write") == {"api": "MPIIO", "api_option": "", "transfer": "1m",
                                           "block_mib": 4096, "file_per_proc": "",
                                           "unique_dir": "", "stonewall": 5}
    assert params(c, "ior-easy-read")["api"] == "POSIX"
    assert params(c, "ior-easy-read")["api_option"] == "--posix.odirect"
    assert params(c, "ior-hard-write")["collective"] == "-c"
    assert params(c, "ior-hard-read")["collective"] == ""
    assert params(c, "ior-hard-read")["segments"] == 77
    assert params(c, "mdtest-easy-stat")["files"] == 5000
    assert params(c, "find") == {"queue_length": 50, "steal_next": "-N"}


@pytest.mark.parametrize("text, named", [
    ("[global]\ndatadir = x\nfoo = 1\n", "config.ini:3: unknown key 'foo' in [global]"),
    ("[nonsense]\n", "config.ini:1: unknown section [nonsense]"),
    ("[global]\ndrop-caches = TRUE\n", "config.ini:2: [global] drop-caches = TRUE:"),
    ("[global]\nscc = TRUE\n", "[global] scc = TRUE: the Student Cluster Competition"),
    ("[debug]\npause-dir = /tmp/p\n", "[debug] pause-dir = /tmp/p: pausing"),
    ("[mdtest-hard]\nfiles-per-dir = 10\n", "[mdtest-hard] files-per-dir = 10: a debug option"),
    ("[find]\nexternal-script = /bin/find.sh\n", "[find] external-script = /bin/find.sh:"),
    ("[ior-easy-write]\nrun = FALSE\n", "[ior-easy-write] run = FALSE: sonde runs every phase"),
    ("[find-easy]\npfind-queue-length = 3\n", "[find-easy] pfind-queue-length = 3: belongs to "
                                              "IO500's extended mode"),
    ("[ior-easy]\nAPI = DFS\n", "[ior-easy] API = DFS: sonde ior runs POSIX or MPIIO"),
    ("[mdtest-easy]\nAPI = MPIIO\n", "[mdtest-easy] API = MPIIO: sonde mdtest runs POSIX"),
    ("[global]\napi = POSIX --posix.lustre.stripecount=4\n",
     "[global] api = POSIX --posix.lustre.stripecount=4: backend option "
     "--posix.lustre.stripecount=4 is not supported"),
    ("[ior-easy]\nblockSize = 1500k\n", "[ior-easy] blockSize = 1500k: the campaign takes whole"),
    ("[ior-hard]\nsegmentCount = many\n", "config.ini:2: segmentCount takes a whole number"),
    ("[ior-easy]\nfilePerProc = yes\n", "config.ini:2: filePerProc takes TRUE or FALSE"),
    ("[find]\nnproc = 2\n", "[find] nproc = 2: sonde runs the find on the campaign's 4 ranks"),
    ("datadir = x\n", "config.ini:1: 'datadir' outside a section"),
])
def test_refused_with_the_key_named(tmp_path, text, named):
    with pytest.raises(io500_ini.IniError, match=None) as e:
        made(tmp_path, text)
    assert named in str(e.value)


def test_keys_at_their_defaults_are_accepted(tmp_path):
    """What `io500 --list` writes (every key at its default, extended sections too) runs."""
    lines = []
    for section, keys in io500_ini.SECTIONS.items():
        lines.append(f"[{section}]")
        lines += [f"{k} = {d if d is not None else ''}" for k, (_, d) in keys.items()]
    c = made(tmp_path, "\n".join(lines) + "\n")
    assert params(c, "mdtest-easy-write")["files"] == 1000000


def test_the_scaled_find_has_matches(tmp_path):
    """--scale 0.0001 (the documented try): mdtest keeps 1000 files per rank, so the names
    file.mdtest.<rank>.<n> hold "01" (n = 101, 201, ...), as at IO500's sizes."""
    suite = suitefile.load(TEMPLATE, scale=0.0001)
    for ln in suite.launches:
        if ln.workload == "mdtest":
            n = int(ln.args[ln.args.index("-n") + 1])
            assert n == 1000
            assert sum("01" in f"file.mdtest.0.{i}" for i in range(n)) > 0
    assert [ln.step for ln in suite.launches] == list(io500_phases.PHASE_NAMES)
