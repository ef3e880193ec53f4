# SPDX-License-Identifier: BSD-3-Clause
"""The IO500 campaign (suites/io500.toml) end to end, small: every phase in IO500's order runs,
the [RESULT] and [SCORE ] lines have IO500's layout, the score is recomputed here from the
phase records, the find found what the names of mdtest-hard's files say, a run shorter than the
stonewall is marked INVALID with the reasons, and the data IOR kept is removed."""

import json
import math
import re
import subprocess
import sys

import pytest
from bounded import run_bounded
from conftest import REPO, SONDE, mpi_env, read_jsonl

sys.path.insert(0, str(REPO / "python"))
from sonde.campaign import io500, suitefile  # noqa: E402

FILES = 300  # per rank, mdtest-easy and mdtest-hard
RESULT = re.compile(r"^\[(RESULT|      )\] +([A-Za-z0-9-]+) +([\d.]+) (GiB/s|kIOPS) : "
                    r"time ([\d.]+) seconds( \[INVALID\])?$")
SCORE = re.compile(r"^\[SCORE \] Bandwidth ([\d.]+) GiB/s : IOPS ([\d.]+) kiops : TOTAL "
                   r"([\d.]+)( \[INVALID\])?$")


def small_suite(tmp_path, scratch):
    """The shipped suite with small sizes and a one-second stonewall (tunables and the
    stonewall only; every fixed parameter as shipped)."""
    text = (REPO / "suites" / "io500.toml").read_text()
    for old, new in (('scratch = "/scratch/sonde-io500/datafiles"', f'scratch = "{scratch}"'),
                     ("block_mib = 9920000", "block_mib = 8"),
                     ("segments = 10000000", "segments = 100"),
                     ("files = 1000000", f"files = {FILES}"),
                     ("stonewall = 300", "stonewall = 1")):
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / "io500.toml"
    path.write_text(text)
    return path


def run_suite(suite, out, *extra):
    env = mpi_env({"SONDE_BIN": SONDE})
    env["PYTHONPATH"] = str(REPO / "python")
    return run_bounded([sys.executable, "-m", "sonde.suite", "run", str(suite), "--out",
                        str(out), *extra], env=env, capture_output=True, text=True,
                       timeout=900)


def value_of(phase, run_dir, launch_id):
    """A phase's score from its records, as IO500 computes it."""
    recs = read_jsonl(run_dir / launch_id / "results.jsonl")
    (m,) = [r for r in recs if r["type"] == "measurement" and r["phase"] == phase.record]
    if phase.workload == "ior":
        return m["bytes"] / m["seconds"] / 2**30, recs
    return m["ops"] / m["seconds"] / 1000, recs


