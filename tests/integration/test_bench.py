# SPDX-License-Identifier: BSD-3-Clause
"""make bench's harness: a row's ratio (the median of its rounds' ratios), the interval that
holds it, the verdict (pass, FAIL, or noisy when the interval reaches across the target; for a
row of a tool against itself, whether the interval holds 1), and a smoke run of real cases that
records both sides' command lines and the spreads."""

import json
import os
import subprocess
import sys

import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
from benchlib import (  # noqa: E402 (after the path is set)
    CONFIDENCE,
    LOOKS,
    WRONG_VERDICT,
    Context,
    Row,
    median_interval,
)


def row(sonde, ref, target=0.95, same_tool=False, two_sided=False):
    r = Row("case", "variant", "MiB/s", "fio", target, same_tool=same_tool, two_sided=two_sided)
    r.sonde, r.ref = list(sonde), list(ref)
    return r


@pytest.mark.parametrize("n,ranks", [
    (1, (1, 1)), (4, (1, 4)),      # too few for 93.3 %: the whole range
    (5, (1, 5)),                   # whole range 97 %; the 2nd to 4th would be 62 %
    (8, (1, 8)), (9, (2, 8)),      # P(fewer than 2 below the median): 9/256 > 3.33 %, 10/512 <=
    (15, (4, 12)), (18, (5, 14)), (27, (9, 19)),
])
def test_median_interval_ranks(n, ranks):
    samples = [float(i) for i in range(n, 0, -1)]  # the k-th smallest is k
    assert median_interval(samples) == ranks


def test_median_interval_at_90_percent():
    assert median_interval([float(i) for i in range(8, 0, -1)], 0.90) == (2, 7)  # 9/256 <= 5 %


def test_looks_keep_the_wrong_verdict_chance_bounded():
    # Each look errs one way only, with chance at most (1 - CONFIDENCE) / 2.
    assert LOOKS * (1 - CONFIDENCE) / 2 == pytest.approx(WRONG_VERDICT)


@pytest.mark.parametrize("sonde,ref,verdict", [
    ([100, 101, 99, 100, 102], [100, 100, 101, 99, 100], "pass"),   # ratios 0.98-1.03
    ([80, 81, 80, 82, 79], [100, 100, 101, 99, 100], "FAIL"),       # ratios 0.79-0.83
    ([90, 100, 104, 97, 99], [100, 100, 100, 100, 100], "noisy"),   # one round at 0.90
    ([100, 100, 100, 100, 100], [90, 100, 120, 101, 99], "noisy"),  # the reference's 120
    ([500, 520, 400, 510, 490], [100, 100, 101, 99, 100], "pass"),  # wide, but far above
])
def test_verdicts(sonde, ref, verdict):
    assert row(sonde, ref).verdict == verdict


@pytest.mark.parametrize("sonde,verdict", [
    ([100, 103, 97, 101, 99], "pass"),   # ratios 0.97-1.03 hold 1
    ([104, 103, 102, 105, 103], "FAIL"),  # every round favours one side
])
def test_same_tool_verdicts(sonde, verdict):
    assert row(sonde, [100] * 5, same_tool=True).verdict == verdict


@pytest.mark.parametrize("sonde,verdict", [
    ([100, 101, 99, 100, 102], "pass"),   # ratios 0.99-1.02, inside 0.98-1.0204
    ([105, 106, 104, 105, 107], "FAIL"),  # an option that raises the figure by 5 %
    ([95, 94, 96, 95, 93], "FAIL"),       # or lowers it
    ([100, 101, 99, 103, 100], "noisy"),  # one round at 1.03: across the ceiling
])
def test_two_sided_verdicts(sonde, verdict):
    r = row(sonde, [100] * 5, target=0.98, two_sided=True)
    assert r.verdict == verdict
    assert r.target_text == "0.98-1.02"


def test_ratio_is_the_median_of_the_rounds_ratios():
    # The machine's speed changes between rounds; sonde is 1.2 times faster in two of three.
    # Each tool's median taken apart pairs runs of different rounds: 100 / 100.
    r = row([100, 60, 300], [100, 50, 250])
    assert r.round_ratios == pytest.approx([1.0, 1.2, 1.2])
    assert r.ratio == pytest.approx(1.2)
    assert r.sonde_median / r.ref_median == pytest.approx(1.0)
    assert r.interval == pytest.approx((1.0, 1.2))
    assert r.sonde_spread == pytest.approx(2.4) and r.ref_spread == pytest.approx(2.0)


