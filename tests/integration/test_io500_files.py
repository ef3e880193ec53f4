# SPDX-License-Identifier: BSD-3-Clause
"""IO500's result files as sonde writes them (python/sonde/campaign/io500_files.py), judged by
IO500's own verifier: the fixture fixtures/io500-verified/ holds a campaign's files and what
io500-verify (IO500 at io500_ini.IO500_COMMIT) said of them, unedited and edited; the hashes
sonde computes must be the ones io500-verify printed. A new campaign's files must have IO500's
layout, the campaign's configuration in IO500's keys, and hashes that hold together.

With IO500_VERIFY set to an io500-verify binary, the verifier itself is run on the fixture and
on the new campaign's files."""

import json
import os
import re
import subprocess
import sys

import pytest
from conftest import REPO, read_jsonl
from test_io500 import FILES, run_suite, small_suite

sys.path.insert(0, str(REPO / "python"))
from sonde.campaign import io500, io500_ini, suitefile  # noqa: E402

FIXTURE = REPO / "tests" / "integration" / "fixtures" / "io500-verified"
VERIFY = os.environ.get("IO500_VERIFY")
needs_verifier = pytest.mark.skipif(not VERIFY, reason="IO500_VERIFY names no io500-verify")


def fixture(name):
    return (FIXTURE / name).read_text()


def printed(name, pattern):
    """The hash io500-verify (or io500 --config-hash) printed in a fixture file."""
    m = re.search(pattern, fixture(name))
    assert m, (name, pattern)
    return m[1]


def pairs(text, section):
    """{key: value} of one section of a result.txt."""
    body = re.search(rf"^\[{re.escape(section)}\]\n(.*?)(?=^\[|\Z)", text, re.M | re.S)[1]
    return dict(re.findall(r"^([A-Za-z_-]+) *= (.*)$", body, re.M))


def bumped(text, line):
    """text with the last digit of line's number changed."""
    assert text.count(line + "\n") == 1, line
    new = line[:-1] + str((int(line[-1]) + 1) % 10)
    return text.replace(line + "\n", new + "\n")


def test_config_hash_is_io500s():
    # io500 --config-hash of an .ini with IO500's defaults only, and of one in every form
    # IO500 reads (comments, case, true/0 booleans, a non-ASCII path, a trailing tab)
    assert io500_ini.hex_hash(io500_ini.config_hash(io500_ini.defaults())) == printed(
        "io500-config-hash-defaults.txt", r"config-hash += (\w+)")
    edge = io500_ini.read_ini(fixture("io500-edge.ini"))
    assert io500_ini.hex_hash(io500_ini.config_hash(edge)) == printed(
        "io500-edge-config-hash.txt", r"config-hash += (\w+)")
    assert edge["global"]["datadir"] == "/scratch/données/io500"
    assert edge["global"]["api"] == "POSIX --posix.odirect"
    assert edge["global"]["drop-caches"] == "TRUE" and edge["ior-easy"]["filePerProc"] == "FALSE"
    assert edge["ior-easy"]["blockSize"] == "9920000m" and edge["find"]["nproc"] == "3"
    with pytest.raises(io500_ini.IniError, match="unknown key 'stonewall-time' in \\[global\\]"):
        io500_ini.read_ini("[global]\nstonewall-time = 300\n")
    with pytest.raises(io500_ini.IniError, match="scc takes TRUE or FALSE"):
        io500_ini.read_ini("[global]\nscc = yes\n")
    # a value IO500's .ini cannot hold (it would read it cut at the ";") is refused
    config = io500_ini.defaults()
    config["global"]["resultdir"] = "/results/a;b"
    with pytest.raises(io500_ini.IniError, match="cannot hold"):
        io500_ini.format_ini(config)


def test_fixture_hashes_are_the_ones_io500_verify_accepted():
    ini, text = fixture("config.ini"), fixture("result.txt")
    assert fixture("io500-verify.txt").rstrip().endswith("[OK] But this is an invalid run!")
    accepted_config = printed("io500-verify.txt", r"config-hash += (\w+)")
    accepted_score = printed("io500-verify.txt", r"score-hash += (\w+)")
    assert io500_ini.hex_hash(io500_ini.config_hash(io500_ini.read_ini(ini))) == accepted_config
    read = io500_ini.read_result(text)
    assert read["config-hash"] == accepted_config and read["hash"] == accepted_score
    assert io500_ini.hex_hash(io500_ini.hash_pair(read["score-hash"], "valid", "NO")) == \
        accepted_score
    assert io500_ini.verdict(ini, text) == "ok-invalid"
    # the writer's path to the same hash: the version, the figures as printed, invalid
    run, score = pairs(text, "run"), pairs(text, "SCORE")
    scores = {p: pairs(text, p)["score"] for p in io500.PHASE_NAMES if p in io500_ini.SCORED}
    assert io500_ini.hex_hash(io500_ini.score_hash(
        run["version"], scores, score["MD"], score["BW"], score["SCORE"].split()[0],
        valid=False)) == accepted_score


def test_an_edited_number_is_rejected():
    ini, text = fixture("config.ini"), fixture("result.txt")
    # the edits io500-verify rejected, with the hash it expected
    edited = bumped(text, "score           = 3.118622")
    want = printed("io500-verify-edited-score.txt", r'Score hash expected: "(\w+)"')
    assert io500_ini.verdict(ini, edited) == \
        f"Score hash expected: {want} read: {io500_ini.read_result(text)['hash']}"
    want = printed("io500-verify-edited-config.txt", r"Configuration hash expected: (\w+) ")
    assert io500_ini.verdict(ini.replace("transferSize = 2m\n", "transferSize = 1m\n"),
                             text).startswith(f"Configuration hash expected: {want} ")
    # any figure of the score, changed by one in its last digit
    lines = re.findall(r"^(?:score|MD|BW) += [\d.]+$", text, re.M)
    assert len(lines) == 14
    for line in lines:
        assert io500_ini.verdict(ini, bumped(text, line)).startswith("Score hash expected")
    # the result.txt sonde wrote before: no config-hash
    no_hash = re.sub(r"^config-hash .*\n", "", text, flags=re.M)
    assert io500_ini.verdict(ini, no_hash) == "Empty config hash read"