def test_io500_campaign(tmp_path, shm_scratch):
    scratch = shm_scratch / "io500"
    out = tmp_path / "run"
    proc = run_suite(small_suite(tmp_path, scratch), out)
    manifest = json.loads((out / "manifest.json").read_text())
    failed = [(e["id"], e["reason"]) for e in manifest["launches"] if e["status"] != "ok"]
    assert proc.returncode == 0 and not failed, (failed, proc.stderr[-3000:])
    assert [e["step"] for e in manifest["launches"]] == list(io500.PHASE_NAMES)
    assert manifest["score"] == "io500"

    # IO500's stdout lines, saved as result_summary.txt too
    summary = (out / "result_summary.txt").read_text().splitlines()[1:]  # after the version
    n = len(io500.PHASE_NAMES)
    assert summary == [ln for ln in proc.stdout.splitlines() if ln.startswith("[")][-n - 1:]
    rows = [RESULT.match(ln) for ln in summary[:n]]
    assert all(rows), summary
    assert [r[2] for r in rows] == list(io500.PHASE_NAMES)
    score = SCORE.match(summary[n])
    assert score, summary[n]

    # every figure recomputed from the phase's records
    ids = {e["step"]: e["id"] for e in manifest["launches"]}
    bw, md = [], []
    for phase, row in zip(io500.PHASES, rows, strict=True):
        if phase.workload is None:
            assert row[1] == "      " and float(row[3]) == 0
            assert (out / "timestampfile").exists()
            continue
        value, recs = value_of(phase, out, ids[phase.name])
        assert row[1] == ("RESULT" if phase.group else "      ") and row[4] == phase.unit
        assert row[3] == f"{value:f}" and value > 0, phase.name
        assert row[5] == f"{recs[-1]['elapsed_seconds']:.3f}"
        if phase.group:  # ior-rnd4K-easy-read is not scored
            (bw if phase.group == "BW" else md).append(value)
    want_bw = math.prod(bw) ** (1 / 4)
    want_md = math.prod(md) ** (1 / 8)
    assert score[1] == f"{want_bw:f}" and score[2] == f"{want_md:f}"
    assert score[3] == f"{math.sqrt(want_bw * want_md):f}"

    # a one-second stonewall: every write phase, and the run, are invalid, and say why
    invalid = {r[2] for r in rows if r[6]}
    assert invalid >= {"ior-easy-write", "mdtest-easy-write", "ior-hard-write",
                       "mdtest-hard-write"}
    assert score[4] == " [INVALID]"
    assert "ERROR INVALID stonewall-time 1s != 300s" in proc.stdout
    # every phase ran with the parameters IO500 gives it (the header records' params compared
    # with IO500's and the binary's defaults): the runtime rule alone makes a phase invalid
    errors = [ln for ln in proc.stdout.splitlines() if ln.startswith("ERROR INVALID ")]
    runtime = [ln for ln in errors if "Runtime is smaller than expected minimum runtime" in ln]
    assert {ln.split()[2].rstrip(":") for ln in runtime} == invalid == {
        "ior-easy-write", "mdtest-easy-write", "ior-hard-write", "mdtest-hard-write"}
    assert len(errors) == len(runtime) + 1, errors

    # the find found the mdtest-hard files (3901 bytes, newer than the timestamp) with "01"
    # in their names, and nothing else
    recs = read_jsonl(out / ids["find"] / "results.jsonl")
    (m,) = [r for r in recs if r["type"] == "measurement"]
    want = sum("01" in f"file.mdtest.{r}.{n}" for r in range(2) for n in range(FILES))
    assert m["extra"]["found"] == want > 0

    # result.txt: IO500's sections and "key = value" lines
    text = (out / "result.txt").read_text()
    sections = re.findall(r"^\[([a-zA-Z0-9-]+)\]$", text, re.MULTILINE)
    assert sections == ["run", *io500.PHASE_NAMES, "SCORE"]
    assert re.search(r"^procs {11}= 2$", text, re.MULTILINE)
    assert re.search(rf"^SCORE {{11}}= {re.escape(score[3])} \[INVALID\]$", text, re.MULTILINE)
    assert re.search(r"^exe {13}= .*sonde mdtest .* -w 3901 -e 3901 .* -E -X", text, re.MULTILINE)
    # ior's aggregate bandwidth up to the stonewall, GiB/s, for each IOR write
    assert len(re.findall(r"^throughput-stonewall = \d+\.\d\d$", text, re.MULTILINE)) == 2

    # the data the IOR phases kept (-k) is gone, and mdtest removed its own
    assert not any(p.is_file() for p in scratch.rglob("*"))


def test_reduced_scale_is_never_valid(tmp_path):
    suite = suitefile.load(REPO / "suites" / "io500.toml", scale=1e-6)
    assert suite.reduced_scale and suite.score == "io500"
    r = io500.evaluate({}, SONDE, reduced_scale=True)
    assert not r.valid and any("reduced scale" in x for x in r.reasons)
    assert r.score == 0 and all(p.reasons for p in r.phases if p.group)


def test_dry_run_and_phase_order(tmp_path):
    env = mpi_env({"SONDE_BIN": SONDE})
    env["PYTHONPATH"] = str(REPO / "python")
    proc = subprocess.run([sys.executable, "-m", "sonde.suite", "run",
                           str(REPO / "suites" / "io500.toml"), "--dry-run", "--out",
                           str(tmp_path / "x")], env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 14 and " -z -z " in lines[13]
    assert lines[2] == f"touch {tmp_path / 'x' / 'timestampfile'}"
    assert "-newer " + str(tmp_path / "x" / "timestampfile") in lines[5]
    # a suite whose steps are not IO500's order is refused at load
    text = (REPO / "suites" / "io500.toml").read_text()
    swapped = text.replace('name = "ior-easy-write"', 'name = "TMP"').replace(
        'name = "ior-hard-write"', 'name = "ior-easy-write"').replace(
        'name = "TMP"', 'name = "ior-hard-write"')
    (tmp_path / "bad.toml").write_text(swapped)
    with pytest.raises(suitefile.SuiteError, match="IO500's order"):
        suitefile.load(tmp_path / "bad.toml")