def test_rounds_and_order():
    ctx = Context(build=REPO / "build", repeats=3, warmup=1, disk_repeats=5, settle_s=0)
    assert list(ctx.rounds()) == [(0, False), (1, True), (2, True), (3, True)]
    assert len(list(ctx.rounds(disk=True))) == 6
    order = []
    runs = {"sonde": lambda: order.append("sonde"), "ref": lambda: order.append("ref")}
    for i in range(2):
        ctx.in_order(i, runs)
    assert order == ["sonde", "ref", "ref", "sonde"]  # who goes first alternates


def rounds_run(ctx, ratios, disk=False):
    """The rounds ctx runs for one row whose rounds give these ratios in turn."""
    r = row([], [])
    ran = []
    for i, measured in ctx.rounds(disk, [r]):
        ran.append((i, measured))
        if measured:
            r.record(True, ratios[len(r.sonde)], 1.0, "", "")
    return ran, r


@pytest.mark.parametrize("ratios,measured", [
    ([1.2] * 9, 9),                               # decided at the first look: no more rounds
    ([0.8] * 9, 9),                               # a FAIL decides too
    ([0.90, 1.0] * 4 + [1.0] + [1.01] * 9, 18),   # noisy at 9 (0.90 in its interval), not at 18
    ([0.9, 1.0] * 20, 27),                        # noisy to the end: LOOKS looks, then stops
])
def test_noisy_rows_get_more_looks(ratios, measured):
    ctx = Context(build=REPO / "build", repeats=9, warmup=1, disk_repeats=15, settle_s=0)
    ran, r = rounds_run(ctx, ratios)
    assert [i for i, _ in ran] == list(range(1 + measured))
    assert [m for _, m in ran] == [False] + [True] * measured
    assert len(r.sonde) == measured


def test_disk_looks_and_smoke():
    ctx = Context(build=REPO / "build", repeats=9, warmup=1, disk_repeats=15, settle_s=0)
    ran, _ = rounds_run(ctx, [0.9, 1.0] * 30, disk=True)
    assert len(ran) == 1 + LOOKS * 15
    smoke = Context(build=REPO / "build", repeats=1, warmup=0, disk_repeats=1, settle_s=0,
                    smoke=True)
    ran, _ = rounds_run(smoke, [0.9, 1.0] * 30, disk=True)
    assert ran == [(0, True)]  # a smoke run has one look, noisy or not


def test_smoke_run_of_real_cases(tmp_path, shm_scratch):
    env = {"SONDE_BENCH_DISK_DIR": str(shm_scratch), "SONDE_BENCH_SHM_DIR": str(shm_scratch),
           "SONDE_BENCH_POSIX_SIZE": "32m", "SONDE_BENCH_COLL_SCALE": "0.01"}
    proc = subprocess.run(
        [sys.executable, REPO / "bench" / "run.py", "--smoke", "--out", tmp_path,
         "posix_seq", "same_tool", "coll_percall"],
        env={**os.environ, **env}, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert doc["smoke"] and not doc["errors"]
    rows = doc["rows"]
    assert {r["case"] for r in rows} == {"posix_seq", "same_tool", "coll_percall"}
    for r in rows:
        assert r["verdict"] == "smoke"
        assert r["sonde_command"] and r["ref_command"]
    seq = [r for r in rows if r["case"] == "posix_seq"]
    assert any("bench/posix_seq write " in r["sonde_command"] for r in seq)
    assert all("--fadvise_hint=0" in r["ref_command"] for r in seq)
    same = [r for r in rows if r["case"] == "same_tool"]
    assert same and all(r["sonde_command"] == r["ref_command"] for r in same)
    assert all(r["ratio"] == r["round_ratios"][0] and r["rounds"] == 1 for r in rows)
    md = next(tmp_path.glob("*.md")).read_text()
    assert "- sonde ran: `" in md and "- reference ran: `" in md
    assert "| unit | rounds | ratio | (93.3% interval) |" in md