def run_verifier(ini, result):
    proc = subprocess.run([VERIFY, str(ini), str(result)], capture_output=True, text=True,
                          timeout=60)
    return proc.stdout


@needs_verifier
def test_io500_verify_itself(tmp_path):
    assert "[OK] But this is an invalid run!" in run_verifier(FIXTURE / "config.ini",
                                                               FIXTURE / "result.txt")
    edited = tmp_path / "result.txt"
    edited.write_text(bumped(fixture("result.txt"), "score           = 3.118622"))
    assert "ERROR: Score hash expected" in run_verifier(FIXTURE / "config.ini", edited)


def test_campaign_writes_io500_files(tmp_path, shm_scratch):
    scratch = shm_scratch / "io500"
    out = tmp_path / "run"
    proc = run_suite(small_suite(tmp_path, scratch), out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert proc.returncode == 0, proc.stderr[-3000:]
    ids = {e["step"]: e["id"] for e in manifest["launches"]}
    ini, text = (out / "config.ini").read_text(), (out / "result.txt").read_text()

    # the configuration, in IO500's keys, is what the suite asked (small_suite's sizes)
    config = io500_ini.read_ini(ini)
    # {scratch} is IO500's datadir: the run's own, below the suite's
    assert config["global"]["datadir"] == suitefile.run_scratch(scratch, out.name)
    assert config["global"]["resultdir"] == str(out.resolve())
    assert config["global"]["timestamp-resultdir"] == "FALSE"
    assert config["debug"]["stonewall-time"] == "1"
    assert config["ior-easy"]["transferSize"] == "2m" and config["ior-easy"]["blockSize"] == "8m"
    assert config["ior-easy"]["filePerProc"] == "TRUE"
    assert config["ior-hard"]["segmentCount"] == "100" and config["ior-hard"]["collective"] == \
        "FALSE"
    assert config["mdtest-easy"]["n"] == config["mdtest-hard"]["n"] == str(FILES)
    assert config["find"]["nproc"] == "2" and config["find"]["pfind-queue-length"] == "10000"
    assert config["mdworkbench"]["run"] == "FALSE"  # IO500's extended mode: not run

    # result.txt: IO500's sections and keys, its hashes consistent with the files
    sections = re.findall(r"^\[([a-zA-Z0-9-]+)\]$", text, re.M)
    assert sections == ["run", *io500.PHASE_NAMES, "SCORE"]
    run = pairs(text, "run")
    assert list(run) == ["procs", "version", "config-hash", "result-dir", "mode"]
    assert run["config-hash"] == io500_ini.hex_hash(io500_ini.config_hash(config))
    assert re.search(r"^; START \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$", text, re.M)
    assert re.search(r"^; END \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\n\Z", text, re.M)
    assert io500_ini.verdict(ini, text) == "ok-invalid"
    for phase in io500.PHASES:
        got = pairs(text, phase.name)
        keys = ["t_start", "exe", "score", "t_delta", "t_end"] if phase.group else \
            ["t_start", "t_delta", "t_end"]
        assert [k for k in got if k in keys] == keys, phase.name
        if phase.group:  # the phase's own output, as IO500 keeps it
            assert (out / f"{phase.name}.txt").read_text() == \
                (out / ids[phase.name] / "stdout.txt").read_text()
    # the stonewall figures, recomputed from the records
    for phase in ("mdtest-easy-write", "mdtest-hard-write"):
        recs = read_jsonl(out / ids[phase] / "results.jsonl")
        (m,) = [r for r in recs if r["type"] == "measurement" and r["phase"] == "file-create"]
        rate = m["extra"]["stonewall_items"] / m["extra"]["stonewall_seconds"] / 1000
        assert pairs(text, phase)["rate-stonewall"] == f"{rate:f}"
    for phase in ("ior-easy-write", "ior-hard-write"):
        recs = read_jsonl(out / ids[phase] / "results.jsonl")
        (m,) = [r for r in recs if r["type"] == "measurement" and r["phase"] == "write"]
        gib_s = m["extra"]["stonewall_total_bytes"] / m["extra"]["stonewall_s"] / 2**30
        assert pairs(text, phase)["throughput-stonewall"] == f"{gib_s:.2f}"
    # find: what the names of mdtest-hard's files say it finds, and every entry it scanned
    find = pairs(text, "find")
    want = sum("01" in f"file.mdtest.{r}.{n}" for r in range(2) for n in range(FILES))
    assert find["found"] == str(want) and find["nproc"] == "2"
    (m,) = [r for r in read_jsonl(out / ids["find"] / "results.jsonl")
            if r["type"] == "measurement"]
    assert find["total-files"] == str(m["ops"])

    summary = (out / "result_summary.txt").read_text().splitlines()
    assert summary[0] == f"IO500 version {run['version']} (standard)"
    assert summary[-1].startswith("[SCORE ] ") and summary[-1].endswith(" [INVALID]")
    if VERIFY:
        assert "[OK] But this is an invalid run!" in run_verifier(out / "config.ini",
                                                                   out / "result.txt")
