# SPDX-License-Identifier: BSD-3-Clause
"""make bench's harness: the verdict of a row (pass, FAIL, or noisy when a tool's spread is
wider than the distance of the ratio from its target), and a smoke run of real cases that
records both sides' command lines and the spreads."""

import json
import os
import subprocess
import sys

import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
from benchlib import Context, Row  # noqa: E402 (after the path is set)


def row(sonde, ref, target=0.95):
    r = Row("case", "variant", "MiB/s", "fio", target)
    r.sonde, r.ref = list(sonde), list(ref)
    return r


@pytest.mark.parametrize("sonde,ref,verdict", [
    ([100, 101, 99], [100, 100, 101], "pass"),     # ratio 1.0, gap 5.3 %, spreads 2 %
    ([80, 81, 80], [100, 100, 101], "FAIL"),       # ratio 0.81, gap 15 %, spreads 1 %
    ([96, 100, 104], [100, 100, 100], "noisy"),    # ratio 1.0 (gap 5.3 %), sonde spread 8 %
    ([100, 100, 100], [90, 100, 120], "noisy"),    # the reference's spread (30 %) decides too
    ([500, 520, 400], [100, 100, 101], "pass"),    # spread 24 %, but far above: gap 426 %
])
def test_verdicts(sonde, ref, verdict):
    assert row(sonde, ref).verdict == verdict


def test_rows_compare_medians_and_report_spreads():
    r = row([100, 50, 104], [100, 200, 96])
    assert r.ratio == pytest.approx(1.0)
    assert r.sonde_spread == pytest.approx(0.54) and r.ref_spread == pytest.approx(1.04)
    assert r.gap == pytest.approx(1 / 0.95 - 1)


def test_rounds_and_order():
    ctx = Context(build=REPO / "build", repeats=3, warmup=1, disk_repeats=5, settle_s=0)
    assert ctx.rounds() == [(0, False), (1, True), (2, True), (3, True)]
    assert len(ctx.rounds(disk=True)) == 6
    order = []
    runs = {"sonde": lambda: order.append("sonde"), "ref": lambda: order.append("ref")}
    for i in range(2):
        ctx.in_order(i, runs)
    assert order == ["sonde", "ref", "ref", "sonde"]  # who goes first alternates


def test_smoke_run_of_real_cases(tmp_path, shm_scratch):
    env = {"SONDE_BENCH_DISK_DIR": str(shm_scratch), "SONDE_BENCH_SHM_DIR": str(shm_scratch),
           "SONDE_BENCH_POSIX_SIZE": "32m", "SONDE_BENCH_COLL_SCALE": "0.01"}
    proc = subprocess.run(
        [sys.executable, REPO / "bench" / "run.py", "--smoke", "--out", tmp_path,
         "posix_seq", "coll_percall"],
        env={**os.environ, **env}, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert doc["smoke"] and not doc["errors"]
    rows = doc["rows"]
    assert {r["case"] for r in rows} == {"posix_seq", "coll_percall"}
    for r in rows:
        assert r["verdict"] == "smoke"
        assert r["sonde_command"] and r["ref_command"]
    seq = [r for r in rows if r["case"] == "posix_seq"]
    assert any("bench/posix_seq write " in r["sonde_command"] for r in seq)
    assert all("--fadvise_hint=0" in r["ref_command"] for r in seq)
    md = next(tmp_path.glob("*.md")).read_text()
    assert "- sonde ran: `" in md and "- reference ran: `" in md
