# SPDX-License-Identifier: BSD-3-Clause
"""sonde.campaign.io500_ini: an IO500 .ini read with IO500's rules (sections and keys in any case,
comments, empty values unset), what it sets in the campaign, and the keys refused with the
key named. The commands an .ini makes are compared with the toml campaign's in
tests/integration/test_io500_rules.py."""

import tomllib
from datetime import datetime
from pathlib import Path

import pytest
from golden import SONDE

from sonde.campaign import (
    argcheck,
    io500_config,
    io500_ini,
    io500_phases,
    io500_validity,
    suitefile,
)

TEMPLATE = Path(__file__).resolve().parents[2] / "suites" / "io500.toml"
NOW = datetime(2026, 11, 27, 9, 30, 5)


def made(tmp_path, text, ranks=4):
    ini = tmp_path / "config.ini"
    ini.write_text(text)
    return io500_config.campaign(ini, TEMPLATE, ranks, SONDE, now=NOW)


def step_of(campaign, step):
    return next(s for s in tomllib.loads(campaign.toml)["step"] if s["name"] == step)


def params(campaign, step):
    return step_of(campaign, step)["params"]


def api_options(campaign, step):
    """The arguments the campaign put where the template has {api_option} (the rest of the
    template's arguments unchanged)."""
    template = next(s for s in tomllib.loads(TEMPLATE.read_text())["step"]
                    if s["name"] == step)["args"]
    args = step_of(campaign, step)["args"]
    at = template.index("{api_option}")
    after = len(template) - at - 1
    assert args[:at] == template[:at] and args[len(args) - after:] == template[at + 1:]
    return args[at:len(args) - after]


def test_defaults_are_io500s(tmp_path):
    """An .ini with only the mandatory datadir: IO500's defaults, its timestamped dirs."""
    c = made(tmp_path, "[global]\ndatadir = ./datafiles\n")
    assert c.datadir == Path("datafiles").absolute() / "2026.11.27-09.30.05"
    assert c.run_dir == Path("results") / "2026.11.27-09.30.05"
    assert params(c, "ior-easy-write") == {"api": "POSIX", "transfer": "2m",
                                           "block_mib": 9920000, "file_per_proc": "-F",
                                           "unique_dir": "", "stonewall": 300}
    assert params(c, "ior-hard-read") == {"api": "POSIX", "segments": 10000000,
                                          "collective": ""}
    assert api_options(c, "ior-easy-write") == api_options(c, "mdtest-hard-stat") == []
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
    assert params(c, "ior-easy-write") == {"api": "MPIIO", "transfer": "1m",
                                           "block_mib": 4096, "file_per_proc": "",
                                           "unique_dir": "", "stonewall": 5}
    assert params(c, "ior-easy-read")["api"] == "POSIX"
    assert api_options(c, "ior-easy-read") == ["--posix.odirect"]
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
    ("[ior-easy]\nAPI = DFS\n", "[ior-easy] API = DFS: sonde ior runs "),
    ("[mdtest-easy]\nAPI = MPIIO\n", "[mdtest-easy] API = MPIIO: sonde mdtest runs POSIX"),
    ("[global]\napi = POSIX --posix.lustre.stripecount=4\n",
     "[global] api = POSIX --posix.lustre.stripecount=4: option "
     "--posix.lustre.stripecount=4 is not one of sonde ior's POSIX options (its: "
     "--posix.odirect)"),
    # another API's option: IO500 passes it with a warning; its rules allow the API's own
    ("[ior-hard]\nAPI = POSIX --hdf5.collectiveMetadata\n",
     "[ior-hard] API = POSIX --hdf5.collectiveMetadata: option --hdf5.collectiveMetadata is "
     "not one of sonde ior's POSIX options"),
    # a word that is no API option at all (ior's -F would change the phase's fixed files)
    ("[ior-hard]\nAPI = HDF5 --hdf5.noFill -F\n",
     "[ior-hard] API = HDF5 --hdf5.noFill -F: option -F is not one of sonde ior's HDF5"),
    ("[ior-hard]\nAPI = HDF5 --hdf5.setAlignment\n",
     "option --hdf5.setAlignment needs a value"),
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


def test_an_api_s_own_options_run_and_are_valid(tmp_path):
    """IO500's API key with the API's own options after its name ("HDF5
    --hdf5.collectiveMetadata", "MMAP --mmap.madv_pattern"), a value after = or as the next
    word: the campaign passes each as one argument where the template has {api_option}; the
    binary parses them into the phase's params (the oracle, `sonde --parse-only`), and the
    IO500 validity rule finds nothing wrong with them. Which options are an API's own the
    binary's option tables say."""
    c = made(tmp_path, """
[ior-hard]
API = HDF5 --hdf5.collectiveMetadata --hdf5.setAlignment 1m --hdf5.chunkSize=4
[ior-easy-write]
API = MMAP --mmap.madv_pattern
""")
    assert api_options(c, "ior-hard-write") == ["--hdf5.collectiveMetadata",
                                                "--hdf5.setAlignment", "1m",
                                                "--hdf5.chunkSize=4"]
    assert api_options(c, "ior-easy-write") == ["--mmap.madv_pattern"]
    assert api_options(c, "ior-easy-read") == []  # [ior-easy]'s API: the global POSIX
    suite_file = tmp_path / "io500.toml"
    suite_file.write_text(c.toml)
    suite = suitefile.load(suite_file, scale=0.0001, workloads=argcheck.workloads(SONDE))
    for launch in suite.launches:
        if launch.step not in ("ior-hard-write", "ior-easy-write"):
            continue
        parsed = argcheck.parse(SONDE, launch.workload, launch.args, 4, 4)
        if launch.step == "ior-hard-write":
            assert parsed["api"] == "HDF5" and parsed["hdf5.collectiveMetadata"] is True
            assert parsed["setAlignment"] == 2**20 and parsed["hdf5.chunkSize"] == 4
        else:
            assert parsed["api"] == "MMAP" and parsed["mmap.madv_pattern"] is True
        problems = io500_validity.parameter_problems(io500_phases.BY_NAME[launch.step], parsed,
                                                     SONDE)
        # the scaled sizes and stonewall are the only differences from IO500's phase
        assert not [p for p in problems if "hdf5" in p or "mmap" in p or "Alignment" in p], \
            problems
