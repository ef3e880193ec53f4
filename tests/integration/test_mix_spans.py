# SPDX-License-Identifier: BSD-3-Clause
"""btio, mpiio (LANL MPI-IO Test) and coll (mpiBench) measurements in `sonde mix` carry `start`
and `end` on the mix's clock (docs/workloads/mix.md), so their phases take part in the overlap
windows. The oracles: the launch's own duration (a clock of the test's), each phase's own
`seconds` (the span holds it), the order the workload runs its phases in, and the overlap
windows recomputed from the spans.

The fault shim (tests/shim/faultshim.c, SONDE_FAULT_DELAY_US) makes each read and write of the
I/O groups' files wait, so that their tiny phases last long enough to overlap."""

import time

from conftest import read_jsonl, run_sonde
from faultlib import NEEDS_SHIM, SHIM


def spans_in_order(measured, launch_seconds, records):
    """Each measurement's span: after the mix's zero, before the launch ended, at least its own
    seconds long, and after the one before it (the workload runs its phases one by one). A
    span's start and end are different ranks' times, on the mix's clock within twice the
    headers' clock_error_s of each other (docs/results-schema.md): 0.5 ms across two loops of
    coll under MPICH, whose ranks' offsets (0 in truth, on one node) were estimated that far."""
    slack = 2 * max(r.get("clock_error_s", 0) for r in records if r["type"] == "header")
    for m in measured:
        assert -slack <= m["start"] <= m["end"] <= launch_seconds, m
        assert m["end"] - m["start"] >= m["seconds"] - 1e-6 - slack, m
    for before, after in zip(measured, measured[1:], strict=False):
        assert before["end"] <= after["start"] + slack, (before, after, slack)


def by_workload(records):
    out = {}
    for r in records:
        if r["type"] == "measurement":
            out.setdefault(r["workload"], []).append(r)
    return out


def run_mix(args, np, env=None):
    began = time.monotonic()
    run_sonde(["mix", *args], np=np, env=env)
    return time.monotonic() - began


def shimmed(test):
    """Marks a test whose launch preloads the fault shim (not in the ASan leg)."""
    for mark in NEEDS_SHIM:
        test = mark(test)
    return test


@shimmed
def test_btio_and_mpiio_phases_overlap(tmp_path):
    """A btio group (write then read back) beside an mpiio group (write then read): both
    phases of each on the mix's clock, and a mix record for a window both groups were in."""
    results = tmp_path / "r.jsonl"
    env = {"LD_PRELOAD": str(SHIM), "SONDE_FAULT_DIR": str(tmp_path),
           "SONDE_FAULT_DELAY_US": "20000"}
    seconds = run_mix(["--json", results, "--group", "1:", "btio", "--mode", "rw", "--method", 1,
                       "--dumps", 4, "--grid", "8x8x8", "--dir", tmp_path, "--group", "1:",
                       "mpiio", "-type", 1, "-nobj", 8, "-size", "8K", "-target",
                       tmp_path / "m.%r"], np=2, env=env)
    records = read_jsonl(results)
    measured = by_workload(records)
    for workload in ("btio", "mpiio"):
        assert [m["phase"] for m in measured[workload]] == ["write", "read"]
        spans_in_order(measured[workload], seconds, records)
    # the windows, recomputed: where a phase of one group meets a phase of the other
    btio, mpiio = measured["btio"], measured["mpiio"]
    expected = sorted((max(a["start"], b["start"]), min(a["end"], b["end"]), a["phase"],
                       b["phase"]) for a in btio for b in mpiio
                      if max(a["start"], b["start"]) < min(a["end"], b["end"]))
    mixes = [r for r in records if r["type"] == "mix"]
    assert expected and [(r["start"], r["end"], *[g["phase"] for g in r["groups"]])
                         for r in mixes] == expected
    for r in mixes:
        assert [g["workload"] for g in r["groups"]] == ["btio", "mpiio"]
        for g, m in zip(r["groups"], (btio, mpiio), strict=True):
            (phase,) = [p for p in m if p["phase"] == g["phase"]]
            assert (g["phase_start"], g["phase_end"]) == (phase["start"], phase["end"])


def test_coll_loops_are_on_the_mix_clock(tmp_path):
    """coll alone in a mix: each measured loop (one operation and size) has its span, one after
    the other, and each is a window of the mix (the only group was in it)."""
    results = tmp_path / "r.jsonl"
    seconds = run_mix(["--json", results, "--group", "2:", "coll", "-e", 0, "-i", 20, "Barrier",
                       "Bcast"], np=2)
    records = read_jsonl(results)
    measured = by_workload(records)["coll"]
    assert [m["phase"] for m in measured] == ["Barrier", "Bcast"]
    spans_in_order(measured, seconds, records)
    windows = [(r["start"], r["end"]) for r in records if r["type"] == "mix"]
    assert windows == [(m["start"], m["end"]) for m in measured]
